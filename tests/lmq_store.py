"""A store with LMQ multi-dispatch (spec part 2 §17), written by our writer as a broker with enableLmq: the case
of issue 18 (TopicA's own queue offsets 0, 0, 1 where the LMQ queue %LMQ%x holds 0, 1, 2)."""

from __future__ import annotations

import struct
from pathlib import Path

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter

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


_SEG = "commitlog/00000000000000000000"
# the writer dispatches (and refuses) what it is given: the odd record is written under stand-in names of the
# same length, which are then renamed in the segment's bytes (properties are under no CRC)
_STAND_IN = {"INNER_MULTI_DISPATCH": "INNER_MULTI_DISPATXX", "INNER_MULTI_QUEUE_OFFSET": "INNER_MULTI_QUEUE_OFFSEX"}


def write_odd_multi_dispatch_store(root: Path, props: dict[str, str], topic: str = "TopicA", plain: int = 30) -> tuple[Path, int]:
    """``plain`` ordinary records, then one carrying ``props`` as a producer could send them (no LMQ unit is
    written for it), then ``plain`` more: the odd record sits inside a clean run, in the store of an enableLmq
    broker (its lmqConsumerOffset.json: verify searches the records of stores that can hold LMQ ones). Returns its
    position."""
    with StoreWriter(root, clock=lambda: T0, enable_lmq=True) as w:
        for i in range(plain):
            w.append(MessageSpec("TopicA", f"p{i}".encode(), store_timestamp=T0 + i))
        odd = w.append(MessageSpec(topic, b"odd", properties={_STAND_IN.get(k, k): v for k, v in props.items()},
                                   store_timestamp=T0 + plain))
        for i in range(plain):
            w.append(MessageSpec("TopicA", f"q{i}".encode(), store_timestamp=T0 + plain + 1 + i))
    at = odd.physical_offset
    with open(root / _SEG, "r+b") as f:  # the record only: the segment is a sparse 1 GiB file
        f.seek(at)
        size = struct.unpack(">i", f.read(4))[0]
        f.seek(at)
        record = f.read(size)
        for name, stand_in in _STAND_IN.items():
            record = record.replace(f"{stand_in}\x01".encode(), f"{name}\x01".encode())
        f.seek(at)
        f.write(record)
    return root, at
