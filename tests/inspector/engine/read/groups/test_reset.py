"""``offsets plan``'s engine (issue 32 item 3): the offset a reset picks on a store with known store times, checked
against offsets worked out by hand from how the store was written (5.3.1 ConsumeQueue.getOffsetInQueueByTime with
BoundaryType.LOWER: the first unit stored at or after the time; clamped to [min, max]), replay and skip counts,
Broker2Client.resetOffset's isForce=false, AdminBrokerProcessor.resetOffsetInner's range check, and the new file's
bytes (the store's own file with one entry changed and dataVersion moved on)."""

from __future__ import annotations

import pytest

from inspector.engine import BadInput, NotFound, Store, plan_offsets, write_offsets_file
from inspector.engine.maintain.offsets.offsetsfile import new_offsets_text
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from parsers.fastjson import dumps, loads
from tests.offsets_support import T0, offsets_store, v1_offsets_db

Q0 = [0, 10, 20, 20, 20, 30, 40]  # queue 0's store times (T0 + these): three at 20
Q1 = [5, 15, 25]


@pytest.fixture(scope="module")
def store_root(tmp_path_factory):
    """Group g on T: queue 0 committed 5 (max 7), queue 1 committed 1 (max 3); other group h on T queue 0."""
    root = tmp_path_factory.mktemp("reset") / "store"
    with StoreWriter(root, clock=lambda: T0, consumer_offsets={("T", "g"): {0: 5, 1: 1}, ("T", "h"): {0: 2}}) as w:
        for t in sorted([(t, 0) for t in Q0] + [(t, 1) for t in Q1]):
            w.append(MessageSpec(topic="T", queue_id=t[1], body=b"m", store_timestamp=T0 + t[0]))
    return root


def _picked(root, **kw) -> dict[int, tuple[int, int, int, int]]:
    with Store(root) as s:
        plan = plan_offsets(s, "g", **kw)
    return {q.queue_id: (q.picked, q.new, q.replay, q.skip) for q in plan.queues}


@pytest.mark.parametrize(("at", "expected"), [
    (20, {0: (2, 2, 3, 0), 1: (2, 2, 0, 1)}),  # an exact time held by three units: the first of them (LOWER)
    (21, {0: (5, 5, 0, 0), 1: (2, 2, 0, 1)}),  # between units: the next one
    (3, {0: (1, 1, 4, 0), 1: (0, 0, 1, 0)}),  # before queue 1's first: its min
    (0, {0: (0, 0, 5, 0), 1: (0, 0, 1, 0)}),  # queue 0's first exactly
    (100, {0: (7, 7, 0, 2), 1: (3, 3, 0, 2)}),  # after the last: the max offset (the same as --to-end)
])
def test_at_picks_the_first_unit_stored_at_or_after(store_root, at, expected):
    assert _picked(store_root, at=T0 + at) == expected


def test_to_end_and_to_offset(store_root):
    assert _picked(store_root) == {0: (7, 7, 0, 2), 1: (3, 3, 0, 2)}
    assert _picked(store_root, offset=4, topic="T", queue_id=0) == {0: (4, 4, 1, 0)}
    assert _picked(store_root, offset=8, topic="T", queue_id=0) == {0: (8, 8, 0, 3)}  # max + 1: the broker allows it


def test_backward_only_keeps_a_committed_offset_not_ahead(store_root):
    with Store(store_root) as s:
        plan = plan_offsets(s, "g", at=T0 + 20, force=False)
    q0, q1 = plan.queues
    assert (q0.picked, q0.new) == (2, 2)  # picked < committed 5: moved back
    assert (q1.picked, q1.new, q1.skip) == (2, 1, 0) and "kept" in q1.note  # picked 2 >= committed 1: kept


@pytest.mark.parametrize(("kw", "words"), [
    ({"at": T0 - 1}, "before the first message of every queue"),
    ({"offset": 9, "topic": "T", "queue_id": 0}, "not in T queue 0's range [0-7]"),
    ({"offset": 1}, "give --topic and --queue"),
    ({"at": T0, "topic": "Other"}, "no committed offset on topic Other"),
])
def test_refusals(store_root, kw, words):
    with Store(store_root) as s, pytest.raises(BadInput, match=words.replace("[", r"\[").replace("]", r"\]")):
        plan_offsets(s, "g", **kw)


def test_unknown_group(store_root):
    with Store(store_root) as s, pytest.raises(NotFound):
        plan_offsets(s, "nobody")


def test_new_file_is_the_store_file_with_the_group_changed(store_root, tmp_path):
    original = (store_root / "config" / "consumerOffset.json").read_text()
    with Store(store_root) as s:
        plan = plan_offsets(s, "g", at=T0 + 20)
        text, form, note = new_offsets_text(s, plan, now_ms=T0 + 999)
        written = write_offsets_file(s, plan, tmp_path / "new.json")
    value = loads(original)
    value["offsetTable"]["T@g"] = {0: 2, 1: 2}
    value["dataVersion"] = {**value["dataVersion"], "counter": value["dataVersion"]["counter"] + 1,
                            "timestamp": T0 + 999}
    assert (text, form, note) == (dumps(value), "consumerOffset.json", None)
    assert loads((tmp_path / "new.json").read_text())["offsetTable"] == value["offsetTable"]
    assert (written.form, written.changed) == ("consumerOffset.json", 2)
    assert (store_root / "config" / "consumerOffset.json").read_text() == original  # the store untouched


