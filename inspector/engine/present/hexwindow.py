"""The hex window: the one question every hex view asks (which bytes, in which segment, banded how, what is next).

The CLI's ``hex``, the TUI's hex view, the web's /api/hex and /api/field and the workshop's byte targets all ask
:func:`hex_window` and draw the :class:`HexWindow` it answers; none of them maps a segment or knows a record's
widths itself.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Blank, Message, Segment
from inspector.engine.present.layout import Region, regions
from inspector.engine.read.commitlog.mapped import is_all_zero

BLANK_RECORD = 8  # a BLANK record is TOTALSIZE and MAGICCODE; what follows it is the segment's fill
MAX_STEPS = 100_000  # regions walked back looking for a message before giving up (a view stays responsive)


@dataclass(frozen=True)
class HexWindow:
    """Bytes ``[start, start + len(data))`` of one commitlog segment with the regions (bands) overlapping them.

    With a focus: ``current`` is the region holding it, ``prev_offset`` / ``next_offset`` the starts of the
    regions before and after that one, across segments (None at either end of the log). ``zero_fills`` are the
    all-zero runs after BLANK records, asked for by ``fold_min`` (what a view may fold away).
    """

    segment: Segment
    start: int
    data: bytes
    regions: tuple[Region, ...]
    current: Region | None = None
    prev_offset: int | None = None
    next_offset: int | None = None
    zero_fills: tuple[tuple[int, int], ...] = ()

    @property
    def end(self) -> int:
        return self.start + len(self.data)

    def region_at(self, offset: int) -> Region | None:
        """The region of this window holding ``offset`` (None outside the window, or where none was found)."""
        return _first(self.regions, offset)


def hex_segment(store, offset: int, *, allow_empty: bool = True) -> Segment:
    """The commitlog segment holding ``offset``; else the engine's answer why none does (NotFound for an offset in
    no segment or removed by retention, StoreError for an entry of that name that is no file). With
    ``allow_empty=False`` an empty segment file gets that answer too (a view has no byte to show there)."""
    commitlog = store.commitlog
    seg = commitlog.segment_for(offset)
    if seg is None or (not allow_empty and seg.file_size == 0):
        raise commitlog.no_segment_error(offset)
    return seg


def hex_bytes(store, offset: int, length: int) -> bytes:
    """Up to ``length`` raw bytes at ``offset``, within its segment (fewer at the segment's end)."""
    return store.commitlog.read(offset, length)


def hex_window(store, start: int, length: int, *, focus: int | None = None,
               fold_min: int | None = None) -> HexWindow:
    """Up to ``length`` bytes from ``start`` (cut at the end of its segment) and the regions overlapping them.

    ``focus``: also the region holding that offset and its neighbours' starts. ``fold_min``: also the zero fill
    after each BLANK region longer than that many bytes. Raises the engine's error when no segment holds ``start``.
    """
    seg = hex_segment(store, start)
    commitlog = store.commitlog
    data = commitlog.read(start, length)
    end = start + len(data)
    found = tuple(regions(commitlog, start, end)) if data else ()
    current = prev_offset = next_offset = None
    if focus is not None:
        current = _first(found, focus)
        if current is not None:
            before = next((r for r in reversed(found) if r.end == current.start), None) or (
                _region_at(store, current.start - 1) if current.start > 0 else None)
            prev_offset = before.start if before is not None else None
            next_offset = current.end if holds_offset(store, current.end) else None
    fills: list[tuple[int, int]] = []
    if fold_min is not None:
        for r in found:
            if r.kind == "blank" and r.end - r.start > fold_min and _zero_fill(commitlog, seg, r):
                fills.append((r.start + BLANK_RECORD, r.end))
    return HexWindow(seg, start, data, found, current, prev_offset, next_offset, tuple(fills))


def holds_offset(store, offset: int) -> bool:
    """True when a commitlog segment holds physical offset ``offset`` (a next record may start there)."""
    return store.commitlog.segment_for(offset) is not None


def next_message_offset(store, offset: int, *, look: int = 4) -> int | None:
    """The physical offset of the first message at or after record boundary ``offset``: past a segment's BLANK end
    to the next segment's first record (the web's "next record" 404ed there); None at the log's end, or when damage
    comes first (within ``look`` entries: the hex view shows damage, a message page cannot)."""
    if not holds_offset(store, offset):
        return None
    try:
        for n, item in enumerate(store.entries(offset, check_crc=False)):
            if isinstance(item, Message):
                return item.physical_offset
            if n >= look or not isinstance(item, Blank):
                return None
    except StoreError:
        return None
    return None


def _first(found: tuple[Region, ...], offset: int) -> Region | None:
    return next((r for r in found if r.start <= offset < r.end), None)


def _region_at(store, offset: int) -> Region | None:
    if not holds_offset(store, offset):
        return None
    found = regions(store.commitlog, offset, offset + 1)
    return found[0] if found else None


def _zero_fill(commitlog, seg: Segment, blank: Region) -> bool:
    """True when the bytes after a BLANK record up to its segment's end are all zero."""
    try:
        mf = commitlog.map(seg)
        return is_all_zero(mf.buf, blank.start + BLANK_RECORD - seg.start_offset, blank.end - seg.start_offset)
    except StoreError:
        return False


def message_near(store, offset: int, direction: int, *, stop: Callable[[], bool] = lambda: False,
                 max_steps: int = MAX_STEPS) -> int | None:
    """The start of the message record after (``direction`` 1) or before (-1) the region holding ``offset``;
    None when there is none, ``stop()`` said so, or ``max_steps`` regions were walked without finding one."""
    commitlog = store.commitlog
    here = [r for r in regions(commitlog, offset, offset + 1) if r.start <= offset < r.end]
    if not here:
        return None
    region = here[0]
    if direction > 0:
        for n, entry in enumerate(store.entries(region.end, check_crc=False)):
            if isinstance(entry, Message):
                return entry.physical_offset
            if stop() or n > max_steps:
                return None
        return None
    x = region.start
    for _ in range(max_steps):
        if stop() or x <= commitlog.min_offset:
            return None
        seg = commitlog.segment_for(x - 1)
        if seg is None or seg.file_size == 0:
            earlier = [s for s in commitlog.segments if s.end_offset <= x and s.file_size]
            if not earlier:
                return None
            x = earlier[-1].end_offset
            continue
        prev = [r for r in regions(commitlog, x - 1, x) if r.start <= x - 1 < r.end]
        if not prev:
            return None
        if prev[0].kind == "message":
            return prev[0].start
        x = prev[0].start
    return None


# -- the bytes at a cursor read as numbers (the web hex page's data inspector, issue 33): big-endian, as the store
# writes every integer, and the int64 as a time when it is one a broker could have written

WIDTHS = (("int8", 1), ("int16", 2), ("int32", 4), ("int64", 8))
TIME_ROW = "time (int64 ms)"
# an int64 read as epoch ms is shown as a time only inside these years: the broker's timestamps (born, store) are
# ms since 1970, and most other eight bytes would read as a date far outside them
PLAUSIBLE_MS = (946_684_800_000, 4_102_444_800_000)  # 2000-01-01 .. 2100-01-01 UTC


def byte_readings(data: bytes, index: int) -> list[dict]:
    """``data[index:]`` read as int8, int16, int32 and int64, each ``{"type", "value", "unsigned", "hex"}``
    (value None when ``data`` ends first), then the int64 as an ISO 8601 UTC time (``TIME_ROW``; None when not
    plausible)."""
    rows = []
    for name, size in WIDTHS:
        chunk = data[index:index + size] if index >= 0 else b""
        if len(chunk) < size:
            rows.append({"type": name, "value": None, "unsigned": None, "hex": None})
            continue
        rows.append({"type": name, "value": int.from_bytes(chunk, "big", signed=True),
                     "unsigned": int.from_bytes(chunk, "big"), "hex": "0x" + chunk.hex()})
    rows.append({"type": TIME_ROW, "value": plausible_time(rows[-1]["value"]), "unsigned": None, "hex": None})
    return rows


def plausible_time(ms: int | None) -> str | None:
    """Epoch ms as ISO 8601 UTC (``+00:00``: a shown time says its zone) inside ``PLAUSIBLE_MS``, else None."""
    if ms is None or not PLAUSIBLE_MS[0] <= ms < PLAUSIBLE_MS[1]:
        return None
    moment = dt.datetime.fromtimestamp(ms // 1000, dt.UTC) + dt.timedelta(milliseconds=ms % 1000)
    return moment.isoformat(timespec="milliseconds")
