"""What the hex view knows about one commitlog segment: its display lines and the regions seen so far.

Pure bookkeeping over engine ``Region``s (no Textual, no bytes):

* ``SegmentLines`` maps display lines to 16-byte rows of a segment, with long zero runs folded into one line.
* ``RegionMap`` caches the regions the engine returned for windows of the segment, gives each one a stable
  alternating parity (so neighbouring messages get different tints however the windows were fetched) and
  forgets the regions farthest from where the user looks when it grows too large.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from inspector.engine import FieldSpan, Region

ROW = 16
FOLD_MIN_ROWS = 6  # a zero run covering at least this many whole rows is shown as first row, fold line, last row


@dataclass(frozen=True)
class Line:
    kind: str  # "row" or "fold"
    start: int  # physical offset of the first byte of the row, or of the first hidden byte
    end: int  # exclusive

    @property
    def hidden_bytes(self) -> int:
        return self.end - self.start


class SegmentLines:
    """Display lines of one segment: rows of 16 bytes, minus folded zero runs (each becomes one line)."""

    def __init__(self, start: int, size: int):
        self.start = start
        self.size = size
        self.rows = max(1, -(-size // ROW))
        self._folds: list[tuple[int, int]] = []  # hidden row ranges [h0, h1), sorted, disjoint
        self._removed: list[int] = []  # rows removed before fold i (each fold hides h1-h0 rows, adds one line)

    @property
    def end(self) -> int:
        return self.start + self.size

    @property
    def folds(self) -> list[tuple[int, int]]:
        """Folded byte ranges (physical offsets)."""
        return [(self.start + h0 * ROW, min(self.end, self.start + h1 * ROW)) for h0, h1 in self._folds]

    @property
    def line_count(self) -> int:
        return self.rows - sum(h1 - h0 - 1 for h0, h1 in self._folds)

    def _reindex(self) -> None:
        self._removed = []
        total = 0
        for h0, h1 in self._folds:
            self._removed.append(total)
            total += h1 - h0 - 1

    def fold_zero_run(self, a: int, b: int) -> bool:
        """Fold the whole rows of the zero run [a, b) when it is long enough; True when the lines changed."""
        first = -(-(a - self.start) // ROW)
        last = (b - self.start) // ROW  # exclusive: rows wholly inside the run
        if last - first < FOLD_MIN_ROWS:
            return False
        h0, h1 = first + 1, last - 1
        merged = [(h0, h1)]
        keep = []
        for f in self._folds:
            if f[1] < h0 or f[0] > h1:
                keep.append(f)
            else:
                merged.append(f)
        new = (min(f[0] for f in merged), max(f[1] for f in merged))
        if new in self._folds:
            return False
        keep.append(new)
        keep.sort()
        self._folds = keep
        self._reindex()
        return True

    def line(self, n: int) -> Line:
        """Display line ``n`` (clamped)."""
        n = max(0, min(n, self.line_count - 1))
        i = bisect.bisect_right([h0 - r for (h0, _), r in zip(self._folds, self._removed, strict=True)], n) - 1
        if i >= 0:
            h0, h1 = self._folds[i]
            fold_line = h0 - self._removed[i]
            if n == fold_line:
                return Line("fold", self.start + h0 * ROW, min(self.end, self.start + h1 * ROW))
            row = n + self._removed[i] + (h1 - h0 - 1)
        else:
            row = n
        start = self.start + row * ROW
        return Line("row", start, min(self.end, start + ROW))

    def line_of(self, offset: int) -> int:
        """The display line showing ``offset`` (the fold line when it is folded away)."""
        row = max(0, min(self.rows - 1, (offset - self.start) // ROW))
        i = bisect.bisect_right([h0 for h0, _ in self._folds], row) - 1
        if i < 0:
            return row
        h0, h1 = self._folds[i]
        if row < h1:
            return h0 - self._removed[i]
        return row - self._removed[i] - (h1 - h0 - 1)

    def visible(self, offset: int, direction: int) -> int:
        """``offset`` moved out of a fold (to the nearest shown row in ``direction``), same column."""
        row = (offset - self.start) // ROW
        col = (offset - self.start) % ROW
        for h0, h1 in self._folds:
            if h0 <= row < h1:
                row = h1 if direction >= 0 else h0 - 1
                break
        return min(self.end - 1, self.start + row * ROW + col)


class RegionMap:
    """Regions of one segment known so far, with stable alternating parities, bounded in size."""

    def __init__(self, cap: int = 6000):
        self.cap = cap
        self._starts: list[int] = []
        self._regions: list[Region] = []
        self._parity: list[int] = []
        self.version = 0  # bumped whenever what render would show changes

    def __len__(self) -> int:
        return len(self._regions)

    def index_at(self, offset: int) -> int | None:
        i = bisect.bisect_right(self._starts, offset) - 1
        if i >= 0 and self._regions[i].start <= offset < self._regions[i].end:
            return i
        return None

    def at(self, offset: int) -> tuple[Region, int] | None:
        i = self.index_at(offset)
        return None if i is None else (self._regions[i], self._parity[i])

    def signature(self, a: int, b: int) -> tuple:
        """What a row [a, b) is drawn from: (start, end, kind, parity) of each known region overlapping it."""
        i = max(0, bisect.bisect_right(self._starts, a) - 1)
        out = []
        regions, parity = self._regions, self._parity
        while i < len(regions) and regions[i].start < b:
            r = regions[i]
            if r.end > a:
                out.append((r.start, r.end, r.kind, parity[i]))
            i += 1
        return tuple(out)

    def covers(self, a: int, b: int) -> bool:
        """True when every byte of [a, b) lies in a known region."""
        pos = a
        while pos < b:
            i = self.index_at(pos)
            if i is None:
                return False
            pos = self._regions[i].end
        return True

    def first_gap(self, a: int, b: int) -> int | None:
        pos = a
        while pos < b:
            i = self.index_at(pos)
            if i is None:
                return pos
            pos = self._regions[i].end
        return None

    def last_gap(self, a: int, b: int) -> int | None:
        """End (exclusive) of the last unknown byte run in [a, b)."""
        pos = b - 1
        while pos >= a:
            i = self.index_at(pos)
            if i is None:
                return pos + 1
            pos = self._regions[i].start - 1
        return None

    def neighbour(self, index: int, step: int) -> tuple[Region, int] | None:
        j = index + step
        if 0 <= j < len(self._regions):
            a, b = (self._regions[index], self._regions[j]) if step > 0 else (self._regions[j], self._regions[index])
            if a.end == b.start:
                return self._regions[j], j
        return None

    def add(self, chunk: list[Region] | tuple[Region, ...], focus: int | None = None) -> bool:
        """Merge a contiguous run of regions (as ``layout.regions`` returns them); True when others were forgotten."""
        chunk = sorted(chunk, key=lambda r: r.start)
        if not chunk:
            return False
        a, b = chunk[0].start, chunk[-1].end
        # parity of chunk[0]: from a region already known at the same place, else from the predecessor
        p0 = None
        for k, r in enumerate(chunk):
            i = self.index_at(r.start)
            if i is not None and self._regions[i].start == r.start:
                p0 = (self._parity[i] + k) % 2
                break
        if p0 is None:
            i = self.index_at(a - 1)
            p0 = 1 - self._parity[i] if i is not None and self._regions[i].end == a else 0
        lo = bisect.bisect_left(self._starts, a)
        if lo > 0 and self._regions[lo - 1].end > a:
            lo -= 1
        hi = bisect.bisect_left(self._starts, b)
        parities = [(p0 + k) % 2 for k in range(len(chunk))]
        self._starts[lo:hi] = [r.start for r in chunk]
        self._regions[lo:hi] = chunk
        self._parity[lo:hi] = parities
        # a known run right after the chunk must continue the alternation
        j = lo + len(chunk)
        if j < len(self._regions) and self._regions[j].start == b and self._parity[j] == parities[-1]:
            while j < len(self._regions):
                self._parity[j] ^= 1
                if j + 1 < len(self._regions) and self._regions[j + 1].start != self._regions[j].end:
                    break
                j += 1
        self.version += 1
        return self._trim(focus if focus is not None else (a + b) // 2)

    def _trim(self, focus: int) -> bool:
        if len(self._regions) <= self.cap:
            return False
        keep = self.cap * 3 // 4
        centre = bisect.bisect_right(self._starts, focus)
        lo = max(0, min(centre - keep // 2, len(self._regions) - keep))
        hi = lo + keep
        self._starts = self._starts[lo:hi]
        self._regions = self._regions[lo:hi]
        self._parity = self._parity[lo:hi]
        return True

    def regions(self) -> list[Region]:
        return list(self._regions)


def field_at(region: Region, offset: int) -> tuple[int, FieldSpan] | None:
    """(index, field) of ``region`` holding ``offset``."""
    for i, f in enumerate(region.fields):
        if f.start <= offset < f.end:
            return i, f
    return None
