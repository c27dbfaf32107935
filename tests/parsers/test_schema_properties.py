"""Property tests for every schema in ``parsers/`` and the engine's record decoder (issue 7, bullet 2).

For each schema: a hypothesis strategy of valid values; build then parse gives the value back; parse then build
gives back the bytes parse consumed (every schema here is canonical except ConsumeQueueExtUnit, whose size
field is rebuilt); parse of random, mutated or truncated bytes returns a value or raises the schema layer's
documented error, ``construct.ConstructError`` (never UnicodeDecodeError, struct.error, IndexError, ValueError
from an adapter ...). Same contract for fastjson.loads (FastjsonError), the msgId decoders (MsgIdError) and the
engine's ``decode_message`` (RecordError).

Note: construct's *compiled* parsers (``schema.compile()``) do no bounds checks and raise struct.error on short
input by design; nothing in the tree parses with them (the writer only builds), so the contract is the
interpreted schemas'. test_schemas.py holds the compiled and interpreted parsers equal on valid bytes.
"""

from __future__ import annotations

import ipaddress
import random

import construct
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from inspector.engine.scan.batch import decode_batch
from inspector.engine.scan.decode import RecordError, decode_message
from inspector.engine.scan.record_layout import as_array
from inspector.engine.scan.verify_kernels import verify_run
from inspector.engine.scan.walk import check_run, walk_boundaries
from parsers import checkpoint, consumequeue, dledger, fastjson, indexfile, java, msgid, rocksdb_cq, timer
from parsers import commitlog as cl

FAST = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# --- value strategies ---------------------------------------------------------------------------------------


def ints(bits: int, signed: bool = True) -> st.SearchStrategy[int]:
    if signed:
        return st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return st.integers(0, (1 << bits) - 1)


I16, I32, I64 = ints(16), ints(32), ints(64)
IPV4 = st.ip_addresses(v=4).map(str)
IPV6 = st.ip_addresses(v=6).map(str)
# stored text is whatever bytes the broker wrote, read with surrogateescape: that reading is the canonical value
STORED_TEXT = st.binary(max_size=40).map(lambda b: b.decode("utf-8", "surrogateescape"))
_NAME = st.text(st.characters(blacklist_characters="\x01\x02", blacklist_categories=("Cs",)), max_size=8)
_VALUE = st.text(st.characters(blacklist_characters="\x02", blacklist_categories=("Cs",)), max_size=12)


@st.composite
def properties(draw) -> cl.Properties:
    """Any segment list a properties string can hold (nameless, valueless, unterminated ones too)."""
    entries = draw(st.lists(st.tuples(_NAME, st.none() | _VALUE), max_size=5))
    terminated = draw(st.booleans()) and bool(entries)
    # unterminated, a last empty valueless segment writes nothing: [..., ("", None)] reads back as [...] terminated
    assume(terminated or not entries or entries[-1] != ("", None))
    return cl.Properties(entries, terminated)


def host(v6: bool) -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries({"ip": IPV6 if v6 else IPV4, "port": I32})


@st.composite
def message_record(draw) -> dict:
    v2 = draw(st.booleans())
    born6, store6 = draw(st.booleans()), draw(st.booleans())
    sys_flag = draw(I32) & ~0x30 | (cl.BORNHOST_V6_FLAG if born6 else 0) | (cl.STOREHOSTADDRESS_V6_FLAG if store6 else 0)
    topic = draw(st.binary(max_size=300 if v2 else 127)).decode("utf-8", "surrogateescape")
    return dict(
        total_size=draw(I32), magic_code=cl.MAGIC_V2 if v2 else cl.MAGIC_V1, body_crc=draw(I32), queue_id=draw(I32),
        flag=draw(I32), queue_offset=draw(I64), physical_offset=draw(I64), sys_flag=sys_flag,
        born_timestamp=draw(I64), born_host=draw(host(born6)), store_timestamp=draw(I64),
        store_host=draw(host(store6)), reconsume_times=draw(I32), prepared_transaction_offset=draw(I64),
        body=draw(st.binary(max_size=64)), topic=topic, properties=draw(properties()),
    )


