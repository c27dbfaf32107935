"""Every construct schema in parsers/ round-trips (parse, build, sizeof, compiled), plus the spec §14 vectors.

The record bytes used as inputs are assembled here with ``struct`` from the spec's field table (or copied
from the spec's hex dump), not produced by the schema under test.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import struct
import zlib
from pathlib import Path

import construct
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers import checkpoint, commitlog, consumequeue, dledger, indexfile, msgid, rocksdb_cq, timer
from parsers import commitlog as cl
from parsers.adapters import Utf8Text, has_invalid_utf8
from parsers.java import (
    crc_property_digits,
    index_key_hash,
    index_slot,
    java_string_hash,
    parse_crc_property_digits,
    rocketmq_crc32,
    tags_code,
)

# --- the round-trip helper (construct's declarativeunittest, condensed) ------------------------------------

_COMPILED: dict[int, construct.Construct] = {}


def _compiled(schema: construct.Construct) -> construct.Construct:
    if id(schema) not in _COMPILED:
        _COMPILED[id(schema)] = schema.compile()
    return _COMPILED[id(schema)]


def _plain(value):
    """Container -> dict recursively (ignoring construct's private ``_io``), for comparisons with dicts."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if not (isinstance(k, str) and k.startswith("_"))}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def roundtrip(schema: construct.Construct, data: bytes, expected=None, **ctx):
    """parse -> same value as ``expected`` (if given) -> build gives the same bytes; sizeof equals the length
    where the schema is static; the compiled schema parses to the same value and builds the same bytes."""
    parsed = schema.parse(data, **ctx)
    if expected is not None:
        assert _plain(parsed) == _plain(expected)
    assert schema.build(parsed, **ctx) == data
    try:
        size = schema.sizeof(**ctx)
    except construct.SizeofError:
        size = None
    if size is not None:
        assert size == len(data)
    fast = _compiled(schema)
    fast_parsed = fast.parse(data, **ctx)
    assert _plain(fast_parsed) == _plain(parsed)
    assert fast.build(fast_parsed, **ctx) == data
    return parsed


# --- inputs ---------------------------------------------------------------------------------------------------

SPEC_RECORD_HEX = """
00 00 00 CA DA A3 20 A7 0B D6 9E 52 00 00 00 00  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
00 00 40 10 00 00 00 00 00 00 01 8B CF E5 68 00  C0 A8 01 0A 00 00 CC 5A 00 00 01 8B CF E5 68 7B
0A 6C 73 D9 00 00 2A 9F 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 0B 48 65 6C 6C 6F 20 77 6F
72 6C 64 09 54 6F 70 69 63 54 65 73 74 00 5B 54  41 47 53 01 54 61 67 41 02 4B 45 59 53 01 4F 72
64 65 72 49 44 30 30 31 02 55 4E 49 51 5F 4B 45  59 01 43 30 41 38 30 31 30 41 33 30 33 39 31 42
36 44 33 35 38 36 30 37 35 42 43 44 31 35 30 30  30 37 02 43 4C 55 53 54 45 52 01 44 65 66 61 75
6C 74 43 6C 75 73 74 65 72 02
"""
SPEC_RECORD = bytes.fromhex(SPEC_RECORD_HEX)
SPEC_PROPS = (
    b"TAGS\x01TagA\x02KEYS\x01OrderID001\x02UNIQ_KEY\x01C0A8010A30391B6D3586075BCD150007\x02"
    b"CLUSTER\x01DefaultCluster\x02"
)
SPEC_FIELDS = dict(
    total_size=202,
    magic_code=cl.MAGIC_V1,
    body_crc=198_614_610,
    queue_id=0,
    flag=0,
    queue_offset=0,
    physical_offset=16_400,
    sys_flag=0,
    born_timestamp=1_700_000_000_000,
    born_host=dict(ip="192.168.1.10", port=52314),
    store_timestamp=1_700_000_000_123,
    store_host=dict(ip="10.108.115.217", port=10911),
    reconsume_times=0,
    prepared_transaction_offset=0,
    body=b"Hello world",
    topic="TopicTest",
    properties=cl.Properties(
        [("TAGS", "TagA"), ("KEYS", "OrderID001"), ("UNIQ_KEY", "C0A8010A30391B6D3586075BCD150007"),
         ("CLUSTER", "DefaultCluster")],
        True,
    ),
)


def assemble_record(
    *,
    magic: int = cl.MAGIC_V1,
    sys_flag: int = 0,
    born_ip: str = "192.168.1.10",
    store_ip: str = "10.108.115.217",
    body: bytes = b"Hello world",
    topic: bytes = b"TopicTest",
    props: bytes = SPEC_PROPS,
) -> bytes:
    """A record laid out by hand from the spec §2.1 field table (``struct``, no construct)."""
    crc = zlib.crc32(body) & 0x7FFFFFFF if body else 0
    born = ipaddress.ip_address(born_ip).packed
    store = ipaddress.ip_address(store_ip).packed
    topic_len = struct.pack(">h" if magic == cl.MAGIC_V2 else ">b", len(topic))
    rest = (
        struct.pack(">iiiqqiq", crc, 0, 0, 0, 16_400, sys_flag, 1_700_000_000_000)
        + born + struct.pack(">i", 52314)
        + struct.pack(">q", 1_700_000_000_123)
        + store + struct.pack(">i", 10911)
        + struct.pack(">iq", 0, 0)
        + struct.pack(">i", len(body)) + body
        + topic_len + topic
        + struct.pack(">h", len(props)) + props
    )
    return struct.pack(">ii", 8 + len(rest), magic) + rest


# --- every schema round-trips -----------------------------------------------------------------------------------

INDEX_GEOMETRY = dict(slot_count=4, item_count=3)
SMALL_INDEX_FILE = (
    struct.pack(">qqqqii", 1_700_000_000_123, 1_700_000_005_123, 16_400, 16_602, 2, 3)
    + struct.pack(">4i", 0, 2, 0, 1)
    + bytes(20)
    + struct.pack(">iqii", 630_406_310, 16_400, 0, 0)
    + struct.pack(">iqii", 1_231_272_886, 16_602, 5, 0)
)

CASES = {
    "MessageRecord-v1-spec": (cl.MessageRecord, SPEC_RECORD, SPEC_FIELDS, {}),
    "MessageRecord-v2": (
        cl.MessageRecord,
        assemble_record(magic=cl.MAGIC_V2, topic=b"T" * 200),
        {**SPEC_FIELDS, "total_size": 91 + 11 + 201 + 91, "magic_code": cl.MAGIC_V2, "topic": "T" * 200},
        {},
    ),
    "MessageRecord-born6": (
        cl.MessageRecord,
        assemble_record(sys_flag=0x10, born_ip="2001:db8::1"),
        {**SPEC_FIELDS, "total_size": 214, "sys_flag": 0x10, "born_host": dict(ip="2001:db8::1", port=52314)},
        {},
    ),
    "MessageRecord-store6": (
        cl.MessageRecord,
        assemble_record(sys_flag=0x20, store_ip="2001:db8::2"),
        {**SPEC_FIELDS, "total_size": 214, "sys_flag": 0x20, "store_host": dict(ip="2001:db8::2", port=10911)},
        {},
    ),
    "MessageRecord-empty-body-props": (
        cl.MessageRecord,
        assemble_record(body=b"", props=b""),
        {**SPEC_FIELDS, "total_size": 100, "body_crc": 0, "body": b"", "properties": cl.Properties([], False)},
        {},
    ),
    "BlankRecord": (cl.BlankRecord, bytes.fromhex("0000006CCBD43194"), dict(total_size=108, magic_code=cl.MAGIC_BLANK), {}),
    "RecordHead": (cl.RecordHead, bytes.fromhex("000000CADAA320A7"), dict(total_size=202, magic_code=cl.MAGIC_V1), {}),
    "Host4": (cl.Host4, bytes.fromhex("C0A8010A0000CC5A"), dict(ip="192.168.1.10", port=52314), {}),
    "Host6": (cl.Host6, ipaddress.ip_address("::1").packed + bytes.fromhex("00002A9F"), dict(ip="::1", port=10911), {}),
    "SysFlag": (
        cl.SysFlag,
        (0x2F9).to_bytes(4, "big"),
        dict(unused=0, compression_type="ZSTD", inner_batch=True, need_unwrap=True, store_host_v6=True,
             born_host_v6=True, transaction="COMMIT", multi_tags=False, compressed=True),
        {},
    ),
    "InnerBatchItem": (
        cl.InnerBatchItem,
        struct.pack(">iiiii", 29, 0, 0, 7, 3) + b"abc" + struct.pack(">h", 6) + b"K\x01v\x02X\x02",
        dict(total_size=29, magic_code=0, body_crc=0, flag=7, body=b"abc",
             properties=cl.Properties([("K", "v"), ("X", None)], True)),
        {},
    ),
    "ConsumeQueueUnit": (
        consumequeue.ConsumeQueueUnit,
        bytes.fromhex("0000000000004010000000CA000000000027A807"),
        dict(physical_offset=16_400, size=202, tags_code=2_598_919),
        {},
    ),
    "ConsumeQueueExtUnit": (
        consumequeue.ConsumeQueueExtUnit,
        struct.pack(">hqqh", 23, -854_686_734, 1_700_000_000_123, 3) + b"\x01\x02\x03",
        dict(size=23, tags_code=-854_686_734, store_timestamp=1_700_000_000_123, filter_bitmap=b"\x01\x02\x03"),
        {},
    ),
    "BatchConsumeQueueUnit": (
        consumequeue.BatchConsumeQueueUnit,
        struct.pack(">qiqqqhii", 16_400, 202, 2_598_919, 1_700_000_000_123, 100, 5, -1, 0),
        dict(physical_offset=16_400, size=202, tags_code=2_598_919, store_timestamp=1_700_000_000_123,
             msg_base_offset=100, batch_size=5, compacted_offset=-1, reserved=0),
        {},
    ),
    "IndexHeader-spec": (
        indexfile.IndexHeader,
        struct.pack(">qqqqii", 1_700_000_000_123, 1_700_000_000_123, 16_400, 16_400, 2, 3),
        dict(begin_timestamp=1_700_000_000_123, end_timestamp=1_700_000_000_123, begin_phy_offset=16_400,
             end_phy_offset=16_400, hash_slot_count=2, index_count=3),
        {},
    ),
    "IndexItem-spec": (
        indexfile.IndexItem,
        bytes.fromhex("25933CA6000000000000401000000000" "00000000"),
        dict(key_hash=630_406_310, phy_offset=16_400, time_diff=0, prev_index=0),
        {},
    ),
    "IndexFile-small": (
        indexfile.IndexFile,
        SMALL_INDEX_FILE,
        dict(
            header=dict(begin_timestamp=1_700_000_000_123, end_timestamp=1_700_000_005_123, begin_phy_offset=16_400,
                        end_phy_offset=16_602, hash_slot_count=2, index_count=3),
            slots=[0, 2, 0, 1],
            items=[dict(key_hash=0, phy_offset=0, time_diff=0, prev_index=0),
                   dict(key_hash=630_406_310, phy_offset=16_400, time_diff=0, prev_index=0),
                   dict(key_hash=1_231_272_886, phy_offset=16_602, time_diff=5, prev_index=0)],
        ),
        INDEX_GEOMETRY,
    ),
    "Checkpoint-5x": (
        checkpoint.Checkpoint,
        struct.pack(">5q", 1_700_000_000_123, 1_700_000_000_100, 0, 16_602, 16_400) + bytes(4056),
        dict(physic_msg_timestamp=1_700_000_000_123, logics_msg_timestamp=1_700_000_000_100, index_msg_timestamp=0,
             master_flushed_offset=16_602, confirm_phy_offset=16_400, reserved=bytes(4056)),
        {},
    ),
    "TimerCheckpoint": (
        checkpoint.TimerCheckpoint,
        struct.pack(">7q", 1, 2, 3, 4, 5, 6, 7) + bytes(4040),
        dict(last_read_time_ms=1, last_timer_log_flush_pos=2, last_timer_queue_offset=3, master_timer_queue_offset=4,
             state_version=5, data_version_timestamp=6, data_version_counter=7, reserved=bytes(4040)),
        {},
    ),
    "OffsetMsgId4-spec": (
        msgid.OffsetMsgId4,
        bytes.fromhex("0A6C73D900002A9F0000000000004010"),
        dict(ip="10.108.115.217", port=10911, offset=16_400),
        {},
    ),
    "OffsetMsgId6": (
        msgid.OffsetMsgId6,
        ipaddress.ip_address("2001:db8::2").packed + struct.pack(">iq", 10911, 16_400),
        dict(ip="2001:db8::2", port=10911, offset=16_400),
        {},
    ),
    "UniqKey4-spec": (
        msgid.UniqKey4,
        bytes.fromhex("C0A8010A30391B6D3586075BCD150007"),
        dict(ip="192.168.1.10", pid=12345, class_loader_hash=0x1B6D3586, time_since_month_start=123_456_789,
             counter=7),
        {},
    ),
    "UniqKey6-top-bit": (
        msgid.UniqKey6,
        ipaddress.ip_address("2001:db8::1").packed + bytes.fromhex("FFFF" "E1A2B3C4" "9F6E5D4C" "FFFE"),
        dict(ip="2001:db8::1", pid=0xFFFF, class_loader_hash=-509_430_844, time_since_month_start=0x9F6E5D4C,
             counter=0xFFFE),
        {},
    ),
    "CqKey-spec": (
        rocksdb_cq.CqKey,
        bytes.fromhex("00000009" "01" "546F70696354657374" "01" "00000000" "01" "0000000000000000"),
        dict(topic_length=9, topic_bytes=b"TopicTest", queue_id=0, queue_offset=0),
        {},
    ),
    "CqValue-spec": (
        rocksdb_cq.CqValue,
        bytes.fromhex("0000000000004010" "000000CA" "000000000027A807" "0000018BCFE5687B"),
        dict(physical_offset=16_400, size=202, tags_code=2_598_919, store_timestamp=1_700_000_000_123),
        {},
    ),
    "OffsetKey-spec-max": (
        rocksdb_cq.OffsetKey,
        bytes.fromhex("00000009" "01" "546F70696354657374" "01" "6D6178" "01" "00000000"),
        dict(topic_length=9, topic_bytes=b"TopicTest", kind="max", queue_id=0),
        {},
    ),
    "OffsetKey-spec-checkpoint": (
        rocksdb_cq.OffsetKey,
        bytes.fromhex("00000010" "01" "434845434B504F494E545F544F504943" "01" "6D6178" "01" "00000000"),
        dict(topic_length=16, topic_bytes=b"CHECKPOINT_TOPIC", kind="max", queue_id=0),
        {},
    ),
    "OffsetValue-spec": (
        rocksdb_cq.OffsetValue,
        bytes.fromhex("0000000000004010" "0000000000000000"),
        dict(physical_offset=16_400, queue_offset=0),
        {},
    ),
    "CheckpointValue": (rocksdb_cq.CheckpointValue, bytes.fromhex("0000000000004010"),
                        dict(max_physical_offset=16_400), {}),
    "TopicText-invalid-utf8": (rocksdb_cq.TopicText, b"T\xff\xfe", "T\udcff\udcfe", {}),
    "TimerLogUnit": (
        timer.TimerLogUnit,
        struct.pack(">iqiqiqiiq", 52, -1, 1, 1_700_000_000_000, 5000, 16_400, 202, 2_598_919, 0),
        dict(size=52, prev_pos=-1, magic=1, current_write_time=1_700_000_000_000, delay=5000, commitlog_offset=16_400,
             size_of_message=202, real_topic_hash=2_598_919, reserved=0),
        {},
    ),
    "TimerLogBlank": (timer.TimerLogBlank, bytes.fromhex("00000010" "0000000000000000" "CBD43194"),
                      dict(remaining=16, zero=0, magic=-875_286_124), {}),
    "TimerWheelSlot": (
        timer.TimerWheelSlot,
        struct.pack(">qqqii", 1_700_000_005, 0, 52, 2, 0),
        dict(time_in_precision=1_700_000_005, first_pos=0, last_pos=52, num=2, magic=0),
        {},
    ),
    # DLedger (spec part 2 §16), bytes written out field by field from DLedgerEntryCoder.encode / encodeIndex
    "DLedgerEntryHeader": (
        dledger.EntryHeader,
        bytes.fromhex("00000001" "000000F8" "0000000000000007" "0000000000000003" "0000000000010138"
                      "00000000" "00000000" "00000000" "000000C8"),
        dict(magic=1, size=248, index=7, term=3, pos=65_848, channel=0, chain_crc=0, body_crc=0, body_length=200),
        {},
    ),
    "DLedgerEndOfFile": (dledger.EndOfFile, bytes.fromhex("FFFFFFFF" "00000064"), dict(magic=-1, remaining=100), {}),
    "DLedgerIndexUnit": (
        dledger.IndexUnit,
        bytes.fromhex("00000001" "0000000000010138" "000000F8" "0000000000000007" "0000000000000003"),
        dict(magic=1, pos=65_848, size=248, index=7, term=3),
        {},
    ),
    "DLedgerCheckpoint-java8": (dledger.DLedgerCheckpoint, b"endIndex=41\ncommittedIndex=40\n",
                                {"endIndex": 41, "committedIndex": 40}, {}),
    "DLedgerCheckpoint-java9": (dledger.DLedgerCheckpoint, b"committedIndex=-1\nendIndex=-1\n",
                                {"committedIndex": -1, "endIndex": -1}, {}),
    "DLedgerCurrTerm": (dledger.CurrTerm, b"voteLeader=n0\ncurrTerm=4\n", {"voteLeader": "n0", "currTerm": 4}, {}),
    "DLedgerCurrTerm-no-vote": (dledger.CurrTerm, b"voteLeader=\ncurrTerm=0\n", {"voteLeader": "", "currTerm": 0},
                                {}),
    "DLedgerPropertiesText": (dledger.PropertiesText, b"a=b=c\n=\n", {"a": "b=c", "": ""}, {}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_schema_roundtrip(case: str) -> None:
    schema, data, expected, ctx = CASES[case]
    roundtrip(schema, data, expected, **ctx)


SCHEMA_MODULES = (checkpoint, commitlog, consumequeue, dledger, indexfile, msgid, rocksdb_cq, timer)


def test_every_schema_in_parsers_has_a_roundtrip_case() -> None:
    """A schema added to parsers/ without a vector here fails this test."""
    library = {id(v) for v in vars(construct).values()}
    ours = {
        f"{m.__name__}.{name}"
        for m in SCHEMA_MODULES
        for name, obj in vars(m).items()
        if isinstance(obj, construct.Construct) and id(obj) not in library
    }
    covered = {f"{schema_module(schema)}.{schema_name(schema)}" for schema, *_ in CASES.values()}
    assert ours - covered == set()


def schema_module(schema) -> str:
    return next(m.__name__ for m in SCHEMA_MODULES if any(obj is schema for obj in vars(m).values()))


def schema_name(schema) -> str:
    m = next(m for m in SCHEMA_MODULES if any(obj is schema for obj in vars(m).values()))
    return next(name for name, obj in vars(m).items() if obj is schema)


def test_real_checkpoints_roundtrip(realdata: Path) -> None:
    files = sorted(realdata.glob("*/*/store/checkpoint"))
    assert len(files) == 5
    for path in files:
        parsed = roundtrip(checkpoint.Checkpoint, path.read_bytes())
        assert parsed.physic_msg_timestamp > 1_500_000_000_000  # a 2017+ wall clock, ms
        assert parsed.index_msg_timestamp == 0  # README: 4.x files, no full index file yet
        assert (parsed.master_flushed_offset, parsed.confirm_phy_offset) == (0, 0)


def test_blank_record_rejects_other_magic() -> None:
    with pytest.raises(construct.ConstError):
        cl.BlankRecord.parse(bytes.fromhex("00000008DAA320A7"))


def test_index_file_sizeof_follows_geometry() -> None:
    assert indexfile.IndexFile.sizeof(**INDEX_GEOMETRY) == len(SMALL_INDEX_FILE) == indexfile.index_file_size(4, 3)
    assert indexfile.index_file_size(5_000_000, 20_000_000) == 420_000_040
    assert indexfile.infer_geometry(420_000_040) == (5_000_000, 20_000_000)
    assert indexfile.infer_geometry(5_416) == (64, 256)
    assert indexfile.infer_geometry(5_417) is None


# --- §14.7 the complete record -----------------------------------------------------------------------------------


def test_spec_record_parses_to_the_listed_fields_and_rebuilds_exactly() -> None:
    parsed = cl.MessageRecord.parse(SPEC_RECORD)
    assert len(SPEC_RECORD) == 202
    assert _plain(parsed) == _plain(SPEC_FIELDS)
    assert cl.MessageRecord.build(parsed) == SPEC_RECORD
    assert cl.MessageRecord.build(SPEC_FIELDS) == SPEC_RECORD
    assert cl.record_length(11, 9, 91) == 202
    assert parsed.properties.to_text().encode() == SPEC_PROPS


def test_spec_field_boundaries() -> None:
    r = SPEC_RECORD
    assert r[48:56] == bytes.fromhex("C0A8010A0000CC5A")
    assert r[84:88] == bytes.fromhex("0000000B")
    assert r[88:99] == b"Hello world"
    assert r[99] == 9
    assert r[100:109] == b"TopicTest"
    assert r[109:111] == bytes.fromhex("005B")
    assert r[111:] == SPEC_PROPS


def test_spec_record_with_ipv6_hosts_is_226_bytes() -> None:
    data = assemble_record(sys_flag=0x30, born_ip="2001:db8::1", store_ip="2001:db8::2")
    assert len(data) == 226
    assert cl.record_length(11, 9, 91, 0x30) == 226
    parsed = roundtrip(cl.MessageRecord, data)
    assert parsed.total_size == 226
    assert (parsed.born_host.ip, parsed.store_host.ip) == ("2001:db8::1", "2001:db8::2")
    assert parsed.store_timestamp == 1_700_000_000_123


def test_record_length_formula() -> None:
    assert cl.record_length(0, 0, 0) == 91
    assert cl.record_length(0, 0, 0, magic_code=cl.MAGIC_V2) == 92
    assert cl.record_length(0, 0, 0, sys_flag=0x10) == 103
    assert cl.record_length(0, 0, 0, sys_flag=0x30, magic_code=cl.MAGIC_V2) == 116


def test_spec_derived_entries() -> None:
    unit = consumequeue.ConsumeQueueUnit.build(dict(physical_offset=16_400, size=202, tags_code=tags_code("TagA")))
    assert unit.hex().upper() == "0000000000004010000000CA000000000027A807"
    key = rocksdb_cq.cq_key("TopicTest", 0, 0)
    assert key.hex().upper() == "00000009" "01" "546F70696354657374" "01" "00000000" "01" "0000000000000000"
    assert len(key) == 28
    value = rocksdb_cq.CqValue.build(dict(physical_offset=16_400, size=202, tags_code=2_598_919,
                                          store_timestamp=1_700_000_000_123))
    assert value.hex().upper() == "0000000000004010000000CA000000000027A8070000018BCFE5687B"
    max_key = rocksdb_cq.offset_key("TopicTest", "max", 0)
    assert max_key.hex().upper() == "00000009" "01" "546F70696354657374" "01" "6D6178" "01" "00000000"
    assert len(max_key) == 23
    ckpt = rocksdb_cq.offset_key(rocksdb_cq.CHECKPOINT_TOPIC, "max", 0)
    assert ckpt.hex().upper() == "00000010" "01" "434845434B504F494E545F544F504943" "01" "6D6178" "01" "00000000"
    assert len(ckpt) == 30
    assert cl.BlankRecord.build(dict(total_size=8)).hex().upper() == "00000008CBD43194"
    parsed_key = rocksdb_cq.CqKey.parse(key)
    assert rocksdb_cq.topic_of(parsed_key) == "TopicTest"


def test_rocksdb_queue_key_range_brackets_every_unit_key() -> None:
    lower, upper = rocksdb_cq.queue_key_range("TopicTest", 3)
    for offset in (0, 1, 255, 256, (1 << 63) - 1):
        assert lower < rocksdb_cq.cq_key("TopicTest", 3, offset) < upper
    assert not lower < rocksdb_cq.cq_key("TopicTest", 4, 0) < upper
    assert not lower < rocksdb_cq.cq_key("TopicTesu", 3, 0) < upper
    assert rocksdb_cq.cq_key("TopicTest", 3, 1) < rocksdb_cq.cq_key("TopicTest", 3, 256)


# --- §14.1 hashes and slots, §14.2 tagsCode --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "hash_code", "stored", "slot", "slot_byte"),
    [
        ("TopicTest#OrderID001", -1_231_272_886, 1_231_272_886, 1_272_886, 5_091_584),
        ("TopicTest#C0A8010A30391B6D3586075BCD150007", -630_406_310, 630_406_310, 406_310, 1_625_280),
        ("TopicTest#pIBROD", -2_147_483_648, 0, 0, 40),
        ("TopicTest#中文", 3_389_052, 3_389_052, 3_389_052, 13_556_248),
        ("polygenelubricants", -2_147_483_648, 0, 0, 40),
    ],
)
def test_spec_index_hash_and_slot(key: str, hash_code: int, stored: int, slot: int, slot_byte: int) -> None:
    assert java_string_hash(key) == hash_code
    assert index_key_hash(key) == stored
    assert index_slot(stored, 5_000_000) == slot
    assert indexfile.slot_position(slot) == slot_byte


def test_java_hash_runs_over_utf16_code_units() -> None:
    assert java_string_hash("😀") == 0xD83D * 31 + 0xDE00  # a surrogate pair: two code units
    assert java_string_hash("") == 0
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112


def test_spec_worked_index_example_positions() -> None:
    assert indexfile.item_position(1, 5_000_000) == 20_000_060
    assert indexfile.item_position(2, 5_000_000) == 20_000_080
    item1 = indexfile.IndexItem.build(dict(key_hash=630_406_310, phy_offset=16_400, time_diff=0, prev_index=0))
    item2 = indexfile.IndexItem.build(dict(key_hash=1_231_272_886, phy_offset=16_400, time_diff=0, prev_index=0))
    assert item1.hex().upper() == "25933CA6" "0000000000004010" "00000000" "00000000"
    assert item2.hex().upper() == "4963BBB6" "0000000000004010" "00000000" "00000000"


@pytest.mark.parametrize(
    ("tags", "code", "cq_bytes"),
    [("TagA", 2_598_919, "00000000 0027A807"), ("tag-with-negative-hash", -854_686_734, "FFFFFFFF CD0E83F2"),
     (None, 0, "00000000 00000000"), ("", 0, "00000000 00000000")],
)
def test_spec_tags_code(tags: str | None, code: int, cq_bytes: str) -> None:
    assert tags_code(tags) == code
    unit = consumequeue.ConsumeQueueUnit.build(dict(physical_offset=0, size=1, tags_code=code))
    assert unit[12:] == bytes.fromhex(cq_bytes)


def test_cq_ext_address_and_pre_blank_helpers() -> None:
    assert consumequeue.is_ext_address(-2_147_483_649)
    assert not consumequeue.is_ext_address(-2_147_483_648)  # the smallest int hash code
    addr = consumequeue.ext_offset_to_address(4096)
    assert addr == 4096 - (1 << 63) and consumequeue.ext_address_to_offset(addr) == 4096
    assert consumequeue.is_pre_blank(0, 0x7FFFFFFF, 0)
    assert not consumequeue.is_pre_blank(0, 0x7FFFFFFF, 1)
    assert consumequeue.cq_file_size(6_000_000) == 6_000_000
    assert consumequeue.cq_file_size(199) == 200


# --- §14.3 msgId, §14.6 UNIQ_KEY --------------------------------------------------------------------------------


def test_spec_offset_msg_id() -> None:
    decoded = msgid.decode_offset_msg_id("0A6C73D900002A9F0000000000004010")
    assert decoded == msgid.OffsetMsgId("10.108.115.217", 10911, 16_400)
    assert msgid.encode_offset_msg_id("10.108.115.217", 10911, 16_400) == "0A6C73D900002A9F0000000000004010"
    v6 = msgid.encode_offset_msg_id("2001:db8::2", 10911, 1 << 40)
    assert len(v6) == 56
    assert msgid.decode_offset_msg_id(v6) == msgid.OffsetMsgId("2001:db8::2", 10911, 1 << 40)


@pytest.mark.parametrize("bad", ["", "0A6C73D9", "0A6C73D900002A9F000000000000401", "ZZ6C73D900002A9F0000000000004010"])
def test_msg_id_rejects_bad_text(bad: str) -> None:
    with pytest.raises(msgid.MsgIdError):
        msgid.decode_offset_msg_id(bad)
    with pytest.raises(msgid.MsgIdError):
        msgid.decode_uniq_key(bad)


TZ = dt.timezone(dt.timedelta(hours=8))  # a fixed zone: results do not depend on the machine


def _ms(*args: int) -> int:
    return int(dt.datetime(*args, tzinfo=TZ).timestamp() * 1000)


def test_spec_uniq_key_decode() -> None:
    uk = msgid.decode_uniq_key("C0A8010A30391B6D3586075BCD150007")
    assert uk == msgid.UniqKey("192.168.1.10", 12345, 0x1B6D3586, 123_456_789, 7)
    assert msgid.encode_uniq_key("192.168.1.10", 12345, 0x1B6D3586, 123_456_789, 7) == (
        "C0A8010A30391B6D3586075BCD150007"
    )


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        ((2025, 9, 20, 12, 0), (2025, 9, 2, 10, 17, 36, 789_000)),  # current month
        ((2025, 9, 1, 5, 0), (2025, 8, 2, 10, 17, 36, 789_000)),  # would be in the future: previous month
        ((2025, 1, 1, 5, 0), (2024, 12, 2, 10, 17, 36, 789_000)),  # previous month is in the previous year
    ],
)
def test_spec_uniq_key_time(now: tuple, expected: tuple) -> None:
    got = msgid.uniq_key_nearly_time(123_456_789, _ms(*now), TZ)
    assert got == int(dt.datetime(*expected, tzinfo=TZ).timestamp() * 1000)


