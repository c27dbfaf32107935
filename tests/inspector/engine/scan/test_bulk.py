"""The scan kernels (walk, batch, verify_kernels) equal construct, decode_message and the record-by-record walk.

* Decoded batches equal ``MessageRecord.parse`` and ``decode_message`` on random, real and sample-store
  records; the numba kernels equal the pure-Python fallback on the same bytes, damaged or not.
* Walks with the fast path (entries, scan_segment, boundary_before, verify) give exactly what the careful
  record-by-record walk gives on damaged segments, with one thread or several.
* The CRC backends (ISA-L, zlib) agree.
"""

from __future__ import annotations

import random
import shutil
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from external_tools import NUMBA, need
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.engine.maintain.verify.index import ITEM_DTYPE
from inspector.engine.maintain.verify.verify import verify
from inspector.engine.model import crc
from inspector.engine.model.records import Host, Message, Problem
from inspector.engine.read.commitlog.careful import careful_step
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.queues.consumequeue import UNIT_DTYPE
from inspector.engine.read.store.store import Store
from inspector.engine.scan.batch import MessageBatch, decode_batch
from inspector.engine.scan.decode import decode_message
from inspector.engine.scan.kernels import numba_enabled, python_only
from inspector.engine.scan.record_layout import CHECK_BODY_CRC, FIXED_LENGTH, HEAD, MIN_RECORD_SIZE
from inspector.engine.scan.verify_kernels import (
    INFO_DELAY,
    INFO_KEYS,
    INFO_TAGS,
    INFO_UNITS,
    crc32_many,
    verify_run,
)
from inspector.engine.scan.walk import check_run, find_clean, walk_boundaries
from parsers import commitlog as cl
from parsers.consumequeue import ConsumeQueueUnit
from parsers.indexfile import IndexItem
from parsers.java import index_key, index_key_hash, java_string_hash, rocketmq_crc32

SAMPLE = Path(__file__).resolve().parents[4] / "sample_store"
FIXTURE_OK = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
needs_numba = pytest.mark.usefixtures("numba_in_use")
BOTH = pytest.mark.parametrize("python", [False, True], ids=["numba", "python"])


@pytest.fixture(autouse=True)
def _path(request):
    """Tests parametrized with ``python`` run inside python_only() when it is True."""
    python = request.node.callspec.params.get("python") if hasattr(request.node, "callspec") else None
    if python is False:
        need(NUMBA)
    if python:
        with python_only():
            yield
    else:
        yield


def schema_fields(buf, pos: int, total: int) -> dict:
    """What construct parses at pos, as plain values (the reference for every comparison)."""
    ref = cl.MessageRecord.parse(bytes(buf[pos : pos + total]))
    return dict(
        total_size=ref.total_size, magic_code=ref.magic_code, body_crc=ref.body_crc, queue_id=ref.queue_id,
        flag=ref.flag, queue_offset=ref.queue_offset, stored_physical_offset=ref.physical_offset,
        sys_flag=ref.sys_flag, born_timestamp=ref.born_timestamp, born_host=Host(ref.born_host.ip, ref.born_host.port),
        store_timestamp=ref.store_timestamp, store_host=Host(ref.store_host.ip, ref.store_host.port),
        reconsume_times=ref.reconsume_times, prepared_transaction_offset=ref.prepared_transaction_offset,
        body=ref.body, topic=ref.topic, properties_entries=tuple(ref.properties.entries),
        properties_terminated=ref.properties.terminated,
    )


def assert_batch_is_schema(batch: MessageBatch, buf) -> list[Message]:
    """Every record of the batch, columns and Messages, equals construct's parse and decode_message."""
    messages = list(batch.messages())
    assert len(messages) == len(batch)
    for i, msg in enumerate(messages):
        ref = schema_fields(buf, msg.position, msg.total_size)
        for name, value in ref.items():
            assert getattr(msg, name) == value, name
        assert msg == decode_message(buf, msg.position, len(buf), file=batch.file, segment_start=batch.segment_start)
        assert batch.topic(i) == msg.topic
        assert batch.body(i) == msg.body
        assert batch.properties(i) == msg.properties
        assert batch.message(i) == msg
        assert batch.column("queue_offset")[i] == msg.queue_offset
        assert batch.physical_offsets[i] == msg.physical_offset
    return messages


def careful_entries(log: CommitLog, seg, pos: int = 0, check_crc: bool = True) -> list:
    """The record-by-record walk (no fast path): what entries() gave before the bulk path existed."""
    mf = log.map(seg)
    index = log.segments.index(seg)
    is_last = index >= log._last_data_index
    out = []
    while True:
        found, nxt = careful_step(mf.buf, pos, mf.size, seg, is_last, check_crc, log.segment_size)
        out.extend(found)
        if nxt is None:
            return out
        pos = nxt


