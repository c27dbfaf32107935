"""A consumer group's view (issue 30 item 2) on stores our writer made: every value checked against how the store
was written (which message went to which queue offset, which offset was committed where)."""

from __future__ import annotations

import pytest
from external_tools import import_or_skip

from inspector.engine import NotFound, StoreError, group_of, group_view, groups_of, groups_view
from inspector.engine.maintain.write.aging import Aging
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.read.store.store import Store
from tests.aged_store import GEOMETRY
from tests.batch_store import write_batch_store
from tests.lmq_store import LMQ, write_lmq_store
from tests.offsets_support import T0, offsets_store, v1_offsets_db, v2_offset_key, write_rocksdb


def _behind_and_ahead(root):
    """g on T: queue 0 holds a0..a4 and g committed 2 (behind: a2, a3, a4 pending); queue 1 holds b0..b2 and g
    committed 9 (ahead of the queue's max 3). Retry and DLQ topics of g hold 2 and 1 messages."""
    offsets = {("T", "g"): {0: 2, 1: 9}, ("%RETRY%g", "g"): {0: 1}, ("T", "h"): {0: 5}}
    with StoreWriter(root, clock=lambda: T0, consumer_offsets=offsets) as w:
        for i in range(5):
            w.append(MessageSpec(topic="T", queue_id=0, body=f"a{i}".encode(), keys=[f"ka{i}"], store_timestamp=T0 + i))
        for i in range(3):
            w.append(MessageSpec(topic="T", queue_id=1, body=f"b{i}".encode(), store_timestamp=T0 + 10 + i))
        for i in range(2):
            w.append(MessageSpec(topic="%RETRY%g", body=f"r{i}".encode(), store_timestamp=T0 + 20 + i))
        w.append(MessageSpec(topic="%DLQ%g", body=b"d0", store_timestamp=T0 + 30))
    return root


def _body(qm, root=None) -> bytes:
    """The body of a message of the view: read whole (pending), or at the physical offset its unit gave (the
    per-queue sides are read light: their unit and store time)."""
    if qm.message is not None:
        return qm.message.body
    with Store(root) as store:
        assert store.store_timestamp_at(qm.physical_offset) == qm.store_timestamp
        return store.message_at(qm.physical_offset).body


def test_a_group_behind_and_ahead(tmp_path):
    root = _behind_and_ahead(tmp_path)
    with Store(root) as store:
        view = group_of(store, "g")
    by = {(q.topic, q.queue_id): q for q in view.queues}
    q0, q1, retry = by[("T", 0)], by[("T", 1)], by[("%RETRY%g", 0)]
    assert (q0.committed, q0.min_offset, q0.max_offset, q0.lag, q0.note) == (2, 0, 5, 3, None)
    assert _body(q0.last_consumed, root) == b"a1" and q0.last_consumed.store_timestamp == T0 + 1 and q0.last_consumed.queue_offset == 1
    assert _body(q0.first_unconsumed, root) == b"a2" and q0.first_unconsumed.queue_offset == 2
    assert (q1.committed, q1.max_offset, q1.lag) == (9, 3, 0)
    assert "past the queue's max offset 3" in q1.note and q1.first_unconsumed is None
    assert q1.last_consumed is None  # offset 8 is past the queue: nothing to show as last consumed
    assert (retry.committed, retry.lag) == (1, 1)
    assert (view.retry.messages, view.retry.queues, view.dlq.messages) == (2, 1, 1)
    assert [(m.topic, m.queue_id, m.queue_offset, _body(m)) for m in view.pending] == [
        ("%RETRY%g", 0, 1, b"r1"), ("T", 0, 2, b"a2"), ("T", 0, 3, b"a3"), ("T", 0, 4, b"a4")]
    assert view.pending_total == view.lag == 4 and view.more_pending == 0
    assert view.source == "config/consumerOffset.json" and view.config is not None  # the writer's subscriptionGroup
    assert view.topics == ("%RETRY%g", "T")


def test_the_pending_limit_is_named(tmp_path):
    with Store(_behind_and_ahead(tmp_path)) as store:
        data = group_view(group_of(store, "g", limit=2))
    assert [m["queue_offset"] for m in data["pending"]] == [1, 2]
    assert (data["pending_limit"], data["pending_total"], data["more_pending"]) == (2, 4, 2)


