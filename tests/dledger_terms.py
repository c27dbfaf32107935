"""A copy of sample_store_dledger whose first index file flips terms 1, 2, 1, 2, ... at every unit (a damaged
index): 257 leader changes in the term timeline (the second file's units keep term 4)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "sample_store_dledger"
TERM_CHANGES = 257


def flipping_terms(root: Path) -> Path:
    shutil.copytree(SAMPLE, root)
    index = root / "dledger-n0" / "index" / "00000000000000000000"
    raw = bytearray(index.read_bytes())
    for n in range(256):
        struct.pack_into(">q", raw, n * 32 + 24, 1 + n % 2)
    index.write_bytes(bytes(raw))
    return root
