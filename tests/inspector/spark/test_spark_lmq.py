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
