"""Two commitlogs aligned by physical offset: bulk byte compare of the common ranges (numpy over both mmaps, in
chunks), decoding only the records where bytes differ."""

from __future__ import annotations

from dataclasses import fields as dc_fields

import numpy as np

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.diff.result import Range, RecordDiff, StoreDiff

CHUNK = 8 << 20  # bytes compared per step: large enough for numpy to run at memory speed
GAP = 64  # differing runs closer than this are one range: a record's zero bytes must not split it
SKIP = frozenset({"file", "position"})  # where a record sits in its file, not what it holds


def _pieces(log: CommitLog) -> list[tuple[int, int]]:
    return [(s.start_offset, s.end_offset) for s in log.segments]


def _subtract(ranges: list[tuple[int, int]], others: list[tuple[int, int]]) -> list[Range]:
    """Parts of ``ranges`` no range of ``others`` covers (both sorted, non-overlapping)."""
    out: list[Range] = []
    for s, e in ranges:
        cur = s
        for os_, oe in others:
            if oe <= cur or os_ >= e:
                continue
            if os_ > cur:
                out.append(Range(cur, os_))
            cur = max(cur, oe)
        if cur < e:
            out.append(Range(cur, e))
    return _merge(out)


def _merge(ranges: list[Range]) -> list[Range]:
    out: list[Range] = []
    for r in ranges:
        if out and out[-1].end == r.start:
            out[-1] = Range(out[-1].start, r.end)
        else:
            out.append(r)
    return out


def _view(log: CommitLog, offset: int, length: int) -> np.ndarray:
    seg = log.segment_for(offset)
    mf = log.map(seg)
    pos = offset - seg.start_offset
    return np.frombuffer(mf.buf, dtype=np.uint8, count=length, offset=pos)


def _common_pieces(a: CommitLog, b: CommitLog) -> list[tuple[int, int]]:
    """The offsets both logs hold, cut at every segment edge of either (segment sizes may differ)."""
    edges = sorted({x for p in _pieces(a) + _pieces(b) for x in p})
    out = []
    for s, e in zip(edges, edges[1:], strict=False):
        if a.segment_for(s) is not None and b.segment_for(s) is not None:
            out.append((s, e))
    return out


def _differing_runs(va: np.ndarray, vb: np.ndarray, base: int) -> list[Range]:
    ne = np.flatnonzero(va != vb)
    if not len(ne):
        return []
    breaks = np.flatnonzero(np.diff(ne) > GAP)
    starts = np.concatenate(([ne[0]], ne[breaks + 1]))
    ends = np.concatenate((ne[breaks], [ne[-1]])) + 1
    return [Range(base + int(s), base + int(e)) for s, e in zip(starts, ends, strict=True)]


def diff_commitlogs(a: CommitLog, b: CommitLog, out: StoreDiff, limit: int) -> None:
    """Fill ``out``'s log sections; at most ``limit`` differing ranges and records (the rest said in left_out)."""
    pa, pb = _pieces(a), _pieces(b)
    out.only_in_a = _subtract(pa, pb)
    out.only_in_b = _subtract(pb, pa)
    runs: list[Range] = []
    more = 0
    for s, e in _common_pieces(a, b):
        for off in range(s, e, CHUNK):
            n = min(CHUNK, e - off)
            va, vb = _view(a, off, n), _view(b, off, n)
            if np.array_equal(va, vb):  # the bulk answer: no per-byte work where the stores agree
                continue
            for r in _differing_runs(va, vb, off):
                if runs and r.start - runs[-1].end <= GAP:
                    runs[-1] = Range(runs[-1].start, r.end)
                elif len(runs) < limit:
                    runs.append(r)
                else:
                    more += 1
    out.differing = runs
    if more:
        out.left_out.append(f"{more} more differing byte range(s) past --limit {limit}")
    firsts = [r.start for r in runs] + [r.start for r in out.only_in_a + out.only_in_b]
    out.first_divergence = min(firsts) if firsts else None
    seen: set[int] = set()
    for r in runs:
        rec = _record_diff(a, b, r.start)
        if rec is not None and rec.offset not in seen:
            seen.add(rec.offset)
            out.records.append(rec)


def _record_diff(a: CommitLog, b: CommitLog, offset: int) -> RecordDiff | None:
    """The record holding ``offset`` (found in A, else B) decoded on both sides, its differing fields named."""
    try:
        start = a.boundary_before(offset)
    except StoreError:
        try:
            start = b.boundary_before(offset)
        except StoreError:
            return RecordDiff(offset, (), "no record boundary found before this offset in either store")
    ma, ea = _decode(a, start)
    mb, eb = _decode(b, start)
    if ma is None or mb is None:
        if ma is None and mb is None:
            return RecordDiff(start, (), f"decodes in neither store: {ea}")
        side, why = ("B", ea) if ma is None else ("A", eb)
        return RecordDiff(start, (), f"a record only in {side} (the other store: {why})")
    names = tuple(f.name for f in dc_fields(ma) if f.name not in SKIP and getattr(ma, f.name) != getattr(mb, f.name))
    return RecordDiff(start, names, "" if names else "bytes differ outside the decoded fields")


def _decode(log: CommitLog, offset: int) -> tuple[Message | None, str]:
    try:
        return log.message_at(offset), ""
    except StoreError as e:
        return None, str(e)