def careful_boundary(log: CommitLog, offset: int) -> int:
    """boundary_before as a plain struct walk from the segment start."""
    seg = log.segment_for(offset)
    buf, limit = log.map(seg).buf, log.map(seg).size
    cur, target = 0, offset - seg.start_offset
    while limit - cur >= 36:
        total, magic = struct.unpack_from(">ii", buf, cur)
        phys = struct.unpack_from(">q", buf, cur + 28)[0]
        if magic not in cl.MESSAGE_MAGICS or total < 91 or total > limit - cur or phys != seg.start_offset + cur:
            break
        if cur + total > target:
            break
        cur += total
    return seg.start_offset + cur


# --- the layout ---------------------------------------------------------------------------------------------


def test_fixed_offsets_come_from_the_schema() -> None:
    assert HEAD["physical_offset"] == 28 and HEAD["born_host"] == 48
    assert MIN_RECORD_SIZE == cl.record_length(0, 0, 0) == 91
    assert FIXED_LENGTH == 74


def test_unit_and_item_dtypes_match_their_schemas() -> None:
    unit = ConsumeQueueUnit.build(dict(physical_offset=123456789012, size=-5, tags_code=-(2**40)))
    row = np.frombuffer(unit, dtype=UNIT_DTYPE)[0]
    assert (int(row["physical_offset"]), int(row["size"]), int(row["tags_code"])) == (123456789012, -5, -(2**40))
    item = IndexItem.build(dict(key_hash=7, phy_offset=2**40 + 3, time_diff=-9, prev_index=11))
    row = np.frombuffer(item, dtype=ITEM_DTYPE)[0]
    assert tuple(int(x) for x in row.tolist()) == (7, 2**40 + 3, -9, 11)


# --- crc -----------------------------------------------------------------------------------------------------


@given(data=st.binary(max_size=3000))
def test_crc_backends_agree(data: bytes) -> None:
    expected = rocketmq_crc32(data)  # zlib
    assert crc.rocketmq_crc32(data) == expected
    if crc.CRC_BACKEND == "isal":
        from isal import isal_zlib

        assert isal_zlib.crc32(data) == zlib.crc32(data)


@BOTH
def test_crc_many_equals_one_by_one(python) -> None:
    rng = random.Random(3)
    buf = bytes(rng.randrange(256) for _ in range(5000))
    pos = np.array([rng.randrange(4000) for _ in range(200)], dtype=np.int64)
    lens = np.array([rng.randrange(0, 900) for _ in range(200)], dtype=np.int64)
    got = crc32_many(buf, pos, lens)
    assert got.tolist() == [rocketmq_crc32(buf[p : p + n]) for p, n in zip(pos.tolist(), lens.tolist(), strict=True)]


# --- random records -------------------------------------------------------------------------------------------

INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)
PROPS = st.lists(st.sampled_from(["TAGS\x01a", "KEYS\x01k1 k2", "UNIQ_KEY\x01AB", "\x01x", "n\x01", "plain",
                                  "__CRC32#\x010123456789", "DELAY\x013", "KEYS\x01 \u00e9 x", "TAGS\x01\u00fc"]),
                 max_size=6).map("\x02".join)


@st.composite
def record_kwargs(draw) -> dict:
    v2 = draw(st.booleans())
    born6, store6 = draw(st.booleans()), draw(st.booleans())
    sys_flag = draw(INT32) & ~0x30 | (0x10 if born6 else 0) | (0x20 if store6 else 0)
    topic = draw(st.binary(max_size=300 if v2 else 127)).decode("utf-8", "surrogateescape")
    props = draw(st.one_of(PROPS, st.binary(max_size=120).map(lambda b: b.decode("utf-8", "surrogateescape"))))
    return dict(
        magic_code=cl.MAGIC_V2 if v2 else cl.MAGIC_V1, sys_flag=sys_flag, topic=topic,
        body=draw(st.binary(max_size=200)), properties=props, queue_id=draw(INT32), queue_offset=draw(INT64),
        flag=draw(INT32), born_timestamp=draw(INT64), store_timestamp=draw(INT64),
        born_host=(str(draw(st.ip_addresses(v=6 if born6 else 4))), draw(INT32)),
        store_host=(str(draw(st.ip_addresses(v=6 if store6 else 4))), draw(INT32)),
        reconsume_times=draw(INT32), prepared_transaction_offset=draw(INT64), body_crc=draw(st.none() | INT32),
    )


