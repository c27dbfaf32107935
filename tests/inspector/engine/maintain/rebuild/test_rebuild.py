"""Rebuild from the commitlog: byte-identical consume queues, item-for-item index files, recovery's end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from inspector.engine import BadInput, Store
from inspector.engine.maintain.rebuild.rebuild import broker_holds_lock, rebuild, rebuild_in_place
from inspector.engine.read.store.answers import recover


def _files(root: Path, sub: str) -> dict[str, bytes]:
    base = root / sub
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}


def _index_content(root: Path) -> list:
    with Store(root) as s:
        return [(r.header, [(i.number, i.key_hash, i.phy_offset, i.time_diff, i.prev_index) for i in r.items()],
                 [r.slot_value(n) for n in range(r.slot_count)]) for r in s.index_files()]


def test_rebuild_of_an_intact_store_reproduces_consume_queues_byte_for_byte(pristine_store, tmp_path):
    root, _ = pristine_store
    with Store(root) as store:
        result = rebuild(store, tmp_path / "out")
    assert _files(tmp_path / "out", "consumequeue") == _files(root, "consumequeue")
    assert result.messages == 44 and result.cq_units == 44


def test_rebuild_reproduces_index_files_item_for_item(pristine_store, tmp_path):
    root, _ = pristine_store
    with Store(root) as store:
        rebuild(store, tmp_path / "out")
    assert len(_index_content(root)) >= 2
    assert _index_content(tmp_path / "out") == _index_content(root)
    assert _files(tmp_path / "out", "index") == _files(root, "index")  # names reused, so even the bytes agree


def test_rebuild_never_writes_into_the_store(pristine_store, tmp_path):
    root, _ = pristine_store
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in root.rglob("*") if p.is_file()}
    with Store(root) as store:
        with pytest.raises(BadInput):
            rebuild(store, root / "inside")
        with pytest.raises(BadInput):
            rebuild(store, root)
        rebuild(store, tmp_path / "out")
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in root.rglob("*") if p.is_file()}
    assert after == before


def test_rebuild_refuses_a_non_empty_output_directory(pristine_store, tmp_path):
    root, _ = pristine_store
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x").write_text("keep me")
    with Store(root) as store, pytest.raises(BadInput):
        rebuild(store, tmp_path / "out")
    assert (tmp_path / "out" / "x").read_text() == "keep me"


def test_torn_tail_recovery_ends_before_it_and_rebuilt_queues_stop_there(store_copy, tmp_path):
    root, facts = store_copy
    seg = sorted((root / "commitlog").iterdir())[-1]
    last = facts["last"]
    pos = last - int(seg.name)
    data = bytearray(seg.read_bytes())
    data[pos + 40 : pos + 120] = bytes(80)  # the broker died while writing the last record
    seg.write_bytes(bytes(data))
    with Store(root) as store:
        rec = recover(store)
        assert rec.end_offset == last
        assert rec.stop_problem is not None and rec.stop_problem.offset == pos
        result = rebuild(store, tmp_path / "out")
    assert result.messages == 43
    with Store(root) as store:
        ends = [store.queue(t, q).info().max_physical_end for t, q in store.queue_ids()]
    rebuilt_max = 0
    for f in (tmp_path / "out" / "consumequeue").rglob("0000*"):
        raw = f.read_bytes()
        for i in range(0, len(raw), 20):
            phy, size = int.from_bytes(raw[i:i + 8], "big", signed=True), int.from_bytes(raw[i + 8:i + 12], "big")
            if size:
                rebuilt_max = max(rebuilt_max, phy + size)
    assert rebuilt_max <= last < max(ends)


def test_abnormal_recovery_is_chosen_by_the_abort_file(store_copy):
    root, _ = store_copy
    (root / "abort").write_bytes(b"12345")
    with Store(root) as store:
        assert not store.clean_shutdown
        rec = recover(store)
    assert rec.mode == "abnormal"
    assert rec.end_offset == Store(root).max_offset()


def test_in_place_rebuild_swaps_files_and_keeps_a_backup(store_copy):
    root, _ = store_copy
    original = _files(root, "consumequeue")
    (root / "consumequeue" / "OrderEvents" / "0" / "00000000000000000000").write_bytes(b"\0" * 200)  # damage
    with Store(root) as store:
        _, backup = rebuild_in_place(store)
    assert _files(root, "consumequeue") == original
    assert (backup / "consumequeue" / "OrderEvents" / "0" / "00000000000000000000").read_bytes() == b"\0" * 200
    assert not list(root.glob(".rmq-inspect-staging-*"))


def test_in_place_rebuild_refuses_while_a_broker_holds_the_lock(store_copy):
    root, _ = store_copy
    # a separate process takes the lock as DefaultMessageStore does (POSIX lock on byte 0)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl,os,sys,time; fd=os.open(sys.argv[1], os.O_RDWR); fcntl.lockf(fd, fcntl.LOCK_EX, 1, 0);"
         "print('locked', flush=True); time.sleep(30)", str(root / "lock")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert broker_holds_lock(root)
        before = _files(root, "consumequeue")
        with Store(root) as store, pytest.raises(BadInput, match="running broker"):
            rebuild_in_place(store)
        assert _files(root, "consumequeue") == before
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    assert not broker_holds_lock(root)
