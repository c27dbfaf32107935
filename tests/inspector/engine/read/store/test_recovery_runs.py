"""The recovery walk takes clean runs whole (``CommitLog.segment_runs``), a large segment's runs on threads: it
must end where a record-by-record walk ends, clean or damaged (CommitLog.recoverNormally's checkMessageAndReturnSize:
the first record whose CRC or lengths fail ends the log)."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.engine import Store
from inspector.engine.read.store.answers import recover
from inspector.engine.scan.kernels import python_only
from tests.aged_store import write_store


def _recoveries(root: Path) -> list:
    out = []
    with Store(root) as store:
        out.append(recover(store, "abnormal"))  # from the first segment: every record walked
    with Store(root) as store, python_only():
        out.append(recover(store, "abnormal"))  # record by record, no kernel
    with Store(root) as store:
        # every segment counts as large: cut between two threads at clean record starts (parallel.threaded_runs)
        store.commitlog.PARALLEL_MIN_BYTES = 1
        store.commitlog.PARALLEL_CHUNK = 4096
        out.append(recover(store, "abnormal"))
    return out


@pytest.mark.parametrize("damage", [None, 900])
def test_the_runs_walk_ends_where_the_record_walk_ends(tmp_path: Path, damage: int | None) -> None:
    written = write_store(tmp_path)
    last = written[-1].physical_offset
    if damage is not None:  # a body byte of record `damage` flipped: its CRC fails, the log ends before it
        at = written[damage].physical_offset
        seg = [p for p in sorted((tmp_path / "commitlog").iterdir()) if int(p.name) <= at][-1]
        data = bytearray(seg.read_bytes())
        data[at - int(seg.name) + 130] ^= 0xFF  # inside the 100-byte body (after the ~96 header bytes)
        seg.write_bytes(bytes(data))
        last = written[damage - 1].physical_offset
    found = _recoveries(tmp_path)
    assert all(r == found[0] for r in found), found
    assert found[0].last_record_offset == last
    assert (found[0].stop_problem is None) == (damage is None)
