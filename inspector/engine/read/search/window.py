"""A store-time window (``--since`` / ``--until``, issue 31 item 2): where in the log and in a queue it lies, found
by binary search on store times, not by a scan.

- A queue: its units are in store-time order (the broker's own ``getOffsetInQueueByTime`` assumes it), so the
  first unit at or after a time is a binary search over the units (``Store.queue_offset_by_time``; the
  Store-level ``log_window`` and ``queue_window`` are in ``read/store/answers.py``).
- The log: the broker stamps a record's store time as it appends it, so the log is in store-time order too. A
  binary search over each segment's first record finds the segment where ``since`` falls (and the one where
  ``until`` does); inside it a binary search over its bytes lands on a record from any middle byte (the next
  plausible record: magic, sizes and PHYSICALOFFSET agree) and reads its store time, until 64 KiB are left. The
  walk runs between the two places and keeps the records with ``since <= store time < until``.

The window is half-open: ``since`` included, ``until`` excluded ("the first record at or after --since, the last
before --until").
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message, Segment
from inspector.engine.read.commitlog.careful import record_at_or_after
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.commitlog.mapped import allocated_end


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


def _first_times(log: CommitLog) -> list[int | None]:
    """Each segment's first record's store time (one record read a segment); None where it cannot be read."""
    times: list[int | None] = []
    for seg in log.segments:
        try:
            times.append(log.store_timestamp_at(seg.start_offset + seg.entry_header))
        except StoreError:
            times.append(None)
    return times


SETTLE = 64 << 10  # the binary search inside a segment stops when so few bytes are left: the walk does the rest
NEAR = 64 << 10  # how far from a middle byte the next record is looked for first
ZERO_RUN = (4 << 20) + (64 << 10)  # a zero run this long is no record's: the log's end (maxMessageSize 4 MiB)


def _bracket(log: CommitLog, seg: Segment, t: int) -> tuple[int, int]:
    """Physical offsets (lo, hi) in ``seg`` around the first record stored at or after ``t``: ``lo`` a record
    start stored before ``t`` (or the segment's first record), ``hi`` a record start stored at or after ``t``
    (or the segment's end). A binary search over the segment's bytes: from each middle byte, the next plausible
    record (``record_at_or_after``) and its store time."""
    mf = log.map(seg)
    h = seg.entry_header
    lo, hi = h, mf.size  # positions in the segment
    allocated = allocated_end(mf.path)  # past its last extent a sparse file is a hole: no record starts there
    if allocated is not None:
        hi = max(lo, min(hi, allocated))
    while hi - lo > SETTLE:
        mid = (lo + hi) // 2
        at = _record_after(mf, mid, h, seg, log.segment_size)
        if at is None or at + h >= hi:
            hi = mid  # no record starts in [mid, hi): the first at or after t is before mid, or at hi
            continue
        try:
            when = log.store_timestamp_at(seg.start_offset + at + h)
        except StoreError:
            hi = mid  # unreadable there: look earlier (the walk from lo is exact whatever it finds)
            continue
        if when < t:
            lo = at + h
        else:
            hi = at + h
    return seg.start_offset + lo, seg.start_offset + hi


def _record_after(mf, mid: int, h: int, seg: Segment, segment_size: int) -> int | None:
    """The first plausible record (entry) whose record starts at or after ``mid`` (from ``mid - h``: a DLedger
    entry's record follows its header). Looked for NEAR bytes far first (records are ~1 KiB: the usual case);
    then, none there, the ZERO_RUN bytes after ``mid`` are checked: all zero, the log ends before ``mid`` (a
    1 GiB segment's zero tail, preallocated or copied, is then no search of the whole rest: only a body holds a
    zero run, and no body is that long under the broker's 4 MiB maxMessageSize); else the rest of the file."""
    for far in (NEAR, None):
        if far is None:
            if not mf.array[mid:mid + ZERO_RUN].any():
                return None
            end = mf.size
        else:
            end = min(mf.size, mid + far)
        at = record_at_or_after(mf.buf, mid - h, end, seg, segment_size)
        if at is not None or end == mf.size:
            return at
    return None  # pragma: no cover - the loop returns


def log_range(log: CommitLog, since: int | None, until: int | None) -> LogWindow:
    """The part of the log holding the records stored in [since, until) (None: unbounded on that side):
    the segments by a binary search over their first records, then inside the segment a binary search over its
    bytes (``_bracket``)."""
    segments = log.segments
    if not segments or (since is None and until is None):
        return LogWindow(since, until, None, None)
    known: list[int] = []
    last = -1
    for t in _first_times(log):  # a segment whose first record is unreadable: as early as the one before it
        last = last if t is None else max(last, t)
        known.append(last)
    start = stop = None
    if since is not None:
        # the last segment whose first record is before since: since's first record is in it, or the next's first
        i = bisect.bisect_left(known, since) - 1
        start = segments[0].start_offset if i < 0 else _bracket(log, segments[i], since)[0]
    if until is not None:
        # the first segment whose first record is at or after until: nothing before until from there on; inside
        # the one before it, the first record at or after until
        j = bisect.bisect_left(known, until)
        stop = segments[0].start_offset if j == 0 else _bracket(log, segments[j - 1], until)[1]
    return LogWindow(since, until, start, stop)


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
