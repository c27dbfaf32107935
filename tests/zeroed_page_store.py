"""The sample store with one page of its first segment zeroed (bytes 4096..8192): a record cut in its middle,
the next ones gone, and the queue units and index items that point into them dangling (issue 33's damage)."""

from __future__ import annotations

import shutil
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "sample_store"
ZEROED = (4096, 8192)


def zeroed_page_store(dest: Path) -> tuple[Path, Path]:
    """A copy of the sample store at ``dest`` with ZEROED of its first segment zeroed; (root, that segment)."""
    root = Path(shutil.copytree(SAMPLE, dest))
    seg = sorted((root / "commitlog").iterdir())[0]
    data = bytearray(seg.read_bytes())
    data[ZEROED[0] : ZEROED[1]] = bytes(ZEROED[1] - ZEROED[0])
    seg.write_bytes(bytes(data))
    return root, seg
