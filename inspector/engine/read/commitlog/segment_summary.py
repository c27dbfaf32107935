"""One segment walked for its figures (``CommitLog.summarise_segment``: info, verify, the TUI's scans): record
count, data end, BLANK, first/last store time, problems, and for verify the extra per-record findings and the
tables of clean runs; large segments walked by threads (parallel.py).

Functions of a :class:`~inspector.engine.read.commitlog.commitlog.CommitLog` (``log``): they use its mapping, its
record-by-record walk (``_segment_items``) and its thread settings (``PARALLEL_MIN_BYTES``, ``PARALLEL_CHUNK``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Blank, Message, Problem, Segment
from inspector.engine.read.commitlog.careful import TAIL_NOT_CHECKED
from inspector.engine.read.commitlog.mapped import allocated_end, data_end_bounded
from inspector.engine.read.commitlog.parallel import Vouch, default_workers, threaded_runs
from inspector.engine.scan.batch import MessageBatch
from inspector.engine.scan.decode import RecordError, decode_message
from inspector.engine.scan.kernels import numba_enabled
from inspector.engine.scan.record_layout import CHECK_BODY_CRC, CHECK_COMPRESSED, CHECK_CRC_PROPERTY
from inspector.engine.scan.verify_kernels import VerifyTable
from inspector.engine.scan.walk import Run

Item = Message | Blank | Problem | MessageBatch | Run


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
    # the zeros after the log's end were read only so far (a bounded walk: info's overview on a copied store whose
    # zero tail is written out); garbage after them is verify's finding
    tail_unchecked: bool = False

    @property
    def valid_end_offset(self) -> int:
        return self.segment.start_offset + self.data_end


@dataclass(frozen=True)
class SegmentSummary:
    """``CommitLog.summarise_segment``: the SegmentScan, the largest store timestamp, every Problem in order."""

    scan: SegmentScan
    max_store_timestamp: int
    problems: tuple[Problem, ...]


def _flags(check_crc: bool, per_record: bool) -> int:
    """Kernel flags: ``per_record`` (verify) also ends a clean run at a record whose __CRC32# property does not
    match (the kernels check it) or whose body is compressed, for the careful step, where verify's
    ``on_message`` reports it; verify's tables keep the compressed bodies its vouch accepts (vouched_run)."""
    return (CHECK_BODY_CRC if check_crc else 0) | (CHECK_CRC_PROPERTY | CHECK_COMPRESSED if per_record else 0)


def summarise(log, segment: Segment, *, check_crc: bool = True, crc_property: bool = False,
              on_message=None, on_table=None, on_record=None, workers: int | None = None,
              tail_budget: int | None = None) -> SegmentSummary:
    """The walk of one segment, figures only: what scan_segment reports, plus the largest store timestamp
    and, with ``crc_property`` / ``on_message`` (verify), the extra Problems ``on_message`` returns for
    each record that is not clean, in log order among the others. ``on_table`` is called, in log order,
    with a :class:`~inspector.engine.scan.verify_kernels.VerifyTable` of every run of clean records (verify's
    cross-checks); the tables are not kept. ``tail_budget``: see careful.careful_step (the scan's
    ``tail_unchecked`` then says when the zeros after the log's end were not all read).
    """
    index = log.segment_index(segment)
    messages = 0
    data_end = 0
    blank_pos = blank_size = None
    first_ts = last_ts = max_ts = 0
    problems: list[Problem] = []
    every: list[Problem] = []
    extra_ids: set[int] = set()

    def extras(msg: Message) -> Iterator[Problem]:
        for p in on_message(msg):
            extra_ids.add(id(p))
            yield p

    vouch = _vouch(log, segment, on_message) if on_message is not None and on_table is not None else None
    unchecked = False
    for item in summary_items(log, segment, index, check_crc, crc_property,
                                    extras if on_message is not None else None, workers, on_table is not None,
                                    vouch, tail_budget):
        if isinstance(item, Run):
            messages += item.count
            data_end = item.end
            if not first_ts:
                first_ts = item.first_store_timestamp
            last_ts = item.last_store_timestamp
            max_ts = max(max_ts, item.max_store_timestamp)
        elif isinstance(item, VerifyTable):
            on_table(item)
        elif isinstance(item, Message):
            if on_record is not None:  # a record outside every table (the careful step's), in log order
                on_record(item)
            messages += 1
            data_end = item.position + item.total_size
            if not first_ts:
                first_ts = item.store_timestamp
            last_ts = item.store_timestamp
            max_ts = max(max_ts, item.store_timestamp)
        elif isinstance(item, Blank):
            blank_pos, blank_size = item.position, item.total_size
            data_end = item.position
        elif item.code == TAIL_NOT_CHECKED:  # a note on the walk, no finding about the store
            unchecked = True
        else:
            every.append(item)
            if id(item) not in extra_ids:
                problems.append(item)
    preallocated = index > log._last_data_index and messages == 0 and not problems
    scan = SegmentScan(segment, messages, data_end, blank_pos, blank_size, first_ts, last_ts, tuple(problems),
                       preallocated, unchecked)
    return SegmentSummary(scan, max_ts, tuple(every))

