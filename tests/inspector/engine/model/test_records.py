"""The engine's records: a list of like findings is capped in the open (issue 35, no silent caps)."""

from __future__ import annotations

from inspector.engine.model.records import Problem, listed_then_counted


def _one(i: int) -> Problem:
    return Problem("f", i, f"item {i}", "odd")


def _rest(n: int, first: int, last: int) -> Problem:
    return Problem("f", first, f"and {n} more up to {last}", "odd-more")


def test_up_to_the_cap_every_finding_is_listed() -> None:
    assert listed_then_counted(range(3), 3, _one, _rest) == [_one(0), _one(1), _one(2)]
    assert listed_then_counted([], 3, _one, _rest) == []


def test_past_the_cap_one_finding_counts_the_rest_from_the_first_left_out() -> None:
    found = listed_then_counted(list(range(10, 20)), 4, _one, _rest)
    assert found[:4] == [_one(10), _one(11), _one(12), _one(13)]
    assert found[4] == Problem("f", 14, "and 6 more up to 19", "odd-more") and len(found) == 5
