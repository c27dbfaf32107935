"""Spark verify on a 5.x store with a damaged timer store: the timer checks give the single-process verify's
findings, in its order (after the queues, before the index files)."""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

from inspector.engine import Store
from inspector.engine.maintain.verify.verify import verify
from inspector.spark.jobs import common
from inspector.spark.jobs import verify as verify_job

sys.path.insert(0, str(Path(__file__).parents[2]))
from timer_store import write_timer_store  # noqa: E402


def test_spark_verify_of_a_damaged_timer_store_equals_verify(spark, tmp_path, capsys):
    root = tmp_path / "s"
    write_timer_store(root)
    with open(root / "timerlog" / "00000000000000000000", "r+b") as f:
        f.seek(52 + 24)
        f.write(struct.pack(">i", 59_000))  # unit 52: delay 60,000 -> 59,000, against its TIMER_OUT_MS
    with open(root / "config" / "timercheck", "r+b") as f:
        f.seek(16)
        f.write(struct.pack(">q", 99))  # lastTimerQueueOffset past the timer topic's queue
    with Store(root) as store:
        report = verify(store)
    expected = [(p.file, p.offset, p.code, p.severity, p.reason) for p in report.problems]
    assert {c for _, _, c, _, _ in expected} >= {"timer-out-mismatch", "timercheck-queue-offset"}
    capsys.readouterr()
    assert verify_job.main([str(root), "--json"], spark) == common.EXIT_PROBLEMS
    doc = json.loads(capsys.readouterr().out)
    assert [(p["file"], p["offset"], p["code"], p["severity"], p["reason"]) for p in doc["problems"]] == expected
