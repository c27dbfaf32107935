"""Stores our writer makes with each scenario of a message's story (issue 30 item 1), and the values each answer
is checked against (known from how the store was made):

* ``R``: TopicTest's message consumed by group G, failed twice, then dead-lettered (maxReconsumeTimes 2): the
  original, two parked retry copies (delay levels 3 and 4), two delivered %RETRY%G copies, the %DLQ%G copy;
  with its trace records (Pub, then SubBefore + SubAfter of G from client 10.0.0.7). G has committed TopicTest
  queue 0 past it (consumed), H has not (offset 0: behind it); G's %RETRY%G offset is 1: past the first
  retry copy, not the second.
* ``D``: a message delayed (level 3) and delivered into TopicTest.
* ``C`` / ``B``: a transaction half then committed / a half then rolled back.
* ``T``: a 5.x timer message and its delivery; ``INNER``: the second inner message of a BatchCQ batch.
* ``write_lmq_story_store``: a message multi-dispatched to two LMQ queues, offsets in lmqConsumerOffset.json
  (an enableLmq broker keeps every offset there), the LMQ group ahead on one queue and behind on the other.
"""

from __future__ import annotations

from pathlib import Path

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.tracewrite import trace_spec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry

# 64 KiB segments: the tests copy the store to damage a copy, and a default 1 GiB segment (sparse) is slow to copy
SMALL = Geometry(segment_size=1 << 16)

T0 = 1_700_000_000_000
R = "7F00000100002A9F0000000000000011"
D = "7F00000100002A9F0000000000000012"
C = "7F00000100002A9F0000000000000013"
B = "7F00000100002A9F0000000000000014"
T = "7F00000100002A9F0000000000000015"
I_BATCH = "7F00000100002A9F0000000000000016"
INNER = "7F00000100002A9F0000000000000017"
L = "7F00000100002A9F0000000000000018"
BATCH_TOPIC = "StoryBatch"
OFFSETS = {("TopicTest", "G"): {0: 5}, ("TopicTest", "H"): {0: 0}, ("%RETRY%G", "G"): {0: 1}}


def _pub(uk: str, offset_msg_id: str, when: int) -> dict:
    return {"type": "Pub", "timestamp": when, "region_id": "DefaultRegion", "group": "pg", "topic": "TopicTest",
            "msg_id": uk, "tags": "TagA", "keys": "order-1", "store_host": "127.0.0.1:10911", "body_length": 5,
            "cost_time": 2, "msg_type": "Normal_Msg", "offset_msg_id": offset_msg_id, "success": True}


SUB_BEFORE = {"type": "SubBefore", "timestamp": T0 + 50, "region_id": "DefaultRegion", "group": "G",
              "request_id": "req-1", "msg_id": R, "retry_times": 0, "keys": "order-1"}
SUB_AFTER = {"type": "SubAfter", "request_id": "req-1", "msg_id": R, "cost_time": 12, "success": False,
             "keys": "order-1", "context_code": 1, "timestamp": T0 + 62, "group": "G"}


def write_story_store(root: Path) -> dict[str, int | str]:
    """The store at ``root``; the physical offset of each record by name and the original's offset msgId."""
    at: dict[str, int | str] = {}
    with StoreWriter(root, geometry=SMALL, clock=lambda: T0, consumer_offsets=OFFSETS,
                     topic_attributes={BATCH_TOPIC: {"queue.type": "BatchCQ"}}) as w:
        original = w.append(MessageSpec("TopicTest", b"hello", tags="TagA", keys=["order-1"], unique_key=R,
                                        store_timestamp=T0))
        at["original"], at["msg_id"] = original.physical_offset, original.msg_id
        at["pub"] = w.append(trace_spec([_pub(R, original.msg_id, T0 + 1)], store_timestamp=T0 + 3)).physical_offset
        at["sub"] = w.append(trace_spec([SUB_BEFORE, SUB_AFTER], store_timestamp=T0 + 70)).physical_offset
        r1 = w.send_back(original.index, "G", store_timestamp=T0 + 100, max_reconsume_times=2)
        d1 = w.deliver(r1.index, store_timestamp=T0 + 10_100)
        r2 = w.send_back(d1.index, "G", store_timestamp=T0 + 10_200, max_reconsume_times=2)
        d2 = w.deliver(r2.index, store_timestamp=T0 + 40_200)
        dlq = w.send_back(d2.index, "G", store_timestamp=T0 + 40_300, max_reconsume_times=2)
        at.update(parked1=r1.physical_offset, retry1=d1.physical_offset, parked2=r2.physical_offset,
                  retry2=d2.physical_offset, dlq=dlq.physical_offset)
        # delayed, then delivered by the schedule service
        parked = w.append(MessageSpec("TopicTest", b"later", delay_level=3, unique_key=D, store_timestamp=T0 + 200))
        at["delayed"] = parked.physical_offset
        at["delivered"] = w.deliver(parked.index, store_timestamp=T0 + 10_200).physical_offset
        # transactions: one committed, one rolled back
        half_c = w.append(MessageSpec("TopicTx", b"tx-c", transaction="half", unique_key=C, store_timestamp=T0 + 300))
        commit = w.commit(half_c.index, store_timestamp=T0 + 310)
        at.update(half_c=half_c.physical_offset, commit=commit.physical_offset, op_c=commit.op.physical_offset)
        half_b = w.append(MessageSpec("TopicTx", b"tx-b", transaction="half", unique_key=B, store_timestamp=T0 + 400))
        at.update(half_b=half_b.physical_offset,
                  op_b=w.rollback(half_b.index, store_timestamp=T0 + 410).physical_offset)
        # a 5.x timer message, delivered when a later message is written (the writer's clock passes it)
        at["timer"] = w.append(MessageSpec("TopicTimer", b"at five", unique_key=T, deliver_ms=T0 + 5_000,
                                           store_timestamp=T0 + 500)).physical_offset
        batch = w.append(MessageSpec(BATCH_TOPIC, b"", unique_key=I_BATCH, store_timestamp=T0 + 600, batch=[
            MessageSpec("", b"first", unique_key="7F00000100002A9F0000000000000019"),
            MessageSpec("", b"second", unique_key=INNER)]))
        at["batch"] = batch.physical_offset
        w.append(MessageSpec("Other", b"tick", store_timestamp=T0 + 60_000))  # after the timer's time
    return at


LMQ_OFFSETS = {("%LMQ%a", "%LMQ%ga"): {0: 1}, ("%LMQ%b", "%LMQ%ga"): {0: 0}, ("TopicLmq", "G"): {0: 1}}


def write_lmq_story_store(root: Path) -> dict[str, int]:
    """A message (UNIQ_KEY ``L``) in TopicLmq queue 0, multi-dispatched to %LMQ%a (offset 0) and %LMQ%b (1)."""
    with StoreWriter(root, clock=lambda: T0, consumer_offsets=LMQ_OFFSETS) as w:
        w.append(MessageSpec("TopicLmq", b"first", lmq_queues=["%LMQ%b"], store_timestamp=T0))
        msg = w.append(MessageSpec("TopicLmq", b"x", unique_key=L, lmq_queues=["%LMQ%a", "%LMQ%b"],
                                   store_timestamp=T0 + 1))
    return {"message": msg.physical_offset}
