"""A store's consume queues: discovery, plain, batch and RocksDB queues opened once, their messages in queue order,
lookups by queue offset and time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from inspector.engine.model.errors import NotFound, StoreError
from inspector.engine.model.records import (
    BatchUnit,
    CqUnit,
    Message,
    Problem,
    QueueInfo,
)
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.commitlog.tail import RecordInProgress
from inspector.engine.read.queues.batchconsumequeue import (
    BATCH_DIR,
    BatchConsumeQueue,
    inner_messages,
    is_inner_batch,
)
from inspector.engine.read.queues.collector import few_collections
from inspector.engine.read.queues.consumequeue import ConsumeQueue, discover_queues, queue_files_problems
from inspector.engine.read.queues.cq_bulk import QueueEnds, queue_ends
from inspector.engine.read.queues.lmq import through_queue
from inspector.engine.read.queues.rocksdb_queue import RocksDBConsumeQueueStore, RocksDBQueue, is_rocksdb_dir
from inspector.engine.read.store.load_checks import queue_type_problems
from parsers.consumequeue import BCQ_DEFAULT_FILE_SIZE

BATCH_CQ = "BatchCQ"  # CQType.BatchCQ, the value of the queue.type topic attribute


class StoreQueues:
    """The consume queues of the store at ``root`` (``consumequeue/`` files or RocksDB, ``batchconsumequeue/``),
    each opened once and closed with :meth:`close`, and the records of ``log`` they point at. ``cq_file_size``:
    the broker's setting when given (None: each queue infers it from its files)."""

    def __init__(self, root: Path, log: CommitLog, cq_file_size: int | None):
        self.root = root
        self.log = log
        self.cq_file_size = cq_file_size
        self._queues: dict[tuple[str, int], ConsumeQueue] = {}
        self._queue_ids = discover_queues(root)
        self.rocksdb_cq: RocksDBConsumeQueueStore | None = None  # when consumequeue/ is a RocksDB database (5.2.0+)
        rocks = next((d for d in ("consumequeue", "consumequeue_rocksdb") if is_rocksdb_dir(root / d)), None)
        if rocks is not None:  # consumequeue/ itself (5.2.0+), else a separate consumequeue_rocksdb/ (spec part 2 §19)
            self.rocksdb_cq = RocksDBConsumeQueueStore(root, rocks)
            known = set(self._queue_ids)
            self._queue_ids = sorted(known | set(self.rocksdb_cq.queue_ids()))
        self._queue_id_set = set(self._queue_ids)  # queue() is called per queue: no list scan each time
        self._batch_ids = discover_queues(root, BATCH_DIR)  # 5.x BatchCQ topics (spec §4.3)
        self._batch_id_set = set(self._batch_ids)
        self._batch_queues: dict[tuple[str, int], BatchConsumeQueue] = {}
        self._infos: dict[tuple[str, int], QueueInfo] = {}  # answered many at a time (prefetch_infos)
        # shared by threads (the web viewer's requests, its background survey): each queue is opened once
        self._lock = threading.RLock()

    def close(self) -> None:
        for q in self._queues.values():
            q.close()
        for bq in self._batch_queues.values():
            bq.close()
        if self.rocksdb_cq is not None:
            self.rocksdb_cq.close()
            self.rocksdb_cq = None

    def load_problems(self, topics: dict | None) -> list[Problem]:
        """The two load checks of ``load_checks`` over these queues: every consume-queue (and batch consume-queue)
        file against the store's one file size, every topic folder against its queue type (``topics``:
        topics.json's, None when there is none to hold the folders to)."""
        if self.rocksdb_cq is not None:
            simple: dict[tuple[str, int], list[tuple[str, int]]] = {}
        else:
            simple = _queue_files(self.queue_ids(), self.queue)
        batch = _queue_files(self.batch_queue_ids(), self.batch_queue)
        found = queue_files_problems(simple.values(), self.cq_file_size)
        found += queue_files_problems(batch.values(), None, None, BCQ_DEFAULT_FILE_SIZE)
        folders = {"consumequeue": {t for t, _ in simple}, BATCH_DIR: {t for t, _ in batch}}
        return found + queue_type_problems(topics, folders)

    def message_at(self, offset: int) -> Message:
        """The record at ``offset`` of the log the units point into."""
        return self.log.message_at(offset)

    # -- consume queues ---------------------------------------------------------------------------------------

    def queue_ids(self) -> list[tuple[str, int]]:
        """The (topic, queue id) pairs of ``consumequeue/`` (file or RocksDB); batch queues: :meth:`batch_queue_ids`."""
        return list(self._queue_ids)

    def batch_queue_ids(self) -> list[tuple[str, int]]:
        """The (topic, queue id) pairs of ``batchconsumequeue/`` (5.x topics with ``queue.type=BatchCQ``)."""
        return list(self._batch_ids)

    def topics(self, configured: dict) -> list[str]:
        """The topics of the queues and of ``configured`` (topics.json's topics)."""
        names = {t for t, _ in self._queue_ids} | {t for t, _ in self._batch_ids} | set(configured)
        return sorted(names)

    def batch_topics(self, configured: dict) -> set[str]:
        """Topics whose queues are batch consume queues: ``configured`` (topics.json's topics) attributes say
        ``queue.type=BatchCQ`` (spec §7.2, §4.3; a ``+queue.type`` key as the admin API spells it is read too), or
        a ``batchconsumequeue/`` directory exists for them."""
        found = {t for t, _ in self._batch_ids}
        for topic, config in configured.items():
            attributes = config.get("attributes") if isinstance(config, dict) else None
            if isinstance(attributes, dict) and BATCH_CQ in (attributes.get("queue.type"),
                                                             attributes.get("+queue.type")):
                found.add(topic)
        return found

    def batch_queue(self, topic: str, queue_id: int) -> BatchConsumeQueue:
        key = (topic, queue_id)
        if key not in self._batch_id_set:
            raise NotFound(f"no batch consume queue for topic {topic!r} queue {queue_id}", BATCH_DIR)
        with self._lock:
            q = self._batch_queues.get(key)
            if q is None:
                q = self._batch_queues[key] = BatchConsumeQueue(self.root, topic, queue_id,
                                                                log_min_offset=self.log.min_offset)
        return q

    def queue(self, topic: str, queue_id: int) -> ConsumeQueue | RocksDBQueue | BatchConsumeQueue:
        """The queue of (topic, queue id): from ``consumequeue/``, else from ``batchconsumequeue/``."""
        key = (topic, queue_id)
        if key not in self._queue_id_set:
            if key in self._batch_id_set:
                return self.batch_queue(topic, queue_id)
            raise NotFound(f"no consume queue for topic {topic!r} queue {queue_id}", "consumequeue")
        q = self._queues.get(key)
        if q is None:
            if self.rocksdb_cq is not None and not (self.root / "consumequeue" / topic / str(queue_id)).is_dir():
                return self.rocksdb_cq.queue(topic, queue_id)
            with self._lock:
                q = self._queues.get(key)
                if q is None:
                    q = ConsumeQueue(self.root, topic, queue_id, self.cq_file_size,
                                     log_min_offset=self.log.min_offset, live=self._live())
                    self._queues[key] = q
        return q

    def _live(self) -> bool:
        """Whether the abort file exists, looked at once a second at most: opening 16,000 queues stat'ed it
        16,000 times."""
        now = time.monotonic()
        seen = getattr(self, "_live_seen", None)
        if seen is None or now - seen[0] > 1.0:
            seen = self._live_seen = (now, (self.root / "abort").exists())
        return seen[1]

    def queue_infos(self) -> list[QueueInfo]:
        """Every queue's info: ``consumequeue/`` ones, then ``batchconsumequeue/`` ones (``kind`` tells)."""
        with few_collections():  # an info per queue, 16,000 queues (read/queues/collector.py)
            self.prefetch_infos(self._queue_ids)
            return [*(self.queue_info(t, q) for t, q in self._queue_ids),
                    *(self.batch_queue(t, q).info() for t, q in self._batch_ids)]

    def queue_info(self, topic: str, queue_id: int) -> QueueInfo:
        """``queue(topic, queue_id).info()``, or the same answer found by :meth:`prefetch_infos`."""
        info = self._infos.get((topic, queue_id))
        return info if info is not None else self.queue(topic, queue_id).info()

    def prefetch_infos(self, ids: Iterable[tuple[str, int]],
                       peek: Callable[[QueueInfo], Sequence[int]] | None = None) -> QueueEnds:
        """The infos of many file consume queues found at once (``cq_bulk.queue_ends``: one pass, no
        ConsumeQueue each) and kept for :meth:`queue_info`; ``peek``: the queue offsets whose units to hand back
        with each queue answered. Queues it does not answer (several files, damage, RocksDB, batch, unknown)
        are answered by their queue when asked, as before; so are those already opened."""
        wanted = [k for k in ids if k in self._queue_id_set and k not in self._queues
                  and (peek is not None or k not in self._infos)]
        ends = queue_ends(self.root, wanted, file_size=self.cq_file_size, log_min_offset=self.log.min_offset,
                          peek=peek)
        self._infos.update(ends.infos)
        return ends

    def queue_messages(self, topic: str, queue_id: int, from_offset: int = 0
                       ) -> Iterator[tuple[CqUnit | BatchUnit, Message | Problem]]:
        """Units of one queue with the message each points at (or a Problem saying why it could not be read).

        A batch queue yields one row per message: each inner message of an inner-batch record with its unit
        (``queue_offset`` = base + i), from the message at ``from_offset`` on."""
        cq = self.queue(topic, queue_id)
        start = max(from_offset, cq.info().min_offset)
        if isinstance(cq, BatchConsumeQueue):
            yield from self._batch_queue_messages(cq, start)
            return
        for unit in cq.units(start):
            if isinstance(unit, Problem):
                yield None, unit  # type: ignore[misc]
                continue
            if unit.is_pre_blank:
                continue
            try:
                yield unit, through_queue(self.message_at(unit.physical_offset), topic)
            except StoreError as e:
                if isinstance(e, RecordInProgress) or ((self.root / "abort").exists() and unit.physical_offset >= self._log_end()):
                    # a running (or crashed) broker: the queue runs ahead of the log's complete records
                    yield unit, Problem(unit.file, unit.position, f"unit {unit.queue_offset} points at "
                                        f"{unit.physical_offset}, past the complete records: {e}", "cq-ahead-of-log",
                                        "warning")
                    continue
                yield unit, Problem(unit.file, unit.position, f"unit {unit.queue_offset} points at {unit.physical_offset}: {e}",
                                    "cq-dangling", points_at=unit.physical_offset)

    def _batch_queue_messages(self, bcq: BatchConsumeQueue, start: int
                              ) -> Iterator[tuple[BatchUnit | None, Message | Problem]]:
        for unit in bcq.units(start):
            if isinstance(unit, Problem):
                yield None, unit
                continue
            try:
                msg = self.message_at(unit.physical_offset)
            except StoreError as e:
                yield unit, Problem(unit.file, unit.position, f"unit of queue offset {unit.msg_base_offset} "
                                    f"points at {unit.physical_offset}: {e}", "cq-dangling",
                                    points_at=unit.physical_offset)
                continue
            if not is_inner_batch(msg):
                yield unit, msg
                continue
            try:
                inner = inner_messages(msg, unit.msg_base_offset)
            except StoreError as e:
                yield unit, Problem(unit.file, unit.position, f"unit of queue offset {unit.msg_base_offset}: "
                                    f"record at {unit.physical_offset}: {e.reason}", "bad-inner-batch")
                continue
            for m in inner:
                if m.queue_offset >= start:
                    yield replace(unit, queue_offset=m.queue_offset), m

    def _log_end(self) -> int:
        """End of the last commitlog segment the log knows (a live broker may have added one since)."""
        segs = self.log.segments
        return segs[-1].start_offset + max(segs[-1].file_size, self.log.segment_size) if segs else 0

    def message_by_queue_offset(self, topic: str, queue_id: int, queue_offset: int) -> Message:
        cq = self.queue(topic, queue_id)
        info = cq.info()
        if 0 <= queue_offset < info.min_offset and self.log.retention_floor:
            # below the effective min (ConsumeQueue.correctMinOffset): removed by retention, not a typo
            raise NotFound(f"queue offset {queue_offset}: expired: below the queue's min offset {info.min_offset} "
                           f"(the log's first offset is {self.log.retention_floor}: removed by retention)",
                           cq.rel_dir)
        if not info.min_offset <= queue_offset < info.max_offset:
            raise NotFound(f"queue offset {queue_offset} is outside [{info.min_offset}, {info.max_offset})", cq.rel_dir)
        unit = cq.unit(queue_offset)
        msg = self.message_at(unit.physical_offset)
        if isinstance(unit, BatchUnit) and is_inner_batch(msg):
            inner = inner_messages(msg, unit.msg_base_offset)
            if queue_offset - unit.msg_base_offset >= len(inner):
                raise StoreError(f"the unit says {unit.batch_size} messages from {unit.msg_base_offset}, the record "
                                 f"at {unit.physical_offset} holds {len(inner)}", unit.file, unit.position)
            return inner[queue_offset - unit.msg_base_offset]
        return through_queue(msg, topic)


def _queue_files(ids, open_queue) -> dict[tuple[str, int], list[tuple[str, int]]]:
    """Each file-backed queue's files as (path, size)."""
    out = {}
    for topic, qid in ids:
        q = open_queue(topic, qid)
        sizes = getattr(q, "file_sizes", None)
        if sizes is None:  # a RocksDB queue
            continue
        out[(topic, qid)] = [(f"{q.rel_dir}/{start:020d}", sizes[start]) for start, _ in q.files]
    return out
