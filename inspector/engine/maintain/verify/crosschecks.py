"""verify's cross-checks: what one walk of the commitlog vouches for, marked in bulk (numpy/numba).

While verify walks the commitlog, each table of clean records marks the consume-queue units and index items
that point back at them; verify then checks only the unmarked ones record by record, and the report is the
same as checking everything one by one. Apart from the checks themselves because this is the fast path's
bookkeeping, not a rule of the store format.
"""

from __future__ import annotations

import numpy as np

from inspector.engine.model.errors import StoreError
from inspector.engine.model.systopics import SCHEDULE_TOPIC
from inspector.engine.read.commitlog.mapped import allocated_end
from inspector.engine.read.index.indexfile import IndexFileReader
from inspector.engine.read.queues.consumequeue import ConsumeQueue
from inspector.engine.scan.batch import INTERN_SLOTS
from inspector.engine.scan.verify_kernels import QueueFiles, VerifyTable, index_match, mark_queues
from parsers.consumequeue import CQ_UNIT_SIZE

__all__ = ["CrossChecks"]


class CrossChecks:
    """Marks, during the commitlog walk, the consume-queue units and index items the records vouch for.

    A unit is marked when a clean record names its queue and queue offset and the unit points back at it
    with the record's size and tagsCode (and the record gets units at all); an index item when it points at
    a clean record one of whose index keys has the item's hash and links to an older item. Marked units and
    items have nothing for verify to report (apart from order and log-end checks done afterwards on arrays);
    the others are checked one by one, so the report is the record-by-record one.
    """

    def __init__(self, store):
        self.store = store
        self.queues: dict[tuple[str, int], _QueueMarks] = {}
        for topic, qid in store.queue_ids():
            cq = store.queue(topic, qid)
            if isinstance(cq, ConsumeQueue):
                self.queues[(topic, qid)] = _QueueMarks(cq)
        self.indexes: dict[str, _IndexMarks] = {}
        for reader in store.index_files():
            self.indexes[reader.rel] = _IndexMarks(reader)
        self._topic_ids = {topic: i for i, topic in enumerate(sorted({t for t, _ in self.queues}))}
        self._files, self._lookup = self._queue_files()
        self._rows = 0

    def _queue_files(self) -> tuple[list, QueueFiles]:
        """Every consume-queue file in one QueueFiles (their marks one array, each file's a view of it)."""
        keyed = sorted(((self._topic_ids[topic] << 33) + qid + (1 << 31), marks)
                       for (topic, qid), marks in self.queues.items() if -(1 << 31) <= qid < 1 << 31)
        files = [f for _, marks in keyed for f in marks.files]
        counts = np.array([f[1] for f in files], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        every = np.zeros(int(starts[-1]), dtype=np.uint8)
        i = 0
        for _, marks in keyed:
            for _, count, mf in marks.files:
                marks.by_rel[mf.rel] = every[starts[i] : starts[i] + count]
                i += 1
        return files, QueueFiles(
            keys=np.array([k for k, _ in keyed], dtype=np.int64),
            first_file=np.concatenate([[0], np.cumsum([len(m.files) for _, m in keyed])]).astype(np.int64),
            file_first=np.array([f[0] for f in files], dtype=np.int64), file_count=counts,
            file_address=np.array([f[2].array.ctypes.data if f[1] else 0 for f in files], dtype=np.int64),
            file_mark=starts[:-1].copy(), marks=every, lowest=np.full(len(files), 1 << 62, dtype=np.int64),
            unit=np.zeros(CQ_UNIT_SIZE, dtype=np.uint8))

    RELEASE_ROWS = 1 << 14  # records looked up between releases of the unit pages they faulted in
    RELEASE_FILES = 1024  # ... or files whose pages they faulted in
    SLICE_ROWS = 1 << 10  # each row may fault in 64 KB of another file (fault-around): ~64 MB a slice

    def add(self, table: VerifyTable) -> None:
        if not len(table):
            return
        for marks in self.indexes.values():
            marks.add(table)
        if not self._files:
            return
        # topic codes are per table: name them through this walk's own numbering (-1: no queue of that topic)
        codes = np.full(INTERN_SLOTS, -1, dtype=np.int64)
        for code, name in table.topics.items():
            codes[code] = self._topic_ids.get(name, -1)
        schedule = self._topic_ids.get(SCHEDULE_TOPIC, -1)
        # with many queue files each row may fault in pages of another file: look the rows up in slices and give
        # the pages back once many files were touched (a 16,000-queue store: 600 -> 290 MB peak); with few files
        # the same pages serve every row, and the table goes in one piece
        step = self.SLICE_ROWS if len(self._files) > self.RELEASE_FILES else len(table)
        for start in range(0, len(table), step):
            stop = min(len(table), start + step)
            mark_queues(table, codes, self._lookup, schedule, start, stop)
            self._rows += stop - start
            if self._rows >= self.RELEASE_ROWS or (
                    step < len(table) and np.count_nonzero(self._lookup.lowest < (1 << 62)) >= self.RELEASE_FILES):
                self.flush()

    def flush(self) -> None:
        """Release the pages of the consume-queue files looked at so far: a fault maps a whole large folio (up
        to MBs) around the unit it reads, a few per file would stay resident for the whole walk otherwise."""
        self._rows = 0
        lowest = self._lookup.lowest
        for f in np.flatnonzero(lowest < (1 << 62)).tolist():
            mf = self._files[f][2]
            mf.release(0, mf.size)
        lowest.fill(1 << 62)


class _QueueMarks:
    """Per consume-queue file: which units a record vouched for (``by_rel``: file -> marks, set by CrossChecks)."""

    def __init__(self, cq: ConsumeQueue):
        self.files = []  # (first queue offset, units, mapping)
        self.by_rel: dict[str, np.ndarray] = {}
        for start, _ in cq.files:
            try:
                mf = cq._map(start)
            except StoreError:
                continue
            mf.advise_random()  # the walk looks up one unit per record (check_queue reads them in order later)
            # marks for the units up to the last allocated byte: past it the file is a hole (zeros), no unit a
            # record could match; a 6 MB preallocated file holding a few units gets a few bytes of marks, not
            # 300,000 (numpy backs a large array with huge pages: marks 300 KB apart touched 5 GB on a
            # 16,000-queue store)
            allocated = allocated_end(mf.path)
            units = mf.size // CQ_UNIT_SIZE
            if allocated is not None:
                units = min(units, -(-allocated // CQ_UNIT_SIZE))
            self.files.append((start // CQ_UNIT_SIZE, units, mf))


class _IndexMarks:
    """Per index file: which items a record vouched for, walked in file order against each table."""

    def __init__(self, reader: IndexFileReader):
        self.reader = reader
        self.written = reader.written_items
        self.items_at = 40 + reader.slot_count * 4
        self.ok = np.zeros((self.written + 7) // 8, dtype=np.uint8)  # a bit per item
        self.cursor = 0
        self.stats = np.array([0, 0, 0, -1], dtype=np.int64)  # min/max store time, any, highest item offset

    def add(self, table: VerifyTable) -> None:
        if self.cursor < self.written:
            self.cursor = index_match(self.reader.mf.array, self.items_at, self.cursor, self.written, table,
                                           self.ok, self.stats)
            self.reader.mf.release(self.items_at, self.items_at + self.cursor * 20)
