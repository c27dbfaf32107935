"""inspector.engine.maintain.write.writer: records (spec §2, §14.7), segments and BLANKs (§2.11), consume queues and index via
dispatch, delay (§9.1) and transactions (§10.1), checkpoint (§3.4), config files (§7), determinism."""

from __future__ import annotations

import base64
import datetime as dt
import zlib
from pathlib import Path
from typing import Any

import pytest

from inspector.engine.maintain.write import encode as encode_module
from inspector.engine.maintain.write.encode import encode_record, parse_host
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.errors import BadInput
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.systopics import HALF_TOPIC, OP_TOPIC, SCHEDULE_TOPIC
from parsers.checkpoint import Checkpoint
from parsers.commitlog import (
    MAGIC_BLANK,
    MAGIC_V1,
    MAGIC_V2,
    BlankRecord,
    MessageRecord,
    Properties,
    RecordHead,
    record_length,
)
from parsers.consumequeue import ConsumeQueueUnit
from parsers.fastjson import loads
from parsers.indexfile import IndexHeader, IndexItem, item_position
from parsers.java import index_key_hash, java_string_hash, rocketmq_crc32
from parsers.msgid import decode_uniq_key, month_start_ms

UNIQ = "C0A8010A30391B6D3586075BCD150007"
BORN = 1_700_000_000_000
STORE = 1_700_000_000_123
CLOCK = 1_758_270_000_000

# spec §14.7, the 202-byte record at physical offset 16,400
VECTOR_14_7 = bytes.fromhex(
    """
    000000CA DAA320A7 0BD69E52 00000000 00000000 0000000000000000 0000000000004010 00000000
    0000018BCFE56800 C0A8010A 0000CC5A 0000018BCFE5687B 0A6C73D9 00002A9F 00000000 0000000000000000
    0000000B 48656C6C6F20776F726C64 09 546F70696354657374 005B
    54414753 01 54616741 02 4B455953 01 4F7264657249443030 31 02 554E49515F4B4559 01
    43304138303130413330333931423644333538363037354243443135303030 37 02
    434C5553544552 01 44656661756C74436C7573746572 02
    """
)

VECTOR_PROPERTIES = [
    ("TAGS", "TagA"),
    ("KEYS", "OrderID001"),
    ("UNIQ_KEY", UNIQ),
    ("CLUSTER", "DefaultCluster"),
]


def vector_inputs(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "topic": "TopicTest",
        "body": b"Hello world",
        "properties": VECTOR_PROPERTIES,
        "physical_offset": 16400,
        "born_timestamp": BORN,
        "born_host": "192.168.1.10:52314",
        "store_timestamp": STORE,
        "store_host": "10.108.115.217:10911",
    }
    base.update(kw)
    return base


def vector_spec(**kw: Any) -> MessageSpec:
    base: dict[str, Any] = {
        "topic": "TopicTest",
        "body": b"Hello world",
        "tags": "TagA",
        "keys": ["OrderID001"],
        "unique_key": UNIQ,
        "born_host": "192.168.1.10:52314",
        "store_host": "10.108.115.217:10911",
        "born_timestamp": BORN,
        "store_timestamp": STORE,
    }
    base.update(kw)
    return MessageSpec(**base)


def small(**kw: Any) -> Geometry:
    base: dict[str, Any] = {
        "segment_size": 64 * 1024,
        "cq_file_size": 600,
        "index_slots": 101,
        "index_items": 400,
    }
    base.update(kw)
    return Geometry(**base)


def new_writer(root: Path, geometry: Geometry | None = None, **kw: Any) -> StoreWriter:
    kw.setdefault("clock", lambda: CLOCK)
    return StoreWriter(root, geometry or small(), **kw)


def read_records(root: Path) -> list[tuple[int, Any, bytes]]:
    """Every message record of the commitlog as (physical offset, parsed record, bytes), checking structure."""
    records = []
    segments = sorted((root / "commitlog").iterdir())
    for n, segment in enumerate(segments):
        start, data, pos = int(segment.name), segment.read_bytes(), 0
        while pos + 8 <= len(data):
            head = RecordHead.parse(data[pos : pos + 8])
            if head.magic_code == MAGIC_BLANK:
                assert head.total_size == len(data) - pos and n < len(segments) - 1
                break
            if head.magic_code not in (MAGIC_V1, MAGIC_V2):
                assert data[pos:] == bytes(len(data) - pos) and n == len(segments) - 1  # zero tail
                break
            raw = data[pos : pos + head.total_size]
            record = MessageRecord.parse(raw)
            assert record.physical_offset == start + pos
            assert record.total_size == record_length(
                len(record.body),
                len(record.topic.encode()),
                len(record.properties.to_text().encode()),
                record.sys_flag,
                record.magic_code,
            )
            assert record.body_crc == rocketmq_crc32(record.body)
            records.append((start + pos, record, raw))
            pos += head.total_size
    return records


