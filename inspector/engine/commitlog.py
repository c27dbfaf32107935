"""The commitlog as a mapped file queue: segments, message at an offset, iteration with resync (spec §2, §3)."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from inspector.engine.decode import (
    MIN_RECORD_SIZE,
    RecordError,
    decode_message,
    peek_head,
    stored_physical_offset,
)
from inspector.engine.errors import NotFound, StoreError
from inspector.engine.mapped import MappedFile, first_nonzero, is_all_zero, offset_named_files
from inspector.engine.records import Blank, Message, Problem, Segment
from parsers import commitlog as cl

Entry = Message | Blank | Problem

_PATTERNS = {
    "v1": cl.MAGIC_V1.to_bytes(4, "big", signed=True),
    "v2": cl.MAGIC_V2.to_bytes(4, "big", signed=True),
    "blank": cl.MAGIC_BLANK.to_bytes(4, "big", signed=True),
}


@dataclass(frozen=True)
class SegmentScan:
    """What a walk of one segment found."""

    segment: Segment
    messages: int
    data_end: int  # position after the last good record (where the BLANK or the zero tail starts)
    blank_position: int | None
    blank_size: int | None
    first_store_timestamp: int
    last_store_timestamp: int
    problems: tuple[Problem, ...]
    preallocated: bool  # an all-zero segment after the end of the log

    @property
    def valid_end_offset(self) -> int:
        return self.segment.start_offset + self.data_end


def infer_segment_size(sizes: list[int], starts: list[int] | None = None) -> int | None:
    """The configured segment size.

    The most common non-zero file size, if every gap between consecutive names (names are offsets) is a
    multiple of it: a missing middle segment leaves a double gap. Otherwise (a grown or cut file made the
    sizes disagree) the most common gap. Ties go to the smaller value.
    """
    counts = Counter(s for s in sizes if s > 0)
    size = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0] if counts else None
    gaps = Counter(b - a for a, b in zip(starts or [], (starts or [])[1:], strict=False) if b > a)
    if size and all(g % size == 0 for g in gaps):
        return size
    if gaps:
        return min(gaps.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return size


class CommitLog:
    """Read-only view of ``<root>/commitlog``. Segments are mapped lazily and stay mapped until close()."""

    def __init__(self, root: Path, segment_size: int | None = None, directory: str = "commitlog"):
        self.root = root
        self.directory = directory
        files = offset_named_files(root / directory)
        self.segments: list[Segment] = []
        for start, path in files:
            try:
                size = path.stat().st_size
            except OSError as e:
                raise StoreError(f"cannot stat: {e.strerror}", f"{directory}/{path.name}") from e
            self.segments.append(Segment(path.name, f"{directory}/{path.name}", start, size))
        self._starts = [s.start_offset for s in self.segments]
        inferred = infer_segment_size([s.file_size for s in self.segments], self._starts)
        self.segment_size: int = segment_size or inferred or 0
        self.segment_size_inferred = segment_size is None
        self._maps: dict[int, MappedFile] = {}
        self._marks: dict[int, list[int]] = {}  # segment start -> sorted known record starts (sparse)
        self.problems: list[Problem] = self._layout_problems()
        self._last_data_index = self._find_last_data_index()

    # -- layout -------------------------------------------------------------------------------------------

    def _layout_problems(self) -> list[Problem]:
        problems = []
        for i, seg in enumerate(self.segments):
            if self.segment_size and seg.file_size != self.segment_size:
                is_empty_last = i == len(self.segments) - 1 and seg.file_size == 0
                problems.append(
                    Problem(
                        seg.file,
                        0,
                        f"segment is {seg.file_size} bytes, expected {self.segment_size}"
                        + (" (an empty last file; RocketMQ 5.1.3+ deletes it)" if is_empty_last else ""),
                        "wrong-segment-size",
                        "warning" if is_empty_last else "error",
                    )
                )
            if i and self.segment_size:
                expected = self.segments[i - 1].start_offset + self.segment_size
                if seg.start_offset > expected:
                    missing = (seg.start_offset - expected) // self.segment_size
                    problems.append(
                        Problem(
                            seg.file,
                            0,
                            f"{missing} segment(s) missing before this one: expected {expected:020d}",
                            "missing-segment",
                        )
                    )
                elif seg.start_offset < expected:
                    problems.append(
                        Problem(seg.file, 0, f"overlaps the previous segment (which ends at {expected})", "overlap")
                    )
        return problems

    def _find_last_data_index(self) -> int:
        """Index of the last segment whose first record header is not zero (later ones are preallocated)."""
        for i in range(len(self.segments) - 1, -1, -1):
            if self.segments[i].file_size >= 8:
                try:
                    head = self.map(self.segments[i]).read(0, 8)
                except StoreError:
                    return i
                if head.strip(b"\0"):
                    return i
        return -1

    def map(self, segment: Segment) -> MappedFile:
        mf = self._maps.get(segment.start_offset)
        if mf is None:
            mf = MappedFile(self.root / segment.file, segment.file)
            self._maps[segment.start_offset] = mf
        return mf

    def close(self) -> None:
        for mf in self._maps.values():
            mf.close()
        self._maps.clear()

    @property
    def min_offset(self) -> int:
        return self.segments[0].start_offset if self.segments else 0

    def segment_for(self, offset: int) -> Segment | None:
        i = bisect.bisect_right(self._starts, offset) - 1
        if i < 0:
            return None
        seg = self.segments[i]
        return seg if offset < seg.start_offset + max(seg.file_size, 1) else None

    def is_last_data_segment(self, segment: Segment) -> bool:
        return self._last_data_index < 0 or self.segments.index(segment) >= self._last_data_index

    # -- reads ----------------------------------------------------------------------------------------------

    def read(self, offset: int, length: int) -> bytes:
        """Raw bytes at a physical offset (within one segment)."""
        seg = self.segment_for(offset)
        if seg is None:
            raise NotFound(f"physical offset {offset} is in no commitlog segment", self.directory)
        return self.map(seg).read(offset - seg.start_offset, length)

    MARK_EVERY = 1024

    def boundary_before(self, offset: int) -> int:
        """A record start at or before ``offset`` in its segment: the start of the record holding it when the
        bytes before it are sound, else the last sound boundary before the damage (walk on with entries()).

        Walks record headers only (TOTALSIZE, magic, PHYSICALOFFSET) from the nearest remembered boundary and
        remembers every MARK_EVERY-th one, so a jump deep into a 1 GiB segment is paid for once.
        """
        seg = self.segment_for(offset)
        if seg is None:
            raise NotFound(f"physical offset {offset} is in no commitlog segment", self.directory, offset)
        marks = self._marks.setdefault(seg.start_offset, [0])
        target = offset - seg.start_offset
        cur = marks[bisect.bisect_right(marks, target) - 1]
        mf = self.map(seg)
        buf, limit = mf.buf, mf.size
        walked = 0
        while limit - cur >= 8:
            total, magic = peek_head(buf, cur)
            if (magic not in cl.MESSAGE_MAGICS or total < MIN_RECORD_SIZE or total > limit - cur
                    or limit - cur < 36 or stored_physical_offset(buf, cur) != seg.start_offset + cur):
                break  # a BLANK, the zero tail or damage: the caller's entries() walk takes over here
            if cur + total > target:
                break
            cur += total
            walked += 1
            if walked % self.MARK_EVERY == 0:
                bisect.insort(marks, cur)
        return seg.start_offset + cur

    def message_at(self, offset: int) -> Message:
        """The message whose record starts at ``offset``; StoreError naming file and offset otherwise."""
        seg = self.segment_for(offset)
        if seg is None:
            raise NotFound(f"physical offset {offset} is in no commitlog segment", self.directory, offset)
        mf = self.map(seg)
        pos = offset - seg.start_offset
        try:
            return decode_message(mf.buf, pos, mf.size, file=seg.file, segment_start=seg.start_offset)
        except RecordError as e:
            raise StoreError(f"no message here: {e.reason}", seg.file, pos) from None
        except Exception as e:  # noqa: BLE001 - nothing raw may leave the engine
            raise StoreError(f"no message here: {e}", seg.file, pos) from None

    def entries(self, from_offset: int | None = None, *, check_crc: bool = True) -> Iterator[Entry]:
        """Messages, BLANKs and Problems in commitlog order from ``from_offset`` (default: the start).

        Damage does not stop the walk: after an unreadable record the scan resyncs
        at the next plausible record (magic, sizes and PHYSICALOFFSET agree) and
        reports the skipped range as a Problem.
        """
        start_index = 0
        start_pos = 0
        if from_offset is not None and self.segments:
            seg = self.segment_for(from_offset)
            if seg is None:
                # before the log: start at its beginning; in a missing segment's gap: at the next segment
                later = bisect.bisect_right(self._starts, from_offset)
                if later >= len(self.segments):
                    return
                seg = self.segments[later]
                from_offset = seg.start_offset
            start_index = self.segments.index(seg)
            start_pos = from_offset - seg.start_offset
        for i in range(start_index, len(self.segments)):
            seg = self.segments[i]
            yield from self._segment_entries(seg, start_pos if i == start_index else 0, check_crc, i)

    def _segment_entries(self, seg: Segment, pos: int, check_crc: bool, index: int) -> Iterator[Entry]:
        try:
            mf = self.map(seg)
        except StoreError as e:
            yield Problem(seg.file, 0, e.reason, "unreadable-file")
            return
        buf, limit = mf.buf, mf.size
        is_last = index >= self._last_data_index
        while True:
            if limit - pos < 8:
                if pos < limit and not is_all_zero(buf, pos, limit):
                    yield Problem(seg.file, pos, f"{limit - pos} stray bytes at the end of the segment", "trailing-bytes")
                elif not is_last:
                    yield Problem(seg.file, pos, "segment ends without a BLANK record", "no-blank")
                return
            total, magic = peek_head(buf, pos)
            if magic == cl.MAGIC_BLANK:
                yield Blank(seg.file, pos, seg.start_offset + pos, total)
                expected = (self.segment_size or limit) - pos
                if total != expected:
                    yield Problem(
                        seg.file, pos, f"BLANK record says {total} bytes but {expected} remain", "blank-size", "warning"
                    )
                return
            if total == 0 and magic == 0:
                nonzero = first_nonzero(buf, pos, limit)
                if nonzero >= limit:
                    if not is_last:
                        yield Problem(
                            seg.file, pos, f"data ends at {pos} with {limit - pos} zero bytes and no BLANK record",
                            "no-blank",
                        )
                    return  # the normal end of the log (zero tail of the active segment)
                # the first non-zero byte may be inside the next record's TOTALSIZE (its high bytes are zero)
                resync = self._resync(buf, max(pos + 1, nonzero - 3), limit, seg)
                if resync is None:
                    yield Problem(
                        seg.file, pos,
                        f"end of data at {pos}; {limit - nonzero} bytes after it (from {nonzero}) hold no readable record",
                        "garbage-after-end" if is_last else "unreadable-bytes",
                    )
                    return
                yield Problem(
                    seg.file, pos, f"zeroed region of {resync - pos} bytes ({pos}..{resync}); next record at {resync}",
                    "zeroed-region",
                )
                pos = resync
                continue
            try:
                msg = decode_message(buf, pos, limit, file=seg.file, segment_start=seg.start_offset)
            except RecordError as e:
                resync = self._resync(buf, pos + 1, limit, seg)
                if resync is None:
                    tail = " (torn tail: the log ends here)" if is_last else ""
                    yield Problem(seg.file, pos, f"{e.reason}{tail}", e.code)
                    return
                yield Problem(seg.file, pos, f"{e.reason}; skipped {resync - pos} bytes to the next record at {resync}", e.code)
                pos = resync
                continue
            if msg.stored_physical_offset != msg.physical_offset:
                yield Problem(
                    seg.file, pos,
                    f"PHYSICALOFFSET field is {msg.stored_physical_offset} but the record is at {msg.physical_offset}",
                    "offset-mismatch",
                )
            if check_crc and not msg.body_crc_ok:
                yield Problem(seg.file, pos, f"body CRC {msg.body_crc} does not match the body", "crc-mismatch")
            yield msg
            pos += msg.total_size

    def _resync(self, buf, start: int, limit: int, seg: Segment) -> int | None:
        """First position >= start where a plausible record begins (bounded: each candidate is checked once)."""
        nexts = {name: buf.find(p, start + 4, limit) for name, p in _PATTERNS.items()}
        while True:
            live = {n: i for n, i in nexts.items() if i >= 0}
            if not live:
                return None
            name, idx = min(live.items(), key=lambda kv: kv[1])
            cand = idx - 4
            if cand >= start and self._plausible(buf, cand, limit, seg, name == "blank"):
                return cand
            nexts[name] = buf.find(_PATTERNS[name], idx + 1, limit)

    def _plausible(self, buf, pos: int, limit: int, seg: Segment, blank: bool) -> bool:
        total, _ = peek_head(buf, pos)
        if blank:
            return total == (self.segment_size or limit) - pos
        if total < MIN_RECORD_SIZE or total > limit - pos:
            return False
        if stored_physical_offset(buf, pos) != seg.start_offset + pos:
            return False
        try:
            decode_message(buf, pos, limit, file=seg.file, segment_start=seg.start_offset)
        except RecordError:
            return False
        return True

    def scan_segment(self, segment: Segment, *, check_crc: bool = True) -> SegmentScan:
        """Walk one segment and summarise it (used by info and verify)."""
        index = self.segments.index(segment)
        messages = 0
        data_end = 0
        blank_pos = blank_size = None
        first_ts = last_ts = 0
        problems: list[Problem] = []
        for entry in self._segment_entries(segment, 0, check_crc, index):
            if isinstance(entry, Message):
                messages += 1
                data_end = entry.position + entry.total_size
                if not first_ts:
                    first_ts = entry.store_timestamp
                last_ts = entry.store_timestamp
            elif isinstance(entry, Blank):
                blank_pos, blank_size = entry.position, entry.total_size
                data_end = entry.position
            else:
                problems.append(entry)
        preallocated = index > self._last_data_index and messages == 0 and not problems
        return SegmentScan(segment, messages, data_end, blank_pos, blank_size, first_ts, last_ts, tuple(problems), preallocated)