def test_out_existing_or_inside_the_store_refused(store_root, tmp_path):
    (tmp_path / "new.json").write_text("keep")
    with Store(store_root) as s:
        plan = plan_offsets(s, "g")
        with pytest.raises(BadInput, match="exists"):
            write_offsets_file(s, plan, tmp_path / "new.json")
        with pytest.raises(BadInput, match="inside the store"):
            write_offsets_file(s, plan, store_root / "config" / "x.json")
        write_offsets_file(s, plan, tmp_path / "new.json", force=True)
    assert loads((tmp_path / "new.json").read_text())["offsetTable"]["T@g"] == {0: 7, 1: 3}
    assert not (store_root / "config" / "x.json").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["new.json"]  # no part file left


def test_lmq_offsets_written_in_their_own_file(tmp_path):
    root = tmp_path / "lmq"
    with StoreWriter(root, clock=lambda: T0, enable_lmq=True, consumer_offsets={("T", "g"): {0: 1}}) as w:
        for i in range(3):
            w.append(MessageSpec("T", b"x", store_timestamp=T0 + i, lmq_queues=["%LMQ%a"]))
    with Store(root) as s:
        plan = plan_offsets(s, "g", at=T0 + 2)
        text, form, note = new_offsets_text(s, plan, now_ms=T0)
    assert (plan.source, form, note) == ("config/lmqConsumerOffset.json", "lmqConsumerOffset.json", None)
    assert loads(text)["offsetTable"]["T@g"] == {0: 2}


def test_rocksdb_offsets_written_in_the_json_form_and_said(tmp_path):
    root = offsets_store(tmp_path / "rdb")
    v1_offsets_db(root, {"TopicTest@g1": b'{"offsetTable":{0:1}}'})
    with Store(root) as s:
        plan = plan_offsets(s, "g1", at=T0 + 3)
        text, form, note = new_offsets_text(s, plan, now_ms=T0)
    assert plan.source == "config/consumerOffsets" and form == "consumerOffset.json"
    assert "RocksDB" in note and "cannot write" in note
    assert loads(text)["offsetTable"] == {"TopicTest@g1": {0: 3}}


def test_after_the_last_message_is_noted_and_backward_only_takes_no_offset(store_root):
    with Store(store_root) as s:
        assert any("the same as --to-end" in n for n in plan_offsets(s, "g", at=T0 + 100).notes)
        assert plan_offsets(s, "g", at=T0 + 20).notes == []
        with pytest.raises(BadInput, match="--backward-only"):
            plan_offsets(s, "g", offset=1, topic="T", queue_id=0, force=False)


def test_an_lmq_group_offset_is_written_in_lmq_offset_table(tmp_path):
    root = tmp_path / "lmq"
    lmq = "%LMQ%a"
    with StoreWriter(root, clock=lambda: T0, enable_lmq=True,
                     consumer_offsets={(lmq, lmq): {0: 0}, ("T", "g"): {0: 0}}) as w:
        for i in range(3):
            w.append(MessageSpec("T", b"x", store_timestamp=T0 + i, lmq_queues=[lmq]))
    original = loads((root / "config" / "lmqConsumerOffset.json").read_text())
    assert f"{lmq}@{lmq}" in original["lmqOffsetTable"]
    with Store(root) as s:
        plan = plan_offsets(s, lmq)
        text, form, _ = new_offsets_text(s, plan, now_ms=T0)
    value = loads(text)
    assert form == "lmqConsumerOffset.json" and value["lmqOffsetTable"][f"{lmq}@{lmq}"] == 3
    assert value["offsetTable"] == original["offsetTable"]


@pytest.mark.parametrize(("at", "expected"), [
    (21, {0: 4, 1: 2}),  # between units: the nearer (q0: 20 at offset 4, the one the search met; q1: 25 over 15)
    (20, {0: 3, 1: 1}),  # an exact time: the unit the search meets (3 of 2-4); q1 a tie 15/25: the earlier
    (100, {0: 6, 1: 2}),  # after the last: the last unit, not the max
    (3, {0: 0, 1: 0}),  # q1: every unit after the time: its first
])
def test_nearest_follows_4_9_8(store_root, at, expected):
    with Store(store_root) as s:
        plan = plan_offsets(s, "g", at=T0 + at, nearest=True)
    assert {q.queue_id: q.picked for q in plan.queues} == expected


def test_nearest_searches_one_consume_queue_file(tmp_path):
    """Three units a file: the time 20 is at or before file 0's last unit (offset 2, stored at 20), so 4.9.8
    searches only file 0 and meets offset 2 (one file holding all seven units would meet 3)."""
    from inspector.engine import Geometry

    root = tmp_path / "small-cq"
    with StoreWriter(root, Geometry(cq_file_size=60), clock=lambda: T0,
                     consumer_offsets={("T", "g"): {0: 5}}) as w:
        for t in Q0:
            w.append(MessageSpec(topic="T", body=b"m", store_timestamp=T0 + t))
    with Store(root) as s:
        assert [q.picked for q in plan_offsets(s, "g", at=T0 + 20, nearest=True).queues] == [2]
        assert [q.picked for q in plan_offsets(s, "g", at=T0 + 21, nearest=True).queues] == [4]
        with pytest.raises(BadInput, match="goes with --at"):
            plan_offsets(s, "g", nearest=True)
