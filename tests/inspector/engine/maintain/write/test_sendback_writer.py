"""The writer's send_back (SendMessageProcessor.consumerSendMsgBack) and deliver (ScheduleMessageService
messageTimeUp), read back with the engine: each copy's topic, queue, reconsume times and properties as the broker
writes them, and the refusals."""

from __future__ import annotations

import pytest

from inspector.engine import BadInput, open_store
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.sendback import RECENT_RECORDS
from inspector.engine.maintain.write.writer import StoreWriter

T0 = 1_700_000_000_000
UK = "7F00000100002A9F0000000000000021"


def test_send_back_parks_then_delivers_then_dead_letters(tmp_path):
    with StoreWriter(tmp_path / "s", clock=lambda: T0) as w:
        original = w.append(MessageSpec("TopicTest", b"body", tags="TagA", unique_key=UK, store_timestamp=T0))
        parked = w.send_back(original.index, "G", store_timestamp=T0 + 1, max_reconsume_times=1)
        retry = w.deliver(parked.index, store_timestamp=T0 + 10_001)
        dead = w.send_back(retry.index, "G", store_timestamp=T0 + 10_002, max_reconsume_times=1)
    with open_store(tmp_path / "s") as store:
        p, r, d = (store.message_at(x.physical_offset) for x in (parked, retry, dead))
        topics = sorted(store.topics())
    assert (p.topic, p.queue_id, p.reconsume_times) == ("SCHEDULE_TOPIC_XXXX", 2, 1)  # level 3 + 0, queue 3 - 1
    assert p.properties["DELAY"] == "3" and p.properties["REAL_TOPIC"] == "%RETRY%G"
    assert p.properties["REAL_QID"] == "0" and p.properties["WAIT"] == "false"
    assert p.properties["RETRY_TOPIC"] == "TopicTest" and p.properties["ORIGIN_MESSAGE_ID"] == original.msg_id
    assert p.properties["UNIQ_KEY"] == UK and p.properties["TAGS"] == "TagA" and p.body == b"body"
    assert (r.topic, r.queue_id, r.reconsume_times, r.queue_offset) == ("%RETRY%G", 0, 1, 0)
    assert "DELAY" not in r.properties and r.properties["REAL_TOPIC"] == "%RETRY%G"
    assert (d.topic, d.queue_id, d.reconsume_times) == ("%DLQ%G", 0, 2)
    assert d.properties["ORIGIN_MESSAGE_ID"] == original.msg_id  # the first record's id, kept through every copy
    assert "%RETRY%G" in topics and "%DLQ%G" in topics


def test_refusals(tmp_path):
    with StoreWriter(tmp_path / "s", clock=lambda: T0) as w:
        first = w.append(MessageSpec("TopicTest", b"a", store_timestamp=T0))
        with pytest.raises(BadInput, match="no parked record"):
            w.deliver(first.index)
        with pytest.raises(BadInput, match="needs the consumer group"):
            w.send_back(first.index, "")
        with pytest.raises(BadInput, match="no record 99"):
            w.send_back(99, "G")
        for n in range(RECENT_RECORDS):
            w.append(MessageSpec("TopicTest", b"b", store_timestamp=T0 + n))
        with pytest.raises(BadInput, match=f"last {RECENT_RECORDS}"):
            w.send_back(first.index, "G")  # forgotten: the writer keeps only the recent records
