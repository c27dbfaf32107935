"""The benchmarks stay alive: each runs at its smallest size and must finish without a crash. Nothing here
judges a figure (a 4 MiB store says nothing about speed); a target missed is the benchmark's own report.

The generated stores are kept under ``benchmarks/data/`` (git-ignored, the benchmarks' default), so only the
first run pays for generating them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from external_tools import JAVA, need

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks"


def _run(*argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=REPO, env=env, timeout=600)


def test_run_smoke():
    proc = _run(str(BENCH / "run.py"), "--smoke")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-4000:]
    for row in ("boundary walk", "bulk decode", "verify", "messages --json", "start-up", "consume-queue reads",
                "key lookup", "peak RSS", "`timer --json`", "fallback key scan of an unindexed range",
                "`preflight`", "verify, aged store", "story by UNIQ_KEY",
                "trace of one message by UNIQ_KEY (through the index)"):
        assert row in proc.stdout, row


# grep, window and stats share grep_bench's store; run.py's smoke stores are generated with other arguments under
# benchmarks/data/smoke, and a store generated under a script's feet (a fresh clone's first run: a full run once
# saw run.py's rmtree meet the window benchmark's reads) is a failure that says nothing: their own folder
SEARCH_DATA = BENCH / "data" / "smoke-search"


def test_grep_smoke():
    proc = _run(str(BENCH / "grep_bench.py"), "--smoke", "--data", str(SEARCH_DATA))
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-4000:]  # 1: a goal missed
    for row in ("fixed string, no hit", "regex with a literal", "-i fixed string", "whole process"):
        assert row in proc.stdout, row


def test_window_smoke():
    proc = _run(str(BENCH / "window_bench.py"), "--smoke", "--data", str(SEARCH_DATA))
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-4000:]  # 1: a goal missed
    for row in ("seek to --since", "the walk it avoids", "seek in the many-queue store", "one queue's window"):
        assert row in proc.stdout, row


def test_web_load_quick():
    proc = _run(str(BENCH / "web_load.py"), "--quick")  # a few clients for a few seconds, loopback only
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-4000:]  # 1: a goal missed
    for row in ("| requests |", "| errors |", "| p95 latency |"):
        assert row in proc.stdout, row


def test_workshop_room_quick():
    proc = _run(str(BENCH / "workshop_room.py"), "--quick", "--interval", "1")  # 4 participants, 3 steps, loopback
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-4000:]  # 1: a goal missed
    for row in ("trainer's POST -> event", "trainer's POST -> page loaded", "goal: every participant"):
        assert row in proc.stdout, row


@pytest.mark.spark
def test_spark_vs_single_smallest():
    need(JAVA)
    proc = _run(str(BENCH / "spark_vs_single.py"), "--segments", "2", "--segment-mib", "1", "--small", "1",
                "--repeat", "1", "--no-commands", "--master", "local[2]",
                "--data", str(BENCH / "data" / "smoke-spark"))  # not data/spark: its big store would be replaced
    # exit 1 is a target missed (tiny segments: Spark's fixed costs dominate); a crash is a traceback
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-4000:]
    assert "Spark start-up" in proc.stdout and "export stage" in proc.stdout


def test_stats_smoke():
    proc = _run(str(BENCH / "stats_bench.py"), "--smoke", "--data", str(SEARCH_DATA))
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-4000:]  # 1: a goal missed
    for row in ("stats --by topic", "stats --by tag", "whole process"):
        assert row in proc.stdout, row
