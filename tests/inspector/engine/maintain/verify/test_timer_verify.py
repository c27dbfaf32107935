"""verify's timer-store checks, one finding each: a chain that loops, num against the chain, a unit whose delay
disagrees with its record's TIMER_OUT_MS, a unit whose record is of another size, a DELETE that cancels nothing,
timercheck's queue offset past the timer topic's queue. Each names its file and byte offset."""

from __future__ import annotations

import shutil
import struct
import sys
from pathlib import Path

import pytest

from inspector.engine.maintain.verify.timer import check_timer
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from inspector.engine.read.store.store import Store

sys.path.insert(0, str(Path(__file__).parents[4]))
from timer_store import T0, make_timer_store, write_timer_store  # noqa: E402

LOG = "timerlog/00000000000000000000"


def findings(root: Path) -> set[tuple[str, int, str, str]]:
    with Store(root) as store:
        return {(p.file, p.offset, p.code, p.severity) for p in check_timer(store)[0]}


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("timer-verify") / "store"
    write_timer_store(root)
    return root


def damaged(good: Path, tmp_path: Path, rel: str, position: int, data: bytes) -> Path:
    root = tmp_path / "store"
    shutil.copytree(good, root)
    with open(root / rel, "r+b") as f:
        f.seek(position)
        f.write(data)
    return root


def test_the_writer_store_is_clean(good) -> None:
    assert findings(good) == set()


def test_a_chain_that_loops(tmp_path) -> None:
    root = make_timer_store(tmp_path / "s")
    with open(root / LOG, "r+b") as f:  # unit 0 (the slot's oldest) points back at unit 104, the slot's newest
        f.seek(4)
        f.write(struct.pack(">q", 104))
    slot = (T0 // 1000 + 5) % 1_209_600
    assert ("timerwheel", slot * 32, "timer-chain-loop", "error") in findings(root)


def test_num_against_the_chain(tmp_path) -> None:
    root = make_timer_store(tmp_path / "s")  # slot 5's num is 0 while its chain holds two units
    slot = (T0 // 1000 + 5) % 1_209_600
    assert ("timerwheel", slot * 32 + 24, "timer-slot-num", "error") in findings(root)


def test_a_delay_that_disagrees_with_timer_out_ms(good, tmp_path) -> None:
    root = damaged(good, tmp_path, LOG, 52 + 24, struct.pack(">i", 59_000))  # unit 52: delay 60,000 -> 59,000
    assert (LOG, 52, "timer-out-mismatch", "error") in findings(root)


def test_a_record_of_another_size(good, tmp_path) -> None:
    root = damaged(good, tmp_path, LOG, 52 + 36, struct.pack(">i", 100))
    assert (LOG, 52, "timer-record-mismatch", "error") in findings(root)


def test_a_delete_that_cancels_nothing(tmp_path) -> None:
    t = 1_700_000_000_500
    with StoreWriter(tmp_path / "s", Geometry(segment_size=64 << 10, index_slots=64, index_items=256),
                     timer_file_size=52 * 20 + 16) as w:
        w.append(MessageSpec("Orders", b"", deliver_ms=t + 5000, store_timestamp=t,
                             properties={"TIMER_DEL_UNIQKEY": "B" * 32}))
    assert findings(tmp_path / "s") == {(LOG, 0, "timer-delete-unmatched", "warning")}


def test_timercheck_past_the_timer_queue(good, tmp_path) -> None:
    root = damaged(good, tmp_path, "config/timercheck", 16, struct.pack(">q", 99))
    assert ("config/timercheck", 16, "timercheck-queue-offset", "error") in findings(root)


def test_delivered_timers_of_a_cleaned_store_are_no_finding(good, tmp_path) -> None:
    """The broker deletes a timer-log file once every record it points at has expired (TimerMessageStore's
    cleaning task): chains of delivered slots then reach a file that is gone, and units may point before the
    commitlog's first offset. Neither is damage for a timer already delivered."""
    root = tmp_path / "store"
    shutil.copytree(good, root)
    log = (root / LOG).read_bytes()
    (root / LOG).unlink()  # pretend the first 52 bytes were a file of their own, deleted by the cleanup
    (root / "timerlog" / f"{52:020d}").write_bytes(log[52:])
    with Store(root) as store:
        from inspector.engine.read.store.answers import open_timer

        timer = open_timer(store)
        assert timer.units().start == 52 and timer.units().offset.tolist() == [52, 104]
        delivered = 1_700_000_003 % 1_209_600  # the delivered timer's slot: its only unit was in the deleted file
        assert timer.walk(delivered).expired
    assert {f for f in findings(root) if f[2] not in ("timerlog-name", "timerlog-size")} == set()


def test_a_first_pos_no_chain_ends_at(good, tmp_path) -> None:
    """Found by the mutation fuzzer: a slot's firstPos is where its chain ends (putSlot keeps it); the broker
    never reads it, so a warning at the field."""
    with Store(good) as store:
        from inspector.engine.read.store.answers import open_timer
        slot = next(open_timer(store).slot_numbers())
    root = damaged(good, tmp_path, "timerwheel", slot * 32 + 8, struct.pack(">q", 1))
    assert ("timerwheel", slot * 32 + 8, "timer-first-pos", "warning") in findings(root)


def test_a_negative_flush_pos(good, tmp_path) -> None:
    """TimerMessageStore.recover clamps a negative lastTimerLogFlushPos to 0: said, as a warning."""
    root = damaged(good, tmp_path, "config/timercheck", 8, struct.pack(">q", -5))
    assert ("config/timercheck", 8, "timercheck-flush-pos", "warning") in findings(root)
