"""Following a DLedger store's log (issue 19): complete entries are given once, an entry still being written is
waited at (not damage), the -1 end marker moves on to the next data file."""

from __future__ import annotations

import shutil
from pathlib import Path

from inspector.engine import Message, Store
from inspector.engine.read.commitlog.follow import Follower

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store_dledger"
LAST = "dledger-n0/data/00000000000000196608"


def _follower(root: Path, start: int) -> Follower:
    with Store(root) as store:
        log = store.commitlog
        return Follower(root, start, segment_size=log.segment_size, directories=log.folders,
                        entry_folders=log.entry_folders)


def test_follow_waits_at_an_entry_being_written_and_crosses_the_end_marker(tmp_path) -> None:
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root)
    with Store(root) as store:
        expected = [m.physical_offset for m in store.commitlog.entries(131_072 - 200) if isinstance(m, Message)]
        last = [m for m in store.commitlog.entries(196_608) if isinstance(m, Message)][-1]
    data = root / LAST
    whole = data.read_bytes()
    cut = last.position + last.total_size - 60  # the broker has written all but the last 60 bytes of the entry
    data.write_bytes(whole[:cut] + bytes(len(whole) - cut))
    follower = _follower(root, 131_072 - 200)
    first = [m for m in follower.poll()]
    assert all(isinstance(m, Message) for m in first)  # no damage reported: the tail is being written
    assert [m.physical_offset for m in first] == expected[:-1] and follower.waiting is not None
    data.write_bytes(whole)  # the broker finishes the entry
    assert [m.physical_offset for m in follower.poll()] == [last.physical_offset]
    assert last.raft_index == 301
