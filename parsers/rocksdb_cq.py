"""RocketMQ 5 RocksDB consume queue: keys and values of the `default` and `offset` column families (spec §8)."""

from __future__ import annotations

from construct import Bytes, Const, GreedyBytes, Int32sb, Int64sb, PaddedString, Rebuild, Struct, len_, this

from parsers.adapters import Utf8Text

CTRL_0 = b"\x00"
CTRL_1 = b"\x01"
CTRL_2 = b"\x02"
CHECKPOINT_TOPIC = "CHECKPOINT_TOPIC"

CqKey = Struct(
    "topic_length" / Rebuild(Int32sb, len_(this.topic_bytes)) * "topic byte length",
    Const(CTRL_1),
    "topic_bytes" / Bytes(this.topic_length) * "topic, UTF-8",
    Const(CTRL_1),
    "queue_id" / Int32sb,
    Const(CTRL_1),
    "queue_offset" / Int64sb * "cqOffset",
)
"""Key of a CQ unit in the `default` column family (19 + n bytes)."""

CqValue = Struct(
    "physical_offset" / Int64sb,
    "size" / Int32sb,
    "tags_code" / Int64sb * "same meaning as the file CQ (no ext addresses)",
    "store_timestamp" / Int64sb,
)
"""Value of a CQ unit (28 bytes)."""

OffsetKey = Struct(
    "topic_length" / Rebuild(Int32sb, len_(this.topic_bytes)),
    Const(CTRL_1),
    "topic_bytes" / Bytes(this.topic_length),
    Const(CTRL_1),
    "kind" / PaddedString(3, "ascii") * "'max' or 'min'",
    Const(CTRL_1),
    "queue_id" / Int32sb,
)
"""Key in the `offset` column family (14 + n bytes)."""

OffsetValue = Struct(
    "physical_offset" / Int64sb,
    "queue_offset" / Int64sb * "max: inclusive (the store's max offset is this + 1)",
)
"""Value in the `offset` column family (16 bytes; the checkpoint key has an 8-byte value)."""

CheckpointValue = Struct("max_physical_offset" / Int64sb)

TopicText = Utf8Text(GreedyBytes)


def topic_of(key) -> str:
    return TopicText.parse(key.topic_bytes)


def cq_key(topic: str, queue_id: int, queue_offset: int) -> bytes:
    return CqKey.build({"topic_bytes": topic.encode(), "queue_id": queue_id, "queue_offset": queue_offset})


def queue_prefix(topic: str, queue_id: int) -> bytes:
    """``int32 n | 01 | topic | 01 | int32 queueId``: every unit key of the queue is prefix + 01 + offset."""
    raw = topic.encode()
    return len(raw).to_bytes(4, "big", signed=True) + CTRL_1 + raw + CTRL_1 + queue_id.to_bytes(4, "big", signed=True)


def queue_key_range(topic: str, queue_id: int) -> tuple[bytes, bytes]:
    """[lower, upper) bytewise bounds of all unit keys of one queue (RocketMQ's deleteRange trick)."""
    prefix = queue_prefix(topic, queue_id)
    return prefix + CTRL_0, prefix + CTRL_2


def offset_key(topic: str, kind: str, queue_id: int) -> bytes:
    return OffsetKey.build({"topic_bytes": topic.encode(), "kind": kind, "queue_id": queue_id})
