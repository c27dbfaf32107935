"""The 5.x timer store read from bytes laid out by hand from the spec (§9.2-9.4): timerlog units and the
segment-end blank, the wheel's slots, timercheck; recovery-style stops at a bad unit."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np
import pytest
from external_tools import NUMBA, need

from inspector.engine.present.timerviews import (
    timer_chain_view,
    timer_slot_views,
    timer_unit_lines,
    timer_unit_view,
)
from inspector.engine.read.store.answers import open_timer
from inspector.engine.read.store.store import Store
from inspector.engine.read.timer.timerstore import (
    SLOT_DTYPE,
    UNIT_DTYPE,
    TimerLog,
    read_timer_check,
    read_wheel,
)
from parsers.timer import TimerLogUnit, TimerWheelSlot

sys.path.insert(0, str(Path(__file__).parents[4]))
from timer_store import FILE_SIZE, T0, WHEEL, unit  # noqa: E402
from timer_store import make_timer_store as make_store  # noqa: E402


def test_dtypes_equal_the_schemas() -> None:
    values = dict(size=52, prev_pos=-1, magic=5, current_write_time=T0, delay=1234, commitlog_offset=1 << 40,
                  size_of_message=300, real_topic_hash=-17, reserved=0)
    row = np.frombuffer(TimerLogUnit.build(values), dtype=UNIT_DTYPE)[0]
    assert UNIT_DTYPE.itemsize == 52 and SLOT_DTYPE.itemsize == 32
    assert [int(row[n]) for n in UNIT_DTYPE.names] == list(values.values())
    slot_values = dict(time_in_precision=T0 // 1000, first_pos=52, last_pos=104, num=2, magic=0)
    s = np.frombuffer(TimerWheelSlot.build(slot_values), dtype=SLOT_DTYPE)[0]
    assert [int(s[n]) for n in SLOT_DTYPE.names] == list(slot_values.values())


def test_units_across_a_segment_end_blank(tmp_path) -> None:
    root = make_store(tmp_path / "s")
    units = TimerLog(root, FILE_SIZE).units()
    assert units.offset.tolist() == [0, 52, 104, FILE_SIZE]
    assert units.units["commitlog_offset"].tolist() == [0, 200, 410, 615]
    assert units.end == FILE_SIZE + 52
    assert units.problems == ()


def test_a_bad_magic_stops_the_log_as_recovery_does(tmp_path) -> None:
    bad = unit(-1, 0x31, T0, 1, 615, 220, "Pay") + unit(-1, 1, T0, 1, 900, 220, "Pay")
    root = make_store(tmp_path / "s", second=bad)
    units = TimerLog(root, FILE_SIZE).units()
    assert len(units) == 3 and units.end == FILE_SIZE
    (p,) = units.problems
    assert (p.file, p.offset, p.code) == (f"timerlog/{FILE_SIZE:020d}", 0, "timer-bad-unit")
    assert "0x31" in p.reason


def test_a_torn_unit_is_named(tmp_path) -> None:
    root = make_store(tmp_path / "s", second=struct.pack(">iqi", 52, -1, 1))  # 16 bytes written of 52
    units = TimerLog(root, FILE_SIZE).units()
    assert [(p.offset, p.code) for p in units.problems] == [(0, "timer-torn-unit")]


def test_wheel_slots_and_sizes(tmp_path) -> None:
    root = make_store(tmp_path / "s")
    wheel = read_wheel(root)
    assert wheel.problems == () and wheel.size == WHEEL
    assert wheel.index.tolist() == sorted([(T0 // 1000 + 5) % 1_209_600, (T0 // 1000 + 9) % 1_209_600])
    (root / "timerwheel").write_bytes(b"")
    assert read_wheel(root).problems == ()  # not yet sized: accepted, as TimerWheel does
    (root / "timerwheel").write_bytes(bytes(1000))
    (p,) = read_wheel(root).problems
    assert (p.file, p.offset, p.code) == ("timerwheel", 0, "timerwheel-size")


def test_a_sparse_wheel_reads_as_the_same_wheel_written_out(tmp_path) -> None:
    """read_wheel looks only at the wheel's allocated extents: a slot at either end of the file, one in the
    middle (in extents of their own in the sparse copy) and the same bytes written densely give the same slots."""
    from inspector.engine.read.commitlog.mapped import data_extents

    root = make_store(tmp_path / "s")
    path = root / "timerwheel"
    slots = {0: 11, 600_000: 600_000 + 1_209_600, 1_209_599: 1_209_599}  # slot -> time (x precision) it holds
    written = np.frombuffer(path.read_bytes(), dtype=SLOT_DTYPE)
    path.unlink()
    with open(path, "wb") as f:  # the broker's setLength: a hole, then the slots written into it
        f.truncate(WHEEL)
        for slot in np.flatnonzero(written["time"]):
            f.seek(int(slot) * 32)
            f.write(written[slot].tobytes())
        for slot, time_ in slots.items():
            f.seek(slot * 32)
            f.write(struct.pack(">qqqii", time_, 52, 52, 1, 0))
    sparse = read_wheel(root)
    extents = data_extents(path)
    dense = tmp_path / "dense"
    dense.mkdir()
    (dense / "timerwheel").write_bytes(path.read_bytes())  # zeros written out: every page allocated
    assert extents is None or len(extents) >= 2  # the file system keeps the holes (else both reads see it all)
    assert data_extents(dense / "timerwheel") in (None, [(0, WHEEL)])
    assert set(slots) <= set(sparse.index.tolist())
    assert sparse.index.tolist() == read_wheel(dense).index.tolist()
    assert sparse.slots.tobytes() == read_wheel(dense).slots.tobytes()


def test_timercheck_fields_and_a_short_file(tmp_path) -> None:
    root = make_store(tmp_path / "s")
    check, problems = read_timer_check(root)
    assert problems == []
    assert (check.last_read_time_ms, check.last_timer_log_flush_pos, check.last_timer_queue_offset,
            check.master_timer_queue_offset, check.data_version_counter) == (T0 + 6000, 156, 4, 4, 7)
    (root / "config" / "timercheck").write_bytes(struct.pack(">4q", 1, 2, 3, 4))
    check, problems = read_timer_check(root)
    assert check.last_timer_queue_offset == 3 and check.data_version_counter is None
    assert [(p.file, p.offset, p.code) for p in problems] == [("config/timercheck", 32, "timercheck-short")]


def test_topics_chains_and_rows(tmp_path) -> None:
    root = make_store(tmp_path / "s")
    with Store(root) as store:
        timer = open_timer(store)
        assert timer.metrics() == {"Orders": 1, "Pay": 0}
        first = timer_unit_view(timer, 0)
        assert (first["topic"], first["delivery_time"], first["pending"], first["record"]) == ("Orders", T0 + 5000,
                                                                                             False, None)
        assert "outside the commitlog" in first["record_problem"]
        slot5 = (T0 // 1000 + 5) % 1_209_600
        chain = timer.walk(slot5)
        assert [h.log_offset for h in chain.hops] == [104, 0] and chain.counted == 2 and chain.num == 0
        assert timer_chain_view(timer, chain)["num_matches"] is False
        assert [s["num"] for s in timer_slot_views(timer)] == [0, 1]
        import json

        lines = [json.loads(line) for line in timer_unit_lines(timer)]
        assert [x["offset"] for x in lines] == [0, 52, 104, FILE_SIZE]
        assert lines[3]["magic_names"] == ["DEFAULT", "DELETE"]
        assert lines[1]["pending"] is True and lines[1]["delivery_date"] == "2023-11-14T22:13:29.000Z"
        assert {k: v for k, v in lines[2].items() if k != "record_problem"} == {
            **{k: v for k, v in timer_unit_view(timer, 2).items() if k in lines[2] and k != "record_problem"}}


@pytest.mark.parametrize("size", [0, WHEEL])
def test_no_finding_for_an_accepted_wheel(tmp_path, size) -> None:
    root = make_store(tmp_path / "s", wheel_size=size)
    with Store(root) as store:
        assert [p.code for p in open_timer(store).problems()] == []


def test_the_compiled_lines_equal_the_python_ones(tmp_path) -> None:
    import json

    from inspector.engine.present import timerviews
    from inspector.engine.scan.kernels import python_only

    need(NUMBA)
    root = make_store(tmp_path / "s")
    with Store(root) as store:
        timer = open_timer(store)
        whole = timerviews._Whole(timer, 0, 4)
        ints, strings = timerviews._columns(timer, whole, 0, 4)
        from inspector.engine.scan.kernels import compiled

        fast = bytes(timerviews._kernel_text(compiled(), ints, strings, 4)).decode()
        with python_only():
            slow = b"".join(timerviews.timer_unit_chunks(timer)).decode()
        assert fast == slow
        assert "\n".join(timerviews.timer_unit_lines(timer)) + "\n" == slow  # kernels loaded: a memoryview each
        assert [json.loads(line) for line in slow.splitlines()][1]["offset"] == 52


def test_timercheck_reading_equals_the_schema(tmp_path) -> None:
    from parsers.checkpoint import TimerCheckpoint

    root = make_store(tmp_path / "s")
    check, _ = read_timer_check(root)
    parsed = TimerCheckpoint.parse((root / "config" / "timercheck").read_bytes())
    assert (check.last_read_time_ms, check.last_timer_log_flush_pos, check.last_timer_queue_offset,
            check.master_timer_queue_offset, check.state_version, check.data_version_timestamp,
            check.data_version_counter) == (parsed.last_read_time_ms, parsed.last_timer_log_flush_pos,
                                            parsed.last_timer_queue_offset, parsed.master_timer_queue_offset,
                                            parsed.state_version, parsed.data_version_timestamp,
                                            parsed.data_version_counter)


def test_a_torn_last_unit_of_a_running_broker_is_the_unit_being_written(tmp_path) -> None:
    root = make_store(tmp_path / "s", second=struct.pack(">iqi", 52, -1, 1))  # 16 bytes written of 52
    (p,) = TimerLog(root, FILE_SIZE, live=True).units().problems
    assert (p.offset, p.code, p.severity) == (0, "timer-unit-being-written", "warning")


def test_the_record_msg_id_is_the_messages(tmp_path) -> None:
    from inspector.engine.present.timerviews import _msg_id

    sys.path.insert(0, str(Path(__file__).parents[4]))
    from timer_store import write_timer_store

    results = write_timer_store(tmp_path / "s")
    with Store(tmp_path / "s") as store:
        for r in results:
            msg = store.message_at(r.physical_offset)
            assert _msg_id(msg) == msg.msg_id == r.msg_id


def test_a_session_sees_units_written_since(tmp_path) -> None:
    """open_timer keeps the timer store on the Store while its files are unchanged, and reads it again when the
    broker has written (a TUI or web session on a live broker)."""
    import os

    root = make_store(tmp_path / "s")
    with Store(root) as store:
        first = open_timer(store)
        assert open_timer(store) is first and len(first.units()) == 4
        second_file = root / "timerlog" / f"{FILE_SIZE:020d}"
        raw = bytearray(second_file.read_bytes())
        raw[52:104] = unit(-1, 1, T0 + 3000, 1000, 900, 220, "Pay")
        second_file.write_bytes(bytes(raw))
        st = second_file.stat()
        os.utime(second_file, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a coarse clock: still newer
        again = open_timer(store)
        assert again is not first and len(again.units()) == 5
        assert open_timer(store) is again


def test_an_empty_timer_log_file_gives_no_size_to_divide_by(tmp_path) -> None:
    """Issue 35: max(file sizes) was 0 and ``start % 0`` raised; the broker's default size is taken instead."""
    (tmp_path / "timerlog").mkdir()
    (tmp_path / "timerlog" / f"{0:020d}").write_bytes(b"")
    log = TimerLog(tmp_path)
    units = log.units()
    assert log.file_size == 100 << 20 and len(units.units) == 0
    assert [p.code for p in units.problems] == ["timerlog-size"]


