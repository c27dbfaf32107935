"""``rmq-inspect grep``: the commitlog searched for a pattern, decoding only the records around the byte hits.

Each segment is walked as every scan walks it (``CommitLog.segment_runs``: runs of clean records by the bulk
kernel, every other position by the careful step, which reports damage with file and offset and resyncs). In a
run, the pattern's prefilter (pattern.py) searches the mapped bytes; a hit is placed in its record by the run's
record starts (``walk_boundaries``, headers only), that one record is decoded and each searched field checked on
its own bytes; the search goes on after the record. Compressed bodies are not in the mapped bytes: every
compressed record of a run is decoded and its body decompressed (bounded) and searched. Records the careful step
decodes (outside the clean runs) are checked the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from inspector.engine.model.budget import Budget
from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message, Problem, Segment
from inspector.engine.model.verdicts import LOG_UNREAD_CODES
from inspector.engine.read.commitlog.body import MAX_DECOMPRESSED, CodecMissing, decompress_body
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.commitlog.mapped import TAIL_BUDGET
from inspector.engine.read.search.pattern import FIELDS, SearchPattern
from inspector.engine.read.search.window import LogWindow
from inspector.engine.scan.decode import RecordError, decode_message
from inspector.engine.scan.find import find_folded
from inspector.engine.scan.record_layout import SYSFLAG_AT
from inspector.engine.scan.walk import Run, walk_boundaries
from parsers.commitlog import COMPRESSED_FLAG

BODY_LIMIT = MAX_DECOMPRESSED  # a decompressed body is searched as far as any body is decompressed
CONTEXT = 40  # bytes of the field shown on each side of the match

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class GrepHit:
    """A record with a field the pattern matches. ``fields``: every kind of ``--in`` that matched (body, keys,
    tags, props); ``field``: where the first match is (``body``, ``KEYS``, ``UNIQ_KEY``, ``TAGS``, a property's
    name, or ``property name``); ``match_offset``: where in that field's bytes (decompressed for a body);
    ``before``/``match``/``after``: the field's text around it, raw (undecodable bytes as lone surrogates:
    ``terminal_text`` before a terminal), ``before`` starting and ``after`` ending with ``…`` where cut."""

    message: Message
    fields: tuple[str, ...]
    field: str
    match_offset: int
    before: str
    match: str
    after: str


@dataclass(frozen=True)
class GrepEnd:
    """The last item of a search: how much was searched, how, and ``truncated`` (None: the whole log) saying why
    it stopped early (the limit, the budget); ``unread``: how many Problems of the walk left a part of the log
    unread (``verdicts.LOG_UNREAD_CODES``), so no hit is not "no such message"."""

    hits: int
    records_decoded: int
    searched_bytes: int
    total_bytes: int
    how: str
    truncated: str | None = None
    unread: int = 0


def grep_log(log: CommitLog, pattern: SearchPattern, *, fields: Iterable[str] = FIELDS, topic: str | None = None,
             tag: str | None = None, limit: int | None = None, budget: Budget | None = None,
             progress: Progress | None = None, workers: int | None = None,
             ahead: Iterable[Problem] = (),
             window: LogWindow | None = None) -> Iterator[GrepHit | Problem | GrepEnd]:
    """Every record of ``log`` (of ``topic``, with tag ``tag``, when given) with a field of ``fields`` that
    ``pattern`` matches, in log order, with the Problems of the walk among them, then one :class:`GrepEnd`.

    ``limit``: at most that many hits (None or 0: all). ``budget``: checked between runs of records; when it runs
    out the GrepEnd says how far the search got. ``progress(done, total)``: bytes of the log, after each run.
    ``workers``: threads walking a large segment's record boundaries (``CommitLog.segment_runs``). ``ahead``:
    Problems of the log found before the walk (a missing segment), yielded first and counted in ``unread``.
    ``window``: only records stored in its [since, until), and only the segments it needs walked (window.py)."""
    wanted = tuple(f for f in FIELDS if f in set(fields))
    search = _Search(pattern, wanted, topic, tag, window)
    for p in ahead:
        search.unread += p.code in LOG_UNREAD_CODES
        yield p
    segments = [s for s in log.segments if window is None or window.overlaps(s)]
    total = sum(s.file_size for s in segments)
    done = 0
    left = limit or None
    truncated = None
    for seg in segments:
        for item in _segment_items(log, seg, workers):
            if isinstance(item, Problem):
                search.unread += item.code in LOG_UNREAD_CODES
                yield item
                continue
            if isinstance(item, Run):
                found = search.run(log, seg, item)
                at = item.end
            elif isinstance(item, Message):
                found = search.check(item)
                at = item.position + item.total_size
            else:  # a Blank: nothing to search
                continue
            for hit in found:
                if isinstance(hit, GrepHit):
                    search.hits += 1
                    yield hit
                    if left is not None:
                        left -= 1
                        if left == 0:
                            place = hit.message.physical_offset
                            truncated = (f"the first {limit:,} hit(s) (the limit): the log was searched up to "
                                         f"physical offset {place:,}")
                            break
                else:
                    yield hit
            if progress is not None:
                progress(done + at, total)
            if truncated is None and budget is not None and budget.expired():
                truncated = budget.note(f"searching {done + at:,} of {total:,} bytes")
            if truncated is not None:
                yield search.end(done + at, total, truncated)
                return
        done += seg.file_size
    if progress is not None:
        progress(total, total)
    yield search.end(total, total, None)


def _segment_items(log: CommitLog, seg: Segment, workers: int | None):
    # check_crc off: a body whose CRC does not match is still searched (grep is no verify); the zero tail of a
    # copied store is read only TAIL_BUDGET far, as info reads it (a note says so)
    return log.segment_runs(seg, check_crc=False, tail_budget=TAIL_BUDGET, workers=workers)


class _Search:
    """The state of one search: the pattern, what is searched, the counters."""

    def __init__(self, pattern: SearchPattern, fields: tuple[str, ...], topic: str | None, tag: str | None,
                 window: LogWindow | None = None):
        self.pattern = pattern
        self.window = window
        self.fields = fields
        self.topic = topic
        self.tag = tag
        self.body = "body" in fields
        self.hits = 0
        self.decoded = 0
        self.unread = 0

    def end(self, searched: int, total: int, truncated: str | None) -> GrepEnd:
        return GrepEnd(self.hits, self.decoded, searched, total, self.pattern.how, truncated, self.unread)

    # -- one run of clean records -------------------------------------------------------------------------------

    def run(self, log: CommitLog, seg: Segment, run: Run) -> list[GrepHit | Problem]:
        """The hits (and Problems: a body that does not decompress) among the records of one clean run."""
        mf = log.map(seg)
        buf, arr = mf.buf, mf.array
        positions, _ = walk_boundaries(arr, run.start, run.end, segment_start=seg.start_offset, stop_at=run.end,
                                       max_records=max(run.count, 1), entry_header=seg.entry_header)
        if not len(positions):
            return []
        picked = self._candidates(buf, arr, positions, run.start, run.end)
        if self.body:  # compressed bodies are not in the bytes searched: each one is a candidate
            sys_low = arr[positions + (SYSFLAG_AT + 3)]  # sysFlag is big-endian: its low byte holds the flag
            picked = np.union1d(picked, np.flatnonzero(sys_low & COMPRESSED_FLAG))
        out: list[GrepHit | Problem] = []
        for i in picked.tolist():
            try:
                msg = decode_message(buf, int(positions[i]), mf.size, file=seg.file, segment_start=seg.start_offset)
            except RecordError as e:  # the kernel took it as clean: only a changing file gets here
                out.append(Problem(seg.file, int(positions[i]), f"not searched: {e.reason}", "unreadable-bytes"))
                continue
            out += self.check(msg)
        return out

    def _candidates(self, buf, arr: np.ndarray, positions: np.ndarray, start: int, end: int) -> np.ndarray:
        """Indexes (into ``positions``) of the records of [start, end) the prefilter finds the pattern in."""
        p = self.pattern
        if not p.literal and not p.alternatives and p.prefilter is None:
            return np.arange(len(positions))
        n = len(positions)
        picked: list[int] = []
        ahead = {a: -2 for a in p.alternatives}  # each alternative's next hit (-2: not looked for yet)
        at = start
        while at < end:
            if p.literal:
                h = self._find(buf, arr, p.literal, at, end)
                if h < 0:
                    break
            elif p.alternatives:  # the first hit of any alternative; each one searched again only once passed
                for a, was in ahead.items():
                    if was != -1 and was < at:
                        ahead[a] = self._find(buf, arr, a, at, end)
                live = [x for x in ahead.values() if x >= 0]
                if not live:
                    break
                h = min(live)
            else:
                m = p.prefilter.search(buf, at, end)
                if m is None:
                    break
                h = m.start()
            i = int(np.searchsorted(positions, h, side="right")) - 1
            if i < 0:  # a DLedger entry header before the first record
                at = int(positions[0])
                continue
            picked.append(i)
            at = int(positions[i + 1]) if i + 1 < n else end  # on after this record: it is checked whole
        return np.asarray(picked, dtype=np.int64)

    def _find(self, buf, arr: np.ndarray, literal: bytes, at: int, end: int) -> int:
        # -i: both cases of the literal's rarest byte by memchr, then a folded compare (scan/find.py)
        return find_folded(arr, literal, at, end) if self.pattern.fold else buf.find(literal, at, end)

    # -- one record ---------------------------------------------------------------------------------------------

    def check(self, msg: Message) -> list[GrepHit | Problem]:
        """``msg`` as a hit when a searched field matches (topic and tag filters first), after the Problems of its
        body (one that cannot be decompressed, or was searched only BODY_LIMIT far); else those alone."""
        self.decoded += 1
        if self.topic is not None and msg.topic != self.topic:
            return []
        if self.tag is not None and msg.tags != self.tag:
            return []
        if self.window is not None and not self.window.holds(msg.store_timestamp):
            return []
        regex = self.pattern.regex
        first = None
        kinds: list[str] = []
        problems: list[GrepHit | Problem] = []
        for kind, label, data in self._fields(msg):
            if isinstance(data, Problem):
                problems.append(data)
                continue
            if kind in kinds:
                continue
            m = regex.search(data)
            if m is None:
                continue
            if kind not in kinds:
                kinds.append(kind)
            if first is None:
                first = (label, data, m.start(), m.end())
        if first is None:
            return problems
        label, data, s, e = first
        return [*problems, GrepHit(msg, tuple(kinds), label, s, *_context(data, s, e))]

    def _fields(self, msg: Message) -> Iterator[tuple[str, str, bytes | Problem]]:
        """(kind, label, bytes) of each searched field of ``msg``, in ``FIELDS`` order; a body that cannot be
        decompressed comes as a Problem."""
        if self.body:
            body = self._body(msg)
            for part in body if isinstance(body, list) else [body]:
                yield "body", "body", part
        if len(self.fields) == int(self.body):
            return
        props = msg.properties
        if "keys" in self.fields:
            for name in ("KEYS", "UNIQ_KEY"):
                if name in props:
                    yield "keys", name, _raw(props[name])
        if "tags" in self.fields and "TAGS" in props:
            yield "tags", "TAGS", _raw(props["TAGS"])
        if "props" in self.fields:
            for name, value in props.items():
                yield "props", "property name", _raw(name)
                yield "props", name, _raw(value)

    def _body(self, msg: Message) -> bytes | Problem | list[Problem | bytes]:
        if not msg.compressed:
            return msg.body
        try:
            data = decompress_body(msg, BODY_LIMIT + 1, prefix=True)
        except CodecMissing as e:
            return Problem(msg.file, msg.position, f"{e.reason}: body not searched", "codec-missing", "warning")
        except StoreError as e:
            return Problem(msg.file, msg.position, f"{e.reason}: body not searched", "body-undecompressable")
        if len(data) > BODY_LIMIT:  # the first BODY_LIMIT bytes are searched, and the answer says so
            return [Problem(msg.file, msg.position, f"the body decompresses to more than {BODY_LIMIT:,} bytes: only "
                            "its first ones were searched", "body-search-cut"), data[:BODY_LIMIT]]
        return data


def _raw(text: str) -> bytes:
    """A property's text as its stored bytes (the engine keeps undecodable bytes as lone surrogates)."""
    return text.encode("utf-8", "surrogateescape")


def _context(data: bytes, s: int, e: int) -> tuple[str, str, str]:
    """The field's text around the match [s, e): up to CONTEXT bytes each side, not cutting a UTF-8 character."""
    a, b = max(0, s - CONTEXT), min(len(data), e + CONTEXT)
    while a > 0 and a < s and 0x80 <= data[a] < 0xC0:  # a continuation byte: start at its character
        a -= 1
    while b < len(data) and b > e and 0x80 <= data[b] < 0xC0:
        b += 1

    def text(x: bytes) -> str:
        return x.decode("utf-8", "surrogateescape")

    return (("…" if a > 0 else "") + text(data[a:s]), text(data[s:e]),
            text(data[e:b]) + ("…" if b < len(data) else ""))
