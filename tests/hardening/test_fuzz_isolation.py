"""The fuzzers' isolated runner tells a hang from a busy machine: a step that spends its seconds of CPU is killed
at once, a blocked one (no CPU: a FIFO's open) after STARVED_WALL_FACTOR times its seconds; a quick one passes."""

from __future__ import annotations

import time

from fuzz_support import STARVED_WALL_FACTOR, run_isolated

SECONDS = 0.2


def _spin() -> list:
    while True:
        pass


def test_a_step_spending_its_cpu_is_a_hang_and_a_blocked_one_is_too_later() -> None:
    busy = run_isolated(_spin, SECONDS, "spin")
    began = time.monotonic()
    blocked = run_isolated(lambda: time.sleep(60) or [], SECONDS, "sleep")
    slept = time.monotonic() - began
    assert [s.check for s in busy] == ["hang"] and "of CPU" in busy[0].detail
    assert [s.check for s in blocked] == ["hang"] and "0.0 s of CPU" in blocked[0].detail
    assert SECONDS * STARVED_WALL_FACTOR <= slept < 30  # the rule's bound (never before), and it did stop
    assert run_isolated(lambda: [], SECONDS, "quick") == []