def _default_size_log(root: Path, *, tail: bytes = b"", dense: bool = False) -> Path:
    """``root/timerlog/0``: three units in a 100 MiB file sized as the broker sizes it (setLength: a hole after
    them), ``tail`` written at its very end; ``dense``: the same bytes written out (every page allocated)."""
    from parsers.timer import TIMER_LOG_DEFAULT_FILE_SIZE as SIZE

    (root / "timerlog").mkdir(parents=True)
    units = (unit(-1, 1, T0, 5000, 0, 200, "Orders") + unit(-1, 1, T0, 9000, 200, 210, "Orders")
             + unit(0, 1, T0 + 1000, 4000, 410, 205, "Pay"))
    path = root / "timerlog" / f"{0:020d}"
    with open(path, "wb") as f:
        if dense:
            f.write(units.ljust(SIZE - len(tail), b"\0") + tail)
        else:
            f.write(units)
            f.truncate(SIZE)
            f.seek(SIZE - len(tail))
            f.write(tail)
    return root


@pytest.mark.parametrize("tail", [b"", b"\x07" * 52], ids=["zeros", "garbage-at-the-end"])
def test_a_sparse_default_size_timer_log_is_read_as_far_as_its_data(tmp_path, tail) -> None:
    """A 100 MiB timer log holding three units: the units up to the first hole decide, the zeros after them are
    looked up, not read (it was read whole: ~80 MB of page faults in every verify); the same findings as the
    file written out, garbage at its end included."""
    import resource

    from inspector.engine.read.commitlog.mapped import data_extents

    sparse = _default_size_log(tmp_path / "sparse", tail=tail)
    dense = _default_size_log(tmp_path / "dense", tail=tail, dense=True)
    if data_extents(sparse / "timerlog" / f"{0:020d}") in (None, [(0, 104857600)]):
        pytest.skip("the file system keeps no holes")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    units = TimerLog(sparse).units()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert faults < 400, faults  # pages touched (the whole file: over 3,000 with the kernel's fault-around)
    written = TimerLog(dense).units()
    assert units.units.tobytes() == written.units.tobytes() and len(units) == 3
    assert units.end == written.end == 156
    assert [(p.offset, p.code) for p in units.problems] == [(p.offset, p.code) for p in written.problems]
    assert [p.code for p in units.problems] == (["timer-bad-unit"] if tail else [])