def test_groups_lists_each_group_with_lag_retry_and_dlq(tmp_path):
    with Store(_behind_and_ahead(tmp_path)) as store:
        data = groups_view(groups_of(store), "config/consumerOffset.json", "")
    by = {g["group"]: g for g in data["groups"]}
    assert set(by) == {"g", "h"}
    assert (by["g"]["queues"], by["g"]["lag"], by["g"]["retry"]["messages"], by["g"]["dlq"]["messages"]) == (3, 4, 2, 1)
    assert (by["h"]["queues"], by["h"]["lag"], by["h"]["retry"], by["h"]["dlq"]) == (1, 0, None, None)
    assert by["g"]["configured"] and by["g"]["offset_sources"] == ["config/consumerOffset.json"]


def test_an_offset_below_the_min_will_be_corrected(tmp_path):
    """Retention deleted the first segment: queue T0/0's effective min moves past 0 (correctMinOffset); g's
    committed offset 0 is below it and counted from the min."""
    root = tmp_path / "s"
    with StoreWriter(root, GEOMETRY, consumer_offsets={("T0", "g"): {0: 0}},
                     aging=Aging(expired_segments=1)) as w:
        for i in range(1500):
            w.append(MessageSpec(topic=f"T{i % 3}", queue_id=i % 2, body=b"m" * 100, store_timestamp=T0 + i))
    with Store(root) as store:
        info = store.queue("T0", 0).info()
        view = group_of(store, "g")
        summary = {s.group: s for s in groups_of(store)}["g"]
    assert info.min_offset > 0
    (q,) = view.queues
    assert q.corrected and q.min_offset == info.min_offset and q.lag == info.max_offset - info.min_offset
    assert "will be corrected by the broker" in q.note and "DefaultMessageStore.getMessage" in q.note
    assert q.last_consumed is None and q.first_unconsumed.queue_offset == info.min_offset
    assert summary.corrected == 1 and summary.lag == q.lag


def test_lmq_offsets_from_lmq_consumer_offset_json(tmp_path):
    root = write_lmq_store(tmp_path)
    with Store(root) as store:
        view = group_of(store, LMQ)
        names = {s.group for s in groups_of(store)}
    assert names == {"g", LMQ}
    (q,) = view.queues
    assert view.source == "config/lmqConsumerOffset.json"
    # %LMQ%x holds a, b, c at 0, 1, 2 (its own offsets, not TopicA's); committed 2: c pending
    assert (q.topic, q.queue_id, q.committed, q.max_offset, q.lag) == (LMQ, 0, 2, 3, 1)
    assert _body(q.last_consumed, root) == b"b" and _body(q.first_unconsumed, root) == b"c"
    (pending,) = view.pending
    assert pending.message.queue_offset == 2 and pending.message.body == b"c"  # read through the LMQ queue


def test_rocksdb_offsets_are_used_and_a_disagreeing_file_is_named(tmp_path):
    import_or_skip("rocksdict")
    root = offsets_store(tmp_path)  # TopicTest queue 0: m0..m4
    (root / "config" / "consumerOffset.json").write_text('{"offsetTable":{"TopicTest@g1":{0:4},"TopicTest@old":{0:1}}}')
    v1_offsets_db(root, {"TopicTest@g1": b'{"offsetTable":{0:1}}'})
    with Store(root) as store:
        view = group_of(store, "g1")
        old = group_of(store, "old")
        names = [s.group for s in groups_of(store)]
    (q,) = view.queues
    assert view.source == "config/consumerOffsets" and (q.committed, q.lag) == (1, 4)
    assert [(o.source, o.offset) for o in q.others] == [("config/consumerOffset.json", 4)]
    assert _body(q.last_consumed, root) == b"m0" and _body(q.first_unconsumed, root) == b"m1"
    assert any(p.code == "offsets-disagree" for p in view.problems)
    # a group only the stale file knows: listed, no queue the broker reads, and said
    assert "old" in names and old.queues == []
    assert any("only in sources the broker does not read" in p.reason for p in old.problems)


