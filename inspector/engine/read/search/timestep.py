"""Stepping by store time (issue 31 item 5, the TUI's ±1 minute / hour / day keys): from a record's store time,
the record a step later or earlier, found by the store-time window's binary searches (``window.py``), not by a
scan.

Forward, the first record stored at or after ``origin + step``; backward, the last stored at or before
``origin - step`` (at or before, not before: a step forward and one back return to the record stepped from when
one was stored exactly a step earlier). In a queue, its units (``queue_window``: ``answers.record_at_time``);
else the whole log (``log_range``, then a walk of at most a few KiB from where it lands to the exact record).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from inspector.engine.model.records import Message
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.search.window import log_range


@dataclass(frozen=True)
class TimeStop:
    """A record found by store time: where it is, when it was stored, and (found in a queue) its queue offset."""

    physical_offset: int
    store_timestamp: int
    queue_offset: int | None = None


@dataclass(frozen=True)
class TimeStep:
    """One step from ``origin`` (epoch ms) by ``step`` ms (negative: back). ``landed``: the record stepped to,
    None past the end (forward) or the beginning (backward) of the log or queue; then ``edge`` is the last
    (forward) or first (backward) record there is (None: nothing at all)."""

    origin: int
    step: int
    landed: TimeStop | None
    edge: TimeStop | None = None

    @property
    def moved(self) -> int:
        """How far the step went (ms, signed); 0 when it stayed."""
        return 0 if self.landed is None else self.landed.store_timestamp - self.origin

    @property
    def gap(self) -> bool:
        """Whether the step crossed a store-time gap: nothing was stored for a whole step past the target, so it
        went at least two steps."""
        return self.landed is not None and abs(self.moved) >= 2 * abs(self.step)


def time_step(find: Callable[[int, bool], TimeStop | None], origin: int, step: int) -> TimeStep:
    """The step from store time ``origin`` by ``step`` ms (see the module's docstring for where it lands);
    ``find(t, before)``: the record at or after ``t`` (at or before, with ``before``), in the log or a queue
    (``answers.record_at_time``)."""
    back = step < 0
    landed = find(origin + step, back)
    if landed is not None:
        return TimeStep(origin, step, landed)
    # nothing that far: the record on this side of the target is the last (first) there is
    edge = find(origin + step + (1 if back else -1), not back)
    return TimeStep(origin, step, None, edge)


def in_log(log: CommitLog, t: int, before: bool) -> TimeStop | None:
    """The first record of the log stored at or after ``t`` (with ``before``: the last at or before it)."""
    # the window's start is a record stored before its since (or a segment's first record); the log is in store
    # time order from there on, so the walk ends at the first record past the boundary
    since = t + 1 if before else t
    start = log_range(log, since, None).start
    last: TimeStop | None = None
    for entry in log.entries(start):
        if not isinstance(entry, Message):
            continue  # a Blank or a Problem: the walk goes on past it as every reader of the log does
        here = TimeStop(entry.physical_offset, entry.store_timestamp)
        if entry.store_timestamp >= since:
            return last if before else here
        last = here
    return last if before else None