def test_uniq_key_late_in_a_31_day_month_has_the_top_bit_set_and_reads_unsigned() -> None:
    created = _ms(2025, 8, 31, 23, 0)
    span = msgid.uniq_key_time_span(created, TZ)
    assert span == (30 * 24 + 23) * 3_600_000 == 2_674_800_000 > 2**31
    text = msgid.encode_uniq_key("192.168.1.10", 1, 2, span, 3)
    assert msgid.decode_uniq_key(text).time_since_month_start == 2_674_800_000
    assert msgid.uniq_key_nearly_time(span, _ms(2025, 9, 1, 0, 30), TZ) == created


# --- §14.4 CRC -----------------------------------------------------------------------------------------------------


def test_spec_crc() -> None:
    assert zlib.crc32(b"Hello world") == 2_346_098_258
    assert rocketmq_crc32(b"Hello world") == 198_614_610
    assert SPEC_RECORD[8:12] == bytes.fromhex("0BD69E52")
    assert rocketmq_crc32(b"") == 0


@pytest.mark.parametrize(("value", "digits"), [(123_456_789, "9876543210"), (198_614_610, "0164168910"),
                                               (0, "0000000000"), (2_147_483_647, "7463847412")])
def test_spec_crc_property_digits(value: int, digits: str) -> None:
    assert crc_property_digits(value) == digits
    assert parse_crc_property_digits(digits) == value