def cq_units(root: Path, topic: str, queue_id: int) -> list[tuple[int, int, int]]:
    units = []
    for path in sorted((root / "consumequeue" / topic / str(queue_id)).iterdir()):
        data = path.read_bytes()
        for i in range(0, len(data), 20):
            unit = ConsumeQueueUnit.parse(data[i : i + 20])
            if unit.size == 0:
                break
            units.append((unit.physical_offset, unit.size, unit.tags_code))
    return units


def index_items(path: Path, slots: int) -> list[tuple[int, int, int, int]]:
    data = path.read_bytes()
    count = IndexHeader.parse(data[:40]).index_count
    items = []
    for n in range(1, count):
        it = IndexItem.parse(data[item_position(n, slots) : item_position(n, slots) + 20])
        items.append((it.key_hash, it.phy_offset, it.time_diff, it.prev_index))
    return items


def props(record: Any) -> list[tuple[str, str | None]]:
    return list(record.properties.entries)


# --- the encoder -------------------------------------------------------------------------------------------


def test_encode_record_reproduces_vector_14_7() -> None:
    assert len(VECTOR_14_7) == 202
    assert encode_record(**vector_inputs()) == VECTOR_14_7
    assert encode_record(**vector_inputs(properties=dict(VECTOR_PROPERTIES))) == VECTOR_14_7
    assert encode_record(**vector_inputs(properties=Properties(VECTOR_PROPERTIES, True))) == VECTOR_14_7


def test_encode_record_at_any_offset() -> None:
    data = encode_record(**vector_inputs(physical_offset=7 << 30, queue_offset=42, queue_id=3))
    record = MessageRecord.parse(data)
    assert (record.physical_offset, record.queue_offset, record.queue_id) == (7 << 30, 42, 3)
    assert data[36:] == VECTOR_14_7[36:]


def test_ipv6_hosts_set_flags_and_widen_the_record() -> None:
    born6 = encode_record(**vector_inputs(born_host="[2001:db8::1]:52314"))
    record = MessageRecord.parse(born6)
    assert record.sys_flag == 0x10 and len(born6) == 202 + 12
    assert (record.born_host.ip, record.born_host.port) == ("2001:db8::1", 52314)
    both6 = encode_record(**vector_inputs(born_host="[::1]:1", store_host="[fe80::2]:10911"))
    assert MessageRecord.parse(both6).sys_flag == 0x30 and len(both6) == 226  # spec §14.7
    with pytest.raises(BadInput):
        encode_record(**vector_inputs(sys_flag=0x10))  # flag says IPv6, host is IPv4


def test_compiled_build_matches_schema_build() -> None:
    """The writer builds with MessageRecord.compile(); it must equal the plain schema's build."""
    for kw in (
        {},
        {"born_host": "[::1]:1", "store_host": "[2001:db8::5]:10911"},
        {"topic": "T" * 200},
        {"topic": "中文", "body": b"", "properties": []},
    ):
        data = encode_record(**vector_inputs(**kw))
        parsed = MessageRecord.parse(data)
        assert MessageRecord.build(parsed) == data


def test_magic_v2_for_long_topics() -> None:
    assert MessageRecord.parse(encode_record(**vector_inputs(topic="T" * 127))).magic_code == MAGIC_V1
    data = encode_record(**vector_inputs(topic="T" * 128))
    record = MessageRecord.parse(data)
    assert record.magic_code == MAGIC_V2 and record.topic == "T" * 128
    assert len(data) == 202 + 128 - 9 + 1  # one more topic length byte
    with pytest.raises(BadInput):
        encode_record(**vector_inputs(topic="é" * 64))  # 64 characters, 128 UTF-8 bytes: no v1 record


def test_parse_host() -> None:
    assert parse_host("10.0.0.1:10911") == ("10.0.0.1", 10911)
    assert parse_host("[::1]:8080") == ("::1", 8080)
    for bad in ("10.0.0.1", "::1:80", "host:80", "[::1]", "1.2.3.4:99999"):
        with pytest.raises(BadInput):
            parse_host(bad)


# --- end to end: the §14.7 message in a written store ------------------------------------------------------


