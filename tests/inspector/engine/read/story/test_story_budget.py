"""``story_of``'s budget (issue 30): a deadline or a cancel callable, checked between the story's steps and
between the batches of a scan of the log no index covers; once it runs out the story told so far is the answer,
its ``cut`` and a note saying what was not read; with none the story is whole, as before."""

from __future__ import annotations

import shutil

import pytest

from inspector.engine import Budget, NotFound, open_store, story_of, story_view
from tests.story_store import R, write_story_store


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("story-budget") / "store"
    return root, write_story_store(root)


@pytest.fixture(scope="module")
def unindexed(tmp_path_factory, made):
    """The same store without its index files: every lookup scans the whole log."""
    root = tmp_path_factory.mktemp("story-unindexed") / "store"
    shutil.copytree(made[0], root)
    shutil.rmtree(root / "index")
    return root, made[1]


class Countdown:
    """A cancel callable that says stop from its ``n``-th question on (and counts the questions)."""

    def __init__(self, n: int) -> None:
        self.n, self.asked = n, 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.asked >= self.n


def test_no_budget_and_a_budget_never_spent_tell_the_whole_story(made):
    root, at = made
    with open_store(root) as store:
        whole = story_of(store, R)
        roomy = story_of(store, R, budget=Budget(60))
    assert whole.cut is None and roomy.cut is None
    assert story_view(whole) == story_view(roomy)
    assert {r.physical_offset for r in whole.records} >= {at["original"], at["dlq"], at["retry2"]}


def test_a_budget_spent_before_the_copies_answers_with_the_ref_alone_and_says_so(made):
    root, at = made
    with open_store(root) as store:
        story = story_of(store, str(at["original"]), budget=Budget(should_stop=lambda: True))
    assert [r.physical_offset for r in story.records] == [at["original"]]
    assert story.cut is not None and story.cut in story.notes
    assert story.cut.startswith("stopped on request after reading the REF's record")
    assert "copies by UNIQ_KEY" in story.cut and "may lack records" in story.cut
    assert story.groups  # the groups of the records found are still told (from the offsets, no reading)


def test_a_budget_running_out_inside_the_scan_keeps_what_was_found_and_says_where(unindexed):
    root, at = unindexed
    with open_store(root) as store:
        whole = story_of(store, str(at["original"]))
        countdown = Countdown(2)  # the first look (before the copies) passes, the scan's first batch stops
        cut = story_of(store, str(at["original"]), budget=Budget(should_stop=countdown))
    assert whole.cut is None and len(whole.records) > 3
    assert cut.cut is not None and countdown.asked >= 2
    assert any("the scan of the log no index file covers was cut" in n for n in cut.notes)
    assert {r.physical_offset for r in cut.records} < {r.physical_offset for r in whole.records}


def test_a_budget_spent_while_looking_for_the_ref_is_a_not_found_saying_the_search_was_cut(unindexed):
    root, _ = unindexed
    with open_store(root) as store, pytest.raises(NotFound, match="the search was cut"):
        story_of(store, R, budget=Budget(should_stop=lambda: True))


def test_a_time_limit_names_its_seconds(made):
    root, at = made
    with open_store(root) as store:
        story = story_of(store, str(at["original"]), budget=Budget(0))
    assert story.cut is not None and story.cut.startswith("stopped at the 0 s time limit after")