@pytest.mark.parametrize("bad", ["", "123", "12345678901", "12345x7890"])
def test_crc_property_digits_reject_bad_text(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_crc_property_digits(bad)


def test_spec_record_with_crc_property() -> None:
    """§14.4: with enabledAppendPropCRC the §14.7 record has P = 111, TOTALSIZE 222, CRC over its first 202 bytes."""
    tail = "__CRC32#\x01" + "0" * 10 + "\x02"
    value = {**SPEC_FIELDS, "total_size": 222,
             "properties": cl.Properties.from_text(SPEC_PROPS.decode() + tail)}
    draft = cl.MessageRecord.build(value)
    assert len(draft) == 222 and draft[109:111] == struct.pack(">h", 111)
    crc = rocketmq_crc32(draft[:202])
    assert crc == 1_114_530_942
    assert crc_property_digits(crc) == "2490354111"
    final = draft[:202] + b"__CRC32#\x01" + b"2490354111" + b"\x02"
    parsed = roundtrip(cl.MessageRecord, final)
    assert parsed.properties.as_map()["__CRC32#"] == "2490354111"


# --- sysFlag helpers ---------------------------------------------------------------------------------------------


def test_sys_flag_parts_and_make_sys_flag_agree() -> None:
    flag = cl.make_sys_flag(compressed=True, compression=2, transaction=cl.TRANSACTION_COMMIT_TYPE,
                            born_host_v6=True, store_host_v6=True, need_unwrap=True, inner_batch=True)
    assert flag == 0x2F9
    assert cl.sys_flag_parts(flag) == dict(
        compressed=True, compression_type="ZSTD", multi_tags=False, transaction="COMMIT", born_host_v6=True,
        store_host_v6=True, need_unwrap=True, inner_batch=True, unused_bits=0,
    )
    assert cl.sys_flag_parts(0x004)["transaction"] == "PREPARED"
    assert cl.sys_flag_parts(0x00C)["transaction"] == "ROLLBACK"
    assert cl.sys_flag_parts(0x001)["compression_type"] == "ZLIB"  # pre-4.9.4: bit 0 alone means zlib
    assert cl.sys_flag_parts(0x002)["compression_type"] is None
    assert cl.sys_flag_parts(-1)["unused_bits"] == (1 << 21) - 1  # negative int32: all bits set


# --- Properties ----------------------------------------------------------------------------------------------------

PROPERTIES_SUBCON = cl.PropertiesAdapter(Utf8Text(construct.Prefixed(construct.Int16sb, construct.GreedyBytes)))


@pytest.mark.parametrize(
    ("raw", "entries", "terminated"),
    [
        (b"", [], False),
        (b"A\x01b", [("A", "b")], False),  # missing trailing 0x02
        (b"A\x01b\x02", [("A", "b")], True),
        (b"\x02", [("", None)], True),
        (b"\x02\x02A\x01b\x02", [("", None), ("", None), ("A", "b")], True),  # empty segments
        (b"A\x01b\x01c\x02", [("A", "b\x01c")], True),  # first 0x01 splits
        (b"noseparator\x02\x01\x02", [("noseparator", None), ("", "")], True),
        (b"T\xff\x01\xc3\x28\x02", [("T\udcff", "\udcc3(")], True),  # invalid UTF-8 kept as surrogates
    ],
)
def test_properties_roundtrip_byte_exact(raw: bytes, entries: list, terminated: bool) -> None:
    props = roundtrip(PROPERTIES_SUBCON, struct.pack(">h", len(raw)) + raw)
    assert props == cl.Properties(entries, terminated)
    assert has_invalid_utf8(props.to_text()) == (b"\xff" in raw)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\x01b\x02", {"a": "b"}),
        ("K\x01v1\x02K\x01v2\x02", {"K": "v2"}),  # later duplicate wins
        ("\x01v\x02K\x01\x02", {}),  # empty name, empty value dropped
        ("ab\x02", {}),  # no separator
        ("a\x01\x02b\x01c", {"b": "c"}),  # short segment dropped, unterminated last pair kept
        ("K\x01a\x01b\x02", {"K": "a\x01b"}),
        ("", {}),
    ],
)
def test_properties_as_map_follows_rocketmq(text: str, expected: dict) -> None:
    assert cl.Properties.from_text(text).as_map() == expected

