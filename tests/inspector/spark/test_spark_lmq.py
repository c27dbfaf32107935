"""Spark rebuild-cq's tasks on a store with LMQ queues: the %LMQ% consume queues come out byte-identical to the
ones multi-dispatch wrote (run without a Spark session: the tasks are plain Python)."""

from __future__ import annotations

from inspector.engine import Geometry
from inspector.spark import plan
from inspector.spark.tasks import StoreRef, dispatch_rows, write_queues
from tests.lmq_store import write_lmq_store


def test_rebuild_cq_tasks_write_lmq_queues(tmp_path):
    root = write_lmq_store(tmp_path / "s")
    ref = StoreRef(str(root))
    rows = sorted(dispatch_rows(plan.plan_segments([ref]), lambda report: None, {ref.path: Geometry()}),
                  key=lambda r: (r[0], r[1], r[2], r[3]))
    out = tmp_path / "out"
    written = {(w.topic, w.queue_id): w.units for w in write_queues(rows, {ref.path: (str(out), Geometry())})}
    assert written == {("%LMQ%x", 0): 3, ("%LMQ%y", 0): 1, ("TopicA", 0): 2, ("TopicA", 1): 1}
    for p in (root / "consumequeue").rglob("0000*"):
        assert (out / p.relative_to(root)).read_bytes() == p.read_bytes(), p


def test_spark_verify_names_odd_multi_dispatch_records_as_verify_does(spark, tmp_path, capsys):
    """Records the broker cannot multi-dispatch as written (no LMQ unit points at them): the same findings, in
    the same order, from the Spark job as from verify."""
    import json

    from inspector.engine import Store, verify
    from inspector.spark.jobs import common
    from inspector.spark.jobs import verify as verify_job
    from tests.lmq_store import write_odd_multi_dispatch_store

    root, at = write_odd_multi_dispatch_store(
        tmp_path / "s", {"INNER_MULTI_DISPATCH": "%LMQ%a,TopicB", "INNER_MULTI_QUEUE_OFFSET": "3,"})
    with Store(root) as store:
        expected = [(p.file, p.offset, p.code, p.severity, p.reason) for p in verify(store).problems]
    assert [(o, c) for _, o, c, _, _ in expected] == [(at, "lmq-offsets-mismatch")]
    capsys.readouterr()
    assert verify_job.main([str(root), "--json"], spark) == common.EXIT_PROBLEMS
    doc = json.loads(capsys.readouterr().out)
    assert [(p["file"], p["offset"], p["code"], p["severity"], p["reason"]) for p in doc["problems"]] == expected