def test_rocksdb_v2_offsets(tmp_path):
    import_or_skip("rocksdict")
    root = offsets_store(tmp_path)
    write_rocksdb(root / "config" / "rdb", {v2_offset_key("g1", "TopicTest", 0): (3).to_bytes(8, "big")})
    with Store(root) as store:
        (q,) = group_of(store, "g1").queues
    assert (q.source, q.committed, q.lag, _body(q.first_unconsumed, root)) == ("config/rdb", 3, 2, b"m3")


def test_an_unknown_group_names_the_groups_there_are(tmp_path):
    with Store(_behind_and_ahead(tmp_path)) as store, pytest.raises(NotFound) as e:
        group_of(store, "nosuch")
    assert "'nosuch'" in str(e.value) and "groups here: g, h" in str(e.value)


def test_damaged_config_json_is_said_not_raised(tmp_path):
    root = _behind_and_ahead(tmp_path)
    (root / "config" / "subscriptionGroup.json").write_text('{"subscriptionGroupTable":{"g":')
    (root / "config" / "consumerOffset.json").write_text('{"offsetTable":{"T@g":{0:2,"x":"y"}}}')
    with Store(root) as store:
        view = group_of(store, "g")
    (q,) = view.queues
    assert (q.committed, q.lag) == (2, 3) and view.config is None
    codes = {p.code for p in view.problems}
    assert {"bad-config", "bad-config-entry"} <= codes


def test_an_unreadable_offsets_database_is_a_store_error(tmp_path):
    import_or_skip("rocksdict")
    root = offsets_store(tmp_path)
    v1_offsets_db(root, {"TopicTest@g1": b'{"offsetTable":{0:1}}'})
    (root / "config" / "consumerOffsets" / "CURRENT").write_text("MANIFEST-999999\n")
    with Store(root) as store, pytest.raises(StoreError) as e:
        groups_of(store)
    assert e.value.file == "config/consumerOffsets" and not isinstance(e.value, NotFound)


def test_a_batch_queue_by_message_offset(tmp_path):
    """A 5.x BatchCQ queue: offsets count inner messages (0-3, 4-6, 7); the sides point at the records holding
    them, the pending ones are the inner messages themselves."""
    root = tmp_path / "s"
    results = write_batch_store(root)
    (root / "config" / "consumerOffset.json").write_text('{"offsetTable":{"Direct5BatchCQ@g":{0:3}}}')
    with Store(root) as store:
        view = group_of(store, "g", limit=2)
    (q,) = view.queues
    assert (q.committed, q.min_offset, q.max_offset, q.lag) == (3, 0, 8, 5)
    assert q.last_consumed.physical_offset == results[1].physical_offset  # offset 2: in the first batch
    assert q.first_unconsumed.physical_offset == results[1].physical_offset  # offset 3: its last inner message
    assert [(m.queue_offset, m.message.body) for m in view.pending] == [(3, b"inner body 3"), (4, b"inner body 4")]
    assert view.more_pending == 3


def test_a_unit_pointing_past_the_log_is_said_on_its_side_and_its_pending_row(tmp_path):
    root = _behind_and_ahead(tmp_path)
    cq = root / "consumequeue" / "T" / "0" / f"{0:020d}"
    with open(cq, "r+b") as f:  # queue offset 2 (g's first unconsumed): a physical offset 5 GiB out
        f.seek(2 * 20)
        f.write((5 << 30).to_bytes(8, "big"))
    with Store(root) as store:
        view = group_of(store, "g")
        data = group_view(view)
    q0 = next(q for q in view.queues if q.topic == "T" and q.queue_id == 0)
    assert q0.first_unconsumed.physical_offset == 5 << 30 and q0.first_unconsumed.problem
    bad = next(m for m in view.pending if m.topic == "T" and m.queue_offset == 2)
    assert bad.message is None and str(5 << 30) in bad.problem
    (row,) = [m for m in data["pending"] if m["topic"] == "T" and m["queue_offset"] == 2]
    assert row["problem"] == bad.problem and "body_preview" not in row