def test_writer_places_vector_record_at_16400(tmp_path: Path) -> None:
    """A 16,400-byte filler first makes physical offset 16,400 natural; then every §14 vector must hold."""
    root = tmp_path / "store"
    with new_writer(root, small(index_slots=1000)) as w:
        # filler: no properties at all -> 91 + body + len("Filler") = 16,400
        filler = w.append(
            MessageSpec(
                "Filler", b"\0" * (16400 - 91 - 6), unique_key="", cluster=None, store_timestamp=STORE - 5
            )
        )
        result = w.append(vector_spec())
    assert (filler.physical_offset, filler.total_size) == (0, 16400)
    assert (result.physical_offset, result.queue_offset, result.total_size) == (16400, 0, 202)
    assert result.msg_id == "0A6C73D900002A9F0000000000004010"  # §14.3
    assert result.unique_key == UNIQ
    segment = (root / "commitlog" / "00000000000000000000").read_bytes()
    assert segment[16400:16602] == VECTOR_14_7
    assert cq_units(root, "TopicTest", 0) == [(16400, 202, 2_598_919)]
    assert (root / "consumequeue" / "TopicTest" / "0" / "00000000000000000000").read_bytes()[
        :20
    ] == bytes.fromhex("0000000000004010 000000CA 000000000027A807")
    # §14.1 worked example (1,000 slots instead of 5,000,000; the same items)
    (index_file,) = (root / "index").iterdir()
    items = index_items(index_file, 1000)
    assert items == [(630_406_310, 16400, 0, 0), (1_231_272_886, 16400, 0, 0)]
    header = IndexHeader.parse(index_file.read_bytes()[:40])
    assert (header.begin_timestamp, header.end_timestamp) == (STORE, STORE)
    assert (header.begin_phy_offset, header.end_phy_offset) == (16400, 16400)
    assert (header.hash_slot_count, header.index_count) == (2, 3)
    assert [r[0] for r in read_records(root)] == [0, 16400]


# --- commitlog segments and the BLANK rule ----------------------------------------------------------------


def sized_spec(total: int, topic: str = "T", **kw: Any) -> MessageSpec:
    """A message whose record is exactly ``total`` bytes (no properties: 91 + body + topic)."""
    return MessageSpec(
        topic, b"x" * (total - 91 - len(topic)), unique_key="", cluster=None, store_timestamp=STORE, **kw
    )


@pytest.mark.parametrize(("spare", "fits"), [(8, True), (7, False), (9, True), (0, False)])
def test_blank_rule(tmp_path: Path, spare: int, fits: bool) -> None:
    size = 1024
    root = tmp_path / "store"
    with new_writer(root, small(segment_size=size)) as w:
        first = w.append(sized_spec(300))
        second = w.append(sized_spec(size - 300 - spare))
        third = w.append(sized_spec(200))
    segments = sorted((root / "commitlog").iterdir())
    assert all(p.stat().st_size == size for p in segments)
    assert first.physical_offset == 0
    seg0 = segments[0].read_bytes()
    if fits:
        assert second.physical_offset == 300
        # the third record does not fit in the `spare` bytes left: BLANK there, next segment
        assert third.physical_offset == size
        blank_at = size - spare
    else:
        assert second.physical_offset == size
        blank_at = 300
        assert third.physical_offset == size + size - 300 - spare
    assert BlankRecord.parse(seg0[blank_at : blank_at + 8]).total_size == size - blank_at
    assert seg0[blank_at + 8 :] == bytes(size - blank_at - 8)  # nothing else is written
    assert [p.name for p in segments] == ["00000000000000000000", "00000000000000001024"]
    assert [r[0] for r in read_records(root)] == [
        first.physical_offset,
        second.physical_offset,
        third.physical_offset,
    ]