SYS_FLAG = st.fixed_dictionaries({
    "unused": ints(21, signed=False),
    "compression_type": st.sampled_from(["ZLIB_LEGACY", "LZ4", "ZSTD", "ZLIB"]),
    "inner_batch": st.booleans(), "need_unwrap": st.booleans(), "store_host_v6": st.booleans(),
    "born_host_v6": st.booleans(), "transaction": st.sampled_from(["NOT_TYPE", "PREPARED", "COMMIT", "ROLLBACK"]),
    "multi_tags": st.booleans(), "compressed": st.booleans(),
})


def fields(**strategies) -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries(strategies)


RESERVED_CK = st.binary(min_size=checkpoint.CHECKPOINT_FILE_SIZE - 40, max_size=checkpoint.CHECKPOINT_FILE_SIZE - 40)
RESERVED_TCK = st.binary(min_size=checkpoint.CHECKPOINT_FILE_SIZE - 56, max_size=checkpoint.CHECKPOINT_FILE_SIZE - 56)
INDEX_HEADER = fields(begin_timestamp=I64, end_timestamp=I64, begin_phy_offset=I64, end_phy_offset=I64,
                      hash_slot_count=I32, index_count=I32)
INDEX_ITEM = fields(key_hash=I32, phy_offset=I64, time_diff=I32, prev_index=I32)


@st.composite
def index_file(draw) -> tuple[dict, dict]:
    slots, items = draw(st.integers(0, 6)), draw(st.integers(0, 6))
    value = dict(header=draw(INDEX_HEADER), slots=draw(st.lists(I32, min_size=slots, max_size=slots)),
                 items=draw(st.lists(INDEX_ITEM, min_size=items, max_size=items)))
    return value, dict(slot_count=slots, item_count=items)


def no_context(strategy: st.SearchStrategy) -> st.SearchStrategy[tuple[object, dict]]:
    return strategy.map(lambda v: (v, {}))


