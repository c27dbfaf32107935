"""The jobs end to end in local mode, each checked against the single-process engine on the same stores."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path

import pytest
from external_tools import import_or_skip

from inspector.engine import Message, Store
from inspector.engine.maintain.rebuild.rebuild import rebuild
from inspector.engine.maintain.verify.verify import verify
from inspector.engine.present.views import message_view
from inspector.spark import plan
from inspector.spark.jobs import common, export, keyindex, rebuild_cq, stats
from inspector.spark.jobs import verify as verify_job
from inspector.spark.keyindex import lookup
from inspector.spark.schemas import MESSAGE
from inspector.spark.tasks import SegmentTask, StoreRef, message_rows


def engine_messages(root: Path) -> list[Message]:
    with Store(root) as store:
        return [e for e in store.entries() if isinstance(e, Message)]


def expected_view(msg: Message, root: Path) -> dict:
    v = message_view(msg)
    v.setdefault("dledger", None)  # JSON leaves out the objects a record has not; a row holds null
    v.setdefault("inner_batch", None)
    v.setdefault("trace", None)
    v["store"] = str(root.resolve())
    v["segment"] = msg.file.rsplit("/", 1)[-1]
    return v


# --- export --------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def exported(spark, sample_store, multi_store, tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "out"
    rc = export.main([str(sample_store), str(multi_store), "--out", str(out), "--format", "both"], spark)
    assert rc == 0
    return out


def test_export_rows_equal_the_engine_messages(spark, exported, sample_store, multi_store):
    rows = export.read_messages(spark, str(exported / "messages")).collect()
    got = {}
    for row in rows:
        d = row.asDict(recursive=True)
        date = d.pop("store_date")
        assert date.isoformat() == _utc_day(d["store_timestamp"])
        got[(d["store"], d["physical_offset"])] = d
    expected = {}
    for root in (sample_store, multi_store):
        for msg in engine_messages(root):
            v = expected_view(msg, root)
            expected[(v["store"], v["physical_offset"])] = v
    assert len(rows) == len(expected) > 4000
    assert got == expected


def _utc_day(ms: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).date().isoformat()


def test_export_is_partitioned_by_topic_and_store_date(exported):
    topics = {p.name for p in (exported / "messages").iterdir() if p.is_dir()}
    assert {"topic=OrderEvents", "topic=42", "topic=%25DLQ%25billing-consumer"} <= topics
    assert any(p.name == "store_date=2025-09-19" for p in (exported / "messages" / "topic=OrderEvents").iterdir())


def test_export_json_lines_equal_the_engine_messages(exported, sample_store):
    lines = [json.loads(line) for f in sorted((exported / "messages-jsonl").glob("part-*"))
             for line in f.read_text(encoding="utf-8").splitlines()]
    store = str(sample_store.resolve())
    got = {d["physical_offset"]: d for d in lines if d["store"] == store}
    for msg in engine_messages(sample_store):
        d = dict(got.pop(msg.physical_offset))
        assert d.pop("store_date") == _utc_day(msg.store_timestamp)
        assert d == expected_view(msg, sample_store)
    assert got == {}


def test_export_segments_table(spark, exported, multi_store):
    seg = spark.read.parquet(str(exported / "segments")).where(f"store = '{multi_store.resolve()}'")
    rows = sorted(seg.collect(), key=lambda r: r.segment_index)
    with Store(multi_store) as store:
        assert [(r.segment, r.messages, r.blank_position, r.problem_count, r.error) for r in rows] == [
            (s.segment.name, s.messages, s.blank_position, len(s.problems), None) for s in store.scans()]


def test_export_refuses_to_overwrite(spark, exported, sample_store):
    assert export.main([str(sample_store), "--out", str(exported)], spark) == common.EXIT_BAD_INPUT


def test_a_segment_that_fails_is_reported_and_the_stage_goes_on(spark, sample_store):
    ref = StoreRef(str(sample_store.resolve()))
    good = plan.plan_segments([ref])
    bad = SegmentTask(ref, 1, "00000000000000099999", "commitlog/00000000000000099999", 99999, 65536)
    stage = common.SegmentStage(spark, [good[0], bad, good[2]])
    assert stage.frame(message_rows, MESSAGE, with_body=False).count() == 162 + 78
    reports = stage.reports()[ref.path]
    assert [r.error is None for r in reports] == [True, False, True]
    assert common.report_damage(stage.reports()) == common.EXIT_STORE_ERROR


def test_a_stage_of_some_columns_equals_those_columns_of_all(spark, sample_store, multi_store):
    """What stats and keyindex ask the stage for: their columns, MESSAGE types, the rows of the full frame."""
    tasks = plan.plan_segments(plan.store_refs([sample_store, multi_store]))
    full = common.SegmentStage(spark, tasks).messages()
    for columns in (stats.COLUMNS, keyindex.COLUMNS, ("keys", "store")):
        frame = common.SegmentStage(spark, tasks).messages(columns=columns)
        in_order = [c for c in MESSAGE.fieldNames() if c in columns]
        assert frame.schema.fieldNames() == in_order
        assert all(frame.schema[c] == MESSAGE[c] for c in in_order)
        assert sorted(map(tuple, frame.collect())) == sorted(map(tuple, full.select(*in_order).collect()))
    with pytest.raises(ValueError, match="not MESSAGE columns: key"):
        common.SegmentStage(spark, tasks).messages(columns=("key",))


# --- stats -----------------------------------------------------------------------------------------------------------


def test_stats_equal_figures_computed_from_the_engine(spark, sample_store, multi_store, tmp_path):
    out = tmp_path / "stats"
    assert stats.main([str(sample_store), str(multi_store), "--out", str(out)], spark) == 0
    queues = {(r.store, r.topic, r.queue_id): r for r in spark.read.parquet(str(out / "queues")).collect()}
    by_queue: dict[tuple, list[Message]] = {}
    for root in (sample_store, multi_store):
        for m in engine_messages(root):
            by_queue.setdefault((str(root.resolve()), m.topic, m.queue_id), []).append(m)
    assert set(queues) == set(by_queue)
    for key, msgs in by_queue.items():
        q = queues[key]
        lat = sorted(m.store_timestamp - m.born_timestamp for m in msgs)
        keys = Counter(k for m in msgs for k in m.keys)
        top = sorted(keys.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        assert (q.messages, q.bytes, q.body_bytes, q.first_store_timestamp, q.last_store_timestamp) == (
            len(msgs), sum(m.total_size for m in msgs), sum(len(m.body) for m in msgs),
            min(m.store_timestamp for m in msgs), max(m.store_timestamp for m in msgs))
        assert (q.latency_p50_ms, q.latency_p99_ms, q.latency_max_ms) == (
            lat[math.ceil(0.5 * len(lat)) - 1], lat[math.ceil(0.99 * len(lat)) - 1], lat[-1])
        assert q.distinct_tags == len({m.tags for m in msgs if m.tags})
        assert q.distinct_keys == len(keys)
        assert [(k.key, k["count"]) for k in q.top_keys] == top
        assert q.compressed == sum(1 for m in msgs if m.compressed)
    hourly = spark.read.parquet(str(out / "hourly"))
    assert hourly.groupBy().sum("messages").first()[0] == sum(len(v) for v in by_queue.values())
    assert spark.read.parquet(str(out / "segments")).count() == 3 + 8


# --- verify ----------------------------------------------------------------------------------------------------------


def _message_in(root: Path, segment: int, nth: int = 3) -> Message:
    with Store(root) as store:
        seg = store.segments[segment]
        msgs = [e for e in store.entries(seg.start_offset) if isinstance(e, Message) and e.file == seg.file]
        return msgs[nth]


def damage(root: Path, patch) -> None:
    """Record-level and cross-file damage in several segments, queues, an index file and the checkpoint."""
    segs = sorted((root / "commitlog").iterdir())
    m = _message_in(root, 1)
    body_at = segs[1].read_bytes().find(m.body, m.position)
    patch(segs[1], body_at + len(m.body) // 2, b"\xee")  # a body byte: CRC mismatch
    m = _message_in(root, min(3, len(segs) - 1), 5)
    patch(segs[min(3, len(segs) - 1)], m.position, b"\x7f\x00\x00\x00")  # TOTALSIZE garbage: resync
    m = _message_in(root, len(segs) - 1, 2)
    patch(segs[-1], m.position + 4, b"\0" * 4)  # bad magic in the active segment
    cq = sorted((root / "consumequeue" / "OrderEvents" / "1").iterdir())[0]
    patch(cq, 40 + 8, b"\x00\x00\x00\x05")  # unit 2: wrong size
    with Store(root) as store:
        reader = store.index_files()[0]
        idx, slots = root / reader.rel, reader.slot_count
    patch(idx, 40 + slots * 4 + 5 * 20 + 4, (10**12).to_bytes(8, "big"))  # item 5 points nowhere
    patch(root / "checkpoint", 0, (4_102_444_800_000).to_bytes(8, "big"))  # physicMsgTimestamp in 2100


def single_process_findings(root: Path):
    with Store(root) as store:
        report = verify(store)
    return [(p.file, p.offset, p.code, p.severity, p.reason) for p in report.problems], report


def test_verify_findings_equal_the_single_process_ones_on_a_damaged_copy(spark, multi_store, damaged_copy, patch):
    root = damaged_copy(multi_store, "damaged-multi")
    damage(root, patch)
    expected, report = single_process_findings(root)
    codes = {c for _, _, c, _, _ in expected}
    assert {"cq-mismatch", "checkpoint-ahead", "crc-mismatch"} <= codes and any(c.startswith("index-") for c in codes)
    args = verify_job.parser().parse_args([str(root)])
    refs = common.refs_from_args(args)
    found = verify_job.find(spark, refs, args)
    got = [(r.file, r.offset, r.code, r.severity, r.reason) for r in found.findings.collect()]
    found.release()
    assert got == expected
    assert found.counts[refs[0].path] == {"messages": report.messages, "cq_units": report.cq_units,
                                    "index_items": report.index_items}


def test_verify_job_names_records_no_queue_covers(spark, sample_store, damaged_copy):
    """A queue folder deleted and another queue's last units zeroed: every segment task counts its records past
    their queue's end, the driver merges them; the findings equal verify's (cq-missing, cq-behind)."""
    import shutil

    root = damaged_copy(sample_store, "uncovered-sample")
    shutil.rmtree(root / "consumequeue" / "PaymentEvents" / "0")
    last = sorted((root / "consumequeue" / "OrderEvents" / "3").iterdir())[-1]
    raw = bytearray(last.read_bytes())
    raw[4 * 20 : 10 * 20] = bytes(6 * 20)
    last.write_bytes(bytes(raw))
    expected, _ = single_process_findings(root)
    assert {c for _, _, c, _, _ in expected} >= {"cq-missing", "cq-behind"}
    args = verify_job.parser().parse_args([str(root)])
    found = verify_job.find(spark, common.refs_from_args(args), args)
    got = [(r.file, r.offset, r.code, r.severity, r.reason) for r in found.findings.collect()]
    found.release()
    assert got == expected


def test_verify_job_on_the_damaged_sample_store(spark, sample_store, damaged_copy, patch, capsys, tmp_path):
    """Through main(): exit code 4, one JSON document with the single-process findings, the Parquet tables."""
    root = damaged_copy(sample_store, "damaged-sample")
    damage(root, patch)
    expected, report = single_process_findings(root)
    assert len(expected) >= 6
    capsys.readouterr()
    assert verify_job.main([str(root), "--json", "--out", str(tmp_path / "v")], spark) == common.EXIT_PROBLEMS
    doc = json.loads(capsys.readouterr().out)
    assert not doc["ok"] and (doc["messages"], doc["cq_units"], doc["index_items"]) == (
        report.messages, report.cq_units, report.index_items)
    assert [(p["file"], p["offset"], p["code"], p["severity"], p["reason"]) for p in doc["problems"]] == expected
    assert spark.read.parquet(str(tmp_path / "v" / "findings")).count() == len(expected)
    assert spark.read.parquet(str(tmp_path / "v" / "segments")).count() == 3


# --- keyindex --------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def key_index(spark, sample_store, multi_store, tmp_path_factory):
    out = tmp_path_factory.mktemp("keyindex") / "ki"
    assert keyindex.main([str(sample_store), str(multi_store), "--out", str(out)], spark) == 0
    return out


def _keys_of(root: Path) -> list[tuple[str, str]]:
    pairs = set()
    for m in engine_messages(root):
        pairs.update((m.topic, k) for k in m.keys)
        if m.unique_key:
            pairs.add((m.topic, m.unique_key))
    return sorted(pairs)


def _engine_hits(root: Path, topic: str, key: str) -> set:
    with Store(root) as store:
        return {(h.message.physical_offset, h.matched_by) for h in store.lookup_key(topic, key)}


def test_keyindex_lookups_equal_the_index_files(key_index, sample_store, multi_store):
    pyarrow = import_or_skip("pyarrow.parquet")
    table = pyarrow.read_table(str(key_index)).to_pylist()
    grouped: dict[tuple, dict] = {}
    for r in table:
        hits = grouped.setdefault((r["store"], r["topic"], r["key"]), {})
        if hits.get(r["physical_offset"]) != "unique_key":
            hits[r["physical_offset"]] = r["kind"]
    sampled = random.Random(6).sample(_keys_of(multi_store), 150)
    checked = 0
    for root, pairs in ((sample_store, _keys_of(sample_store)), (multi_store, sampled)):
        store = str(root.resolve())
        with Store(root) as s:
            for topic, key in pairs:
                expected = {(h.message.physical_offset, h.matched_by) for h in s.lookup_key(topic, key)}
                assert set(grouped.get((store, topic, key), {}).items()) == expected, (topic, key)
                checked += 1
    assert checked > 800


@pytest.mark.parametrize("engine", ["pyarrow", "spark"])
def test_lookup_function(engine, spark, key_index, sample_store):
    if engine == "pyarrow":
        import_or_skip("pyarrow.dataset")
    store = str(sample_store.resolve())
    for topic, key in [("OrderEvents", "coupon-WELCOME10"), ("PaymentEvents", "order-1147"), ("OrderEvents", "nope")]:
        rows = [r for r in lookup(key_index, topic, key, engine=engine) if r["store"] == store]
        assert {(r["physical_offset"], r["kind"]) for r in rows} == _engine_hits(sample_store, topic, key)
        assert all(r["topic"] == topic and r["key"] == key for r in rows)
    rows = lookup(key_index, "OrderEvents", "coupon-WELCOME10", engine=engine)
    assert rows and rows == sorted(rows, key=lambda r: (r["store"], r["physical_offset"]))
    first = rows[0]["store_timestamp"]
    assert lookup(key_index, "OrderEvents", "coupon-WELCOME10", first + 1, engine=engine) == rows[1:]
    assert lookup(key_index, "OrderEvents", "coupon-WELCOME10", None, first, engine=engine) == rows[:1]


# --- rebuild-cq ------------------------------------------------------------------------------------------------------


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_rebuild_cq_is_byte_identical_to_the_single_process_rebuild(spark, sample_store, multi_store, damaged_copy,
                                                                     patch, tmp_path):
    torn = damaged_copy(multi_store, "torn")
    segs = sorted((torn / "commitlog").iterdir())
    m = _message_in(torn, 6, 10)
    patch(segs[6], m.position + 60, b"\x55")  # CRC damage in the recovery window: the log ends before it
    m = _message_in(torn, 2, 4)
    patch(segs[2], m.position + 60, b"\x55")  # CRC damage before it: rebuilt as is
    stores = [sample_store, multi_store, torn]
    out = tmp_path / "cq"
    assert rebuild_cq.main([*map(str, stores), "--out", str(out)], spark) == 0
    for root, name in zip(stores, ("sample_store", "store", "torn"), strict=True):
        single = tmp_path / f"single-{name}"
        with Store(root) as s:
            result = rebuild(s, single)
        expected = tree(single / "consumequeue")
        got = tree(out / name / "consumequeue")
        assert sorted(got) == sorted(expected) and got == expected, name
        assert len(expected) == len(result.cq_files) > 0
    one = tmp_path / "one"
    assert rebuild_cq.main([str(sample_store), "--out", str(one)], spark) == 0
    assert tree(one / "consumequeue") == tree(tmp_path / "single-sample_store" / "consumequeue")
    assert rebuild_cq.main([str(sample_store), "--out", str(one)], spark) == common.EXIT_BAD_INPUT
    assert rebuild_cq.main([str(sample_store), "--out", str(sample_store / "x")], spark) == common.EXIT_BAD_INPUT