def test_properties_from_empty_map_equals_its_parse() -> None:
    built = cl.Properties.from_map({})
    assert PROPERTIES_SUBCON.parse(PROPERTIES_SUBCON.build(built)) == built


def test_properties_malformed_segments() -> None:
    props = cl.Properties.from_text("ok\x01v\x02bad\x02\x01x\x02y\x01\x02")
    assert props.malformed_segments() == ["bad", "\x01x", "y\x01"]


def java_string2message_properties(text: str) -> dict[str, str]:
    """``MessageDecoder.string2messageProperties`` transcribed index by index (the reference for as_map)."""
    result: dict[str, str] = {}
    index, length = 0, len(text)
    while index < length:
        new_index = text.find("\x02", index)
        if new_index < 0:
            new_index = length
        if new_index - index >= 3:
            kv = text.find("\x01", index)
            if index < kv < new_index - 1:
                result[text[index:kv]] = text[kv + 1 : new_index]
        index = new_index + 1
    return result


@given(st.text(alphabet=st.sampled_from("ab\x01\x02é"), max_size=40))
@settings(max_examples=300, deadline=None)
def test_properties_as_map_equals_java_reading(text: str) -> None:
    assert cl.Properties.from_text(text).as_map() == java_string2message_properties(text)


@given(st.binary(max_size=200))
@settings(max_examples=300, deadline=None)
def test_properties_any_bytes_roundtrip(raw: bytes) -> None:
    data = struct.pack(">h", len(raw)) + raw
    parsed = PROPERTIES_SUBCON.parse(data)
    assert PROPERTIES_SUBCON.build(parsed) == data
    record = assemble_record(props=raw)
    assert cl.MessageRecord.build(cl.MessageRecord.parse(record)) == record


