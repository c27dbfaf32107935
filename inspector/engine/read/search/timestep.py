"""Stepping by store time (issue 31 item 5, the TUI's ±1 minute / hour / day keys): from a record's store time,
the record a step later or earlier, found by the store-time window's binary searches (``window.py``), not by a
scan.

Forward, the first record stored at or after ``origin + step``; backward, the last stored at or before
``origin - step`` (at or before, not before: a step forward and one back return to the record stepped from when
one was stored exactly a step earlier). In a queue, its units (``queue_window``); else the whole log
(``log_window``, then a walk of at most a few KiB from where it lands to the exact record).
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.engine.model.records import Message
from inspector.engine.read.search.window import log_window, queue_window


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


def record_at_time(store, t: int, *, before: bool = False, topic: str | None = None,
                   queue: int | None = None) -> TimeStop | None:
    """The first record stored at or after ``t`` (epoch ms), or with ``before`` the last stored at or before it;
    None when there is none. With ``topic`` and ``queue``: among that queue's units (binary search over them),
    else in the whole log (binary search over segments and bytes, then a short walk)."""
    if topic is not None and queue is not None:
        return _in_queue(store, topic, queue, t, before)
    return _in_log(store, t, before)


def time_step(store, origin: int, step: int, *, topic: str | None = None, queue: int | None = None) -> TimeStep:
    """The step from store time ``origin`` by ``step`` ms (see the module's docstring for where it lands)."""
    back = step < 0
    landed = record_at_time(store, origin + step, before=back, topic=topic, queue=queue)
    if landed is not None:
        return TimeStep(origin, step, landed)
    # nothing that far: the record on this side of the target is the last (first) there is
    edge = record_at_time(store, origin + step + (1 if back else -1), before=not back, topic=topic, queue=queue)
    return TimeStep(origin, step, None, edge)


def _in_queue(store, topic: str, queue: int, t: int, before: bool) -> TimeStop | None:
    if before:
        lo, hi = queue_window(store, topic, queue, None, t + 1)  # [min, first unit after t)
        q = hi - 1
        if q < lo:
            return None
    else:
        q, hi = queue_window(store, topic, queue, t, None)  # [first unit at or after t, max)
        if q >= hi:
            return None
    physical = store.queue(topic, queue).unit(q).physical_offset
    return TimeStop(physical, store.store_timestamp_at(physical), q)


def _in_log(store, t: int, before: bool) -> TimeStop | None:
    # the window's start is a record stored before its since (or a segment's first record); the log is in store
    # time order from there on, so the walk ends at the first record past the boundary
    since = t + 1 if before else t
    start = log_window(store, since, None).start
    last: TimeStop | None = None
    for entry in store.entries(start):
        if not isinstance(entry, Message):
            continue  # a Blank or a Problem: the walk goes on past it as every reader of the log does
        here = TimeStop(entry.physical_offset, entry.store_timestamp)
        if entry.store_timestamp >= since:
            return last if before else here
        last = here
    return last if before else None

