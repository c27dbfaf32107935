"""Cooperative cancellation (``inspector.engine.model.budget``): tour, exercises and overview stop where a budget says,
return what they have flagged as partial, and what they return is exactly the start of the complete result.

Deterministic: the budgets here stop after a counted number of checks (``should_stop``), not on a clock.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from inspector.engine import Store
from inspector.engine.model.budget import NO_BUDGET, Budget, Partial
from inspector.engine.model.errors import BudgetExceeded, StoreError
from inspector.engine.present.overview import store_overview
from inspector.engine.workshop.exercises import generate
from inspector.engine.workshop.tour_steps import NOT_COMPUTED, STEP_IDS, tour_steps
from inspector.engine.workshop.tour_targets import step_view

SAMPLE = Path(__file__).resolve().parents[4] / "sample_store"


@pytest.fixture(scope="module")
def sample():
    with Store(SAMPLE) as s:
        yield s


class Counter:
    """``should_stop`` that says "stop" from its ``after``-th call on (None: never); counts its calls."""

    def __init__(self, after: int | None = None) -> None:
        self.after = after
        self.calls = 0

    def __call__(self) -> bool:
        self.calls += 1
        return self.after is not None and self.calls > self.after


def checkpoints(run) -> int:
    """How many times ``run(budget)`` asks its budget when nothing stops it."""
    counter = Counter()
    run(Budget(should_stop=counter))
    return counter.calls


def spread(total: int, n: int = 10) -> list[int]:
    return sorted({0, 1, total - 1, total, *range(0, total, max(1, total // n))} - {-1})


def test_a_budget_expires_by_time_or_by_request():
    assert not NO_BUDGET.expired() and not Budget(60).expired()
    assert Budget(0).expired()
    NO_BUDGET.check("nothing")  # no limit: never raises
    with pytest.raises(BudgetExceeded, match=r"stopped at the 0 s time limit after reading 3 records"):
        Budget(0).check("reading 3 records")
    flag = {"stop": False}
    b = Budget(should_stop=lambda: flag["stop"])
    assert not b.expired()
    flag["stop"] = True
    assert b.expired() and b.note("x") == "stopped on request after x"
    assert not issubclass(BudgetExceeded, StoreError)  # a step's "unreadable store" handler must not eat it
    t = Budget(0.05)
    time.sleep(0.06)
    assert t.expired()


def test_no_budget_changes_nothing(sample):
    assert [step_view(s) for s in tour_steps(sample)] == [step_view(s) for s in tour_steps(sample, budget=Budget(60))]
    assert generate(sample, 3, 12) == generate(sample, 3, 12, budget=Budget(60))
    full = store_overview(sample)
    assert full["truncated"] is None and full["recovery"] is not None
    assert full["max_physical_offset"] == sample.max_offset()


def test_a_tour_stopped_anywhere_is_the_start_of_the_whole_tour(sample):
    full = [step_view(s) for s in tour_steps(sample)]
    assert all(v["available"] for v in full)  # the sample store has every case
    total = checkpoints(lambda b: tour_steps(sample, budget=b))
    assert total >= len(STEP_IDS)  # at least one check per step
    seen_lengths = set()
    for after in spread(total):
        steps = tour_steps(sample, budget=Budget(should_stop=Counter(after)))
        assert isinstance(steps, Partial) and [s.id for s in steps] == list(STEP_IDS)
        done = [s for s in steps if not (s.missing_reason or "").startswith(NOT_COMPUTED)]
        assert [step_view(s) for s in done] == full[: len(done)]
        rest = steps[len(done):]
        assert all(not s.available and s.target is None for s in rest)
        if rest:
            assert steps.truncated and steps.truncated.startswith("stopped on request after")
            assert all(s.missing_reason == NOT_COMPUTED + steps.truncated for s in rest)
        else:
            assert steps.truncated is None
        seen_lengths.add(len(done))
    assert 0 in seen_lengths and len(STEP_IDS) in seen_lengths and len(seen_lengths) >= 4


@pytest.mark.parametrize("seed", [0, 5])
def test_exercises_stopped_anywhere_are_the_first_of_the_whole_set(sample, seed):
    full = generate(sample, seed, 12)
    assert len(full) == 12
    total = checkpoints(lambda b: generate(sample, seed, 12, budget=b))
    lengths = set()
    for after in spread(total):
        part = generate(sample, seed, 12, budget=Budget(should_stop=Counter(after)))
        assert isinstance(part, Partial)
        assert list(part) == full[: len(part)]  # same ids, questions and answers: a check means the same
        assert (part.truncated is None) == (len(part) == len(full))
        if part.truncated:
            assert f"after {len(part)} of 12 exercises" in part.truncated or "records" in part.truncated
        lengths.add(len(part))
    assert 0 in lengths and 12 in lengths and len(lengths) >= 4


def test_an_overview_stopped_between_segments_lists_those_scanned(sample):
    full = store_overview(sample)
    n = len(full["segments"])
    assert n >= 2
    for after in range(n + 1):
        d = store_overview(sample, budget=Budget(should_stop=Counter(after)))
        assert d["segments"] == full["segments"][:after]
        assert d["truncated"] and d["max_physical_offset"] is None and d["recovery"] is None
        assert d["topics"] == full["topics"]  # the rest does not walk the log
    assert "0 of" in store_overview(sample, budget=Budget(0))["truncated"]