def _vouch(log, seg: Segment, on_message) -> Vouch:
    """A clean record at a position of ``seg`` -> True when ``on_message`` (verify's own checks of a record:
    a compressed body must decompress) finds nothing in it."""

    def vouch(pos: int) -> bool:
        mf = log.map(seg)
        try:
            msg = decode_message(mf.buf, pos, mf.size, file=seg.file, segment_start=seg.start_offset)
        except RecordError:
            return False
        return not on_message(msg)

    return vouch


def _walk_bytes(log, seg: Segment, index: int) -> int:
    """About how many bytes a walk of the segment reads: the active segment of a broker is preallocated, a
    hole past its data (a 1 GiB file holding a few MiB is not worth threads, nor loading the kernels); any
    segment's hole holds no record (one sparse-extended to a TiB is no TiB to split between threads)."""
    if seg.file_size < log.PARALLEL_MIN_BYTES:
        return seg.file_size
    allocated = allocated_end(log.root / seg.file)
    size = seg.file_size if allocated is None else min(seg.file_size, allocated)
    if index < log._last_data_index:
        return size
    try:  # the active segment up to its last non-zero byte: a copy's zero tail written out is no data either
        return data_end_bounded(log.map(seg), 0, size)  # (a zero tail written out: not read)
    except StoreError:
        return size

def summary_items(log, seg: Segment, index: int, check_crc: bool, crc_property: bool, on_message,
                   workers: int | None, tables: bool = False, vouch: Vouch | None = None,
                   tail_budget: int | None = None) -> Iterator[Item | VerifyTable]:
    """_segment_items in "runs" (or "tables") mode, the clean runs of large segments walked by threads."""
    mode = "tables" if tables else "runs"
    workers = default_workers() if workers is None else max(1, workers)
    if workers < 2 or _walk_bytes(log, seg, index) < log.PARALLEL_MIN_BYTES or not numba_enabled():
        yield from log._segment_items(seg, 0, check_crc, index, mode, crc_property=crc_property,
                                       on_message=on_message, vouch=vouch, tail_budget=tail_budget)
        return
    try:
        mf = log.map(seg)
    except StoreError:
        yield from log._segment_items(seg, 0, check_crc, index, mode, tail_budget=tail_budget)
        return
    allocated = allocated_end(mf.path)  # past it a hole: zeros, no record for the threads (the careful walk goes on)
    limit = mf.size if allocated is None else min(mf.size, allocated)
    if index >= log._last_data_index:  # threads stop before a record still being written
        limit = data_end_bounded(mf, 0, limit)
    flags = _flags(check_crc, crc_property)
    pos = yield from threaded_runs(mf, limit, seg.start_offset, flags, tables, workers, log.PARALLEL_CHUNK,
                                   log.STEP, vouch, seg.entry_header)
    # the rest (the end of the segment, or damage) record by record from where the runs left off
    yield from log._segment_items(seg, pos, check_crc, index, mode, crc_property=crc_property,
                                   on_message=on_message, vouch=vouch, tail_budget=tail_budget)