def _lay_out(build_record, kwargs_list, segment_start: int, prefix: bytes) -> bytes:
    buf = bytearray(prefix)
    for kwargs in kwargs_list:
        buf += build_record(segment_start + len(buf), **kwargs)
    return bytes(buf)


@given(records=st.lists(record_kwargs(), min_size=1, max_size=6), prefix=st.binary(max_size=30),
       suffix=st.binary(max_size=30), segment_index=st.integers(0, 1 << 20), flags=st.sampled_from([0, 1, 3]))
@FIXTURE_OK
def test_random_records_decode_like_the_schema_on_both_paths(build_record, records, prefix, suffix, segment_index,
                                                             flags) -> None:
    start = segment_index * 4096
    buf = _lay_out(build_record, records, start, prefix) + suffix
    with python_only():
        slow = decode_batch(buf, len(prefix), len(buf), segment_start=start, flags=flags)
        slow_run = check_run(buf, len(prefix), len(buf), segment_start=start, flags=flags)
    assert_batch_is_schema(slow, buf)
    assert (slow_run.count, slow_run.end) == (len(slow), slow.end)
    # the run's last record starts where the batch's does (recovery's last record offset), -1 for an empty run
    assert slow_run.last_position == (int(slow.physical_offsets[-1]) - start if len(slow) else -1)
    # the batch is the longest clean run: the record after it is not clean (or the data ends)
    if slow.end < len(buf) - 8:
        msgs = list(slow.messages())
        nxt = decode_message(buf, slow.end, len(buf), file="", segment_start=start) if len(msgs) < len(records) \
            else None
        if nxt is not None:
            assert (flags & 1 and not nxt.body_crc_ok) or (flags & 2)
    if numba_enabled():
        fast = decode_batch(buf, len(prefix), len(buf), segment_start=start, flags=flags)
        assert list(fast.messages()) == list(slow.messages()) and fast.end == slow.end
        assert check_run(buf, len(prefix), len(buf), segment_start=start, flags=flags) == slow_run


@given(records=st.lists(record_kwargs(), min_size=1, max_size=5),
       edits=st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 255)), max_size=8),
       cut=st.integers(0, 3000), flags=st.sampled_from([0, 1, 3]), start=st.integers(0, 40))
@FIXTURE_OK
@needs_numba
def test_damaged_bytes_give_the_same_runs_on_both_paths(build_record, records, edits, cut, flags, start) -> None:
    buf = bytearray(_lay_out(build_record, records, 0, b""))
    for index, value in edits:
        buf[index % len(buf)] = value
    buf = bytes(buf[: max(cut, 8)])
    start = min(start, len(buf))
    fast = (decode_batch(buf, start, len(buf), flags=flags), check_run(buf, start, len(buf), segment_start=0,
                                                                     flags=flags),
            walk_boundaries(buf, start, len(buf)), find_clean(buf, start, len(buf), segment_start=0,
                                                              flags=flags))
    with python_only():
        slow = (decode_batch(buf, start, len(buf), flags=flags),
                check_run(buf, start, len(buf), segment_start=0, flags=flags),
                walk_boundaries(buf, start, len(buf)),
                find_clean(buf, start, len(buf), segment_start=0, flags=flags))
    assert list(fast[0].messages()) == list(slow[0].messages()) and fast[0].end == slow[0].end
    assert fast[1] == slow[1]
    assert fast[2][0].tolist() == slow[2][0].tolist() and fast[2][1] == slow[2][1]
    assert fast[3] == slow[3]
    for msg in slow[0].messages():  # every record of a clean run is one decode_message accepts
        assert msg == decode_message(buf, msg.position, len(buf), file="", segment_start=0)


# --- real and sample-store records ---------------------------------------------------------------------------


@BOTH
@pytest.mark.parametrize("name", ["apache", "shaoxubao"])
def test_real_commitlog_decodes_like_the_schema(real_commitlog_stores, python, name: str) -> None:
    buf = (real_commitlog_stores[name] / "commitlog" / "00000000000000000000").read_bytes()
    batch = decode_batch(buf, 0, len(buf), flags=CHECK_BODY_CRC, file="commitlog/00000000000000000000")
    messages = assert_batch_is_schema(batch, buf)
    assert len(messages) == 47 and batch.end == 8084 and not batch.cut
    starts, end = walk_boundaries(buf, 0, len(buf))
    assert starts.tolist() == [m.position for m in messages] and end == 8084
    run = check_run(buf, 0, len(buf), segment_start=0)
    assert (run.count, run.end) == (47, 8084)
    assert run.first_store_timestamp == messages[0].store_timestamp
    assert run.max_store_timestamp == max(m.store_timestamp for m in messages)


