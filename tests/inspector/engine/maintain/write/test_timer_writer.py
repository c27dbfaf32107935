"""The writer's 5.x timer store: timer messages become rmq_sys_wheel_timer records, timerlog units, wheel slots,
timercheck and timermetrics; due timers get their delivered copy, pending ones do not; DELETE timers cancel;
ROLL units re-put. Read back with our reader AND checked against bytes computed by hand from the spec (§9.2-9.4:
literal field values packed in the test), so the writer is not checked only by our own reader."""

from __future__ import annotations

import struct

import pytest

from inspector.engine.maintain.verify.verify import verify
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.errors import BadInput
from inspector.engine.read.store.answers import open_timer
from inspector.engine.read.store.store import Store

T = 1_700_000_000_500
ORDERS_HASH = -1924903163  # "Orders".hashCode() in Java


def write(root, *specs: MessageSpec, **kw) -> list:
    with StoreWriter(root, **kw) as w:
        return [w.append(s) for s in specs]


@pytest.fixture(scope="module")
def timer_store(tmp_path_factory):
    root = tmp_path_factory.mktemp("timer-writer") / "store"
    results = write(root,
                    MessageSpec("Orders", b"due soon", keys=["a"], deliver_ms=T + 3000, store_timestamp=T),
                    MessageSpec("Orders", b"pending", keys=["b"], deliver_ms=T + 60_000, store_timestamp=T + 10),
                    MessageSpec("Pay", b"plain", store_timestamp=T + 20),
                    MessageSpec("Pay", b"later", store_timestamp=T + 10_000))
    return root, results


def test_units_slots_and_timercheck_are_the_bytes_the_spec_gives(timer_store) -> None:
    root, results = timer_store
    due, pending = results[0], results[1]
    assert (due.topic, due.queue_id, pending.queue_offset) == ("rmq_sys_wheel_timer", 0, 1)
    log = (root / "timerlog" / "00000000000000000000").read_bytes()
    assert len(log) == 104_857_600  # mappedFileSizeTimerLog
    # size, prev pos, magic DEFAULT, write time (store time rounded down to 1 s), delay, offset, size, hash, 0
    assert log[:52] == struct.pack(">iqiqiqiiq", 52, -1, 1, 1_700_000_000_000, 3000, 0, 277, ORDERS_HASH, 0)
    assert log[52:104] == struct.pack(">iqiqiqiiq", 52, -1, 1, 1_700_000_000_000, 60_000, 277, 276, ORDERS_HASH, 0)
    assert not any(log[104:4096])
    wheel = (root / "timerwheel").read_bytes()
    assert len(wheel) == 38_707_200
    # slot of TIMER_OUT_MS 1_700_000_003_000: (t / 1000) % 1,209,600 = 1_700_000_003 % 1_209_600 = 512_003
    assert wheel[512_003 * 32:512_004 * 32] == struct.pack(">qqqii", 1_700_000_003, 0, 0, 1, 0)
    assert wheel[512_060 * 32:512_061 * 32] == struct.pack(">qqqii", 1_700_000_060, 52, 52, 1, 0)
    check = (root / "config" / "timercheck").read_bytes()
    # read time: now (last store time 1_700_000_010_500) rounded down; flush pos 104; queue offsets 2; version
    assert check == struct.pack(">7q", 1_700_000_010_000, 104, 2, 2, 0, 1_700_000_010_500, 1) + bytes(4040)


def test_timer_records_carry_what_hookutils_sets(timer_store) -> None:
    root, results = timer_store
    with Store(root) as store:
        record = store.message_at(results[0].physical_offset)
        assert record.topic == "rmq_sys_wheel_timer"
        assert record.properties["TIMER_DELIVER_MS"] == str(T + 3000)
        assert record.properties["TIMER_OUT_MS"] == "1700000003000"  # rounded down to the precision
        assert (record.properties["REAL_TOPIC"], record.properties["REAL_QID"]) == ("Orders", "0")


def test_a_due_timer_is_delivered_a_pending_one_is_not(timer_store) -> None:
    root, results = timer_store
    with Store(root) as store:
        orders = [m for _, m in store.queue_messages("Orders", 0)]
        assert [m.body for m in orders] == [b"due soon"]
        copy = orders[0]
        assert copy.unique_key == results[0].unique_key
        assert "REAL_TOPIC" not in copy.properties and "REAL_QID" not in copy.properties
        assert copy.properties["TIMER_ENQUEUE_MS"] == "1700000000000"  # the unit's write time
        assert copy.properties["TIMER_DEQUEUE_MS"] == "1700000004000"  # its slot's time + one precision step
        assert copy.store_timestamp == 1_700_000_004_000
        timer = open_timer(store)
        assert timer.pending_mask().tolist() == [False, True]
        assert timer.metrics() == {"Orders": 1}
        assert verify(store).problems == ()


