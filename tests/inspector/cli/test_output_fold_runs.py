"""``fold_runs``: the one fold of repeated rows behind ``info``'s segment table and ``messages``' findings."""

import pytest

from inspector.cli.output import Folded, fold_runs


def _letters(text: str) -> list:
    """Upper-case letters are alike items keyed by themselves; lower-case ones never fold."""
    return list(fold_runs(text, lambda c: c if c.isupper() else None, longer_than=4, head=2, tail=1))


def test_a_run_longer_than_the_limit_keeps_its_head_and_tail_around_a_count():
    assert _letters("xAAAAAAAy") == ["x", "A", "A", Folded(4, "A"), "A", "y"]


def test_a_run_at_the_limit_and_unkeyed_items_are_kept_whole():
    assert _letters("AAAAbbbbbbB") == list("AAAAbbbbbbB")


def test_a_change_of_key_ends_a_run_and_a_run_at_the_end_is_folded_too():
    assert _letters("AAAAABBBBBB") == ["A", "A", Folded(2, "A"), "A", "B", "B", Folded(3, "B"), "B"]


def test_the_head_is_given_before_the_run_is_read_further():
    """messages' table streams: with no tail nothing of a run's head waits for the items after it."""
    seen: list[str] = []

    def source():
        for c in "AAAAAAAA":
            seen.append(c)
            yield c

    out = fold_runs(source(), lambda c: c, longer_than=3, head=3)
    assert [next(out), next(out), next(out)] == ["A", "A", "A"] and len(seen) == 3
    assert list(out) == [Folded(5, "A")]


def test_a_head_and_tail_longer_than_the_limit_are_refused():
    with pytest.raises(ValueError):
        list(fold_runs("AAA", lambda c: c, longer_than=2, head=2, tail=1))