@BOTH
def test_sample_store_batches_expand_to_the_careful_entries(python) -> None:
    with Store(SAMPLE) as store:
        log = store.commitlog
        for seg in log.segments:
            expanded = []
            for item in log.segment_batches(seg, batch_size=7):
                if isinstance(item, MessageBatch):
                    assert len(item) <= 7
                    assert_batch_is_schema(item, log.map(seg).buf)
                    expanded.extend(item.messages())
                else:
                    expanded.append(item)
            assert expanded == careful_entries(log, seg)


@needs_numba
def test_a_full_intern_table_starts_a_new_batch(build_record, monkeypatch) -> None:
    records = [dict(topic=f"topic-{i}", born_host=(f"10.0.{i}.1", 1)) for i in range(40)]
    buf = _lay_out(build_record, records, 0, b"")
    monkeypatch.setattr("inspector.engine.scan.batch.INTERN_SLOTS", 8)
    pos, got = 0, []
    while True:
        batch = decode_batch(buf, pos, len(buf))
        got.extend(batch.messages())
        pos = batch.end
        if not batch.cut:
            break
    assert [m.topic for m in got] == [f"topic-{i}" for i in range(40)] and pos == len(buf)


# --- walks with the fast path == the careful walk, on damaged segments ------------------------------------------

SEG = 4096


def _spec(i: int) -> dict:
    return dict(topic=("TopicTest", "Other")[i % 2], body=f"message {i:03d} ".encode() * (1 + i % 4),
                properties={"KEYS": f"k{i:02d} x{i}", "TAGS": "TagA", "UNIQ_KEY": f"U{i:04X}"},
                queue_offset=i, store_timestamp=1_700_000_000_000 + i * 1000)


@pytest.fixture(scope="module")
def clean_log(tmp_path_factory, write_commitlog) -> list[bytes]:
    """Two segments of 45 records (a BLANK ends the first), as file contents."""
    root = tmp_path_factory.mktemp("clean")
    write_commitlog(root, [_spec(i) for i in range(45)], SEG)
    return [f.read_bytes() for f in sorted((root / "commitlog").iterdir())]


@given(edits=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), min_size=1, max_size=6),
       zero=st.none() | st.tuples(st.integers(0, 1 << 20), st.integers(1, 600)),
       offsets=st.lists(st.integers(0, 1 << 20), max_size=4))
@FIXTURE_OK
def test_damaged_log_walks_like_the_careful_walk(tmp_path_factory, clean_log, edits, zero, offsets) -> None:
    root = tmp_path_factory.mktemp("damaged")
    (root / "commitlog").mkdir()
    data = bytearray(b"".join(clean_log))
    for at, value in edits:
        data[at % len(data)] = value
    if zero is not None:
        at = zero[0] % len(data)
        data[at : at + zero[1]] = bytes(len(data[at : at + zero[1]]))
    for i in range(len(clean_log)):
        (root / "commitlog" / f"{i * SEG:020d}").write_bytes(bytes(data[i * SEG : (i + 1) * SEG]))
    offsets = [off % len(data) for off in offsets]
    for python in (False, True):
        if not python and not numba_enabled():
            continue
        ctx = python_only() if python else _nothing()
        with ctx:
            log = CommitLog(root)
            try:
                reference = [careful_entries(log, seg) for seg in log.segments]
                assert [list(log._segment_entries(seg, 0, True, i)) for i, seg in enumerate(log.segments)] == reference
                assert list(log.entries()) == [e for seg in reference for e in seg]
                for seg, entries in zip(log.segments, reference, strict=True):
                    scan = log.scan_segment(seg)
                    msgs = [e for e in entries if isinstance(e, Message)]
                    assert scan.messages == len(msgs)
                    assert scan.problems == tuple(e for e in entries if isinstance(e, Problem))
                    if msgs:
                        assert scan.last_store_timestamp == msgs[-1].store_timestamp
                for off in offsets:
                    assert log.boundary_before(off) == careful_boundary(log, off)
                    seg = log.segment_for(off)  # entries from any offset: the careful walk from there
                    expected = careful_entries(log, seg, off - seg.start_offset)
                    assert [x for x in log.entries(off) if x.file == seg.file] == expected
            finally:
                log.close()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@needs_numba
