"""Findings grouped by root cause (issue 33): a zeroed page of the log is one group holding the queue units and
index items that point into the bytes it spans; a finding pointing elsewhere is a root of its own; none lost."""

from __future__ import annotations

from zeroed_page_store import zeroed_page_store

from inspector.engine import Store, verify
from inspector.engine.maintain.verify.problem_groups import log_position, problem_groups
from inspector.engine.model.records import Problem


def test_a_zeroed_page_explains_every_dangling_pointer(tmp_path):
    root, _ = zeroed_page_store(tmp_path / "s")
    with Store(root) as store:
        problems = verify(store).problems
    groups = problem_groups(problems)
    assert len(groups) == 1 and groups[0].root.code == "length-mismatch"
    assert groups[0].size == len(problems) > 40  # 11 queue units and 34 index items point into 4000..8516
    assert {p.code for p in groups[0].caused} == {"cq-dangling", "index-dangling"}
    root_at = log_position(groups[0].root)
    assert all(root_at <= p.points_at < root_at + groups[0].root.length for p in groups[0].caused)


def test_findings_outside_every_span_are_roots_and_none_is_lost():
    damage = Problem("commitlog/00000000000000065536", 100, "x", "length-mismatch", length=50)
    inside = Problem("consumequeue/T/0/00000000000000000000", 0, "y", "cq-dangling", points_at=65536 + 120)
    edge = Problem("consumequeue/T/0/00000000000000000000", 20, "y", "cq-dangling", points_at=65536 + 150)
    other = Problem("config/topics.json", 0, "z", "config-unreadable")
    groups = problem_groups([inside, damage, other, edge])
    assert [(g.root, g.caused) for g in groups] == [(damage, [inside]), (other, []), (edge, [])]
    assert sum(g.size for g in groups) == 4