def test_the_sides_are_read_in_bulk_for_the_group_s_queues_only(tmp_path):
    """make_group_view finds the queues' ends and the units either side of the offsets in one pass (issue 30:
    16,000 queues), asking for units only on the queues the group has offsets on (not its retry or DLQ
    queues, not other groups'), and reads their store times together; the answer is the one read queue by
    queue."""
    from dataclasses import replace

    from inspector.engine.read.config.offsets import OffsetPlaces
    from inspector.engine.read.groups.groups import QueueAccess, load_sources, make_group_view, units_at

    root = _behind_and_ahead(tmp_path)
    with Store(root) as store:
        sources = load_sources(OffsetPlaces(store.root, store.config, store.broker_config), store.consumer_offsets())
        asked: dict = {}
        one_by_one: list = []

        def prefetch(ids, peek):
            def spy(info):
                asked[(info.topic, info.queue_id)] = list(peek(info))
                return asked[(info.topic, info.queue_id)]
            return store.prefetch_infos(ids, spy)

        def units(topic, queue_id, offsets):
            one_by_one.append((topic, queue_id))
            return units_at(store.queue(topic, queue_id), offsets)

        access = QueueAccess(store.queue_info, store.message_by_queue_offset,
                             lambda: [*store.queue_ids(), *store.batch_queue_ids()], units,
                             store.store_timestamp_at, prefetch, store.store_timestamps_at)
        bulk = make_group_view(sources, access, "g")
        read_alone = list(one_by_one)
        plain = make_group_view(sources, replace(access, prefetch=QueueAccess.prefetch, stored_at_many=lambda o: {}),
                                "g")
    # units asked on g's queues only: T/0 committed 2 (units 1 and 2), T/1 ahead of its max (none), %RETRY%g/0
    # committed 1; the DLQ queue (no offset of g's) for its ends alone; h's queues not at all
    assert {k: v for k, v in asked.items() if v} == {("T", 0): [1, 2], ("%RETRY%g", 0): [0, 1]}
    assert asked[("%DLQ%g", 0)] == [] and asked[("T", 1)] == []
    assert read_alone == [] and ("T", 0) in one_by_one  # the bulk pass read them all; the plain view one by one
    assert bulk.queues == plain.queues and bulk.pending == plain.pending
    by = {(q.topic, q.queue_id): q for q in bulk.queues}
    assert by[("T", 0)].last_consumed.store_timestamp == T0 + 1  # a1, as written
    assert by[("T", 0)].first_unconsumed.store_timestamp == T0 + 2


def test_store_times_in_bulk_are_the_one_by_one_answers():
    """``store_timestamps_at`` against ``store_timestamp_at`` on the sample store: records, offsets inside a
    record, past the log, no segment, the segment's last bytes (read one by one: no 80 bytes there)."""
    with Store("sample_store") as store:
        seg = store.commitlog.segments[0]
        offsets = [0, 1645, 1700, 90151, seg.start_offset + seg.file_size - 10, 10**15, -1 + 0]
        bulk = store.store_timestamps_at(offsets)
        for offset in offsets:
            try:
                want = store.store_timestamp_at(offset)
            except StoreError as e:
                assert isinstance(bulk[offset], StoreError) and str(bulk[offset]) == str(e)
            else:
                assert bulk[offset] == want


def test_the_view_s_objects_built_at_once_equal_the_dataclass_s_own():
    """collector.built (16,000 GroupQueues and QueueInfos at once: groups.py, cq_bulk.py) makes what the
    constructor makes: no slots, no __post_init__, every field given, equal and hashed alike."""
    from dataclasses import fields

    from inspector.engine.model.records import QueueInfo
    from inspector.engine.read.groups.groups import GroupQueue, QueueMessage
    from inspector.engine.read.queues.collector import built as _built

    for cls, values in ((QueueMessage, ("T", 0, 5, 100, T0, None, None)),
                        (GroupQueue, ("T", 0, 5, "s", (), 0, 9, 4, None, None, None)),
                        (QueueInfo, ("T", 3, 1, 7, ("consumequeue/T/3/00000000000000000000",), 4000,
                                     "consumequeue", None))):
        assert not hasattr(cls, "__slots__") and not hasattr(cls, "__post_init__")
        names = [f.name for f in fields(cls)]
        assert len(names) == len(values)
        made, built = cls(*values), _built(cls, **dict(zip(names, values, strict=True)))
        assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
