"""Spark verify on a store with a BatchCQ topic: batch consume queues checked as the single-process verify does."""

from __future__ import annotations

import base64
import json
import struct
import sys
from pathlib import Path

from inspector.engine import Store
from inspector.engine.maintain.verify.verify import verify
from inspector.spark import plan
from inspector.spark.jobs import common
from inspector.spark.jobs import verify as verify_job
from inspector.spark.tasks import StoreRef

sys.path.insert(0, str(Path(__file__).parents[2]))
from batch_store import BATCH_TOPIC, write_batch_store  # noqa: E402


def test_batch_queues_are_planned_after_the_plain_ones(tmp_path):
    write_batch_store(tmp_path / "s")
    with Store(tmp_path / "s") as store:
        tasks = plan.plan_queues(StoreRef(str(tmp_path / "s")), store, None, store.max_offset())
    assert [(t.index, t.topic, t.kind) for t in tasks] == [(0, "Plain", "consumequeue"),
                                                          (1, BATCH_TOPIC, "batchconsumequeue")]


def test_spark_verify_of_a_damaged_batch_queue_equals_verify(spark, tmp_path, capsys):
    root = tmp_path / "s"
    write_batch_store(root)
    with open(root / "batchconsumequeue" / BATCH_TOPIC / "0" / "00000000000000000000", "r+b") as f:
        f.seek(46 + 28)
        f.write(struct.pack(">q", 5))  # unit 1: msgBaseOffset 5, the record says INNER_BASE 4
    with Store(root) as store:
        report = verify(store)
    expected = [(p.file, p.offset, p.code, p.severity, p.reason) for p in report.problems]
    assert {c for _, _, c, _, _ in expected} >= {"bcq-mismatch", "bcq-gap"}
    capsys.readouterr()
    assert verify_job.main([str(root), "--json"], spark) == common.EXIT_PROBLEMS
    doc = json.loads(capsys.readouterr().out)
    assert [(p["file"], p["offset"], p["code"], p["severity"], p["reason"]) for p in doc["problems"]] == expected
    assert doc["cq_units"] == report.cq_units == 5

def _files(root: Path, sub: str) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / sub).rglob("*")) if p.is_file()}


def test_spark_rebuild_cq_writes_batch_queues_byte_identical(spark, tmp_path):
    from inspector.spark.jobs import rebuild_cq

    root = tmp_path / "s"
    write_batch_store(root)
    out = tmp_path / "out"
    assert rebuild_cq.main([str(root), "--out", str(out)], spark) == 0
    assert _files(out, "batchconsumequeue") == _files(root, "batchconsumequeue")
    assert _files(out, "consumequeue") == _files(root, "consumequeue")


def _cli_queue(root: Path, capsys) -> list[dict]:
    from inspector.cli.main import main

    capsys.readouterr()
    assert main(["messages", str(root), "--topic", BATCH_TOPIC, "--queue", "0", "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_message_rows_give_each_inner_message_a_row_on_both_paths(tmp_path):
    """The pickled rows (tasks.message_rows) and the Arrow batches (arrow.message_batches) agree: 4 + 3 inner
    rows and the plain messages, in commitlog order."""
    from inspector.spark.arrow import message_batches
    from inspector.spark.schemas import MESSAGE_COLUMNS
    from inspector.spark.tasks import message_rows

    root = tmp_path / "s"
    write_batch_store(root)
    tasks = plan.plan_segments([StoreRef(str(root))])
    rows = [dict(zip(MESSAGE_COLUMNS, r, strict=True)) for r in message_rows(tasks, lambda _: None)]
    arrow = [r for b in message_batches(tasks, lambda _: None) for r in b.to_pylist()]
    assert [(r["topic"], r["queue_offset"], r["body_base64"], r["inner_batch"]) for r in rows] == \
        [(r["topic"], r["queue_offset"], r["body_base64"], r["inner_batch"] and tuple(r["inner_batch"].values()))
         for r in arrow]
    batch = [(r["queue_offset"], r["keys"], r["tags"], base64.b64decode(r["body_base64"])) for r in rows
             if r["topic"] == BATCH_TOPIC]
    # by hand from batch_store: inner i has key{i}, Tag{i % 2}, body "inner body {i}"; base 0 then 4; then one
    # plain message at 7
    assert batch == [*((i, [f"key{i}"], f"Tag{i % 2}", f"inner body {i}".encode()) for i in range(7)),
                     (7, ["key7"], "TagS", b"single")]


def test_spark_export_gives_one_row_per_inner_message(spark, tmp_path, capsys):
    from inspector.spark.jobs import export

    root = tmp_path / "s"
    write_batch_store(root)
    want = _cli_queue(root, capsys)
    for writer in ("pyarrow", "spark"):
        out = tmp_path / f"out-{writer}"
        assert export.main([str(root), "--out", str(out), "--parquet-writer", writer, "--format", "both"],
                           spark) == 0
        got = sorted((r.asDict(recursive=True) for r in export.read_messages(spark, str(out / "messages"))
                      .where(f"topic = '{BATCH_TOPIC}'").collect()), key=lambda r: r["queue_offset"])
        assert [(r["queue_offset"], r["keys"], r["tags"], base64.b64decode(r["body_base64"]), r["physical_offset"], r["msg_id"])
                for r in got] == [(m["queue_offset"], m["keys"], m["tags"], base64.b64decode(m["body_base64"]),
                                   m["physical_offset"], m["msg_id"]) for m in want]
        jsonl = [json.loads(line) for f in sorted((out / "messages-jsonl").glob("*.json"))
                 for line in f.read_text().splitlines()]
        assert sorted(m["queue_offset"] for m in jsonl if m["topic"] == BATCH_TOPIC) == list(range(8))


def test_spark_stats_count_inner_messages_and_record_bytes_once(spark, tmp_path):
    from inspector.spark.jobs import stats

    root = tmp_path / "s"
    results = write_batch_store(root)
    out = tmp_path / "stats"
    assert stats.main([str(root), "--out", str(out)], spark) == 0
    (q,) = [r for r in spark.read.parquet(str(out / "queues")).collect() if r.topic == BATCH_TOPIC]
    with Store(root) as store:
        sizes = [store.message_at(r.physical_offset).total_size for r in results[1:4]]
    assert (q.messages, q.bytes, q.distinct_keys, q.distinct_tags) == (8, sum(sizes), 8, 3)


def test_both_row_paths_keep_only_the_window(tmp_path):
    """export --since/--until: the pickled rows (no pyarrow) keep the records the Arrow batches keep."""
    from inspector.engine import Message, Store
    from inspector.spark.arrow import message_batches
    from inspector.spark.schemas import MESSAGE_COLUMNS
    from inspector.spark.tasks import message_rows

    root = tmp_path / "s"
    write_batch_store(root)
    with Store(root) as s:
        times = sorted({m.store_timestamp for m in s.entries() if isinstance(m, Message)})
    since, until = times[1], times[-1]  # the first and the last stored left out
    tasks = plan.plan_segments([StoreRef(str(root))], since, until)
    rows = [dict(zip(MESSAGE_COLUMNS, r, strict=True)) for r in message_rows(tasks, lambda _: None)]
    arrow = [r for b in message_batches(tasks, lambda _: None) for r in b.to_pylist()]
    assert [(r["topic"], r["queue_offset"]) for r in rows] == [(r["topic"], r["queue_offset"]) for r in arrow]
    assert rows and all(since <= r["store_timestamp"] < until for r in rows)