def test_threads_walk_a_segment_like_one_thread(tmp_path, write_commitlog, monkeypatch) -> None:
    write_commitlog(tmp_path, [_spec(i) for i in range(400)], 1 << 16)
    seg0 = tmp_path / "commitlog" / f"{0:020d}"
    raw = bytearray(seg0.read_bytes())
    raw[20_000] ^= 0xFF  # damage in the middle: the threads' later chunks are discarded, the walk goes on
    seg0.write_bytes(bytes(raw))
    monkeypatch.setattr(CommitLog, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(CommitLog, "PARALLEL_CHUNK", 4096)
    for workers in (1, 2, 3):
        log = CommitLog(tmp_path)
        try:
            got = [log.summarise_segment(s, workers=workers) for s in log.segments]
            reference = [careful_entries(log, s) for s in log.segments]
            for summary, entries in zip(got, reference, strict=True):
                assert summary.scan.messages == sum(isinstance(e, Message) for e in entries)
                assert summary.problems == tuple(e for e in entries if isinstance(e, Problem))
        finally:
            log.close()


# --- verify: the fast path reports what the one-by-one checks report -------------------------------------------


def _damage(root: Path, rng: random.Random) -> None:
    """A few random byte flips in random store files (commitlog, consume queues, index)."""
    files = [p for p in root.rglob("*") if p.is_file() and p.parent.name != "config" and p.name not in ("lock",)]
    for _ in range(rng.randrange(1, 4)):
        path = rng.choice(files)
        raw = bytearray(path.read_bytes())
        if not raw:
            continue
        for _ in range(rng.randrange(1, 4)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        path.write_bytes(bytes(raw))


@needs_numba
@pytest.mark.parametrize("seed", range(12))
def test_verify_fast_equals_one_by_one_on_a_damaged_store(pristine_store, tmp_path, seed: int,
                                                          monkeypatch) -> None:
    root = tmp_path / "store"
    shutil.copytree(pristine_store[0], root)
    if seed:
        _damage(root, random.Random(seed))
    with Store(root) as store:
        slow = verify(store, fast=False)
    with Store(root) as store:
        one = verify(store, workers=1)
    monkeypatch.setattr(CommitLog, "PARALLEL_MIN_BYTES", 0)  # threads on tiny segments too
    monkeypatch.setattr(CommitLog, "PARALLEL_CHUNK", 1024)
    with Store(root) as store:
        fast = verify(store, workers=2)
    assert fast == slow == one


@needs_numba
def test_verify_fast_equals_one_by_one_on_the_sample_store() -> None:
    with Store(SAMPLE) as store:
        slow = verify(store, fast=False)
    with Store(SAMPLE) as store:
        assert verify(store) == slow


@needs_numba
def test_verify_tables_hold_each_records_keys_and_tags() -> None:
    with Store(SAMPLE) as store:
        seg = store.segments[0]
        mf = store.commitlog.map(seg)
        run, table, cut = verify_run(mf.array, 0, mf.size, segment_start=seg.start_offset)
        assert not cut and len(table) == run.count > 0
        info = table.column("info")
        for i in range(len(table)):
            msg = store.message_at(int(table.column("physical_offset")[i]))
            assert table.topics[int(table.column("topic")[i])] == msg.topic
            assert (int(table.column("queue_id")[i]), int(table.column("queue_offset")[i])) == (msg.queue_id,
                                                                                                 msg.queue_offset)
            if info[i] & INFO_TAGS:
                assert table.column("tags_code")[i] == (java_string_hash(msg.tags) if msg.tags else 0)
            if info[i] & INFO_KEYS:
                start, n = int(table.column("keys_start")[i]), int(table.column("keys_count")[i])
                keys = ([msg.unique_key] if msg.unique_key else []) + msg.keys
                assert table.keys[start : start + n].tolist() == [index_key_hash(index_key(msg.topic, k))
                                                                   for k in keys]
            assert bool(info[i] & INFO_UNITS) == (msg.transaction in ("NOT_TYPE", "COMMIT"))
            assert bool(info[i] & INFO_DELAY) == ("DELAY" in msg.properties)


# --- consume queues ------------------------------------------------------------------------------------------


def test_unit_runs_hold_the_units() -> None:
    with Store(SAMPLE) as store:
        for topic, qid in store.queue_ids():
            cq = store.queue(topic, qid)
            expanded = []
            for run in cq.unit_runs(0, max_units=3):
                if isinstance(run, Problem):
                    expanded.append(run)
                else:
                    expanded.extend(run.unit(i) for i in range(len(run)))
            assert expanded == list(cq.units(0))
            for q in range(len(expanded)):
                if not isinstance(expanded[q], Problem):
                    assert cq.unit(expanded[q].queue_offset) == expanded[q]
