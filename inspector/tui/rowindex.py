"""A message list's row index: the physical offset of every row, 4 bytes a row.

A list in commitlog order of an 8 GiB store holds 11 M rows; as 8-byte offsets they were 88 MB of the TUI's
300 MB budget. Offsets of a list come mostly in order, so their high 32 bits change rarely: each row keeps its low
32 bits, and the rows where the high part changes are kept beside (any order is still right, only less compact).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right

import numpy as np


class RowOffsets:
    """``len``, ``[i]``, ``extend``, ``insert_repeat`` and ``del [a:b]`` over 64-bit offsets stored in 4 bytes."""

    def __init__(self) -> None:
        self.low = array("I")
        self.starts: list[int] = []  # rows where the high part changes ...
        self.highs: list[int] = []  # ... to this value (rows before the first start: 0)

    def __len__(self) -> int:
        return len(self.low)

    def _high(self, row: int) -> int:
        k = bisect_right(self.starts, row) - 1
        return self.highs[k] if k >= 0 else 0

    def __getitem__(self, row: int) -> int:
        if row < 0:
            row += len(self.low)
        low = self.low[row]  # IndexError past the end, as a list's
        return self._high(row) << 32 | low

    def extend(self, offsets) -> None:
        values = np.asarray(offsets, dtype=np.int64)
        if not len(values):
            return
        base = len(self.low)
        highs = values >> 32
        before = self._high(base - 1) if base else 0
        changes = np.flatnonzero(np.diff(highs, prepend=before))
        self.starts.extend((changes + base).tolist())
        self.highs.extend(highs[changes].tolist())
        self.low.frombytes((values & 0xFFFFFFFF).astype(np.uint32).tobytes())

    def insert_repeat(self, row: int, value: int, count: int) -> None:
        """``count`` copies of ``value`` before ``row``; ``value`` has the high part of row ``row - 1`` (a record's
        inner rows under it), so only the rows after move."""
        if self._high(row - 1) != value >> 32:
            raise ValueError("a repeated row takes the high part of the row before it")
        self.low[row:row] = array("I", [value & 0xFFFFFFFF]) * count
        k = bisect_right(self.starts, row - 1)
        self.starts[k:] = [r + count for r in self.starts[k:]]

    def __delitem__(self, rows: slice) -> None:
        """Delete rows that share the high part of the row before them (a record's inner rows)."""
        start, stop, _ = rows.indices(len(self.low))
        if stop <= start:
            return
        k = bisect_left(self.starts, start)
        if k < len(self.starts) and self.starts[k] < stop:
            raise ValueError("only rows that share the high part of the row before them are deleted")
        del self.low[start:stop]
        self.starts[k:] = [r - (stop - start) for r in self.starts[k:]]
