"""The fast ``struct`` decoder equals ``parsers.commitlog.MessageRecord.parse`` and fails only with RecordError."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.engine.model.records import Host, Message
from inspector.engine.scan.decode import (
    MIN_RECORD_SIZE,
    RecordError,
    decode_message,
    peek_head,
    stored_physical_offset,
)
from parsers import commitlog as cl

RECORD_ERROR_CODES = {
    "truncated",
    "bad-magic",
    "bad-size",
    "torn-record",
    "length-mismatch",
    "bad-body-length",
    "bad-topic-length",
    "bad-properties-length",
}
FIXTURE_OK = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def assert_same_as_schema(msg: Message, buf: bytes, pos: int, segment_start: int, file: str) -> None:
    """Field by field: the fast decoder's Message against construct's parse of the same bytes."""
    ref = cl.MessageRecord.parse(bytes(buf[pos : pos + msg.total_size]))
    assert msg.file == file
    assert msg.position == pos
    assert msg.physical_offset == segment_start + pos
    assert msg.total_size == ref.total_size
    assert msg.magic_code == ref.magic_code
    assert msg.body_crc == ref.body_crc
    assert msg.queue_id == ref.queue_id
    assert msg.flag == ref.flag
    assert msg.queue_offset == ref.queue_offset
    assert msg.stored_physical_offset == ref.physical_offset
    assert msg.sys_flag == ref.sys_flag
    assert msg.born_timestamp == ref.born_timestamp
    assert msg.born_host == Host(ref.born_host.ip, ref.born_host.port)
    assert msg.store_timestamp == ref.store_timestamp
    assert msg.store_host == Host(ref.store_host.ip, ref.store_host.port)
    assert msg.reconsume_times == ref.reconsume_times
    assert msg.prepared_transaction_offset == ref.prepared_transaction_offset
    assert msg.body == ref.body
    assert msg.topic == ref.topic
    assert msg.properties_entries == tuple(ref.properties.entries)
    assert msg.properties_terminated == ref.properties.terminated
    assert msg.properties == ref.properties.as_map()


# --- the spec record -------------------------------------------------------------------------------------------


SPEC_RECORD = bytes.fromhex(  # spec §14.7, the 202-byte hex dump
    """
    00 00 00 CA DA A3 20 A7 0B D6 9E 52 00 00 00 00  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 40 10 00 00 00 00 00 00 01 8B CF E5 68 00  C0 A8 01 0A 00 00 CC 5A 00 00 01 8B CF E5 68 7B
    0A 6C 73 D9 00 00 2A 9F 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 0B 48 65 6C 6C 6F 20 77 6F
    72 6C 64 09 54 6F 70 69 63 54 65 73 74 00 5B 54  41 47 53 01 54 61 67 41 02 4B 45 59 53 01 4F 72
    64 65 72 49 44 30 30 31 02 55 4E 49 51 5F 4B 45  59 01 43 30 41 38 30 31 30 41 33 30 33 39 31 42
    36 44 33 35 38 36 30 37 35 42 43 44 31 35 30 30  30 37 02 43 4C 55 53 54 45 52 01 44 65 66 61 75
    6C 74 43 6C 75 73 74 65 72 02
    """
)


def test_spec_record_decodes_like_the_schema(build_record) -> None:
    data = build_record(16_400, properties="TAGS\x01TagA\x02KEYS\x01OrderID001\x02"
                        "UNIQ_KEY\x01C0A8010A30391B6D3586075BCD150007\x02CLUSTER\x01DefaultCluster\x02")
    assert data == SPEC_RECORD
    buf = bytes(16_400) + data + bytes(100)
    msg = decode_message(buf, 16_400, len(buf), file="commitlog/00000000000000000000", segment_start=0)
    assert_same_as_schema(msg, buf, 16_400, 0, "commitlog/00000000000000000000")
    assert msg.msg_id == "0A6C73D900002A9F0000000000004010"  # spec §14.3
    assert msg.body_crc_ok and msg.tags == "TagA" and msg.keys == ["OrderID001"]
    assert msg.unique_key == "C0A8010A30391B6D3586075BCD150007"
    assert msg.end_offset == 16_602
    assert peek_head(buf, 16_400) == (202, cl.MAGIC_V1)
    assert stored_physical_offset(buf, 16_400) == 16_400


def test_spec_record_in_a_later_segment_uses_segment_start(build_record) -> None:
    data = build_record(4096 + 10)
    buf = bytes(10) + data
    msg = decode_message(buf, 10, len(buf), file="commitlog/00000000000000004096", segment_start=4096)
    assert (msg.position, msg.physical_offset, msg.stored_physical_offset) == (10, 4106, 4106)


def test_min_record_size_is_the_ipv4_v1_overhead() -> None:
    assert MIN_RECORD_SIZE == 91


# --- real commitlogs --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["apache", "shaoxubao"])
def test_every_real_record_decodes_like_the_schema(real_commitlog_stores, real_store_hosts, name: str) -> None:
    path: Path = real_commitlog_stores[name] / "commitlog" / "00000000000000000000"
    buf = path.read_bytes()
    pos = count = 0
    while True:
        total, magic = struct.unpack_from(">ii", buf, pos)
        if magic not in cl.MESSAGE_MAGICS:
            break
        msg = decode_message(buf, pos, len(buf), file="commitlog/00000000000000000000", segment_start=0)
        assert_same_as_schema(msg, buf, pos, 0, "commitlog/00000000000000000000")
        assert str(msg.store_host) == real_store_hosts[name]
        assert msg.topic == "abc" and msg.body_crc_ok and msg.queue_offset == count
        pos += total
        count += 1
    assert count == 47
    assert (pos, total, magic) == (8084, 108, cl.MAGIC_BLANK)


# --- random records ---------------------------------------------------------------------------------------------

INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)


@st.composite
def record_kwargs(draw) -> dict:
    v2 = draw(st.booleans())
    born6, store6 = draw(st.booleans()), draw(st.booleans())
    sys_flag = draw(INT32) & ~0x30 | (0x10 if born6 else 0) | (0x20 if store6 else 0)
    topic = draw(st.binary(max_size=300 if v2 else 127)).decode("utf-8", "surrogateescape")
    props = draw(st.binary(max_size=120)).decode("utf-8", "surrogateescape")
    return dict(
        magic_code=cl.MAGIC_V2 if v2 else cl.MAGIC_V1,
        sys_flag=sys_flag,
        topic=topic,
        body=draw(st.binary(max_size=200)),
        properties=props,
        queue_id=draw(INT32),
        queue_offset=draw(INT64),
        flag=draw(INT32),
        born_timestamp=draw(INT64),
        store_timestamp=draw(INT64),
        born_host=(str(draw(st.ip_addresses(v=6 if born6 else 4))), draw(INT32)),
        store_host=(str(draw(st.ip_addresses(v=6 if store6 else 4))), draw(INT32)),
        reconsume_times=draw(INT32),
        prepared_transaction_offset=draw(INT64),
        body_crc=draw(st.none() | INT32),
    )


@given(kwargs=record_kwargs(), prefix=st.binary(max_size=40), suffix=st.binary(max_size=40),
       segment_index=st.integers(0, 1 << 20))
@FIXTURE_OK
def test_random_records_decode_like_the_schema(build_record, kwargs, prefix, suffix, segment_index) -> None:
    segment_start = segment_index * 4096
    pos = len(prefix)
    record = build_record(segment_start + pos, **kwargs)
    buf = prefix + record + suffix
    msg = decode_message(buf, pos, len(buf), file="f", segment_start=segment_start)
    assert_same_as_schema(msg, buf, pos, segment_start, "f")
    assert msg.stored_physical_offset == msg.physical_offset
    assert msg.end_offset == segment_start + pos + len(record)


# --- damage: only RecordError, and what is accepted agrees with the schema -----------------------------------------


@given(
    kwargs=record_kwargs(),
    edits=st.lists(st.tuples(st.integers(0, 2000), st.integers(0, 255)), max_size=6),
    cut=st.integers(0, 2000),
    suffix=st.binary(max_size=8),
)
@FIXTURE_OK
def test_damaged_records_raise_only_record_error(build_record, kwargs, edits, cut, suffix) -> None:
    buf = bytearray(build_record(0, **kwargs))
    for index, value in edits:
        buf[index % len(buf)] = value
    buf = bytes(buf[: min(cut, len(buf))]) + suffix
    try:
        msg = decode_message(buf, 0, len(buf), file="f", segment_start=0)
    except RecordError as e:
        assert e.code in RECORD_ERROR_CODES
        assert e.reason
        return
    assert_same_as_schema(msg, buf, 0, 0, "f")
    assert msg.total_size == cl.record_length(
        len(msg.body), len(msg.topic.encode("utf-8", "surrogateescape")),
        len(cl.Properties(list(msg.properties_entries), msg.properties_terminated).to_text()
            .encode("utf-8", "surrogateescape")),
        msg.sys_flag, msg.magic_code,
    )


@given(kwargs=record_kwargs(), limit_cut=st.integers(1, 400))
@FIXTURE_OK
def test_truncated_by_limit_raises_record_error(build_record, kwargs, limit_cut) -> None:
    """The record is intact in the buffer, but ``limit`` (end of readable data) cuts it."""
    record = build_record(0, **kwargs)
    buf = record + bytes(64)
    limit = max(0, len(record) - limit_cut)
    with pytest.raises(RecordError) as info:
        decode_message(buf, 0, limit, file="f", segment_start=0)
    assert info.value.code in {"truncated", "torn-record"}


# --- damage, one scenario at a time ---------------------------------------------------------------------------


def _spec(build_record) -> bytearray:
    return bytearray(build_record(0, properties={"TAGS": "TagA"}))


def _put(buf: bytearray, fmt: str, offset: int, value: int) -> bytes:
    struct.pack_into(fmt, buf, offset, value)
    return bytes(buf)


@pytest.mark.parametrize(
    ("surgery", "code"),
    [
        (lambda b: bytes(b[:7]), "truncated"),
        (lambda b: _put(b, ">i", 4, 0x12345678), "bad-magic"),
        (lambda b: _put(b, ">i", 4, cl.MAGIC_BLANK), "bad-magic"),
        (lambda b: _put(b, ">i", 0, 0), "bad-size"),
        (lambda b: _put(b, ">i", 0, -5), "bad-size"),
        (lambda b: _put(b, ">i", 0, 90), "bad-size"),
        (lambda b: _put(b, ">i", 0, 2**31 - 1), "torn-record"),
        (lambda b: bytes(b[:-1]), "torn-record"),
        (lambda b: _put(b, ">i", 84, 1000), "bad-body-length"),
        (lambda b: _put(b, ">i", 84, -1), "bad-body-length"),
        (lambda b: _put(b, ">b", 99, -1), "bad-topic-length"),
        (lambda b: _put(b, ">B", 99, 0x80), "bad-topic-length"),
        (lambda b: _put(b, ">B", 99, 100), "length-mismatch"),
        (lambda b: _put(b, ">h", 109, 500), "bad-properties-length"),
        (lambda b: _put(b, ">h", 109, -2), "bad-properties-length"),
        (lambda b: _put(b, ">h", 109, 0), "length-mismatch"),
        (lambda b: _put(b, ">i", 36, 0x10), "bad-body-length"),  # IPv6 born host: fields shift by 12
    ],
    ids=[
        "header-cut", "magic-garbage", "magic-blank", "size-zero", "size-negative", "size-below-minimum",
        "size-int-max", "last-byte-missing", "body-length-too-big", "body-length-negative", "topic-length-ff",
        "topic-length-80", "topic-length-too-big", "props-length-too-big", "props-length-negative",
        "props-length-short", "v6-flag-on-v4-record",
    ],
)
def test_damaged_spec_record(build_record, surgery, code: str) -> None:
    buf = surgery(_spec(build_record))
    with pytest.raises(RecordError) as info:
        decode_message(buf, 0, len(buf), file="f", segment_start=0)
    assert info.value.code == code


@pytest.mark.parametrize("total", [91, 95])
def test_short_record_with_ipv6_flags_at_end_of_buffer_raises_record_error(total: int) -> None:
    buf = bytearray(total)
    struct.pack_into(">ii", buf, 0, total, cl.MAGIC_V1)
    struct.pack_into(">i", buf, 36, 0x30)
    with pytest.raises(RecordError):
        decode_message(bytes(buf), 0, total, file="f", segment_start=0)


# --- properties kept raw until read (records._RawProperties) ---------------------------------------------------


def _rebuilt(msg: Message) -> Message:
    """The same message through the dataclass constructor (properties split up front)."""
    import dataclasses

    return Message(**{f.name: getattr(msg, f.name) for f in dataclasses.fields(Message)})


@pytest.mark.parametrize("text", [
    "TAGS\x01TagA\x02KEYS\x01k1 k2\x02UNIQ_KEY\x01AB\x02",
    "TAGS\x01TagA\x02dangling",  # not terminated, a segment without a separator
    "",
])
def test_raw_properties_read_like_split_ones(build_record, text: str) -> None:
    import copy
    import dataclasses
    import pickle

    from inspector.engine.model.records import RAW_PROPERTIES

    buf = build_record(0, properties=text)
    lazy = decode_message(buf, 0, len(buf), file="commitlog/0", segment_start=0)
    assert lazy.__dict__[RAW_PROPERTIES] == text  # nothing split yet
    assert lazy.properties_text == text
    twin = decode_message(buf, 0, len(buf), file="commitlog/0", segment_start=0)
    # the map first (no split of the entries), then the fields themselves
    assert twin.properties == cl.Properties.from_text(text).as_map()
    assert RAW_PROPERTIES in twin.__dict__
    eager = _rebuilt(lazy)  # reads the fields: splits them
    assert RAW_PROPERTIES not in lazy.__dict__
    assert eager.properties_entries == tuple(cl.Properties.from_text(text).entries)
    assert eager.properties_text == text
    fresh = decode_message(buf, 0, len(buf), file="commitlog/0", segment_start=0)
    assert fresh == eager and eager == fresh and hash(fresh) == hash(eager)
    assert repr(decode_message(buf, 0, len(buf), file="commitlog/0", segment_start=0)) == repr(eager)
    for other in (pickle.loads(pickle.dumps(decode_message(buf, 0, len(buf), file="commitlog/0", segment_start=0))),
                  copy.copy(decode_message(buf, 0, len(buf), file="commitlog/0", segment_start=0)),
                  dataclasses.replace(decode_message(buf, 0, len(buf), file="commitlog/0", segment_start=0))):
        assert other == eager
        assert (other.tags, other.keys, other.unique_key) == (eager.tags, eager.keys, eager.unique_key)
    assert Message.properties_entries == () and Message.properties_terminated is True  # class-level defaults
    with pytest.raises(dataclasses.FrozenInstanceError):
        fresh.properties_entries = ()
