"""Findings grouped by root cause, for lists a person works through (the TUI's Problems, issue 33): one zeroed
page of the log is one length-mismatch and, because of it, a dozen queue units and index items that point into
the bytes it spans. A finding about another file that points at a commitlog offset inside a damaged span
(``Problem.points_at`` in [offset, offset + ``length``) of a commitlog finding) is listed under that finding;
every other finding is a root of its own. Nothing is dropped: the groups hold every finding once."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from inspector.engine.model.records import Problem


@dataclass
class ProblemGroup:
    """A root finding and the findings it causes (in the order they were found)."""

    root: Problem
    caused: list[Problem] = field(default_factory=list)

    @property
    def size(self) -> int:
        return 1 + len(self.caused)


def log_position(p: Problem) -> int | None:
    """The physical offset of a finding in a commitlog segment or a DLedger data file (files named by their first
    offset: ``commitlog/00000000000000065536``, ``dledger-n0/data/…``), None for any other file."""
    parts = p.file.split("/")
    if len(parts) >= 2 and parts[-1].isdigit() and len(parts[-1]) == 20 and parts[-2] in ("commitlog", "data"):
        return int(parts[-1]) + p.offset
    return None


def problem_groups(problems: list[Problem]) -> list[ProblemGroup]:
    """``problems`` grouped: each damaged span of the log with the findings pointing into it, in the order the
    roots were found; the size of a group says how much one damage explains."""
    spans: list[tuple[int, int, int]] = []  # (start, end, index of the group)
    groups: list[ProblemGroup] = []
    for p in problems:
        start = log_position(p)
        if start is not None and p.length:
            spans.append((start, start + p.length, len(groups)))
        if p.points_at is None:
            groups.append(ProblemGroup(p))
    spans.sort()
    starts = [s for s, _, _ in spans]
    for p in problems:
        if p.points_at is None:
            continue
        i = bisect.bisect_right(starts, p.points_at) - 1
        if i >= 0 and spans[i][0] <= p.points_at < spans[i][1]:
            groups[spans[i][2]].caused.append(p)
        else:
            groups.append(ProblemGroup(p))
    return groups