def test_a_delete_timer_cancels_its_timer_in_the_same_slot(tmp_path) -> None:
    first = MessageSpec("Orders", b"cancel me", deliver_ms=T + 5000, store_timestamp=T, unique_key="A" * 32)
    delete = MessageSpec("Orders", b"", deliver_ms=T + 5000, store_timestamp=T + 1,
                         properties={"TIMER_DEL_UNIQKEY": "A" * 32})
    write(tmp_path / "s", first, delete, timer_now=T + 20_000)
    with Store(tmp_path / "s") as store:
        assert ("Orders", 0) not in store.queue_ids()  # cancelled: no delivered copy
        timer = open_timer(store)
        assert [int(m) for m in timer.units().units["magic"]] == [1, 5]
        chain = timer.walk(timer.slot_of_time(1_700_000_005_000))
        assert (chain.num, chain.counted, len(chain.hops)) == (0, 0, 2)
        assert verify(store).problems == ()


def test_a_timer_past_the_roll_window_is_rolled_and_delivered(tmp_path) -> None:
    day = 86_400_000
    spec = MessageSpec("Orders", b"far", deliver_ms=T + 2 * day + day // 2, store_timestamp=T)
    write(tmp_path / "s", spec, timer_now=T + 3 * day)
    with Store(tmp_path / "s") as store:
        timer = open_timer(store)
        magics = [int(m) for m in timer.units().units["magic"]]
        assert magics == [3, 1]  # DEFAULT|ROLL parked 2 days ahead, then the re-put record's own unit
        rolled = [m for _, m in store.queue_messages("rmq_sys_wheel_timer", 0)][1]
        assert rolled.properties["TIMER_ROLL_TIMES"] == "1"
        assert [m.body for _, m in store.queue_messages("Orders", 0)] == [b"far"]
        assert verify(store).problems == ()


def test_bad_timers_are_refused(tmp_path) -> None:
    with pytest.raises(BadInput, match="timerMaxDelaySec"):
        write(tmp_path / "a", MessageSpec("Orders", b"", deliver_ms=T + 4 * 86_400_000, store_timestamp=T))
    with pytest.raises(BadInput, match="set by the writer"):
        write(tmp_path / "b", MessageSpec("Orders", b"", deliver_ms=T + 1000, store_timestamp=T,
                                          properties={"TIMER_OUT_MS": "1"}))
    with pytest.raises(BadInput, match="only for ordinary"):
        write(tmp_path / "c", MessageSpec("Orders", b"", deliver_ms=T + 1000, store_timestamp=T, delay_level=2))


def test_a_timer_already_due_is_stored_as_sent(tmp_path) -> None:
    (result,) = write(tmp_path / "s", MessageSpec("Orders", b"x", deliver_ms=T - 1, store_timestamp=T))
    assert result.topic == "Orders"
    assert not (tmp_path / "s" / "timerwheel").exists()  # no timer enqueued: no timer store written


def test_json_lines_take_deliver_ms() -> None:
    spec = MessageSpec.from_json({"topic": "Orders", "body": "x", "deliver_ms": T})
    assert spec.deliver_ms == T
    with pytest.raises(BadInput):
        MessageSpec.from_json({"topic": "Orders", "deliver_ms": "soon"})


def test_another_precision_is_written_inferred_and_read(tmp_path) -> None:
    from inspector.engine.model.broker_config import parse_broker_config
    from inspector.engine.read.timer.timerstore import effective_precision

    assert [effective_precision(v) for v in (1, 150, 200, 300, 999, 1000, 5000)] == [100, 100, 200, 200, 500, 1000,
                                                                                     1000]
    write(tmp_path / "s", MessageSpec("Orders", b"x", deliver_ms=T + 3250, store_timestamp=T),
          timer_precision_ms=300)  # runs as 200, as the broker's setter makes it
    wheel = (tmp_path / "s" / "timerwheel").read_bytes()
    out = 1_700_000_003_600  # T + 3250 = ...3750, rounded down to 200 ms
    assert wheel[out // 200 % 1_209_600 * 32:][:8] == struct.pack(">q", out // 200)
    with Store(tmp_path / "s") as store:
        timer = open_timer(store)
        assert (timer.settings.precision_ms, timer.settings.precision_source) == (200, "inferred")
        assert verify(store).problems == ()
    config = parse_broker_config("timerPrecisionMs=250\n", "broker.conf")
    with Store(tmp_path / "s", broker_config=config) as store:
        timer = open_timer(store)
        assert (timer.settings.precision_ms, timer.settings.precision_source) == (200, "broker.conf")
        assert timer.walk(out // 200 % 1_209_600).time_ms == out
