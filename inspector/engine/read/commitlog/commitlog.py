"""The commitlog as a mapped file queue: segments, message at an offset, iteration with resync (spec §2, §3).

:class:`CommitLog` maps segments and walks them: runs of clean records the fast way (scan.walk,
scan.batch), every other position with the careful step (careful.py), large segments by threads
(parallel.py); the segment files' layout checks are in segment_files.py, the torn-tail detection in
tail.py and the figures of one segment's walk (info, verify) in segment_summary.py.
"""

from __future__ import annotations

import bisect
import functools
import struct
import threading
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path

from inspector.engine.model.bounds import misalignment
from inspector.engine.model.errors import NotFound, StoreError
from inspector.engine.model.records import Blank, Message, Problem, Segment
from inspector.engine.read.commitlog.careful import careful_step
from inspector.engine.read.commitlog.mapped import (
    TAIL_BUDGET,
    MappedFile,
    PageReleaser,
    allocated_end,
    data_end_bounded,
    is_all_zero,
    offset_named_entries,
)
from inspector.engine.read.commitlog.parallel import Vouch, vouched_run
from inspector.engine.read.commitlog.segment_files import entry_kind, infer_segment_size, layout_problems
from inspector.engine.read.commitlog.segment_summary import (
    Item,
    SegmentScan,
    SegmentSummary,
    _flags,
    summarise,
    summary_items,
)
from inspector.engine.read.commitlog.tail import IN_PROGRESS, RecordInProgress, tail_unfinished
from inspector.engine.read.dledger.dledger import header_before, header_fault, read_header, with_entry
from inspector.engine.read.store.retention import expired_reason
from inspector.engine.scan.batch import MessageBatch, decode_batch
from inspector.engine.scan.decode import RecordError, decode_message
from inspector.engine.scan.walk import check_run, walk_boundaries
from parsers import commitlog as cl
from parsers.dledger import ENTRY_HEADER_SIZE

Entry = Message | Blank | Problem


