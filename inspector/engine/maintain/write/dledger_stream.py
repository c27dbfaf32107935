"""verify's DLedger index check as the walk goes: each run of entries the walk tables is compared with the next
index units at once (one compiled pass), and nothing is kept while they agree.

Before, verify kept the walk's rows of every entry (record offset, size, Raft index, term: 32 bytes) and a copy
of every index unit (32 more) to compare them at the end: ~64 bytes an entry, 1 GB for an 8 GiB log. Here the
units are read a chunk at a time from the mapped index files (``DLedgerMember.index_chunks``) and the rows are
dropped once matched. At the first disagreement (a damaged store) the stream stops comparing and keeps the rows
from there: :meth:`IndexStream.rows` then gives the full checks (verify.dledger) exactly the rows they had
before, the matched ones rebuilt from their units (equal field for field, or they would not have matched).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

import numpy as np

from inspector.engine.read.dledger.dledger import INDEX_CHUNK_UNITS, DLedgerMember, IndexChunk
from inspector.engine.scan.verify_kernels import entry_units
from parsers.dledger import ENTRY_HEADER_SIZE

__all__ = ["IndexStream", "MatchedEntries", "matched_entries"]


@dataclass(frozen=True)
class MatchedEntries:
    """Consecutive entries a walk tabled (one segment of a Spark task) that were each found equal to their index
    unit, in order: what the driver's :class:`IndexStream` needs of them instead of their rows."""

    first_index: int
    first_term: int
    count: int
    last: tuple[int, int, int, int]  # the last entry's row: record offset, record size, Raft index, term


def matched_entries(member: DLedgerMember, rows: list[np.ndarray]) -> MatchedEntries | None:
    """``rows`` (log order, one segment's) compared with the units at their Raft indexes; None when any
    differs (or without the kernels): then the rows themselves go to :func:`check_dledger`."""
    rows = [r for r in rows if r.shape[1]]
    if not rows:
        return None
    first = int(rows[0][2, 0])
    if first < 0:
        return None
    stream = IndexStream(member, start_unit=first)
    try:
        for r in rows:
            stream.add(r)
            if not stream.sound:
                return None
    finally:
        stream.close()
    if stream.unreadable:
        return None
    last = rows[-1][:, -1]
    return MatchedEntries(first, int(rows[0][3, 0]), stream.matched,
                          (int(last[0]), int(last[1]), int(last[2]), int(last[3])))


class IndexStream:
    """Feed :meth:`add` the walk's rows ((4, n) int64: record offset, record size, Raft index, term) in log
    order, then call :meth:`finish`."""

    def __init__(self, member: DLedgerMember, chunk_units: int = INDEX_CHUNK_UNITS, start_unit: int = 0) -> None:
        self.unreadable: list[tuple[str, str]] = []
        self._chunks: Generator[IndexChunk, None, None] = member.index_chunks(self.unreadable, chunk_units,
                                                                              start_unit)
        self._chunk: IndexChunk | None = None
        self._at = 0  # units of self._chunk already matched
        self._next: int | None = None  # the unit number the next chunk must start at
        self.sound = True
        self.matched = 0  # rows equal to their units, in order: all before self.kept
        self.kept: list[np.ndarray] = []
        self._prev_term = -1
        self._last_row: np.ndarray | None = None

    def add(self, rows: np.ndarray) -> None:
        if not self.sound:
            self.kept.append(rows)
            return
        done, n = 0, rows.shape[1]
        while done < n:
            units = self._units()
            if units is None:  # more entries than units, a gap between index files or no kernels
                self._give_up(rows, done)
                return
            take = min(n - done, len(units) - self._at)
            flags = entry_units(units[self._at : self._at + take], rows, done, self._chunk.first + self._at,
                                self._prev_term)
            if flags is None or flags.any():
                self._give_up(rows, done)
                return
            self._prev_term = int(rows[3, done + take - 1])
            self._at += take
            done += take
            self.matched += take
        if n:
            self._last_row = rows[:, n - 1].copy()

    def add_matched(self, entries: MatchedEntries) -> None:
        """Entries already found equal to their units (:func:`matched_entries`): the stream steps over as many
        units, checking only that they are the next ones and that the term does not fall between. When it has
        stopped comparing, their rows are not here: the full checks read those headers from the data files."""
        if not self.sound:
            return
        if entries.first_term < self._prev_term:
            self.sound = False
            return
        left = entries.count
        while left:
            units = self._units()
            if units is None or self._chunk.first + self._at != entries.first_index + entries.count - left:
                self.sound = False
                return
            step = min(left, len(units) - self._at)
            self._at += step
            left -= step
        self.matched += entries.count
        self._prev_term = entries.last[3]
        self._last_row = np.array(entries.last, dtype=np.int64)

    def close(self) -> None:
        self._chunks.close()

    def finish(self) -> tuple[int, int, int] | None:
        """(last Raft index, its term, end of its entry) when every unit matched the walk's entry in order; None
        when they differ somewhere (then :meth:`rows` has what the full checks need)."""
        if self.sound and self._units() is not None:  # units left over: the walk tabled fewer entries
            self.sound = False
        self._chunks.close()  # when sound, every chunk was read (and every unreadable file seen) already
        if not self.sound or self.unreadable or self._last_row is None:
            return None
        last = self._last_row
        return int(last[2]), int(last[3]), int(last[0] + last[1])

    def rows(self, units: np.ndarray) -> np.ndarray:
        """Every row fed, in order: the matched ones rebuilt from ``units`` (every used unit, concatenated in file
        order, as ``index_runs`` gives them), then the kept ones."""
        prefix = units[: self.matched]
        rebuilt = np.stack([prefix["pos"].astype(np.int64) + ENTRY_HEADER_SIZE,
                            prefix["size"].astype(np.int64) - ENTRY_HEADER_SIZE,
                            prefix["index"].astype(np.int64), prefix["term"].astype(np.int64)])
        return np.concatenate([rebuilt, *self.kept], axis=1) if self.kept else rebuilt

    def _units(self) -> np.ndarray | None:
        """The current chunk's units with some left to match, stepping to the next chunk; None at the end."""
        while self._chunk is None or self._at >= len(self._chunk.units):
            chunk = next(self._chunks, None)
            if chunk is None:
                return None
            if len(chunk.units) and self._next is not None and chunk.first != self._next:
                self.sound = False  # index files that do not follow each other: the full checks name it
                return None
            if len(chunk.units):
                self._next = chunk.first + len(chunk.units)
            self._chunk, self._at = chunk, 0
        return self._chunk.units

    def _give_up(self, rows: np.ndarray, done: int) -> None:
        self.sound = False
        self.kept.append(rows[:, done:])