# name -> (schema, strategy of (value, context)); every public schema object in parsers/ is here
# (test_every_schema_is_covered checks that).
SCHEMAS: dict[str, tuple[construct.Construct, st.SearchStrategy]] = {
    "commitlog.SysFlag": (cl.SysFlag, no_context(SYS_FLAG)),
    "commitlog.Host4": (cl.Host4, no_context(host(False))),
    "commitlog.Host6": (cl.Host6, no_context(host(True))),
    "commitlog.MessageRecord": (cl.MessageRecord, no_context(message_record())),
    "commitlog.BlankRecord": (cl.BlankRecord, no_context(fields(total_size=I32, magic_code=st.just(cl.MAGIC_BLANK)))),
    "commitlog.RecordHead": (cl.RecordHead, no_context(fields(total_size=I32, magic_code=I32))),
    "commitlog.InnerBatchItem": (cl.InnerBatchItem, no_context(fields(
        total_size=I32, magic_code=I32, body_crc=I32, flag=I32, body=st.binary(max_size=64),
        properties=properties()))),
    "consumequeue.ConsumeQueueUnit": (consumequeue.ConsumeQueueUnit,
                                      no_context(fields(physical_offset=I64, size=I32, tags_code=I64))),
    "consumequeue.ConsumeQueueExtUnit": (consumequeue.ConsumeQueueExtUnit, no_context(fields(
        tags_code=I64, store_timestamp=I64, filter_bitmap=st.binary(max_size=64)))),
    "consumequeue.BatchConsumeQueueUnit": (consumequeue.BatchConsumeQueueUnit, no_context(fields(
        physical_offset=I64, size=I32, tags_code=I64, store_timestamp=I64, msg_base_offset=I64, batch_size=I16,
        compacted_offset=I32, reserved=I32))),
    "indexfile.IndexHeader": (indexfile.IndexHeader, no_context(INDEX_HEADER)),
    "indexfile.IndexSlot": (indexfile.IndexSlot, no_context(I32)),
    "indexfile.IndexItem": (indexfile.IndexItem, no_context(INDEX_ITEM)),
    "indexfile.IndexFile": (indexfile.IndexFile, index_file()),
    "checkpoint.Checkpoint": (checkpoint.Checkpoint, no_context(fields(
        physic_msg_timestamp=I64, logics_msg_timestamp=I64, index_msg_timestamp=I64, master_flushed_offset=I64,
        confirm_phy_offset=I64, reserved=RESERVED_CK))),
    "checkpoint.TimerCheckpoint": (checkpoint.TimerCheckpoint, no_context(fields(
        last_read_time_ms=I64, last_timer_log_flush_pos=I64, last_timer_queue_offset=I64,
        master_timer_queue_offset=I64, state_version=I64, data_version_timestamp=I64, data_version_counter=I64,
        reserved=RESERVED_TCK))),
    "msgid.OffsetMsgId4": (msgid.OffsetMsgId4, no_context(fields(ip=IPV4, port=I32, offset=I64))),
    "msgid.OffsetMsgId6": (msgid.OffsetMsgId6, no_context(fields(ip=IPV6, port=I32, offset=I64))),
    "msgid.UniqKey4": (msgid.UniqKey4, no_context(fields(
        ip=IPV4, pid=ints(16, False), class_loader_hash=I32, time_since_month_start=ints(32, False),
        counter=ints(16, False)))),
    "msgid.UniqKey6": (msgid.UniqKey6, no_context(fields(
        ip=IPV6, pid=ints(16, False), class_loader_hash=I32, time_since_month_start=ints(32, False),
        counter=ints(16, False)))),
    "rocksdb_cq.CqKey": (rocksdb_cq.CqKey, no_context(fields(
        topic_bytes=st.binary(max_size=40), queue_id=I32, queue_offset=I64))),
    "rocksdb_cq.CqValue": (rocksdb_cq.CqValue, no_context(fields(
        physical_offset=I64, size=I32, tags_code=I64, store_timestamp=I64))),
    "rocksdb_cq.OffsetKey": (rocksdb_cq.OffsetKey, no_context(fields(
        topic_bytes=st.binary(max_size=40),
        kind=st.sampled_from(["max", "min"]) | st.text(st.characters(min_codepoint=1, max_codepoint=127), max_size=3),
        queue_id=I32))),
    "rocksdb_cq.OffsetValue": (rocksdb_cq.OffsetValue, no_context(fields(physical_offset=I64, queue_offset=I64))),
    "rocksdb_cq.CheckpointValue": (rocksdb_cq.CheckpointValue, no_context(fields(max_physical_offset=I64))),
    "rocksdb_cq.TopicText": (rocksdb_cq.TopicText, no_context(STORED_TEXT)),
    "timer.TimerLogUnit": (timer.TimerLogUnit, no_context(fields(
        size=I32, prev_pos=I64, magic=I32, current_write_time=I64, delay=I32, commitlog_offset=I64,
        size_of_message=I32, real_topic_hash=I32, reserved=I64))),
    "timer.TimerLogBlank": (timer.TimerLogBlank, no_context(fields(
        remaining=I32, zero=I64, magic=st.just(timer.TIMER_LOG_BLANK_MAGIC - (1 << 32))))),
    "timer.TimerWheelSlot": (timer.TimerWheelSlot, no_context(fields(
        time_in_precision=I64, first_pos=I64, last_pos=I64, num=I32, magic=I32))),
    "dledger.EntryHeader": (dledger.EntryHeader, no_context(fields(
        magic=I32, size=I32, index=I64, term=I64, pos=I64, channel=I32, chain_crc=I32, body_crc=I32,
        body_length=I32))),
    "dledger.EndOfFile": (dledger.EndOfFile, no_context(fields(magic=st.just(dledger.END_MAGIC), remaining=I32))),
    "dledger.IndexUnit": (dledger.IndexUnit, no_context(fields(magic=I32, pos=I64, size=I32, index=I64, term=I64))),
    "dledger.PropertiesText": (dledger.PropertiesText, no_context(st.dictionaries(
        st.text(st.characters(blacklist_characters="=\n", blacklist_categories=("Cs",)), max_size=8),
        st.text(st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=8), max_size=4))),
    "dledger.DLedgerCheckpoint": (dledger.DLedgerCheckpoint, no_context(st.permutations(
        ["endIndex", "committedIndex"]).flatmap(lambda keys: st.fixed_dictionaries({k: I64 for k in keys})))),
    "dledger.CurrTerm": (dledger.CurrTerm, no_context(st.permutations(["voteLeader", "currTerm"]).flatmap(
        lambda keys: st.fixed_dictionaries({k: I64 if k == "currTerm" else st.sampled_from(["", "n0", "n12"])
                                            for k in keys})))),
}
NOT_CANONICAL = {"consumequeue.ConsumeQueueExtUnit"}  # its size field is rebuilt from the bitmap length
# fields parse adds that the value to build does not carry (Rebuild): name -> how to check them
DERIVED = {
    "rocksdb_cq.CqKey": lambda v, p: p["topic_length"] == len(v["topic_bytes"]),
    "rocksdb_cq.OffsetKey": lambda v, p: p["topic_length"] == len(v["topic_bytes"]),
    "consumequeue.ConsumeQueueExtUnit": lambda v, p: p["size"] == 20 + len(v["filter_bitmap"]),
}
NAMES = sorted(SCHEMAS)