class CommitLog:
    """Read-only view of ``<root>/commitlog``. Segments are mapped lazily and stay mapped until close()."""

    def __init__(self, root: Path, segment_size: int | None = None, directory: str = "commitlog",
                 directories: Sequence[tuple[Path, str]] | None = None, entry_folders: frozenset[str] = frozenset()):
        """``directories``: (path, label) of each folder holding segments when the broker's storePathCommitLog
        names several (``MultiPathMappedFileQueue``): one logical log, its segments merged by name. A label is
        what messages and ``Segment.file`` call the folder (relative to ``root`` when inside it).
        ``entry_folders``: the labels of folders holding DLedger data files (records after 48-byte entry
        headers; a DLedger store is ``commitlog/`` and ``dledger-<id>/data`` as one log, see read/dledger.py)."""
        self.root = root
        self.entry_folders = entry_folders
        folders = list(directories) if directories else [(root / directory, directory)]
        self.folders: list[tuple[Path, str]] = folders
        self.directory = ", ".join(label for _, label in folders)
        self._not_files: list[tuple[str, Path]] = []
        found: dict[int, tuple[str, Path]] = {}
        duplicates: list[Problem] = []
        for folder, label in folders:
            try:
                files, not_files = offset_named_entries(folder)
            except OSError as e:  # an unreadable directory: one line naming it, not a traceback
                raise StoreError(f"cannot list: {e.strerror or e}", label) from None
            self._not_files += [(label, path) for path in not_files]
            for start, path in files:
                if start in found:  # the broker would map both and refuse to start: say so, read the first
                    duplicates.append(Problem(f"{label}/{path.name}", 0, f"a second segment of this name (the "
                                              f"first is in {found[start][0]}): skipped", "duplicate-segment"))
                else:
                    found[start] = (label, path)
        self.segments: list[Segment] = []
        for start, (label, path) in sorted(found.items()):
            try:
                size = path.stat().st_size
            except OSError as e:
                raise StoreError(f"cannot stat: {e.strerror}", f"{label}/{path.name}") from e
            header = ENTRY_HEADER_SIZE if label in entry_folders else 0
            self.segments.append(Segment(path.name, f"{label}/{path.name}", start, size, header))
        self._starts = [s.start_offset for s in self.segments]
        self._positions = {s.start_offset: i for i, s in enumerate(self.segments)}  # segment_index: no list scan
        inferred = infer_segment_size([s.file_size for s in self.segments], self._starts)
        self.segment_size: int = segment_size or inferred or 0
        self.segment_size_inferred = segment_size is None
        self._maps: dict[int, MappedFile] = {}
        self._lock = threading.Lock()  # threads share a CommitLog: one mapping per segment, sorted marks
        self._marks: dict[int, list[int]] = {}  # segment start -> sorted known record starts (sparse)
        self._scans: dict[tuple[int, bool], SegmentScan] = {}  # (segment start, check_crc) -> its walk
        self.problems: list[Problem] = duplicates + layout_problems(self._not_files, self.segments,
                                                                    self.segment_size)
        self._last_data_index = self._find_last_data_index()

    # -- layout -------------------------------------------------------------------------------------------


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
            with self._lock:
                mf = self._maps.get(segment.start_offset)
                if mf is None:
                    mf = MappedFile(self.root / segment.file, segment.file)
                    self._maps[segment.start_offset] = mf
        return mf

    def close(self) -> None:
        with self._lock:
            maps = list(self._maps.values())
            self._maps.clear()
        for mf in maps:
            mf.close()

    @property
    def min_offset(self) -> int:
        return self.segments[0].start_offset if self.segments else 0

    @functools.cached_property
    def retention_floor(self) -> int:
        """The log's first offset as retention left it: the first segment's, or an earlier entry's that is no
        file (below a broken entry nothing is expired: retention deletes whole files, it leaves no directory).
        Computed once: the segment list is fixed when the log is opened (``--follow``'s refresh opens a new
        CommitLog, which computes it again), and verify asks for it once per queue and index file."""
        starts = [int(path.name) for _, path in self._not_files]
        floor = min([self.min_offset, *starts]) if self.segments else 0
        # retention deletes whole segments, so what it leaves starts on the segment grid: a first file named off it
        # (renamed or copied: misaligned-segment) says nothing about what was deleted, and nothing is expired
        return 0 if self.segment_size and misalignment(floor, self.segment_size) else floor

    def segment_for(self, offset: int) -> Segment | None:
        i = bisect.bisect_right(self._starts, offset) - 1
        if i < 0:
            return None
        seg = self.segments[i]
        return seg if offset < seg.start_offset + max(seg.file_size, 1) else None

    def place(self, offset: int) -> tuple[str, int]:
        """(file, offset in it) naming a physical offset in a finding: its segment's, else the log's folder and
        the offset itself (a data file renamed off its offset leaves positions no segment holds)."""
        seg = self.segment_for(offset)
        if seg is None:
            return self.directory, offset
        return seg.file, offset - seg.start_offset

    def no_segment_error(self, offset: int) -> StoreError:
        """Why no segment holds ``offset``: an entry of that name that is no file (a store error), or none."""
        for label, path in self._not_files:
            start = int(path.name)
            if start <= offset < start + max(self.segment_size, 1):
                return StoreError(f"{entry_kind(path)} where a segment file should be",
                                  f"{label}/{path.name}", offset - start)
        if 0 <= offset < self.retention_floor:  # removed by retention, not a typo: its own answer (read/retention.py)
            return NotFound(expired_reason(offset, self.retention_floor), self.directory, offset)
        return NotFound(f"physical offset {offset} is in no commitlog segment", self.directory, offset)

    def data_bytes(self, enough: int | None = None) -> int:
        """About how many bytes of records the log holds: each segment before the last one holding data whole, that
        one up to its last non-zero byte (a preallocated tail, a hole or written out as zeros, is no data), none
        after it; counting stops once past ``enough``. What decides whether a job loads the compiled kernels."""
        total = 0
        last = self._last_data_index
        for i, seg in enumerate(self.segments[: last + 1]):
            if i < last:
                total += seg.file_size
            else:
                try:
                    mf = self.map(seg)
                except StoreError:
                    continue
                allocated = allocated_end(mf.path)
                total += data_end_bounded(mf, 0, mf.size if allocated is None else min(mf.size, allocated))
            if enough is not None and total >= enough:
                break
        return total

    def segment_index(self, segment: Segment) -> int:
        """The position of ``segment`` in :attr:`segments` (a dict lookup: ``list.index`` compares dataclasses one
        by one, which made a walk of 20,000 segments quadratic). ValueError when it is not one of them."""
        i = self._positions.get(segment.start_offset)
        if i is None or self.segments[i] != segment:
            raise ValueError(f"{segment.file} is not a segment of this commitlog")
        return i

    def is_last_data_segment(self, segment: Segment) -> bool:
        return self._last_data_index < 0 or self.segment_index(segment) >= self._last_data_index

    # -- reads ----------------------------------------------------------------------------------------------

    def read(self, offset: int, length: int) -> bytes:
        """Raw bytes at a physical offset (within one segment)."""
        seg = self.segment_for(offset)
        if seg is None:
            raise self.no_segment_error(offset)
        return self.map(seg).read(offset - seg.start_offset, length)

    MARK_EVERY = 1024
    KEEP_RESIDENT = 1 << 16  # bytes before a boundary found that stay mapped: the caller reads around it next
    STEP = 4 << 20  # sequential walks release the pages behind them every STEP bytes (flat resident memory)

    def boundary_before(self, offset: int) -> int:
        """A record start at or before ``offset`` in its segment: the start of the record holding it when the
        bytes before it are sound, else the last sound boundary before the damage (walk on with entries()).

        Walks record headers only (TOTALSIZE, magic, PHYSICALOFFSET) from the nearest remembered boundary and
        remembers every MARK_EVERY-th one, so a jump deep into a 1 GiB segment is paid for once.
        """
        seg = self.segment_for(offset)
        if seg is None:
            raise self.no_segment_error(offset)
        with self._lock:
            marks = self._marks.setdefault(seg.start_offset, [0])
            target = offset - seg.start_offset
            cur = marks[bisect.bisect_right(marks, target) - 1]
        mf = self.map(seg)
        if seg.entry_header:
            found = self._entry_before(seg, mf, marks, cur, target)
            mf.release(cur, found - self.KEEP_RESIDENT)
            return seg.start_offset + found
        walked = 0
        chunk = 1 << 16
        while True:
            starts, end = walk_boundaries(mf.array if mf.size else b"", cur, mf.size,
                                          segment_start=seg.start_offset, stop_at=target, max_records=chunk)
            n = len(starts)
            # remember the start of every MARK_EVERY-th record walked (or the end when that is where it falls)
            with self._lock:  # another thread may be adding marks to this list: keep it sorted, no duplicates
                for k in range(self.MARK_EVERY - walked % self.MARK_EVERY, n + 1, self.MARK_EVERY):
                    mark = int(starts[k]) if k < n else end
                    i = bisect.bisect_left(marks, mark)
                    if i == len(marks) or marks[i] != mark:
                        marks.insert(i, mark)
            walked += n
            # the headers walked need not stay resident: a jump to a 1 GiB segment's end (the TUI's hex view asks
            # for it to fold the zero tail) kept the whole segment in memory (1.2 GB on an 8-segment store)
            mf.release(cur, end - self.KEEP_RESIDENT)
            cur = end
            if n < chunk:
                return seg.start_offset + cur

    def _entry_before(self, seg: Segment, mf: MappedFile, marks: list[int], cur: int, target: int) -> int:
        """boundary_before in a DLedger data file: the start of the entry holding ``target``, else the last sound
        entry boundary before damage (headers only)."""
        walked = 0
        while True:
            header = read_header(mf.buf, cur, mf.size)
            if header is None or header_fault(header, cur, mf.size, seg.start_offset) is not None:
                return cur
            if cur + header.size > target:
                return cur
            cur += header.size
            walked += 1
            if walked % self.MARK_EVERY == 0:
                with self._lock:
                    i = bisect.bisect_left(marks, cur)
                    if i == len(marks) or marks[i] != cur:
                        marks.insert(i, cur)

    def store_timestamp_at(self, offset: int) -> int:
        """STORETIMESTAMP of the record at ``offset`` without decoding the rest (position depends on born host)."""
        head = self.read(offset, 80)
        if len(head) < 64:
            raise StoreError("record header runs past the segment", None, offset)
        sys_flag = struct.unpack_from(">i", head, 36)[0]
        pos = 68 if sys_flag & cl.BORNHOST_V6_FLAG else 56
        if len(head) < pos + 8:
            raise StoreError("record header runs past the segment", None, offset)
        return struct.unpack_from(">q", head, pos)[0]

    def message_at(self, offset: int) -> Message:
        """The message whose record starts at ``offset``; StoreError naming file and offset otherwise."""
        seg = self.segment_for(offset)
        if seg is None:
            raise self.no_segment_error(offset)
        mf = self.map(seg)
        pos = offset - seg.start_offset
        if tail_unfinished(mf.buf, pos, mf.size):  # before decoding: a finished last byte vouches for all before it
            raise RecordInProgress(f"no message here yet: {IN_PROGRESS}", seg.file, pos)
        try:
            msg = decode_message(mf.buf, pos, mf.size, file=seg.file, segment_start=seg.start_offset)
        except RecordError as e:
            raise StoreError(f"no message here: {e.reason}", seg.file, pos) from None
        except Exception as e:  # noqa: BLE001 - nothing raw may leave the engine
            raise StoreError(f"no message here: {e}", seg.file, pos) from None
        header = header_before(mf.buf, pos, mf.size, seg.start_offset) if seg.entry_header else None
        return msg if header is None else with_entry(msg, header)

    def past_the_data(self, offset: int) -> bool:
        """True when ``offset`` is in the last segment holding data and only zeros follow it: the log's end
        offset or beyond (where the broker writes next), not damage. The mapped file's zero scan
        (``mapped.is_all_zero``): holes unread, written zeros in bulk, a scanned tail remembered."""
        seg = self.segment_for(offset)
        if seg is None or not self.is_last_data_segment(seg):
            return False
        try:
            mf = self.map(seg)
        except StoreError:  # no file to look at: the caller's own error stands
            return False
        return is_all_zero(mf.buf, offset - seg.start_offset, mf.size)

    def entries(self, from_offset: int | None = None, *, check_crc: bool = True,
                tail_budget: int | None = None) -> Iterator[Entry]:
        """Messages, BLANKs and Problems in commitlog order from ``from_offset`` (default: the start).

        Damage does not stop the walk: after an unreadable record the scan resyncs
        at the next plausible record (magic, sizes and PHYSICALOFFSET agree) and
        reports the skipped range as a Problem. ``tail_budget``: read the zeros after the log's end only that far
        (careful.careful_step: a ``tail-not-checked`` note, severity "info", ends the walk past it).
        """
        for i, seg, pos in self._walk_from(from_offset):
            yield from self._segment_entries(seg, pos, check_crc, i, tail_budget)

    def batches(self, from_offset: int | None = None, *, check_crc: bool = True,
                batch_size: int = 1 << 15, tail_budget: int | None = None) -> Iterator[MessageBatch | Entry]:
        """:meth:`entries` with the runs of clean records as columnar batches (:meth:`segment_batches` of every
        segment from ``from_offset``): expanding each batch with ``batch.messages()`` gives exactly ``entries()``."""
        for i, seg, pos in self._walk_from(from_offset):
            yield from self._segment_items(seg, pos, check_crc, i, "batches", batch_size=batch_size,
                                           tail_budget=tail_budget)

    def _walk_from(self, from_offset: int | None) -> Iterator[tuple[int, Segment, int]]:
        """(index, segment, start position) of every segment a walk from ``from_offset`` reads, in order."""
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
            start_index = self.segment_index(seg)
            start_pos = from_offset - seg.start_offset
            if seg.entry_header:  # a record offset (pos + 48) or any byte: the entry holding it, or the next
                entry = self.boundary_before(from_offset) - seg.start_offset
                start_pos = entry if start_pos <= entry + seg.entry_header else self._next_entry(seg, entry)
        for i in range(start_index, len(self.segments)):
            yield i, self.segments[i], start_pos if i == start_index else 0

    def _next_entry(self, seg: Segment, entry: int) -> int:
        mf = self.map(seg)
        header = read_header(mf.buf, entry, mf.size)
        return entry + header.size if header is not None and header.size > 0 else entry

    def segment_entries(self, index: int, position: int = 0, *, check_crc: bool = True) -> Iterator[Entry]:
        """Messages, BLANKs and Problems of segment ``index`` only (one segment is one task for bulk jobs)."""
        return self._segment_entries(self.segments[index], position, check_crc, index)

    def _segment_entries(self, seg: Segment, pos: int, check_crc: bool, index: int,
                         tail_budget: int | None = None) -> Iterator[Entry]:
        for item in self._segment_items(seg, pos, check_crc, index, "batches", tail_budget=tail_budget):
            if isinstance(item, MessageBatch):
                yield from item.messages()
            else:
                yield item

    def segment_batches(self, segment: Segment, position: int = 0, *, check_crc: bool = True,
                        batch_size: int = 1 << 15) -> Iterator[MessageBatch | Blank | Problem | Message]:
        """One segment from ``position`` as :meth:`entries` walks it, clean records decoded in columnar batches.

        Yields :class:`~inspector.engine.scan.batch.MessageBatch` (runs of records with nothing to report, at most
   ``batch_size`` each) and, between them, the Messages, Blanks and Problems of every other record,
        in log order: expanding each batch with ``batch.messages()`` gives exactly ``entries()``.
        """
        return self._segment_items(segment, position, check_crc, self.segment_index(segment), "batches",
                                   batch_size=batch_size)

    def _segment_items(self, seg: Segment, pos: int, check_crc: bool, index: int, mode: str, *,
                       batch_size: int = 1 << 15, crc_property: bool = False, stop_at: int | None = None,
                       on_message=None, vouch: Vouch | None = None, tail_budget: int | None = None) -> Iterator[Item]:
        """The walk of one segment: runs of clean records the fast way, every other record the careful way.

        ``mode`` is "batches" (runs as MessageBatch), "runs" (runs as Run figures only) or "tables"
        (each Run followed by its VerifyTable, for verify). The careful
        step (careful.careful_step) decides everything about a record that is not clean, so both modes see
        the same Blanks and Problems as a record-by-record walk. ``on_message`` is called with each Message
        of a careful step and returns extra Problems (verify's __CRC32# check). ``stop_at``: stop at the
        first record boundary at or past it (without the careful step there). ``vouch`` ("tables" mode): the
        compressed records it vouches for stay in the runs (parallel.vouched_run). ``tail_budget``: how far the zeros
        after the last segment's data are read (careful.careful_step; None: all of them).
        """
        try:
            mf = self.map(seg)
        except StoreError as e:
            yield Problem(seg.file, 0, e.reason, "unreadable-file")
            return
        buf, limit = mf.buf, mf.size
        arr = mf.array
        is_last = index >= self._last_data_index
        flags = _flags(check_crc, crc_property)
        # the fast path stops before a record a broker is still writing (it ends past the last non-zero byte)
        fast_limit = bound = limit
        if is_last and limit:
            allocated = allocated_end(mf.path)
            bound = max(pos, limit if allocated is None else min(limit, allocated))
            # a copy's zero tail written out is not read for this (data_end_bounded reads from the data's side)
            fast_limit = data_end_bounded(mf, pos, bound)
            mf.release(fast_limit, limit)  # the scanned zero tail need not stay resident
        end_at = fast_limit if stop_at is None else min(stop_at, fast_limit)
        pages = PageReleaser(mf, pos)
        step = self.STEP
        try:
            while True:
                if pos > fast_limit and fast_limit < bound:  # records past a zero window the bound stopped at
                    fast_limit = data_end_bounded(mf, pos, bound)
                    end_at = fast_limit if stop_at is None else min(stop_at, fast_limit)
                soft = pos + step
                if mode == "runs":
                    run = check_run(arr, pos, fast_limit, segment_start=seg.start_offset, stop_at=end_at,
                                    flags=flags, soft_stop=soft, entry_header=seg.entry_header)
                    if run.count:
                        yield run
                        pos = run.end
                    if soft <= pos < end_at:
                        pages.advance(pos)
                        continue
                elif mode == "tables":
                    run, table, cut = vouched_run(arr, pos, fast_limit, segment_start=seg.start_offset,
                                                  stop_at=end_at, flags=flags, soft_stop=soft, vouch=vouch,
                                                  entry_header=seg.entry_header)
                    if run.count:
                        yield run
                        if table is not None:
                            yield table
                        pos = run.end
                    if cut:
                        pages.advance(pos)
                        continue
                else:
                    batch = decode_batch(arr, pos, fast_limit, segment_start=seg.start_offset, stop_at=end_at,
                                         max_records=batch_size, flags=flags, file=seg.file, soft_stop=soft,
                                         entry_header=seg.entry_header)
                    if len(batch):
                        # a consumer reading the records again later (the JSON encoder, on a thread) releases
                        # them after itself: the walk's own release came before, and pages touched after it
                        # stayed resident (8 GB for an 8 GiB store)
                        batch.release_pages = partial(mf.release, pos, batch.end)
                        yield batch
                        pos = batch.end
                    if batch.cut:
                        pages.advance(pos)
                        continue
                pages.advance(pos)
                if stop_at is not None and pos >= stop_at:
                    return
                found, nxt = careful_step(buf, pos, limit, seg, is_last, check_crc, self.segment_size,
                                          lambda: allocated_end(mf.path), tail_budget)
                for entry in found:
                    yield entry
                    if on_message is not None and isinstance(entry, Message):
                        yield from on_message(entry)
                if nxt is None:
                    return
                pos = nxt
        finally:
            pages.finish(pos)


    def scan_segment(self, segment: Segment, *, check_crc: bool = True, workers: int | None = None) -> SegmentScan:
        """Walk one segment and summarise it (used by info and verify); remembered until close().

        ``workers``: threads walking parts of the segment at once (default: up to 2 when the fast path is
        compiled); the result is the same for any number.
        """
        key = (segment.start_offset, check_crc)
        scan = self._scans.get(key)
        if scan is None:
            # the overview's question: where the log ends, not whether a copy's GiB of zeros after it are all
            # zero (verify's check): they are read only TAIL_BUDGET far (SegmentScan.tail_unchecked says so)
            scan = summarise(self, segment, check_crc=check_crc, workers=workers, tail_budget=TAIL_BUDGET).scan
            self._scans[key] = scan
        return scan

    def summarise_segment(self, segment: Segment, *, check_crc: bool = True, crc_property: bool = False,
                          on_message=None, on_table=None, on_record=None,
                          workers: int | None = None) -> SegmentSummary:
        """The walk of one segment, figures only (segment_summary.summarise): what scan_segment reports, plus the
        largest store timestamp and, with ``crc_property`` / ``on_message`` (verify), the extra Problems; runs
        of clean records as VerifyTables to ``on_table``, and each record outside them to ``on_record``."""
        summary = summarise(self, segment, check_crc=check_crc, crc_property=crc_property, on_message=on_message,
                            on_table=on_table, on_record=on_record, workers=workers)
        self._scans[(segment.start_offset, check_crc)] = summary.scan
        return summary

    def segment_runs(self, segment: Segment, *, check_crc: bool = True, tail_budget: int | None = None,
                     workers: int | None = None) -> Iterator[Item]:
        """One segment as :meth:`segment_batches` walks it, but each run of clean records only as a
        :class:`~inspector.engine.scan.walk.Run` (count, end, its last record's position), nothing decoded; a
        large segment's runs walked by threads (as :meth:`summarise_segment`). For walks that ask only where
        the records end (recovery): a third of the decoding walk's time."""
        return summary_items(self, segment, self.segment_index(segment), check_crc, False, None, workers,
                             tail_budget=tail_budget)

    PARALLEL_MIN_BYTES = 64 << 20  # smaller segments are walked by one thread
    PARALLEL_CHUNK = 16 << 20  # bytes of a segment one thread walks at a time