def test_active_segment_keeps_zero_tail(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with new_writer(root, small(segment_size=4096)) as w:
        w.append(sized_spec(500))
    (segment,) = (root / "commitlog").iterdir()
    data = segment.read_bytes()
    assert len(data) == 4096 and data[500:] == bytes(3596)


def test_record_larger_than_a_segment_is_refused(tmp_path: Path) -> None:
    with new_writer(tmp_path / "s", small(segment_size=1024)) as w:
        w.append(sized_spec(1016))  # 1016 + 8 == 1024 fits
        with pytest.raises(BadInput):
            w.append(sized_spec(1017))


# --- consume queues and index through the writer -----------------------------------------------------------


def test_cq_rollover_through_writer(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with new_writer(root, small(cq_file_size=40)) as w:
        results = [w.append(MessageSpec("Orders", b"m%d" % n, queue_id=1, tags="TagA")) for n in range(3)]
    directory = root / "consumequeue" / "Orders" / "1"
    assert sorted(p.name for p in directory.iterdir()) == ["00000000000000000000", "00000000000000000040"]
    assert all(p.stat().st_size == 40 for p in directory.iterdir())
    assert [r.queue_offset for r in results] == [0, 1, 2]
    assert cq_units(root, "Orders", 1) == [(r.physical_offset, r.total_size, 2_598_919) for r in results]
    assert w.consume_queues.max_offsets == {("Orders", 1): 3}


def test_index_rollover_through_writer(tmp_path: Path) -> None:
    root = tmp_path / "store"
    geometry = small(index_slots=11, index_items=3)
    ticks = iter(range(CLOCK, CLOCK + 1000, 1000 // 10))
    with StoreWriter(root, geometry, clock=lambda: next(ticks)) as w:
        a = w.append(vector_spec(store_timestamp=STORE, keys=["k1"]))  # UNIQ + k1: fills file 1
        b = w.append(vector_spec(store_timestamp=STORE + 4200, keys=["k2", "k3"], unique_key="U2"))
    files = sorted((root / "index").iterdir())
    assert len(files) == 3
    assert [i[1] for i in index_items(files[0], 11)] == [a.physical_offset] * 2
    # file 2: U2 and k2, first item timeDiff measured from file 1's end (STORE): 4 s
    assert index_items(files[1], 11)[0] == (index_key_hash("TopicTest#U2"), b.physical_offset, 4, 0)
    assert index_items(files[1], 11)[1][2] == 0
    assert index_items(files[2], 11) == [(index_key_hash("TopicTest#k3"), b.physical_offset, 0, 0)]
    checkpoint = Checkpoint.parse((root / "checkpoint").read_bytes())
    assert checkpoint.index_msg_timestamp == STORE + 4200  # file 2's end, recorded when file 3 was created


# --- hosts, compression ------------------------------------------------------------------------------------


def test_ipv6_born_host_through_writer(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with new_writer(root) as w:
        v4 = w.append(vector_spec())
        v6 = w.append(vector_spec(born_host="[2001:db8::7]:4000"))
        s6 = w.append(vector_spec(store_host="[2001:db8::9]:10911"))
    assert v6.total_size == v4.total_size + 12 and v6.sys_flag == 0x10
    assert s6.sys_flag == 0x20 and len(s6.msg_id) == 56
    records = read_records(root)
    assert records[1][1].born_host.ip == "2001:db8::7"
    assert records[2][1].store_host.ip == "2001:db8::9"


def _decompress(kind: str, data: bytes) -> bytes:
    if kind == "zlib":
        return zlib.decompress(data)
    if kind == "lz4":
        import lz4.frame

        return lz4.frame.decompress(data)
    import zstandard

    return zstandard.ZstdDecompressor().decompress(data)


@pytest.mark.parametrize(("kind", "type_bits"), [("zlib", 3), ("lz4", 1), ("zstd", 2)])
def test_compressed_bodies(tmp_path: Path, kind: str, type_bits: int) -> None:
    body = b"RocketMQ " * 1000
    root = tmp_path / "store"
    with new_writer(root) as w:
        result = w.append(MessageSpec("Zip", body, compression=kind, store_timestamp=STORE))
    ((_, record, _),) = read_records(root)
    assert result.sys_flag == record.sys_flag == 1 | (type_bits << 8)
    assert record.body != body and _decompress(kind, record.body) == body
    assert record.body_crc == rocketmq_crc32(record.body)  # over the stored (compressed) bytes


def test_zlib_is_level_5_with_header() -> None:
    body = bytes(range(256)) * 40
    compressed = encode_module.compress_body(body, "zlib")
    assert compressed == zlib.compress(body, 5) and compressed[:2] == b"\x78\x5e"


def test_lz4_frame_header_like_lz4_frame_output_stream() -> None:
    data = encode_module.compress_body(b"abc" * 100, "lz4")
    assert data[:6] == bytes.fromhex("04224D18 60 70")  # magic, FLG (v1, independent blocks), BD (4 MB)


# --- properties and UNIQ_KEY -------------------------------------------------------------------------------


def test_property_order(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with new_writer(root) as w:
        w.append(
            vector_spec(
                keys=["k1", "k2"],
                properties={"userB": "2", "userA": "1"},
                wait_store_msg_ok=True,
                producer_group="pg",
            )
        )
    ((_, record, _),) = read_records(root)
    assert props(record) == [
        ("TAGS", "TagA"),
        ("KEYS", "k1 k2"),
        ("WAIT", "true"),
        ("userB", "2"),
        ("userA", "1"),
        ("PGROUP", "pg"),
        ("UNIQ_KEY", UNIQ),
        ("CLUSTER", "DefaultCluster"),
    ]
    assert record.properties.terminated


def test_managed_property_names_are_refused(tmp_path: Path) -> None:
    with new_writer(tmp_path / "s") as w:
        for name in ("TAGS", "UNIQ_KEY", "REAL_TOPIC", "__transactionId__"):
            with pytest.raises(BadInput):
                w.append(vector_spec(properties={name: "x"}))
        with pytest.raises(BadInput):
            w.append(vector_spec(properties={"a": "b\x02c"}))


def test_uniq_key_generation(tmp_path: Path) -> None:
    tz = dt.timezone(dt.timedelta(hours=8))
    root = tmp_path / "store"
    with new_writer(root, producer_ip="192.168.1.10", pid=0x13039, class_loader_hash=0x1B6D3586, tz=tz) as w:
        keys = [
            w.append(MessageSpec("T", b"", born_timestamp=BORN + n, store_timestamp=STORE)).unique_key
            for n in range(3)
        ]
    decoded = [decode_uniq_key(k) for k in keys if k]
    assert [d.counter for d in decoded] == [0, 1, 2]
    assert {(d.ip, d.pid, d.class_loader_hash) for d in decoded} == {("192.168.1.10", 0x3039, 0x1B6D3586)}
    assert decoded[0].time_since_month_start == BORN - month_start_ms(BORN, tz)
    assert decoded[2].time_since_month_start == decoded[0].time_since_month_start + 2
    assert keys[0] and keys[0][:20] == "C0A8010A30391B6D3586"


def test_ipv6_producer_ip_gives_long_uniq_key(tmp_path: Path) -> None:
    with new_writer(tmp_path / "s", producer_ip="2001:db8::1") as w:
        key = w.append(MessageSpec("T", b"", store_timestamp=STORE)).unique_key
    assert key is not None and len(key) == 56


# --- delay -------------------------------------------------------------------------------------------------


def test_delay_level_message(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with new_writer(root) as w:
        d3 = w.append(vector_spec(delay_level=3, queue_id=1))
        d99 = w.append(vector_spec(delay_level=99, store_timestamp=STORE + 1))
    assert (d3.topic, d3.queue_id, d3.queue_offset) == (SCHEDULE_TOPIC, 2, 0)
    assert (d99.topic, d99.queue_id) == (SCHEDULE_TOPIC, 17)  # clamped to level 18
    records = read_records(root)
    assert records[0][1].topic == SCHEDULE_TOPIC and records[0][1].queue_id == 2
    assert props(records[0][1]) == [
        ("TAGS", "TagA"),
        ("KEYS", "OrderID001"),
        ("DELAY", "3"),
        ("UNIQ_KEY", UNIQ),
        ("CLUSTER", "DefaultCluster"),
        ("REAL_TOPIC", "TopicTest"),
        ("REAL_QID", "1"),
    ]
    assert dict(props(records[1][1]))["DELAY"] == "18"
    # §14.2: tagsCode = store timestamp + delay of the level
    assert cq_units(root, SCHEDULE_TOPIC, 2) == [(d3.physical_offset, d3.total_size, 1_700_000_010_123)]
    assert cq_units(root, SCHEDULE_TOPIC, 17) == [
        (d99.physical_offset, d99.total_size, STORE + 1 + 7_200_000)
    ]
    assert not (root / "consumequeue" / "TopicTest").exists()
    # indexed under the stored topic
    (index_file,) = (root / "index").iterdir()
    assert index_items(index_file, 101)[0][0] == index_key_hash(f"{SCHEDULE_TOPIC}#{UNIQ}")
    delay = loads((root / "config" / "delayOffset.json").read_text())
    assert delay["offsetTable"] == {3: 0, 18: 0}
    topics = loads((root / "config" / "topics.json").read_text())["topicConfigTable"]
    assert topics[SCHEDULE_TOPIC]["readQueueNums"] == 18
    assert topics["TopicTest"]["writeQueueNums"] == 4


def test_no_delay_offset_file_without_delays(tmp_path: Path) -> None:
    with new_writer(tmp_path / "s") as w:
        w.append(vector_spec())
    assert not (tmp_path / "s" / "config" / "delayOffset.json").exists()


# --- transactions ------------------------------------------------------------------------------------------


def test_half_commit_and_op(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with new_writer(root) as w:
        half = w.append(vector_spec(transaction="half", queue_id=2, producer_group="txGroup"))
        commit = w.commit(UNIQ, store_timestamp=STORE + 50)
    assert (half.topic, half.queue_id, half.queue_offset, half.sys_flag) == (HALF_TOPIC, 0, 0, 0)
    assert (commit.topic, commit.queue_id, commit.queue_offset, commit.sys_flag) == ("TopicTest", 2, 0, 0x8)
    assert commit.op is not None and (commit.op.topic, commit.op.queue_id) == (OP_TOPIC, 0)
    (h_off, h, _), (c_off, c, _), (o_off, o, _) = read_records(root)
    assert props(h) == [
        ("TAGS", "TagA"),
        ("KEYS", "OrderID001"),
        ("TRAN_MSG", "true"),
        ("PGROUP", "txGroup"),
        ("UNIQ_KEY", UNIQ),
        ("CLUSTER", "DefaultCluster"),
        ("REAL_TOPIC", "TopicTest"),
        ("REAL_QID", "2"),
        ("__transactionId__", UNIQ),
    ]
    assert h.sys_flag == 0 and h.topic == HALF_TOPIC
    # COMMIT: real topic/queue, prepared transaction offset = half's physical offset, TRAN_MSG/REAL_* cleared
    assert (c.topic, c.queue_id, c.sys_flag, c.queue_offset) == ("TopicTest", 2, 0x8, 0)
    assert c.prepared_transaction_offset == h_off
    assert (c.body, c.flag, c.born_timestamp, c.born_host, c.store_host) == (
        h.body,
        h.flag,
        h.born_timestamp,
        h.born_host,
        h.store_host,
    )
    assert c.store_timestamp == STORE + 50
    assert props(c) == [p for p in props(h) if p[0] not in ("TRAN_MSG", "REAL_TOPIC", "REAL_QID")]
    # op: tag d, body = half queue offset + ",", WAIT=true, broker host, not indexed
    assert (o.topic, o.queue_id, o.sys_flag, o.body) == (OP_TOPIC, 0, 0, b"0,")
    assert props(o) == [("TAGS", "d"), ("WAIT", "true")]
    assert o.born_host == o.store_host and (o.store_host.ip, o.store_host.port) == ("127.0.0.1", 10911)
    assert o.born_timestamp == o.store_timestamp == STORE + 50
    # consume queues: half topic, real topic, op topic
    assert cq_units(root, HALF_TOPIC, 0) == [(h_off, half.total_size, 2_598_919)]
    assert cq_units(root, "TopicTest", 2) == [(c_off, commit.total_size, 2_598_919)]
    assert cq_units(root, OP_TOPIC, 0) == [(o_off, commit.op.total_size, java_string_hash("d"))]
    (index_file,) = (root / "index").iterdir()
    hashes = [i[0] for i in index_items(index_file, 101)]
    assert hashes == [
        index_key_hash(f"{HALF_TOPIC}#{UNIQ}"),
        index_key_hash(f"{HALF_TOPIC}#OrderID001"),
        index_key_hash(f"TopicTest#{UNIQ}"),
        index_key_hash("TopicTest#OrderID001"),
    ]
    topics = loads((root / "config" / "topics.json").read_text())["topicConfigTable"]
    assert topics[HALF_TOPIC]["readQueueNums"] == 1 and topics[OP_TOPIC]["readQueueNums"] == 1


def test_rollback_writes_only_the_op_record(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with new_writer(root) as w:
        w.append(vector_spec(transaction="half", unique_key="H0"))
        half1 = w.append(vector_spec(transaction="half", unique_key="H1"))
        op = w.append(
            MessageSpec("", b"", transaction="rollback", half_ref=half1.index, store_timestamp=STORE + 9)
        )
    assert (op.topic, op.queue_offset, op.op) == (OP_TOPIC, 0, None)
    records = read_records(root)
    assert [r[1].topic for r in records] == [HALF_TOPIC, HALF_TOPIC, OP_TOPIC]
    assert records[2][1].body == b"1,"
    assert not (root / "consumequeue" / "TopicTest").exists()


def test_commit_keeping_half_properties(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with new_writer(root, strip_commit_properties=False) as w:
        w.append(vector_spec(transaction="half"))
        w.commit(0)
    (_, h, _), (_, c, _), _ = read_records(root)
    assert props(c) == props(h)
    assert ("TRAN_MSG", "true") in props(c) and ("REAL_TOPIC", "TopicTest") in props(c)


def test_commit_errors(tmp_path: Path) -> None:
    with new_writer(tmp_path / "s") as w:
        w.append(vector_spec(transaction="half"))
        with pytest.raises(BadInput):
            w.commit("nope")
        with pytest.raises(BadInput):
            w.append(MessageSpec("Other", b"", transaction="commit", half_ref=0))
        with pytest.raises(BadInput):
            w.append(MessageSpec("", b"body", transaction="commit", half_ref=0))
        with pytest.raises(BadInput):
            w.append(vector_spec(transaction="half", delay_level=2))
        with pytest.raises(BadInput):
            w.append(vector_spec(transaction="bogus"))


def test_raw_legacy_transaction_records(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with new_writer(root) as w:
        normal = w.append(vector_spec(unique_key="N0"))
        prepared = w.append(vector_spec(transaction="raw_prepared", unique_key="P0"))
        rollback = w.append(
            vector_spec(transaction="raw_rollback", unique_key="R0", prepared_transaction_offset=77)
        )
        commit = w.append(
            vector_spec(transaction="raw_commit", unique_key="C0", prepared_transaction_offset=77)
        )
    assert (prepared.sys_flag, prepared.queue_offset) == (0x4, 0)
    assert (rollback.sys_flag, rollback.queue_offset) == (0xC, 0)
    assert (commit.sys_flag, commit.queue_offset) == (0x8, 1)  # COMMIT takes the next queue offset
    records = {r[0]: r[1] for r in read_records(root)}
    assert (
        records[prepared.physical_offset].queue_offset == 0
        and records[rollback.physical_offset].queue_offset == 0
    )
    assert records[commit.physical_offset].prepared_transaction_offset == 77
    assert [u[0] for u in cq_units(root, "TopicTest", 0)] == [normal.physical_offset, commit.physical_offset]
    (index_file,) = (root / "index").iterdir()
    indexed = {i[1] for i in index_items(index_file, 101)}
    assert indexed == {
        normal.physical_offset,
        prepared.physical_offset,
        commit.physical_offset,
    }  # not ROLLBACK
    checkpoint = Checkpoint.parse((root / "checkpoint").read_bytes())
    assert checkpoint.logics_msg_timestamp == STORE


# --- checkpoint, config files, lock ------------------------------------------------------------------------


def test_checkpoint_and_root_files(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with new_writer(root) as w:
        w.append(vector_spec(store_timestamp=STORE))
        w.append(vector_spec(transaction="raw_rollback", store_timestamp=STORE + 7))
    data = (root / "checkpoint").read_bytes()
    assert len(data) == 4096 and data[40:] == bytes(4056)
    checkpoint = Checkpoint.parse(data)
    assert checkpoint.physic_msg_timestamp == STORE + 7  # last record
    assert checkpoint.logics_msg_timestamp == STORE  # last record with a CQ unit
    assert checkpoint.index_msg_timestamp == 0  # no full index file
    assert (checkpoint.master_flushed_offset, checkpoint.confirm_phy_offset) == (0, 0)
    assert (root / "lock").read_bytes() == b"lock"
    assert not (root / "abort").exists()
    assert sorted(p.name for p in root.iterdir()) == [
        "checkpoint",
        "commitlog",
        "config",
        "consumequeue",
        "index",
        "lock",
    ]


def test_config_files(tmp_path: Path) -> None:
    root = tmp_path / "store"
    offsets = {("TopicTest", "cg"): {1: 5, 0: 12}, ("%RETRY%cg", "cg"): {0: 3}}
    with new_writer(root, consumer_offsets=offsets, queue_nums={"Wide": 16}) as w:
        w.append(vector_spec(queue_id=5))
        w.append(vector_spec(topic="Wide"))
    config = root / "config"
    topics_text = (config / "topics.json").read_text()
    topics = loads(topics_text)
    assert topics["dataVersion"] == {"counter": 3, "stateVersion": 0, "timestamp": CLOCK}
    assert topics["topicConfigTable"]["TopicTest"] == {
        "attributes": {},
        "order": False,
        "perm": 6,
        "readQueueNums": 6,
        "topicFilterType": "SINGLE_TAG",
        "topicName": "TopicTest",
        "topicSysFlag": 0,
        "writeQueueNums": 6,
    }
    assert topics["topicConfigTable"]["Wide"]["readQueueNums"] == 16
    assert topics["topicConfigTable"]["%RETRY%cg"]["readQueueNums"] == 1
    assert topics_text.startswith('{\n\t"dataVersion":{\n\t\t"counter":3,')
    offset_text = (config / "consumerOffset.json").read_text()
    assert '"TopicTest@cg":{0:12,1:5\n\t\t}' in offset_text  # unquoted int keys, fastjson layout
    consumer = loads(offset_text)
    assert list(consumer) == ["dataVersion", "groupTopicMap", "offsetTable"]
    assert consumer["offsetTable"] == {"%RETRY%cg@cg": {0: 3}, "TopicTest@cg": {0: 12, 1: 5}}
    assert consumer["groupTopicMap"] == {"cg": ["%RETRY%cg", "TopicTest"]}
    groups = loads((config / "subscriptionGroup.json").read_text())
    assert list(groups) == ["dataVersion", "forbiddenTable", "subscriptionGroupTable"]
    cg = groups["subscriptionGroupTable"]["cg"]
    assert list(cg) == sorted(cg) and cg["groupName"] == "cg" and cg["retryMaxTimes"] == 16
    assert all(not p.name.endswith(".bak") for p in config.iterdir())


# --- input handling ----------------------------------------------------------------------------------------


def test_refuses_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("")
    with pytest.raises(BadInput):
        StoreWriter(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x"]
    StoreWriter(tmp_path / "empty-or-new").close()


def test_from_json() -> None:
    spec = MessageSpec.from_json(
        {
            "topic": "T",
            "body": "héllo",
            "tags": "a",
            "keys": ["k"],
            "properties": {"p": "v"},
            "store_timestamp": STORE,
            "wait_store_msg_ok": False,
            "half_ref": 3,
        }
    )
    assert spec.body == "héllo".encode() and spec.keys == ["k"] and spec.wait_store_msg_ok is False
    assert spec.half_ref == 3 and spec.cluster == "DefaultCluster"
    raw = MessageSpec.from_json({"topic": "T", "body_base64": base64.b64encode(b"\x00\xff").decode()})
    assert raw.body == b"\x00\xff"
    assert MessageSpec.from_json({"topic": "T"}).body == b""
    for bad in (
        {"topic": "T", "bogus": 1},
        {"topic": "T", "body": "a", "body_base64": "YQ=="},
        {"topic": "T", "queue_id": "1"},
        {"topic": "T", "queue_id": True},
        {"topic": "T", "keys": [1]},
        {"topic": "T", "body_base64": "!!"},
        {"topic": 5},
    ):
        with pytest.raises(BadInput):
            MessageSpec.from_json(bad)


def test_from_json_through_writer(tmp_path: Path) -> None:
    lines = [
        {"topic": "TopicTest", "body": "Hello world", "tags": "TagA", "keys": ["OrderID001"], "unique_key": UNIQ,
         "born_host": "192.168.1.10:52314", "store_host": "10.108.115.217:10911",
         "born_timestamp": BORN, "store_timestamp": STORE},
        {"topic": "TopicTest", "body": "tx", "transaction": "half", "store_timestamp": STORE},
        {"transaction": "commit", "half_ref": 1, "store_timestamp": STORE + 1},
    ]  # fmt: skip
    root = tmp_path / "store"
    with new_writer(root) as w:
        results = [w.append(MessageSpec.from_json(line)) for line in lines]
    assert read_records(root)[0][2][36:] == VECTOR_14_7[36:]
    assert (results[2].topic, results[2].sys_flag) == ("TopicTest", 0x8)
    assert read_records(root)[2][1].prepared_transaction_offset == results[1].physical_offset


# --- determinism -------------------------------------------------------------------------------------------


def build_sample_store(root: Path, clock: Any) -> None:
    with StoreWriter(
        root,
        small(segment_size=2048, cq_file_size=60, index_slots=7, index_items=5),
        clock=clock,
        consumer_offsets={("Orders", "g"): {0: 1}},
    ) as w:
        for n in range(12):
            w.append(
                MessageSpec("Orders", f"body {n}".encode(), queue_id=n % 2, tags=f"T{n % 3}", keys=[f"k{n}"])
            )
        w.append(MessageSpec("Orders", b"late", delay_level=4, compression="zlib"))
        h = w.append(MessageSpec("Orders", b"tx", transaction="half"))
        w.commit(h.index)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_output_is_byte_identical_across_runs(tmp_path: Path) -> None:
    def make_clock() -> Any:
        state = {"now": CLOCK}

        def clock() -> int:
            state["now"] += 7
            return state["now"]

        return clock

    build_sample_store(tmp_path / "a", make_clock())
    build_sample_store(tmp_path / "b", make_clock())
    first, second = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert first == second
    assert len([k for k in first if k.startswith("commitlog/")]) > 1
    assert len([k for k in first if k.startswith("index/")]) > 1
    assert len(read_records(tmp_path / "a")) == 16


def test_bad_geometry_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(BadInput):
        StoreWriter(tmp_path / "store", Geometry(index_items=1))
    assert not (tmp_path / "store").exists()


def test_refused_message_consumes_no_generated_id(tmp_path: Path) -> None:
    with new_writer(tmp_path / "s") as w:
        first = w.append(MessageSpec("T", b"", store_timestamp=STORE))
        with pytest.raises(BadInput):
            w.append(MessageSpec("T", b"", store_timestamp=STORE, properties={"a": "\x01"}))
        second = w.append(MessageSpec("T", b"", store_timestamp=STORE))
    assert first.unique_key and second.unique_key
    assert decode_uniq_key(second.unique_key).counter == decode_uniq_key(first.unique_key).counter + 1
    assert second.index == first.index + 1


def test_delivered_copy_keeps_real_topic_and_queue(tmp_path):
    """ScheduleMessageService.messageTimeUp keeps REAL_TOPIC / REAL_QID on the copy it delivers."""
    from inspector.engine import Store
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter

    with StoreWriter(tmp_path / "s") as w:
        r = w.append(MessageSpec(topic="%RETRY%g", body=b"x", store_timestamp=1000, real_topic="%RETRY%g",
                                 real_queue_id=0))
        with pytest.raises(BadInput):
            w.append(MessageSpec(topic="T", body=b"x", transaction="half", real_topic="T"))
    with Store(tmp_path / "s") as s:
        props = s.message_at(r.physical_offset).properties
    assert (props["REAL_TOPIC"], props["REAL_QID"]) == ("%RETRY%g", "0")
    assert list(props)[-2:] == ["REAL_TOPIC", "REAL_QID"]
