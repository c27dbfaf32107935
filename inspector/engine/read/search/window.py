"""A store-time window (``--since`` / ``--until``, issue 31 item 2): where in the log and in a queue it lies, found
by binary search on store times, not by a scan.

- A queue: its units are in store-time order (the broker's own ``getOffsetInQueueByTime`` assumes it), so the
  first unit at or after a time is a binary search over the units (``Store.queue_offset_by_time``).
- The log: the broker stamps a record's store time as it appends it, so the segments are in store-time order too.
  A binary search over each segment's first record finds the segment where ``since`` starts and the first segment
  that starts at or after ``until``; the walk runs between them and keeps the records with ``since <= store
  time < until`` (exact to the millisecond even where a clock stepped back inside the walked segments).

The window is half-open: ``since`` included, ``until`` excluded ("the first record at or after --since, the last
before --until").
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message, Segment


@dataclass(frozen=True)
class LogWindow:
    """The part of the log a window needs walked: physical offsets [start, stop) (``stop`` None: to the end),
    and the window itself, which the walk still applies to each record (:func:`in_window`)."""

    since: int | None
    until: int | None
    start: int | None
    stop: int | None

    def holds(self, store_timestamp: int) -> bool:
        return (self.since is None or store_timestamp >= self.since) and \
            (self.until is None or store_timestamp < self.until)

    def overlaps(self, segment: Segment) -> bool:
        """Whether any of ``segment`` lies in [start, stop)."""
        return (self.start is None or segment.start_offset + segment.file_size > self.start) and \
            (self.stop is None or segment.start_offset < self.stop)


def _first_times(store) -> list[int | None]:
    """Each segment's first record's store time (one record read a segment); None where it cannot be read."""
    times: list[int | None] = []
    for seg in store.segments:
        try:
            times.append(store.message_at(seg.start_offset + seg.entry_header).store_timestamp)
        except StoreError:
            times.append(None)
    return times


def log_window(store, since: int | None, until: int | None) -> LogWindow:
    """The part of ``store``'s log holding the records stored in [since, until) (None: unbounded on that side)."""
    segments = store.segments
    if not segments or (since is None and until is None):
        return LogWindow(since, until, None, None)
    known: list[int] = []
    last = -1
    for t in _first_times(store):  # a segment whose first record is unreadable: as early as the one before it
        last = last if t is None else max(last, t)
        known.append(last)
    start = stop = None
    if since is not None:
        # the last segment whose first record is at or before since: since's first record is there or later
        i = bisect.bisect_right(known, since) - 1
        start = segments[max(i, 0)].start_offset
    if until is not None:
        # the first segment whose first record is at or after until: nothing before until from there on
        j = bisect.bisect_left(known, until)
        stop = segments[j].start_offset if j < len(segments) else None
    return LogWindow(since, until, start, stop)


def queue_window(store, topic: str, queue_id: int, since: int | None, until: int | None) -> tuple[int, int]:
    """Queue offsets [lo, hi) of the units stored in [since, until) (binary searches over the units)."""
    info = store.queue(topic, queue_id).info()
    lo = info.min_offset if since is None else store.queue_offset_by_time(topic, queue_id, since)
    hi = info.max_offset if until is None else store.queue_offset_by_time(topic, queue_id, until)
    return lo, max(lo, hi)


def in_window(items: Iterable, window: LogWindow, *, queue_stop: int | None = None) -> Iterator:
    """``items`` (Messages among Problems and others) cut to the window: Messages stored in it, every other item
    as it is, ending at the window's ``stop`` (a physical offset) or, in queue order, at queue offset
    ``queue_stop``."""
    for item in items:
        if isinstance(item, Message):
            if queue_stop is not None and item.queue_offset >= queue_stop:
                return
            if queue_stop is None and window.stop is not None and item.physical_offset >= window.stop:
                return
            if not window.holds(item.store_timestamp):
                continue
        yield item
