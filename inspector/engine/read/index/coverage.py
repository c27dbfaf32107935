"""Which part of the commitlog the index files cover, and a fast scan of the part none covers.

The broker indexes each record after dispatch (``IndexService.buildIndex``: the UNIQ_KEY and every KEYS piece of
a record that is no transaction ROLLBACK), file after file, so the files' ranges follow one another along the
log. A range no file covers is either not indexed yet (the broker indexes asynchronously), or its file is gone:
an abnormal start deletes index files whose end timestamp is past the checkpoint's index time
(``IndexService.load``, apache/rocketmq#8007, #3868), and ``messageIndexEnable=false`` never builds any. A key
lookup over such a range would say "not found" while the record is there: it scans the range instead.

Cost: the headers (begin/end phy offset), plus, for a file whose header range is wrong, its items' phy offsets
read as one strided numpy column (never a Python loop over 20 M items); the edges of each gap are found by
reading the records from the last covered one until the first the broker would have indexed (bulk batches,
only the records holding a key name decoded).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from inspector.engine.model.budget import Budget
from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message, Problem
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.index.indexfile import IndexFileReader
from inspector.engine.scan.batch import MessageBatch
from parsers.commitlog import TRANSACTION_ROLLBACK_TYPE, transaction_type
from parsers.indexfile import INDEX_ITEM_SIZE, item_position
from parsers.java import index_key, index_key_hash


@dataclass(frozen=True)
class IndexSpan:
    """The commitlog range one index file covers: the first and last physical offset its items point at (None:
    it covers nothing, a file without items); ``how``: "header" or "items" (the header's range was wrong)."""

    file: str
    first: int | None
    last: int | None
    how: str
    cut: bool = False  # the last record's keys go on in the next file (it filled up mid-record)


@dataclass(frozen=True)
class Uncovered:
    """[start, stop) of the log that no index file covers and that holds a record the broker would index;
    ``after``/``before``: the index files on either side (None at the log's edges)."""

    start: int
    stop: int
    after: str | None
    before: str | None

    @property
    def text(self) -> str:
        """``48,488..65,535``: the first and last byte, as every view writes it."""
        return f"{self.start:,}..{self.stop - 1:,}"


def indexable(msg: Message) -> bool:
    """Whether ``IndexService.buildIndex`` puts ``msg`` in an index file: not a ROLLBACK, and a key to index."""
    return transaction_type(msg.sys_flag) != TRANSACTION_ROLLBACK_TYPE and bool(msg.unique_key or msg.keys)


def item_span(reader: IndexFileReader) -> tuple[int, int] | None:
    """(min, max) physical offset of ``reader``'s written items, read as one strided column; None without items."""
    n = reader.written_items
    if n <= 0:
        return None
    pos = item_position(1, reader.slot_count) + 4  # the phy offset follows the 4-byte key hash
    column = np.ndarray((n,), dtype=">i8", buffer=reader.mf.buf, offset=pos, strides=(INDEX_ITEM_SIZE,))
    return int(column.min()), int(column.max())


def index_spans(log: CommitLog, readers: list[IndexFileReader], range_wrong: Callable[[IndexFileReader], bool],
                untrusted: dict[str, tuple[int, int]]) -> list[IndexSpan]:
    """Each file's span: its header's begin/end phy offsets, its items' when ``range_wrong`` says the header is
    not what the broker wrote; a file whose counters cannot be trusted spans the range ``untrusted`` gives it
    (lookups scan that range already). ``cut``: read from the last item and its record in ``log``."""
    spans = []
    for r in readers:
        if r.rel in untrusted:
            first, last = untrusted[r.rel]
            spans.append(IndexSpan(r.rel, first, last, "scanned"))
        elif r.written_items <= 0:
            spans.append(IndexSpan(r.rel, None, None, "header"))
        elif range_wrong(r):
            low, high = item_span(r) or (None, None)
            spans.append(IndexSpan(r.rel, low, high, "items", _cut(log, r)))
        else:
            spans.append(IndexSpan(r.rel, r.header.begin_phy_offset, r.header.end_phy_offset, "header", _cut(log, r)))
    return spans


def _cut(log: CommitLog, reader: IndexFileReader) -> bool:
    """Whether the file's last item is not its record's last key: ``buildIndex`` puts the UNIQ_KEY, then each KEYS
    piece, and a file that fills up in between leaves the rest to the next file (which then begins at that
    record). Without that next file the rest of the record's keys are in no index."""
    item = reader.item(reader.written_items)
    if item is None:
        return False
    try:
        msg = log.message_at(item.phy_offset)
    except StoreError:
        return False
    keys = [k for k in msg.keys if k]
    last = keys[-1] if keys else msg.unique_key
    return last is not None and item.key_hash != index_key_hash(index_key(msg.topic, last))


def uncovered_ranges(log: CommitLog, spans: list[IndexSpan], log_start: int,
                     log_end: Callable[[], int]) -> list[Uncovered]:
    """The ranges of [log_start, log_end()) no span covers, each starting at the first record the broker would
    have indexed (a keyless record after the last indexed one is no gap); ranges without one are left out.
    ``log_end`` is asked only when the tail holds such a record (it may cost a walk of the last segment)."""
    found = []
    cursor, after = log_start, None
    for span in sorted((s for s in spans if s.first is not None), key=lambda s: s.first or 0):
        assert span.first is not None and span.last is not None
        if span.first > cursor:
            gap = _first_indexable(log, cursor, span.first)
            if gap is not None:
                found.append(Uncovered(gap, span.first, after, span.file))
        end = span.last if span.cut else _after_record(log, span.last)  # a cut record: its other keys are not here
        cursor, after = max(cursor, end), span.file
    # the tail: records after the last indexed one, if any (only zeros after it: nothing to walk, no careful step
    # at the log's end, which verify's walk takes once itself)
    gap = None if log.past_the_data(cursor) else _first_indexable(log, cursor, 1 << 63)
    if gap is not None and gap < log_end():
        found.append(Uncovered(gap, log_end(), after, None))
    return found


def _after_record(log: CommitLog, offset: int) -> int:
    """Where the record at ``offset`` ends (``offset + 1`` when none is readable there)."""
    try:
        return offset + log.message_at(offset).total_size
    except StoreError:
        return offset + 1


def _first_indexable(log: CommitLog, start: int, stop: int) -> int | None:
    """The offset of the first record in [start, stop) the broker would index; None when there is none.

    Read with the bulk batches: each batch's bytes are searched once for ``KEY`` (every KEYS and UNIQ_KEY
    property name holds it) and only the records holding it are decoded, so a long run of keyless records
    (a tail past the newest index file, a topic sent without keys) costs no Python per record."""
    for item in _items_from(log, start):
        if isinstance(item, MessageBatch):
            if not len(item):
                continue
            if int(item.physical_offsets[0]) >= stop:
                return None
            seg = log.segment_for(item.segment_start)
            mapped = log.map(seg).buf if seg is not None else item.buf.tobytes()
            for i in _rows_holding(item, mapped, _KEY_NAMES, start, stop):
                msg = item.message(i)
                if indexable(msg):
                    return msg.physical_offset
        elif isinstance(item, Message):
            if item.physical_offset >= stop:
                return None
            if item.physical_offset >= start and indexable(item):
                return item.physical_offset
    return None


_KEY_NAMES = b"KEY"  # in both property names IndexService.buildIndex reads (KEYS, UNIQ_KEY): a prefilter


def _items_from(log: CommitLog, start: int) -> Iterator[MessageBatch | Message | Problem]:
    """``log.batches`` from ``start`` (normally a record start, a BLANK's or the log's end); when the walk from
    there does not begin with a record, from the record holding ``start`` (damage is verify's to report)."""
    first = True
    for item in log.batches(start, check_crc=False):
        if first and isinstance(item, Problem) and item.severity == "error" and not log.past_the_data(start):
            seg = log.segment_for(start)
            yield from log.batches(log.boundary_before(start) if seg is not None else start, check_crc=False)
            return
        first = False
        yield item


@dataclass
class ScanLimits:
    """What a caller asking a lookup through the Store's usual verbs (``Store.scan_limits``: the CLI's ``key`` and
    ``show``) gives the scans of the log no index file covers: a time ``budget``, a ``progress`` callback (bytes
    scanned, bytes to scan) called between batches; ``stopped`` says why a scan stopped short (None: whole)."""

    budget: Budget | None = None
    progress: Callable[[int, int], None] | None = None
    stopped: str | None = None


def scan_range(log: CommitLog, topic: str | None, key: str, begin: int, end: int, start: int,
               stop: int, budget: Budget | None = None,
               at: Callable[[int], None] | None = None) -> Iterator[Message]:
    """Messages of ``topic`` (None: any) with ``key`` (a KEYS piece or the UNIQ_KEY) stored in [begin, end] (ms)
    whose record starts in [start, stop), read with the bulk kernels: each columnar batch's bytes are searched
    for the key once, and only the records holding it are decoded. Once ``budget`` runs out the scan stops
    between batches and raises ``BudgetExceeded`` naming the offset it reached. ``at``: told each batch's first
    offset (a progress bar)."""
    needle = key.encode("utf-8", "surrogateescape")
    if not needle:
        return
    for item in log.batches(start, check_crc=False):
        if isinstance(item, MessageBatch):
            if not len(item):
                continue
            offsets = item.physical_offsets
            if int(offsets[0]) >= stop:
                return
            if at is not None:
                at(int(offsets[0]))
            if budget is not None:
                budget.check(f"scanning {start:,}..{stop - 1:,} up to {int(offsets[0]):,}")
            seg = log.segment_for(item.segment_start)
            mapped = log.map(seg).buf if seg is not None else item.buf.tobytes()
            for i in _rows_holding(item, mapped, needle, start, stop):
                msg = item.message(i)
                if _matches(msg, topic, key, begin, end):
                    yield msg
        elif isinstance(item, Message):
            if item.physical_offset >= stop:
                return
            if item.physical_offset >= start and _matches(item, topic, key, begin, end):
                yield item


def _rows_holding(batch: MessageBatch, mapped, needle: bytes, start: int, stop: int) -> list[int]:
    """Rows of ``batch`` in [start, stop) whose properties hold ``needle`` (a prefilter: the caller checks).
    ``mapped``: the batch's file (its mmap: searched in place, nothing copied)."""
    pos = batch.column("properties_position")
    length = batch.column("properties_length")
    offsets = batch.physical_offsets
    lo = int(np.searchsorted(offsets, start, "left"))
    hi = int(np.searchsorted(offsets, stop, "left"))
    if lo >= hi:
        return []
    a, b = int(batch.column("position")[lo]), int(pos[hi - 1] + length[hi - 1])
    rows: list[int] = []
    at = mapped.find(needle, a, b)
    positions = batch.column("position")
    while at >= 0:
        row = int(np.searchsorted(positions, at, "right")) - 1
        if lo <= row < hi and pos[row] <= at < pos[row] + length[row]:
            rows.append(row)
            at = mapped.find(needle, int(pos[row] + length[row]), b)  # one hit per record is enough
        else:
            at = mapped.find(needle, at + 1, b)
    return rows


def _matches(msg: Message, topic: str | None, key: str, begin: int, end: int) -> bool:
    return ((topic is None or msg.topic == topic) and begin <= msg.store_timestamp <= end
            and (key == msg.unique_key or key in msg.keys))
