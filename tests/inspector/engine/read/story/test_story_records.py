"""read/story/story.py through the face's ``story_of`` on stores our writer made with each scenario
(tests/story_store.py): each record's role and offsets, and each group's consumed-or-not, checked against the
values the store was made with; then the partial and bad answers (retention, a damaged copy, offsets files that
disagree, no index, a REF that names nothing)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.engine import BadInput, NotFound, open_store, story_of, story_view
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from tests.story_store import (
    BATCH_TOPIC,
    INNER,
    OFFSETS,
    T0,
    B,
    C,
    D,
    L,
    R,
    T,
    write_lmq_story_store,
    write_story_store,
)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("story") / "store"
    return root, write_story_store(root)


def roles(story) -> list[tuple[str, int | None, str]]:
    return [(r.role, r.physical_offset, r.topic) for r in story.records]


def test_retry_then_dead_letter_with_trace_records(made):
    root, at = made
    with open_store(root) as store:
        story = story_of(store, R)
    assert story.unique_key == R
    assert roles(story) == [
        ("original", at["original"], "TopicTest"),
        ("trace", at["pub"], "RMQ_SYS_TRACE_TOPIC"),  # the Pub's own time, T0 + 1
        ("trace", at["sub"], "RMQ_SYS_TRACE_TOPIC"), ("trace", at["sub"], "RMQ_SYS_TRACE_TOPIC"),
        ("retry-scheduled", at["parked1"], "SCHEDULE_TOPIC_XXXX"), ("retry", at["retry1"], "%RETRY%G"),
        ("retry-scheduled", at["parked2"], "SCHEDULE_TOPIC_XXXX"), ("retry", at["retry2"], "%RETRY%G"),
        ("dead-letter", at["dlq"], "%DLQ%G")]
    facts = [dict(r.facts) for r in story.records]
    # consumerSendMsgBack: delay level 3 + reconsume times, reconsume times + 1, the first record's offset msgId
    assert [f.get("delay level") for f in facts[4:]] == ["3", None, "4", None, None]
    assert [f["reconsume times"] for f in facts[4:]] == ["1", "1", "2", "2", "3"]
    assert {f["ORIGIN_MESSAGE_ID"] for f in facts[4:]} == {at["msg_id"]}
    assert {f["RETRY_TOPIC"] for f in facts[4:]} == {"TopicTest"} and facts[8]["group"] == "G"
    assert facts[4]["deliver time"].startswith(str(T0 + 100 + 10_000))  # level 3 is 10 s
    assert [r.trace.record.type for r in story.records[1:4]] == ["Pub", "SubBefore", "SubAfter"]
    assert story.records[0].rule.startswith("the producer's send") and "consumerSendMsgBack" in story.records[4].rule


def test_each_group_consumed_or_not_with_the_trace_of_its_delivery(made):
    root, _ = made
    with open_store(root) as store:
        story = story_of(store, R)
    rows = [(g.group, g.topic, g.queue_offset, g.committed, g.consumed, g.cost_ms, g.success) for g in story.groups]
    assert rows == [
        ("G", "TopicTest", 0, 5, True, 12, False),  # the SubAfter of the first delivery (retry_times 0)
        ("H", "TopicTest", 0, 0, False, None, None),  # behind the message
        ("G", "%RETRY%G", 0, 1, True, None, None),  # past the first retry copy
        ("G", "%RETRY%G", 1, 1, False, None, None)]  # not the second
    assert {g.source for g in story.groups} == {"config/consumerOffset.json"} == {story.offsets_source}


def test_a_copy_as_ref_tells_the_same_story(made):
    root, at = made
    with open_store(root) as store:
        by_key = story_of(store, R)
        for ref in (at["msg_id"], str(at["dlq"]), str(at["retry2"])):
            assert roles(story_of(store, ref)) == roles(by_key)
        assert roles(story_of(store, "TopicTest", "order-1")) == roles(by_key)


def test_delayed_then_delivered(made):
    root, at = made
    with open_store(root) as store:
        story = story_of(store, D)
    assert roles(story) == [("scheduled", at["delayed"], "SCHEDULE_TOPIC_XXXX"),
                            ("delivered", at["delivered"], "TopicTest")]
    parked, delivered = (dict(r.facts) for r in story.records)
    assert parked["delay level"] == "3" and parked["deliver time"].startswith(str(T0 + 200 + 10_000))
    assert delivered["REAL_TOPIC"] == "TopicTest" and "messageTimeUp" in story.records[1].rule
    assert [(g.group, g.queue_offset, g.consumed) for g in story.groups] == [("G", 1, True), ("H", 1, False)]


def test_half_then_commit_and_half_then_rollback(made):
    root, at = made
    with open_store(root) as store:
        committed, rolled_back = story_of(store, C), story_of(store, B)
    assert roles(committed) == [("half", at["half_c"], "RMQ_SYS_TRANS_HALF_TOPIC"), ("commit", at["commit"], "TopicTx"),
                                ("op", at["op_c"], "RMQ_SYS_TRANS_OP_HALF_TOPIC")]
    assert dict(committed.records[1].facts)["half at (preparedTransactionOffset)"] == str(at["half_c"])
    assert dict(committed.records[2].facts)["ends the half as"] == "commit"
    assert roles(rolled_back) == [("half", at["half_b"], "RMQ_SYS_TRANS_HALF_TOPIC"),
                                  ("op", at["op_b"], "RMQ_SYS_TRANS_OP_HALF_TOPIC")]
    op = dict(rolled_back.records[1].facts)
    assert op["half queue offset"] == "1" and op["ends the half as"].startswith("rollback")


def test_timer_and_its_delivery_and_an_inner_message(made):
    root, at = made
    with open_store(root) as store:
        timer, inner = story_of(store, T), story_of(store, INNER)
    assert [(r.role, r.topic) for r in timer.records] == [("timer", "rmq_sys_wheel_timer"),
                                                           ("timer-delivered", "TopicTimer")]
    assert timer.records[0].physical_offset == at["timer"]
    assert dict(timer.records[1].facts)["TIMER_DEQUEUE_MS"] == str(T0 + 5_000)
    assert [(r.role, r.physical_offset, r.inner_index, r.queue_offset) for r in inner.records] == [
        ("inner", at["batch"], 1, 1)]
    assert inner.records[0].topic == BATCH_TOPIC and inner.unique_key == INNER


def test_lmq_copies_and_offsets_from_the_lmq_file(tmp_path):
    at = write_lmq_story_store(tmp_path / "s")
    with open_store(tmp_path / "s") as store:
        story = story_of(store, L)
    assert [(r.role, r.physical_offset, r.topic, r.queue_offset) for r in story.records] == [
        ("original", at["message"], "TopicLmq", 1), ("lmq", at["message"], "%LMQ%a", 0),
        ("lmq", at["message"], "%LMQ%b", 1)]
    assert story.offsets_source == "config/lmqConsumerOffset.json"
    assert [(g.group, g.topic, g.committed, g.consumed) for g in story.groups] == [
        ("G", "TopicLmq", 1, False), ("%LMQ%ga", "%LMQ%a", 1, True), ("%LMQ%ga", "%LMQ%b", 0, False)]


def test_story_view_is_json_with_every_record_and_group(made):
    root, at = made
    with open_store(root) as store:
        view = story_view(story_of(store, R))
    assert json.loads(json.dumps(view)) == view
    assert [r["role"] for r in view["records"]][-1] == "dead-letter"
    assert view["records"][0]["msg_id"] == at["msg_id"] and view["records"][1]["trace_record"]["type"] == "Pub"
    assert view["groups"][1] == {"group": "H", "topic": "TopicTest", "queue_id": 0, "queue_offset": 0,
                                 "committed": 0, "consumed": False, "source": "config/consumerOffset.json",
                                 "client": None, "cost_ms": None, "success": None}
    assert view["searched"] and view["notes"] == []


def test_unknown_and_bad_refs(made):
    root, _ = made
    with open_store(root) as store:
        with pytest.raises(NotFound, match="no message with id"):
            story_of(store, "7F00000100002A9F00000000000000FF")
        with pytest.raises(NotFound, match="no message indexed under TopicTest#nope"):
            story_of(store, "TopicTest", "nope")
        with pytest.raises(BadInput):
            story_of(store, "not-a-ref")


def _copy(made, tmp_path: Path) -> Path:
    root = tmp_path / "copy"
    shutil.copytree(made[0], root)
    return root


def test_a_damaged_copy_is_said_and_the_rest_is_told(made, tmp_path):
    _, at = made
    root = _copy(made, tmp_path)
    segment = root / "commitlog" / "00000000000000000000"
    data = bytearray(segment.read_bytes())
    data[at["retry1"] + 4:at["retry1"] + 8] = b"\0\0\0\0"  # the first retry copy's magic code
    segment.write_bytes(bytes(data))
    with open_store(root) as store:
        story = story_of(store, R)
    kept = [r.role for r in story.records]
    assert "dead-letter" in kept and kept.count("retry") == 1 and kept[0] == "original"
    assert [n for n in story.notes if f"points at {at['retry1']}" in n and "cannot be read" in n]


def test_offsets_files_that_disagree_are_noted(made, tmp_path):
    root = _copy(made, tmp_path)
    (root / "config" / "lmqConsumerOffset.json").write_text(json.dumps(
        {"offsetTable": {"TopicTest@G": {"0": 0}}}))
    config = tmp_path / "broker.conf"
    config.write_text("enableLmq=false\nstoreType=default\n")
    with open_store(root, broker_config=str(config)) as store:
        story = story_of(store, R)
    assert story.offsets_source == "config/consumerOffset.json"
    assert any("differ from config/consumerOffset.json" in n for n in story.notes)
    assert story.groups[0].committed == 5  # from the source the broker uses


def test_expired_origin_is_listed_not_silently_absent(tmp_path):
    """Retention removed the first segment: the ORIGIN_MESSAGE_ID of the copies points below the log's first
    offset, so the original is an expired record of the story."""
    root = tmp_path / "aged"
    geometry = Geometry(segment_size=1024)
    with StoreWriter(root, geometry=geometry, clock=lambda: T0, consumer_offsets=OFFSETS) as w:
        original = w.append(MessageSpec("TopicTest", b"x" * 600, unique_key=R, store_timestamp=T0))
        retry = w.send_back(original.index, "G", store_timestamp=T0 + 100)
        w.deliver(retry.index, store_timestamp=T0 + 10_100)
    (root / "commitlog" / "00000000000000000000").unlink()  # what CleanCommitLogService deletes first
    with open_store(root) as store:
        story = story_of(store, R)
    expired = [r for r in story.records if r.expired]
    assert [(r.role, r.physical_offset) for r in expired] == [("original", original.physical_offset)]
    assert "removed by retention" in expired[0].expired


def test_a_key_whose_records_retention_removed_is_expired_not_unknown(tmp_path):
    root = tmp_path / "gone"
    with StoreWriter(root, geometry=Geometry(segment_size=1024), clock=lambda: T0) as w:
        w.append(MessageSpec("TopicTest", b"x" * 600, unique_key=R, store_timestamp=T0))
        w.append(MessageSpec("TopicTest", b"y" * 600, store_timestamp=T0 + 1))  # the next segment
    (root / "commitlog" / "00000000000000000000").unlink()
    with open_store(root) as store, pytest.raises(NotFound, match="expired: 1 index item"):
        story_of(store, R)


def test_offsets_from_the_rocksdb_database_are_named(made, tmp_path):
    pytest.importorskip("rocksdict")
    from tests.offsets_support import v1_offsets_db

    root = _copy(made, tmp_path)
    # RocksDBConsumerOffsetManager.putWriteBatch: key topic@group, value the wrapper's fastjson
    v1_offsets_db(root, {"TopicTest@G": b'{"offsetTable":{0:0}}', "TopicTest@K": b'{"offsetTable":{0:9}}'})
    with open_store(root) as store:
        story = story_of(store, R)
    assert story.offsets_source == "config/consumerOffsets"
    assert [(g.group, g.topic, g.committed, g.consumed) for g in story.groups] == [
        ("G", "TopicTest", 0, False), ("K", "TopicTest", 9, True)]
    assert {g.source for g in story.groups} == {"config/consumerOffsets"}


def test_an_old_clients_message_without_a_unique_key_says_what_is_found(tmp_path):
    with StoreWriter(tmp_path / "s", clock=lambda: T0) as w:
        first = w.append(MessageSpec("TopicTest", b"old", unique_key="", store_timestamp=T0))
        parked = w.send_back(first.index, "G", store_timestamp=T0 + 1)
    with open_store(tmp_path / "s") as store:
        story = story_of(store, str(parked.physical_offset))
    # the parked copy names its origin by ORIGIN_MESSAGE_ID: both are found without a key
    assert [(r.role, r.physical_offset) for r in story.records] == [("original", 0),
                                                                    ("retry-scheduled", parked.physical_offset)]
    assert story.unique_key is None and "no UNIQ_KEY" in story.notes[0]
    assert story.records[0].found_by == f"ORIGIN_MESSAGE_ID of @{parked.physical_offset}"


def test_a_damaged_op_record_is_said_not_taken_for_an_open_transaction(made, tmp_path):
    _, at = made
    root = _copy(made, tmp_path)
    segment = root / "commitlog" / "00000000000000000000"
    data = bytearray(segment.read_bytes())
    data[at["op_c"] + 4:at["op_c"] + 8] = b"\0\0\0\0"
    segment.write_bytes(bytes(data))
    with open_store(root) as store:
        story = story_of(store, C)
    assert [r.role for r in story.records] == ["half", "commit"]
    assert any("op queue" in n and "could not be read" in n for n in story.notes)
    assert not any("not ended" in n for n in story.notes)
