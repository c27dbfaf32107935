"""verify's record-side queue check: every record the broker dispatches to a queue (transaction type NOT_TYPE
or COMMIT, spec §4.3) must find its queue, and its QUEUEOFFSET below that queue's end.

The unit-side checks (verify/queues.py) only look at the units that are there: a deleted queue folder, a
consume-queue file cut short or a RocksDB consume queue that lost its bounds left verify with nothing to say,
while a consumer of that queue sees nothing (and the broker, at its next start, numbers new messages of the
queue from its consume queue's end again). Here the commitlog walk counts, per queue, the records past the
queue's end (or with no queue at all), and :meth:`QueueCoverage.problems` says what the broker makes of them:

* no queue at all (``cq-missing``, an error): the topic is configured in ``topics.json`` (or no config says);
  a warning when ``topics.json`` does not list the topic (``mqadmin deleteTopic`` removes the config and the
  consume queues, not the records); a store with no consume queue of any kind gets one warning;
* QUEUEOFFSET at or past the queue's end (``cq-behind``): an error when the broker already flushed its queues
  past the record (STORETIMESTAMP at or before the checkpoint's ``logicsMsgTimestamp``; for a RocksDB consume
  queue, the record's offset below its dispatch checkpoint); otherwise a warning: a broker that stopped before
  dispatching the record dispatches it when it starts again.

A queue offset below the queue's first unit is fine: consume-queue files are deleted with the commitlog.

A multi-dispatched record (LMQ, ``INNER_MULTI_DISPATCH``) is held to each queue it names as to its own: its unit
there at its ``INNER_MULTI_QUEUE_OFFSET`` offset (:meth:`QueueCoverage.add_multi_dispatch`, fed by verify.lmq's
search for such records). An ``%LMQ%`` queue is in no ``topics.json``: one gone is an error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from inspector.engine.model.meaning import gets_queue_unit
from inspector.engine.model.multidispatch import (
    INNER_MULTI_DISPATCH,
    INNER_MULTI_QUEUE_OFFSET,
    MultiDispatchError,
    is_lmq,
    lmq_targets,
)
from inspector.engine.model.records import Message, Problem
from inspector.engine.scan.kernels import numba_enabled
from inspector.engine.scan.verify_kernels import INFO_MULTI, INFO_UNITS, VerifyTable

__all__ = ["QueueCoverage", "queue_ends"]

_FLAT_QUEUES = 4096  # queue ids below this are looked up in one array


@dataclass
class _Uncovered:
    """The records of one queue that its consume queue does not cover."""

    count: int = 0
    first_offset: int = 1 << 63  # physical offset of the first (log order) and its queue offset
    first_queue_offset: int = 0
    low: int = 1 << 63  # queue offsets, lowest and highest
    high: int = -1
    newest_ts: int = 0  # the latest STORETIMESTAMP among them
    oldest_ts: int = 1 << 63


class QueueCoverage:
    """Fed the walk's tables and its one-by-one records (:meth:`add_table`, :meth:`add_message`), in any order."""

    def __init__(self, store, ends: dict[tuple[str, int], int] | None = None) -> None:
        self.store = store
        self.ends = queue_ends(store) if ends is None else ends  # (topic, queue) -> max queue offset (exclusive)
        self.uncovered: dict[tuple[str, int], _Uncovered] = {}
        self.multi_dispatched: set[tuple[str, int]] = set()  # uncovered queues that records multi-dispatch to
        # a record walked holds INNER_MULTI_DISPATCH (the walk's own property parse: no extra pass): verify_lmq
        # searches the log for such records even in a store with no other sign of LMQ (its only %LMQ% queue
        # folder deleted, no lmq offsets file, no broker.conf)
        self.saw_multi_dispatch = False
        # the ends as one flat array, topic number * width + queue id (a table's rows looked up at once;
        # -1: no such queue); queue ids past _FLAT_QUEUES are looked up one by one
        topics = sorted({t for t, _ in self.ends})
        self._topic_number = {t: i for i, t in enumerate(topics)}
        self._width = min(_FLAT_QUEUES, max((q for _, q in self.ends), default=0) + 1)
        self._flat = np.full(len(topics) * self._width + 1, -1, dtype=np.int64)
        for (topic, qid), end in self.ends.items():
            if 0 <= qid < self._width:
                self._flat[self._topic_number[topic] * self._width + qid] = end

    def add_table(self, table: VerifyTable) -> None:
        """The table's dispatched rows against their queues' ends, as arrays: only the rows past an end (none
        on a sound store) are looked at one queue at a time."""
        if not len(table):
            return
        info = table.column("info")
        if not self.saw_multi_dispatch and (info & INFO_MULTI).any():
            self.saw_multi_dispatch = True
        topics, queues = table.column("topic"), table.column("queue_id")
        qoffs = table.column("queue_offset")
        top = max(table.topics, default=0)
        numbers = np.full(top + 1, -1, dtype=np.int64)  # the table's topic codes -> this store's topic numbers
        for code, name in table.topics.items():
            numbers[code] = self._topic_number.get(name, -1)
        known = (topics >= 0) & (topics <= top)
        number = np.where(known, numbers[np.where(known, topics, 0)], -1)
        flat = (number >= 0) & (queues >= 0) & (queues < self._width)
        at = np.where(flat, number * self._width + np.where(flat, queues, 0), len(self._flat) - 1)
        ends = self._flat[at]  # -1 (the last slot) for a queue not in the flat array
        past = ((info & INFO_UNITS) != 0) & (qoffs >= ends)
        if not past.any():
            return
        rows = np.flatnonzero(past)
        keys = topics[rows] * (1 << 32) + (queues[rows] & 0xFFFFFFFF)
        offsets, stamps = table.column("physical_offset"), table.column("store_timestamp")
        for key in np.unique(keys).tolist():
            topic = table.topics.get(key >> 32)
            qid = int(np.int32(np.uint32(key & 0xFFFFFFFF)))
            mine = rows[keys == key]
            end = self.ends.get((topic, qid)) if topic is not None else None
            if end is not None:  # a queue id past the flat array: its real end
                mine = mine[qoffs[mine] >= end]
            if topic is not None and len(mine):
                self._note(topic, qid, offsets[mine], qoffs[mine], stamps[mine])

    def add_segment(self, store, segment, on_message, on_table=None, workers: int = 1):
        """Walk one segment as verify does and feed it here: the tables of clean runs, the careful step's records
        one by one; returns the walk's SegmentSummary. ``on_message``: verify's checks of a record outside the
        tables; ``on_table``: also given every table. Without the compiled kernels the walk tables nothing: the
        segment's records are then read one by one."""
        compiled = numba_enabled()

        def table(t: VerifyTable) -> None:
            self.add_table(t)
            if on_table is not None:
                on_table(t)

        summary = store.commitlog.summarise_segment(
            segment, check_crc=True, crc_property=True, on_message=on_message, on_table=table,
            on_record=self.add_message if compiled else None, workers=workers)
        if not compiled and summary.scan.messages:  # a segment without records (an empty file) has none to add
            for entry in store.commitlog.segment_entries(store.commitlog.segment_index(segment), check_crc=False):
                if isinstance(entry, Message):
                    self.add_message(entry)
        return summary

    def merge(self, uncovered: dict[tuple[str, int], _Uncovered]) -> None:
        """Add another walk's share (``uncovered`` of a QueueCoverage that walked other segments)."""
        for key, other in uncovered.items():
            if is_lmq(key[0]):
                self.multi_dispatched.add(key)  # only multi-dispatch names an %LMQ% queue
            u = self.uncovered.setdefault(key, _Uncovered())
            u.count += other.count
            if other.first_offset < u.first_offset:
                u.first_offset, u.first_queue_offset = other.first_offset, other.first_queue_offset
            u.low, u.high = min(u.low, other.low), max(u.high, other.high)
            u.newest_ts, u.oldest_ts = max(u.newest_ts, other.newest_ts), min(u.oldest_ts, other.oldest_ts)

    def add_message(self, msg: Message) -> None:
        if INNER_MULTI_DISPATCH in msg.properties:
            self.saw_multi_dispatch = True
        if not gets_queue_unit(msg.transaction):
            return
        end = self.ends.get((msg.topic, msg.queue_id))
        if end is None or msg.queue_offset >= end:
            self._note(msg.topic, msg.queue_id, np.array([msg.physical_offset]), np.array([msg.queue_offset]),
                       np.array([msg.store_timestamp]))

    def add_multi_dispatch(self, msg: Message) -> None:
        """The queues a record is multi-dispatched to besides its own (``INNER_MULTI_DISPATCH``, at the offsets
        of ``INNER_MULTI_QUEUE_OFFSET``: ``ConsumeQueue.multiDispatchLmqQueue``), each held to its queue's end as
        the record's own queue is. Properties the broker cannot dispatch are verify.lmq's findings."""
        if not gets_queue_unit(msg.transaction):
            return  # multiDispatchLmqQueue runs after the record's own unit: none, no LMQ units either
        try:
            targets = lmq_targets(msg.topic, msg.queue_id, msg.properties)
        except MultiDispatchError:
            return
        for t in targets:
            end = self.ends.get((t.queue, t.queue_id))
            if end is None or t.queue_offset >= end:
                self.multi_dispatched.add((t.queue, t.queue_id))
                self._note(t.queue, t.queue_id, np.array([msg.physical_offset]), np.array([t.queue_offset]),
                           np.array([msg.store_timestamp]))

    def _note(self, topic: str, qid: int, offsets: np.ndarray, qoffs: np.ndarray, stamps: np.ndarray) -> None:
        u = self.uncovered.setdefault((topic, qid), _Uncovered())
        u.count += len(offsets)
        i = int(np.argmin(offsets))
        if int(offsets[i]) < u.first_offset:
            u.first_offset, u.first_queue_offset = int(offsets[i]), int(qoffs[i])
        u.low, u.high = min(u.low, int(qoffs.min())), max(u.high, int(qoffs.max()))
        u.newest_ts, u.oldest_ts = max(u.newest_ts, int(stamps.max())), min(u.oldest_ts, int(stamps.min()))

    def problems(self) -> list[Problem]:
        if not self.uncovered:
            return []
        store = self.store
        if not self.ends and store.rocksdb_cq is None:  # no consume queue of any kind: commitlog/ alone
            total = sum(u.count for u in self.uncovered.values())
            first = min(self.uncovered.values(), key=lambda u: u.first_offset)
            return [self._problem(first, f"no consume queue in this store: the units of {total:,} record(s) of "
                                  f"{len(self.uncovered):,} queue(s) were not checked", "cq-missing", "warning")]
        configured = _configured_topics(store)
        flushed_ts, dispatched_to = _flushed(store)
        found = []
        for (topic, qid), u in sorted(self.uncovered.items()):
            which = f"{u.count:,} record(s) of {topic} queue {qid} (queue offsets {u.low}..{u.high})"
            lmq = (topic, qid) in self.multi_dispatched
            if lmq:
                which = (f"{u.count:,} record(s) multi-dispatched to {topic} queue {qid} ({INNER_MULTI_DISPATCH}; "
                         f"{INNER_MULTI_QUEUE_OFFSET} {u.low}..{u.high})")
            if (topic, qid) not in self.ends:
                if configured is not None and topic not in configured and not lmq:
                    found.append(self._problem(u, f"{which} have no consume queue, and topics.json does not list "
                                               "the topic (deleted? mqadmin deleteTopic removes the queues, not "
                                               "the records)", "cq-missing", "warning"))
                else:
                    found.append(self._problem(u, f"{which} have no consume queue: a consumer of the queue gets "
                                               "none of them", "cq-missing", "error"))
                continue
            end = self.ends[(topic, qid)]
            if dispatched_to is not None:
                behind = u.first_offset < dispatched_to
            else:
                behind = flushed_ts is not None and u.oldest_ts <= flushed_ts
            if behind:
                found.append(self._problem(u, f"{which} are at or past the queue's end ({end}), though the broker "
                                           "flushed its queues past them (checkpoint): their units are missing",
                                           "cq-behind", "error"))
            else:
                found.append(self._problem(u, f"{which} are at or past the queue's end ({end}): not dispatched "
                                           "yet (the broker dispatches them when it starts)", "cq-behind",
                                           "warning"))
        return found

    def _problem(self, u: _Uncovered, reason: str, code: str, severity: str) -> Problem:
        return Problem(*self.store.commitlog.place(u.first_offset), reason, code, severity)


