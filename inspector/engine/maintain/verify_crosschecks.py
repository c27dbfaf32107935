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
from inspector.engine.read.consumequeue import UNIT_DTYPE, ConsumeQueue
from inspector.engine.read.indexfile import IndexFileReader
from inspector.engine.scan.batch import INTERN_SLOTS
from inspector.engine.scan.verify_kernels import (
    INFO_DELAY,
    INFO_TAGS,
    INFO_UNITS,
    VERIFY_COLUMNS,
    VerifyTable,
    index_match,
    mark_units,
)
from parsers.consumequeue import CQ_UNIT_SIZE

__all__ = ["CrossChecks"]

VERIFY_PHY, VERIFY_SIZE, VERIFY_QID, VERIFY_QOFF, VERIFY_TAGS, VERIFY_TOPIC, VERIFY_INFO = (
    VERIFY_COLUMNS.index(n) for n in ("physical_offset", "total_size", "queue_id", "queue_offset", "tags_code",
                                           "topic", "info"))


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
        self._topic_ids: dict[str, int] = {}
        self._pending: list[tuple] = []
        self._rows = 0

    FLUSH_ROWS = 1 << 16  # records gathered before their units are looked up (numpy works in bulk)

    def add(self, table: VerifyTable) -> None:
        if not len(table):
            return
        for marks in self.indexes.values():
            marks.add(table)
        info = table.column("info")
        rows = np.flatnonzero(((info & INFO_UNITS) != 0) & ((info & INFO_TAGS) != 0))
        if not rows.size:
            return
        # topic codes are per table: name them through this walk's own numbering
        codes = np.full(INTERN_SLOTS, -1, dtype=np.int64)
        for code, name in table.topics.items():
            codes[code] = self._topic_ids.setdefault(name, len(self._topic_ids))
        picked = table.table[:, rows]
        topic_ids = codes[picked[VERIFY_TOPIC]]
        delayed = (picked[VERIFY_INFO] & INFO_DELAY) != 0
        self._pending.append((topic_ids, picked[VERIFY_QID], picked[VERIFY_QOFF], picked[VERIFY_PHY],
                              picked[VERIFY_SIZE], picked[VERIFY_TAGS], delayed))
        self._rows += rows.size
        if self._rows >= self.FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        """Look up the units of the records gathered so far and mark those that point back at them."""
        if not self._pending:
            return
        topic_ids, qids, qoffs, phys, sizes, tags, delayed = (np.concatenate(c) for c in zip(*self._pending,
                                                                                            strict=True))
        self._pending.clear()
        self._rows = 0
        names = {v: k for k, v in self._topic_ids.items()}
        group = topic_ids * (1 << 33) + (qids + (1 << 31))
        order = np.argsort(group, kind="stable")
        sorted_group = group[order]
        starts = np.flatnonzero(np.concatenate([[True], sorted_group[1:] != sorted_group[:-1]]))
        bounds = [*starts.tolist(), order.size]
        for g, first in enumerate(starts.tolist()):
            key = int(sorted_group[first])
            topic = names[key >> 33]
            qid = (key & ((1 << 33) - 1)) - (1 << 31)
            marks = self.queues.get((topic, qid))
            if marks is None:
                continue
            sel = order[bounds[g] : bounds[g + 1]]
            if topic == SCHEDULE_TOPIC:
                sel = sel[~delayed[sel]]  # tagsCode is a delivery time: one by one
            marks.add(qoffs[sel], phys[sel], sizes[sel], tags[sel])


class _QueueMarks:
    """Per consume-queue file: which units a record vouched for."""

    def __init__(self, cq: ConsumeQueue):
        self.files = []  # (first queue offset, units view, marks)
        self.by_rel: dict[str, np.ndarray] = {}
        for start, _ in cq.files:
            try:
                mf = cq._map(start)
            except StoreError:
                continue
            count = mf.size // CQ_UNIT_SIZE
            units = np.frombuffer(mf.buf, dtype=UNIT_DTYPE, count=count) if count else np.zeros(0, UNIT_DTYPE)
            marks = np.zeros(count, dtype=np.uint8)
            self.files.append((start // CQ_UNIT_SIZE, units, marks, mf))
            self.by_rel[mf.rel] = marks
        self.first_q = np.array([f[0] for f in self.files], dtype=np.int64)

    def add(self, qoffs: np.ndarray, phys: np.ndarray, sizes: np.ndarray, tags: np.ndarray) -> None:
        """Mark the units at these queue offsets that point at these records (offset, size, tagsCode)."""
        if not self.files or not qoffs.size:
            return
        if len(self.files) == 1:
            parts = [(0, slice(None))]
        else:
            which = np.searchsorted(self.first_q, qoffs, side="right") - 1
            parts = [(f, which == f) for f in np.unique(which).tolist() if f >= 0]
        for f, here in parts:
            first_q, units, marks, mf = self.files[f]
            lowest = mark_units(mf.array, first_q, qoffs[here], phys[here], sizes[here], tags[here], marks)
            mf.release(0, lowest * CQ_UNIT_SIZE)  # units are met in queue order: drop what is behind


class _IndexMarks:
    """Per index file: which items a record vouched for, walked in file order against each table."""

    def __init__(self, reader: IndexFileReader):
        self.reader = reader
        self.written = reader.written_items
        self.items_at = 40 + reader.slot_count * 4
        self.ok = np.zeros((self.written + 7) // 8, dtype=np.uint8)  # a bit per item
        self.cursor = 0
        self.stats = np.zeros(3, dtype=np.int64)

    def add(self, table: VerifyTable) -> None:
        if self.cursor < self.written:
            self.cursor = index_match(self.reader.mf.array, self.items_at, self.cursor, self.written, table,
                                           self.ok, self.stats)
            self.reader.mf.release(self.items_at, self.items_at + self.cursor * 20)