# --- hypothesis: build then parse ---------------------------------------------------------------------------------

INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)
IPV4 = st.ip_addresses(v=4).map(str)
IPV6 = st.ip_addresses(v=6).map(str)
PROPS = st.dictionaries(
    st.text(st.characters(blacklist_characters="\x01\x02", blacklist_categories=("Cs",)), min_size=1, max_size=8),
    st.text(st.characters(blacklist_characters="\x01\x02", blacklist_categories=("Cs",)), min_size=1, max_size=16),
    max_size=4,
)


@st.composite
def record_values(draw) -> dict:
    born6, store6, v2 = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    sys_flag = draw(INT32) & ~0x30 | (0x10 if born6 else 0) | (0x20 if store6 else 0)
    topic = draw(st.text(st.characters(blacklist_categories=("Cs",)), max_size=200 if v2 else 30))
    if not v2:
        topic = topic.encode()[:127].decode("utf-8", "ignore")
    body = draw(st.binary(max_size=64))
    props = cl.Properties.from_map(draw(PROPS))
    return dict(
        total_size=draw(INT32), magic_code=cl.MAGIC_V2 if v2 else cl.MAGIC_V1, body_crc=draw(INT32),
        queue_id=draw(INT32), flag=draw(INT32), queue_offset=draw(INT64), physical_offset=draw(INT64),
        sys_flag=sys_flag, born_timestamp=draw(INT64),
        born_host=dict(ip=draw(IPV6 if born6 else IPV4), port=draw(INT32)),
        store_timestamp=draw(INT64), store_host=dict(ip=draw(IPV6 if store6 else IPV4), port=draw(INT32)),
        reconsume_times=draw(INT32), prepared_transaction_offset=draw(INT64), body=body, topic=topic,
        properties=props,
    )


@given(record_values())
@settings(max_examples=200, deadline=None)
def test_message_record_build_then_parse(value: dict) -> None:
    data = cl.MessageRecord.build(value)
    parsed = cl.MessageRecord.parse(data)
    expected = {**value, "born_host": dict(value["born_host"]), "store_host": dict(value["store_host"])}
    # from_map({}) and the parse of b"" agree: no entries, not terminated; same bytes
    expected["properties"] = cl.Properties.from_text(value["properties"].to_text())
    # addresses come back in canonical text form
    expected["born_host"]["ip"] = str(ipaddress.ip_address(value["born_host"]["ip"]))
    expected["store_host"]["ip"] = str(ipaddress.ip_address(value["store_host"]["ip"]))
    assert _plain(parsed) == _plain(expected)
    assert cl.MessageRecord.build(parsed) == data
    v = value
    length = cl.record_length(len(v["body"]), len(v["topic"].encode()), len(props_bytes(v)), v["sys_flag"],
                              v["magic_code"])
    assert len(data) == length


def props_bytes(value: dict) -> bytes:
    return value["properties"].to_text().encode()