def plain(value):
    """Container -> dict recursively (construct's private ``_io`` and friends dropped)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if not (isinstance(k, str) and k.startswith("_"))}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def test_every_schema_is_covered() -> None:
    """A schema added to parsers/ without a strategy here fails this test."""
    found = set()
    for module in (cl, consumequeue, indexfile, checkpoint, msgid, rocksdb_cq, timer, dledger):
        for attr, obj in vars(module).items():
            imported = getattr(construct, attr, None) is obj  # Int32sb, GreedyBytes, ... from construct itself
            if isinstance(obj, construct.Construct) and not attr.startswith("_") and not imported:
                found.add(f"{module.__name__.split('.')[-1]}.{attr}")
    assert found == set(SCHEMAS)


# --- build then parse; parse then build ------------------------------------------------------------------------


def _expected(name: str, value, parsed):
    value = plain(value)
    if name in DERIVED:
        assert DERIVED[name](value, parsed)
        parsed = {k: v for k, v in plain(parsed).items() if k not in ("topic_length", "size") or k in value}
    return value, plain(parsed)


@pytest.mark.parametrize("name", NAMES)
def test_build_then_parse(name: str) -> None:
    schema, strategy = SCHEMAS[name]

    @FAST
    @given(strategy)
    def check(case) -> None:
        value, ctx = case
        data = schema.build(value, **ctx)
        parsed = schema.parse(data, **ctx)
        want, got = _expected(name, value, parsed)
        assert got == want
        # and the bytes come back: parse -> build is the identity on what build wrote
        assert schema.build(parsed, **ctx) == data
        try:
            size = schema.sizeof(**ctx)
        except construct.SizeofError:
            return
        assert size == len(data)

    check()


def _consumed(schema: construct.Construct, data: bytes, ctx: dict) -> tuple[object, bytes] | None:
    """parse data; None when the schema refuses it (with its documented error only)."""
    try:
        parsed = schema.parse(data, **ctx)
    except construct.ConstructError:
        return None
    return parsed, data


def _check_reparse(name: str, schema: construct.Construct, data: bytes, ctx: dict) -> None:
    """Parsing arbitrary bytes yields a value or ConstructError; a value rebuilds to the bytes it came from."""
    result = _consumed(schema, data, ctx)
    if result is None:
        return
    parsed, _ = result
    if name in NOT_CANONICAL:
        return
    rebuilt = schema.build(parsed, **ctx)
    assert data.startswith(rebuilt), f"{name}: parse then build changed the bytes"
    assert plain(schema.parse(rebuilt, **ctx)) == plain(parsed)


def _mutate(data: bytes, rnd: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        kind = rnd.randrange(4)
        if kind == 0 and buf:  # flip a byte
            buf[rnd.randrange(len(buf))] ^= 1 << rnd.randrange(8) if rnd.random() < 0.5 else rnd.randrange(1, 256)
        elif kind == 1:  # truncate
            del buf[rnd.randrange(len(buf) + 1):]
        elif kind == 2:  # append junk
            buf += rnd.randbytes(rnd.randrange(1, 16))
        elif buf:  # set a length-ish byte to an extreme
            buf[rnd.randrange(len(buf))] = rnd.choice((0x00, 0x7F, 0x80, 0xFF))
    return bytes(buf)


@pytest.mark.parametrize("name", NAMES)
def test_random_bytes_parse_or_construct_error(name: str) -> None:
    schema, strategy = SCHEMAS[name]

    @FAST
    @given(strategy.flatmap(lambda case: st.tuples(st.just(case[1]), st.binary(max_size=200))))
    def check(case) -> None:
        ctx, data = case
        _check_reparse(name, schema, data, ctx)

    check()


@pytest.mark.parametrize("name", NAMES)
def test_mutated_valid_bytes_parse_or_construct_error(name: str) -> None:
    schema, strategy = SCHEMAS[name]

    @FAST
    @given(strategy, st.integers(0, 2**32 - 1))
    def check(case, seed: int) -> None:
        value, ctx = case
        data = schema.build(value, **ctx)
        rnd = random.Random(seed)
        for _ in range(8):
            _check_reparse(name, schema, _mutate(data, rnd), ctx)
        try:
            size = schema.sizeof(**ctx)
        except construct.SizeofError:
            size = None
        if size:  # a fixed-size schema must refuse every truncation of it
            with pytest.raises(construct.ConstructError):
                schema.parse(data[: rnd.randrange(size)], **ctx)

    check()


@FAST
@given(st.binary(min_size=4, max_size=4))
def test_sys_flag_parts_agree_with_schema(raw: bytes) -> None:
    value = int.from_bytes(raw, "big", signed=True)
    parts = cl.sys_flag_parts(value)
    parsed = cl.SysFlag.parse(raw)
    assert parts["born_host_v6"] == bool(value & cl.BORNHOST_V6_FLAG) == parsed.born_host_v6
    assert parts["inner_batch"] == bool(value & cl.INNER_BATCH_FLAG)
    assert parts["unused_bits"] == (value & 0xFFFFFFFF) >> 11
    assert cl.SysFlag.build(parsed) == raw


# --- message ids ---------------------------------------------------------------------------------------------------


@FAST
@given(st.one_of(IPV4, IPV6), I32, I64)
def test_offset_msg_id_roundtrip(ip: str, port: int, offset: int) -> None:
    text = msgid.encode_offset_msg_id(ip, port, offset)
    assert len(text) == (32 if ":" not in ip else 56) and text == text.upper()
    assert msgid.decode_offset_msg_id(text) == msgid.OffsetMsgId(ip, port, offset)
    assert msgid.decode_offset_msg_id(text.lower()) == msgid.OffsetMsgId(ip, port, offset)


@FAST
@given(st.one_of(IPV4, IPV6), ints(16, False), I32, ints(32, False), ints(16, False))
def test_uniq_key_roundtrip(ip: str, pid: int, loader: int, span: int, counter: int) -> None:
    text = msgid.encode_uniq_key(ip, pid, loader, span, counter)
    assert msgid.decode_uniq_key(text) == msgid.UniqKey(ip, pid, loader, span, counter)


ID_TEXT = st.one_of(
    st.text(max_size=70),
    st.text(alphabet="0123456789abcdefABCDEFxg \t-\u0660\uff10", min_size=30, max_size=58),
    st.sampled_from([32, 56]).flatmap(lambda n: st.text(min_size=n, max_size=n)),
)


@FAST
@given(ID_TEXT)
def test_id_decoders_raise_only_msg_id_error(text: str) -> None:
    for decode in (msgid.decode_offset_msg_id, msgid.decode_uniq_key):
        try:
            decoded = decode(text)
        except msgid.MsgIdError:
            continue
        # accepted: it really was 32/56 hex digits, and it encodes back to the same id
        clean = text.strip()
        assert len(clean) in (32, 56) and bytes.fromhex(clean)
        if decode is msgid.decode_offset_msg_id:
            assert msgid.encode_offset_msg_id(decoded.ip, decoded.port, decoded.offset) == clean.upper()
        else:
            assert msgid.encode_uniq_key(decoded.ip, decoded.pid, decoded.class_loader_hash,
                                         decoded.time_since_month_start, decoded.counter) == clean.upper()


# --- properties text, java helpers ------------------------------------------------------------------------------


@FAST
@given(properties())
def test_properties_value_roundtrip(props: cl.Properties) -> None:
    assert cl.Properties.from_text(props.to_text()) == props
    subcon = cl.PropertiesAdapter(cl.Utf8Text(construct.Prefixed(construct.Int16sb, construct.GreedyBytes)))
    assume(len(props.to_text().encode()) < 1 << 15)
    assert subcon.parse(subcon.build(props)) == props


@FAST
@given(st.text(max_size=12) | st.text(alphabet="0123456789\u0660\u0661\u00b2\uff11", min_size=10, max_size=10))
def test_crc_property_digits_parse_or_value_error(text: str) -> None:
    try:
        value = java.parse_crc_property_digits(text)
    except ValueError:
        return
    assert java.crc_property_digits(value) == text  # only ten ASCII digits are accepted, and they come back


@FAST
@given(ints(31, False))
def test_crc_property_digits_roundtrip(value: int) -> None:
    assert java.parse_crc_property_digits(java.crc_property_digits(value)) == value


@FAST
@given(st.integers(-(10**6), 10**9))
def test_infer_geometry_fits_or_none(size: int) -> None:
    fitted = indexfile.infer_geometry(size)
    if fitted is not None:
        slots, items = fitted
        assert items == 4 * slots and indexfile.index_file_size(slots, items) == size


# --- fastjson ---------------------------------------------------------------------------------------------------

JSONISH = st.text(alphabet=st.sampled_from('{}[]":,0123456789-.eE+ \t\ntruefalsn\\u/abc\x00\x1f\u2028é'), max_size=60)


@FAST
@given(st.one_of(st.text(max_size=80), JSONISH, st.binary(max_size=80)))
def test_fastjson_loads_raises_only_fastjson_error(text) -> None:
    try:
        value = fastjson.loads(text)
    except fastjson.FastjsonError as e:
        assert e.line >= 1 and e.column >= 1 and 0 <= e.position
        return
    assert fastjson.loads(fastjson.dumps(value)) == value


@FAST
@given(st.integers(1, 400))
def test_fastjson_deep_nesting_is_an_error_not_a_recursion_crash(depth: int) -> None:
    text = "[" * depth + "]" * depth
    if depth <= fastjson.MAX_DEPTH:
        assert fastjson.loads(text) is not None
    else:
        with pytest.raises(fastjson.FastjsonError, match="nesting"):
            fastjson.loads(text)


# --- the engine's record decoder ----------------------------------------------------------------------------------


def _decode(buf: bytes, pos: int, limit: int):
    try:
        return decode_message(buf, pos, limit, file="commitlog/x", segment_start=0)
    except RecordError as e:
        assert e.code and e.reason
        return None


@FAST
@given(st.binary(max_size=400), st.integers(0, 400), st.integers(0, 400))
def test_decode_message_random_bytes(buf: bytes, pos: int, limit: int) -> None:
    _decode(buf, min(pos, len(buf)), min(limit, len(buf)))


@FAST
@given(message_record(), st.integers(0, 2**32 - 1))
def test_decode_message_mutated_records(value: dict, seed: int) -> None:
    """Mutations of a valid record decode or raise RecordError; what decodes agrees with the construct schema."""
    value["magic_code"] = cl.MAGIC_V1 if value["magic_code"] == cl.MAGIC_V1 else cl.MAGIC_V2
    body = cl.MessageRecord.build(value)
    data = cl.MessageRecord.build({**value, "total_size": len(body)})
    msg = _decode(data, 0, len(data))
    assert msg is not None and msg.body == value["body"] and msg.topic == value["topic"]
    rnd = random.Random(seed)
    for _ in range(10):
        mutated = _mutate(data, rnd)
        msg = _decode(mutated, 0, len(mutated))
        if msg is None:
            continue
        ref = cl.MessageRecord.parse(mutated)
        assert (msg.total_size, msg.magic_code, msg.sys_flag, msg.body, msg.topic) == (
            ref.total_size, ref.magic_code, ref.sys_flag, ref.body, ref.topic)
        assert msg.born_host.ip == str(ipaddress.ip_address(ref.born_host.ip))
        assert list(msg.properties_entries) == ref.properties.entries


# --- the engine's bulk (compiled) record walkers --------------------------------------------------------------


@st.composite
def segment_bytes(draw) -> tuple[bytes, int | None]:
    """A few valid records back to back (right PHYSICALOFFSET, TOTALSIZE, body CRC) and their count; or those
    bytes damaged (count None)."""
    data = bytearray()
    records = draw(st.lists(message_record(), min_size=1, max_size=4))
    for value in records:
        size = len(cl.MessageRecord.build(value))
        value.update(total_size=size, physical_offset=len(data), body_crc=java.rocketmq_crc32(value["body"]))
        data += cl.MessageRecord.build(value)
    data += bytes(draw(st.integers(0, 64)))
    if draw(st.booleans()):
        return _mutate(bytes(data), random.Random(draw(st.integers(0, 2**32 - 1)))), None
    return bytes(data), len(records)


@FAST
@given(st.one_of(segment_bytes(), st.binary(max_size=600).map(lambda b: (b, None))), st.integers(0, 2**16))
def test_bulk_walkers_agree_with_decode_message(case: tuple[bytes, int | None], start_seed: int) -> None:
    """The compiled walkers (no bounds checks of their own) on any bytes: no crash, and every record they
    take decodes with decode_message to the same message."""
    data, records = case
    start = start_seed % (len(data) + 1) if start_seed % 3 == 0 and records is None else 0
    arr = as_array(data)
    positions, end = walk_boundaries(arr, start, len(data))
    assert start <= end <= len(data)
    run = check_run(arr, start, len(data), segment_start=0, flags=0)
    batch = decode_batch(arr, start, len(data), flags=0)
    vrun, _table, _cut = verify_run(arr, start, len(data), segment_start=0, flags=0)
    assert run.count == len(batch) == vrun.count and run.end == batch.end == vrun.end
    for msg in batch.messages():
        direct = decode_message(data, msg.position, len(data), file="", segment_start=0)
        assert (direct.body, direct.topic, direct.properties_entries, direct.born_host) == (
            msg.body, msg.topic, msg.properties_entries, msg.born_host)
    assert len(positions) >= run.count  # the head walk takes at least every record the full check takes
    if records is not None:  # undamaged: every record is clean
        assert run.count == records
