"""A store with LMQ multi-dispatch (spec part 2 §17), written by our writer as a broker with enableLmq: the case
of issue 18 (TopicA's own queue offsets 0, 0, 1 where the LMQ queue %LMQ%x holds 0, 1, 2)."""

from __future__ import annotations

from pathlib import Path

from inspector.engine.maintain.messagespec import MessageSpec
from inspector.engine.maintain.writer import StoreWriter

T0 = 1_700_000_000_000
LMQ = "%LMQ%x"
OFFSETS = {("TopicA", "g"): {0: 1}, (LMQ, LMQ): {0: 2}}


def write_lmq_store(root: Path) -> Path:
    with StoreWriter(root, clock=lambda: T0, consumer_offsets=OFFSETS) as w:
        w.append(MessageSpec(topic="TopicA", body=b"a", tags="t1", keys=["k1"], unique_key="", lmq_queues=[LMQ],
                             store_timestamp=T0))
        w.append(MessageSpec(topic="TopicA", body=b"b", queue_id=1, unique_key="", lmq_queues=["%LMQ%y", LMQ],
                             store_timestamp=T0 + 1))
        w.append(MessageSpec(topic="TopicA", body=b"c", unique_key="", lmq_queues=[LMQ], store_timestamp=T0 + 2))
    return root
