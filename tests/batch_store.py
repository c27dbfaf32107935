"""A small 5.x-shaped store with one BatchCQ topic, for the batch consume-queue tests (writer, read, verify, CLI).

``Direct5BatchCQ`` queue 0 holds: an inner batch of 4 messages (queue offsets 0-3), an inner batch of 3
(4-6) and one plain message (7), i.e. units with bases 0, 4, 7 and batch sizes 4, 3, 1; ``Plain`` queue 0 holds
two ordinary messages between them.
"""

from __future__ import annotations

from pathlib import Path

from inspector.engine.maintain.write.messagespec import AppendResult, MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter

BATCH_TOPIC = "Direct5BatchCQ"
T0 = 1_758_272_400_000
ATTRIBUTES = {BATCH_TOPIC: {"queue.type": "BatchCQ"}}


def inner(i: int, **kw) -> MessageSpec:
    return MessageSpec("", f"inner body {i}".encode(), tags=f"Tag{i % 2}", keys=[f"key{i}"], **kw)


def write_batch_store(root: Path) -> list[AppendResult]:
    results = []
    with StoreWriter(root, clock=lambda: T0, topic_attributes=ATTRIBUTES) as w:
        results.append(w.append(MessageSpec("Plain", b"plain 0", store_timestamp=T0)))
        results.append(w.append(MessageSpec(BATCH_TOPIC, b"", batch=[inner(i) for i in range(4)],
                                            store_timestamp=T0 + 1, wait_store_msg_ok=True)))
        results.append(w.append(MessageSpec(BATCH_TOPIC, b"", batch=[inner(i, properties={"n": str(i)})
                                                                     for i in range(4, 7)],
                                            store_timestamp=T0 + 2)))
        results.append(w.append(MessageSpec(BATCH_TOPIC, b"single", tags="TagS", keys=["key7"],
                                            store_timestamp=T0 + 3)))
        results.append(w.append(MessageSpec("Plain", b"plain 1", store_timestamp=T0 + 4)))
    return results