def queue_ends(store) -> dict[tuple[str, int], int]:
    """(topic, queue id) -> the queue's max offset (exclusive), of every queue of every kind."""
    ends: dict[tuple[str, int], int] = {}
    for info in store.queue_infos():
        key = (info.topic, info.queue_id)
        ends[key] = max(ends.get(key, 0), info.max_offset)
    return ends


def _configured_topics(store) -> set[str] | None:
    """The topics ``config/topics.json`` lists, or None when there is no readable topic config."""
    try:
        topics = store.config.topics
    except Exception:  # noqa: BLE001 - an unreadable config is its own finding (ConfigSet.findings)
        return None
    return set(topics) if topics else None


def _flushed(store) -> tuple[int | None, int | None]:
    """(the checkpoint's logicsMsgTimestamp, the RocksDB consume queue's dispatch checkpoint offset): records
    stored at or before the first, or below the second, were dispatched by the broker."""
    rocks = getattr(store, "rocksdb_cq", None)
    if rocks is not None and rocks.max_dispatched_offset is not None:
        return None, rocks.max_dispatched_offset
    try:
        cp = store.checkpoint()
    except Exception:  # noqa: BLE001 - a missing or damaged checkpoint is its own finding
        return None, None
    ts = getattr(cp, "logics_msg_timestamp", None) if cp is not None else None
    return (ts if ts and ts > 0 else None), None
