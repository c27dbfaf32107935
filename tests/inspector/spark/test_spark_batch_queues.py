"""Spark verify on a store with a BatchCQ topic: batch consume queues checked as the single-process verify does."""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

from inspector.engine import Store
from inspector.engine.maintain.verify import verify
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
