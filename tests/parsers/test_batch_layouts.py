"""BatchConsumeQueue units (spec §4.3) and inner-batch records (spec §2.10) against bytes laid out by hand.

Every expected byte string here is assembled field by field with ``struct`` at the offsets the spec's tables
give (written out below), never produced by the schema under test.
"""

from __future__ import annotations

import socket
import struct
import zlib

from parsers import commitlog as cl
from parsers import consumequeue as cq

# spec §4.3, the BatchConsumeQueue unit: (offset, struct format, field)
BCQ_FIELDS = (
    (0, ">q", "physical_offset"),
    (8, ">i", "size"),
    (12, ">q", "tags_code"),
    (20, ">q", "store_timestamp"),
    (28, ">q", "msg_base_offset"),
    (36, ">h", "batch_size"),
    (38, ">i", "compacted_offset"),
    (42, ">i", "reserved"),
)


def _bcq_unit_by_hand(values: dict[str, int]) -> bytes:
    buf = bytearray(46)
    for offset, fmt, name in BCQ_FIELDS:
        struct.pack_into(fmt, buf, offset, values[name])
    return bytes(buf)


def test_batch_unit_is_46_bytes_and_files_hold_300000() -> None:
    assert cq.BCQ_UNIT_SIZE == 46 == cq.BatchConsumeQueueUnit.sizeof()
    assert cq.BCQ_DEFAULT_FILE_SIZE == 13_800_000


def test_batch_unit_against_the_spec_table() -> None:
    # "TagA".hashCode() = 2598919; a record of 302 bytes at 16,400 holding queue offsets 4..7
    values = dict(physical_offset=16_400, size=302, tags_code=2_598_919, store_timestamp=1_700_000_000_123,
                  msg_base_offset=4, batch_size=4, compacted_offset=-1, reserved=0)
    by_hand = _bcq_unit_by_hand(values)
    assert by_hand.hex() == (
        "0000000000004010" "0000012E" "000000000027A807" "0000018BCFE5687B"
        "0000000000000004" "0004" "FFFFFFFF" "00000000"
    ).lower()
    assert cq.BatchConsumeQueueUnit.build(values) == by_hand
    parsed = cq.BatchConsumeQueueUnit.parse(by_hand)
    assert {name: parsed[name] for _, _, name in BCQ_FIELDS} == values
    compiled = cq.BatchConsumeQueueUnit.compile()
    assert compiled.build(values) == by_hand


def test_batch_unit_negative_tags_code_is_sign_extended() -> None:
    values = dict(physical_offset=0, size=91, tags_code=-854_686_734, store_timestamp=1, msg_base_offset=0,
                  batch_size=1, compacted_offset=-1, reserved=0)
    by_hand = _bcq_unit_by_hand(values)
    assert by_hand[12:20].hex().upper() == "FFFFFFFFCD0E83F2"
    assert cq.BatchConsumeQueueUnit.parse(by_hand).tags_code == -854_686_734


# spec §2.10: one item of MessageDecoder.encodeMessages
def _item_by_hand(flag: int, body: bytes, properties: bytes) -> bytes:
    size = 4 + 4 + 4 + 4 + 4 + len(body) + 2 + len(properties)
    return (struct.pack(">i", size) + struct.pack(">i", 0) + struct.pack(">i", 0) + struct.pack(">i", flag)
            + struct.pack(">i", len(body)) + body + struct.pack(">h", len(properties)) + properties)


ITEMS = (
    (0, b"first", b"TAGS\x01TagA\x02KEYS\x01k1\x02UNIQ_KEY\x01AAAA\x02"),
    (7, b"", b"UNIQ_KEY\x01BBBB\x02"),
    (0, b"third body", b""),
)


def test_inner_batch_items_against_the_spec_table() -> None:
    body = b"".join(_item_by_hand(*item) for item in ITEMS)
    at = 0
    for flag, item_body, props in ITEMS:
        parsed = cl.InnerBatchItem.parse(body[at:])
        assert parsed.total_size == 22 + len(item_body) + len(props)
        assert (parsed.magic_code, parsed.body_crc, parsed.flag, parsed.body) == (0, 0, flag, item_body)
        assert parsed.properties.to_text().encode() == props
        assert cl.InnerBatchItem.build(parsed) == body[at : at + parsed.total_size]
        at += parsed.total_size
    assert at == len(body)


def _record_by_hand(body: bytes, topic: bytes, properties: bytes, queue_offset: int, physical_offset: int) -> bytes:
    """A v1 IPv4/IPv4 record by the spec §2.1 field table (offsets in the comments)."""
    total = 91 + len(body) + len(topic) + len(properties)
    crc = zlib.crc32(body) & 0x7FFFFFFF
    return b"".join([
        struct.pack(">i", total),  # 0 TOTALSIZE
        struct.pack(">I", 0xDAA320A7),  # 4 MAGICCODE v1
        struct.pack(">i", crc),  # 8 BODYCRC
        struct.pack(">i", 0),  # 12 QUEUEID
        struct.pack(">i", 0),  # 16 FLAG
        struct.pack(">q", queue_offset),  # 20 QUEUEOFFSET
        struct.pack(">q", physical_offset),  # 28 PHYSICALOFFSET
        struct.pack(">i", 0x040 | 0x080),  # 36 SYSFLAG: NEED_UNWRAP | INNER_BATCH
        struct.pack(">q", 1_700_000_000_000),  # 40 BORNTIMESTAMP
        socket.inet_aton("192.168.1.10") + struct.pack(">i", 52314),  # 48 BORNHOST
        struct.pack(">q", 1_700_000_000_123),  # 56 STORETIMESTAMP
        socket.inet_aton("10.108.115.217") + struct.pack(">i", 10911),  # 64 STOREHOSTADDRESS
        struct.pack(">i", 0),  # 72 RECONSUMETIMES
        struct.pack(">q", 0),  # 76 PREPARED TRANSACTION OFFSET
        struct.pack(">i", len(body)) + body,  # 84 BODY
        struct.pack(">b", len(topic)) + topic,  # TOPIC (v1: one signed byte)
        struct.pack(">h", len(properties)) + properties,  # PROPERTIES
    ])


def test_inner_batch_record_against_the_spec_tables() -> None:
    body = b"".join(_item_by_hand(*item) for item in ITEMS)
    props = b"WAIT\x01true\x02UNIQ_KEY\x01CCCC\x02CLUSTER\x01DefaultCluster\x02INNER_NUM\x013\x02INNER_BASE\x014\x02"
    record = _record_by_hand(body, b"Direct5BatchCQ", props, 4, 16_400)
    parsed = cl.MessageRecord.parse(record)
    assert parsed.total_size == len(record) == cl.record_length(len(body), 14, len(props), 0xC0)
    assert parsed.queue_offset == 4 and parsed.sys_flag == 0xC0
    parts = cl.sys_flag_parts(parsed.sys_flag)
    assert parts["inner_batch"] and parts["need_unwrap"] and not parts["compressed"]
    assert parsed.properties.as_map()["INNER_NUM"] == "3"
    assert parsed.properties.as_map()["INNER_BASE"] == "4"
    assert parsed.body == body
    assert cl.MessageRecord.build(parsed) == record
