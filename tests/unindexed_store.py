"""Writer-made stores (tests/aged_store.py) with part of the log covered by no index file, as brokers leave them:

- ``drop_newest_index``: the newest index file deleted, as an abnormal start does (``IndexService.load`` with
  ``lastExitOK`` false destroys each file whose end timestamp is past the checkpoint's index time;
  apache/rocketmq#8007, #3868), the ``abort`` file left for the next start;
- ``empty_newest_index``: the newest index file holding no item (what ``new IndexFile`` writes before its first
  ``putKey``: begin = end = the previous file's end, indexCount 1, no slot used).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from inspector.engine import Store
from tests.aged_store import Written, write_store


def index_files(root: Path) -> list[Path]:
    return sorted((root / "index").iterdir())


def drop_newest_index(root: Path, abort: bool = True) -> Path:
    """Delete the newest index file (and leave the ``abort`` file when ``abort``); the path it had."""
    newest = index_files(root)[-1]
    newest.unlink()
    if abort:
        (root / "abort").write_bytes(b"")
    return newest


def empty_newest_index(root: Path) -> Path:
    """Rewrite the newest index file as one without items, its range the previous file's end."""
    files = index_files(root)
    prev = files[-2].read_bytes()[:40]
    _, end_ts, _, end_phy, _, _ = struct.unpack(">qqqqii", prev)
    newest = files[-1]
    size = newest.stat().st_size
    newest.write_bytes(struct.pack(">qqqqii", end_ts, end_ts, end_phy, end_phy, 0, 1) + bytes(size - 40))
    return newest


@dataclass(frozen=True)
class Unindexed:
    """A 1,500-record store (tests/aged_store.py) whose newest index file an abnormal start deleted."""

    root: Path
    written: list[Written]
    gap: str  # the range no index covers, as every answer writes it ("375,293..403,437")
    unique_key: str  # the last record's UNIQ_KEY (its record is in the gap)


def write_unindexed(root: Path) -> Unindexed:
    written = write_store(root)
    drop_newest_index(root)
    with Store(root) as s:
        (gap,) = s.index_coverage()[1]
        uniq = s.message_at(written[-1].physical_offset).unique_key
    assert uniq is not None
    return Unindexed(root, written, gap.text, uniq)
