"""``Store``: a store root opened read-only, with discovery and every lookup the front ends need."""

from __future__ import annotations

import struct
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from inspector.engine.model.arguments import (
    CQ_FILE_SIZE,
    INDEX_ITEMS,
    INDEX_SLOTS,
    OFFSET,
    SEGMENT_SIZE,
    parse_integer,
)
from inspector.engine.model.bounds import decimal_name
from inspector.engine.model.broker_config import BrokerConfig
from inspector.engine.model.budget import Budget
from inspector.engine.model.errors import BadInput, NotFound, StoreError
from inspector.engine.model.geometry import parse_delay_levels
from inspector.engine.model.records import (
    BatchUnit,
    ChainWalk,
    CheckpointInfo,
    CqUnit,
    IdReading,
    KeyHit,
    Message,
    Problem,
    QueueInfo,
)
from inspector.engine.model.systopics import SYSTEM_TOPICS
from inspector.engine.read.batchconsumequeue import (
    BATCH_DIR,
    BatchConsumeQueue,
    inner_messages,
    is_inner_batch,
)
from inspector.engine.read.commitlog import CommitLog, Entry, SegmentScan
from inspector.engine.read.config import ConfigSet, load_config
from inspector.engine.read.consumequeue import ConsumeQueue, discover_queues
from inspector.engine.read.index_range import header_range_problems
from inspector.engine.read.indexfile import IndexFileReader, is_time_matched
from inspector.engine.read.journal import interrupted_rebuild_problems
from inspector.engine.read.keyscan import covered_range, scan_for_key
from inspector.engine.read.mapped import MappedFile
from inspector.engine.read.rocksdb_queue import RocksDBConsumeQueueStore, RocksDBQueue, is_rocksdb_dir
from inspector.engine.read.settings import (
    DelayTable,
    Setting,
    commitlog_folders,
    delay_setting,
    given_delay_table,
    infer_delay_levels,
    other_settings,
    path_settings,
    size_settings,
)
from inspector.engine.read.storeroot import unopenable
from inspector.engine.read.strays import INDEX_NAME_WIDTH, unknown_entries
from inspector.engine.read.tail import RecordInProgress
from parsers import commitlog as cl
from parsers.checkpoint import CHECKPOINT_FILE_SIZE, Checkpoint
from parsers.indexfile import infer_geometry
from parsers.java import index_key
from parsers.msgid import MsgIdError, decode_offset_msg_id, decode_uniq_key

MAX_TIME = (1 << 63) - 1
BATCH_CQ = "BatchCQ"  # CQType.BatchCQ, the value of the queue.type topic attribute


class Store:
    """A RocketMQ store directory, read-only.

    Never creates, locks or modifies a file: every data file is read through a
    read-only mmap. Geometry that is broker configuration (segment size, CQ file
    size, index slots/items) is inferred from the files unless given.
    """

    def __init__(
        self,
        root: str | Path,
        *,
        segment_size: int | None = None,
        cq_file_size: int | None = None,
        index_slots: int | None = None,
        index_items: int | None = None,
        broker_config: BrokerConfig | None = None,
        delay_levels: str | None = None,
    ):
        """Sizes given here are flags: they win over ``broker_config`` (a parsed broker.conf), which wins over
        what the files show. ``delay_levels``: messageDelayLevel from a flag; without it and without one in
        ``broker_config`` the table is inferred from the store (:meth:`delay_table`)."""
        self.root = Path(root)
        reason = unopenable(self.root)  # not whether it is a store: check_store_root, for the front ends
        if reason is not None:
            raise BadInput(reason, str(root))
        # the same ranges as the command line's options: a wrong size would invent findings, 0 would be ignored
        self.broker_config = broker_config
        self._flags = {"segment_size": SEGMENT_SIZE.check(segment_size, "segment_size"),
                       "cq_file_size": CQ_FILE_SIZE.check(cq_file_size, "cq_file_size"),
                       "index_slots": INDEX_SLOTS.check(index_slots, "index_slots"),
                       "index_items": INDEX_ITEMS.check(index_items, "index_items")}
        if delay_levels is not None:
            try:  # checked once here: a bad level would otherwise fail in the dispatch of every record
                parse_delay_levels(delay_levels)
            except ValueError as e:
                raise BadInput(f"--delay-levels: {e}") from None
        self._delay_flag = delay_levels
        self._delay_table: DelayTable | None = None
        given = {**(broker_config.geometry_values() if broker_config else {}),
                 **{k: v for k, v in self._flags.items() if v is not None}}
        self.cq_file_size = given.get("cq_file_size")
        self.index_slots = given.get("index_slots")
        self.index_items = given.get("index_items")
        self.commitlog = CommitLog(self.root, given.get("segment_size"),
                                   directories=commitlog_folders(self.root, broker_config))
        self._queues: dict[tuple[str, int], ConsumeQueue] = {}
        self._queue_ids = discover_queues(self.root)
        self.rocksdb_cq = None  # RocksDBConsumeQueueStore when consumequeue/ is a RocksDB database (5.2.0+)
        if is_rocksdb_dir(self.root / "consumequeue"):
            self.rocksdb_cq = RocksDBConsumeQueueStore(self.root)
            known = set(self._queue_ids)
            self._queue_ids = sorted(known | set(self.rocksdb_cq.queue_ids()))
        self._queue_id_set = set(self._queue_ids)  # queue() is called per queue: no list scan each time
        self._batch_ids = discover_queues(self.root, BATCH_DIR)  # 5.x BatchCQ topics (spec §4.3)
        self._batch_id_set = set(self._batch_ids)
        self._batch_queues: dict[tuple[str, int], BatchConsumeQueue] = {}
        self._index_readers: list[IndexFileReader] | None = None
        self._index_problems: list[Problem] = []
        self._range_problems: dict[str, list[Problem]] = {}  # index file -> its header range findings
        self._config: ConfigSet | None = None
        self._unknown: list[Problem] | None = None
        self._scans: dict[int, SegmentScan] = {}
        # a Store is shared by threads (the web viewer's requests, its background survey): the lazily built
        # readers are made under this lock, so each exists once (and is closed once)
        self._lock = threading.RLock()
        self._closers: list[Callable[[], None]] = []

    # -- lifecycle --------------------------------------------------------------------------------------------

    def on_close(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` first thing in :meth:`close` (e.g. to stop a background walk of the mappings)."""
        with self._lock:
            self._closers.append(callback)

    def close(self) -> None:
        with self._lock:
            closers, self._closers = self._closers, []
        for callback in closers:
            callback()
        self.commitlog.close()
        for q in self._queues.values():
            q.close()
        for bq in self._batch_queues.values():
            bq.close()
        for r in self._index_readers or []:
            r.close()
        if self.rocksdb_cq is not None:
            self.rocksdb_cq.close()
            self.rocksdb_cq = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- root files ------------------------------------------------------------------------------------------

    @property
    def abort_exists(self) -> bool:
        return (self.root / "abort").exists()

    @property
    def lock_exists(self) -> bool:
        return (self.root / "lock").exists()

    @property
    def clean_shutdown(self) -> bool:
        """RocketMQ decides normal vs abnormal recovery by the existence of ``abort`` alone (spec §3.2)."""
        return not self.abort_exists

    def checkpoint(self) -> CheckpointInfo | None:
        path = self.root / "checkpoint"
        if not path.exists():
            return None
        with MappedFile(path, "checkpoint") as mf:
            raw = mf.read(0, CHECKPOINT_FILE_SIZE)
        if len(raw) < 24:
            raise StoreError(f"checkpoint is {len(raw)} bytes; it needs at least 24", "checkpoint", 0)
        padded = raw.ljust(CHECKPOINT_FILE_SIZE, b"\0")
        c = Checkpoint.parse(padded)
        return CheckpointInfo(
            "checkpoint",
            mf.size,
            c.physic_msg_timestamp,
            c.logics_msg_timestamp,
            c.index_msg_timestamp,
            c.master_flushed_offset if len(raw) >= 32 else 0,
            c.confirm_phy_offset if len(raw) >= 40 else 0,
        )

    def checkpoint_problems(self) -> list[Problem]:
        path = self.root / "checkpoint"
        if not path.exists():
            return []
        try:
            size = path.stat().st_size
            self.checkpoint()
        except StoreError as e:
            return [Problem("checkpoint", e.offset or 0, e.reason, "bad-checkpoint")]
        except OSError as e:
            return [Problem("checkpoint", 0, f"cannot read: {e.strerror}", "unreadable-file")]
        if size != CHECKPOINT_FILE_SIZE:
            return [Problem("checkpoint", 0, f"checkpoint is {size} bytes, expected {CHECKPOINT_FILE_SIZE}", "bad-checkpoint")]
        return []

    @property
    def config(self) -> ConfigSet:
        if self._config is None:
            self._config = load_config(self.root)
        return self._config

    # -- the broker's settings ------------------------------------------------------------------------------

    def delay_table(self) -> DelayTable:
        """messageDelayLevel as used here: the flag, else the broker.conf's, else inferred from the store's
        SCHEDULE_TOPIC_XXXX units (levels it has no unit of keep the default). Computed once."""
        if self._delay_table is None:
            config = self.broker_config
            if self._delay_flag is not None:
                table = given_delay_table(self._delay_flag, "flag", "--delay-levels")
            elif config is not None and config.messageDelayLevel is not None:
                table = given_delay_table(config.messageDelayLevel, "broker.conf",
                                          f"{config.file} line {config.lines.get('messageDelayLevel')}")
            else:
                table = infer_delay_levels(self)
            self._delay_table = table
        return self._delay_table

    def settings(self) -> list[Setting]:
        """Each broker setting the engine reads this store with, and where it came from (see settings.py)."""
        from inspector.engine.model.geometry import store_geometry

        geometry = store_geometry(self)
        values = {k: getattr(geometry, k) for k in ("segment_size", "cq_file_size", "index_slots", "index_items")}
        inferred = {}
        if self.commitlog.segments:
            inferred["segment_size"] = self.commitlog.segment_size
        if any(getattr(self.queue(t, q), "files", None) for t, q in self._queue_ids):  # as store_geometry
            inferred["cq_file_size"] = geometry.cq_file_size
        readers = self.index_files()
        if readers and readers[0].slot_count:
            inferred["index_slots"], inferred["index_items"] = readers[0].slot_count, readers[0].item_count
        return [*path_settings(self, self.broker_config),
                *size_settings(self, self._flags, self.broker_config, inferred, values),
                delay_setting(self.delay_table()), *other_settings(self.broker_config)]

    # -- commitlog -------------------------------------------------------------------------------------------

    @property
    def segments(self):
        return self.commitlog.segments

    def scan_segment(self, index: int) -> SegmentScan:
        """Walk segment ``index`` once (cached)."""
        if index not in self._scans:
            self._scans[index] = self.commitlog.scan_segment(self.commitlog.segments[index])
        return self._scans[index]

    def scans(self) -> list[SegmentScan]:
        return [self.scan_segment(i) for i in range(len(self.commitlog.segments))]

    @property
    def min_offset(self) -> int:
        return self.commitlog.min_offset

    def max_offset(self) -> int:
        """End of the last good record of the log (what RocketMQ's recovery would set as the write position)."""
        last = 0
        for scan in self.scans():
            if scan.messages or scan.blank_position is not None:
                last = scan.valid_end_offset
        return last or self.min_offset

    def message_at(self, offset: int) -> Message:
        return self.commitlog.message_at(offset)

    def stored_at(self, offset: int) -> int | None:
        """STORETIMESTAMP of the readable record at ``offset``; None when none is there."""
        try:
            return self.message_at(offset).store_timestamp
        except StoreError:
            return None

    def entries(self, from_offset: int | None = None, *, check_crc: bool = True) -> Iterator[Entry]:
        return self.commitlog.entries(from_offset, check_crc=check_crc)

    def store_timestamp_at(self, offset: int) -> int:
        """STORETIMESTAMP of the record at ``offset`` without decoding the rest (position depends on born host)."""
        head = self.commitlog.read(offset, 80)
        if len(head) < 64:
            raise StoreError("record header runs past the segment", None, offset)
        sys_flag = struct.unpack_from(">i", head, 36)[0]
        pos = 68 if sys_flag & cl.BORNHOST_V6_FLAG else 56
        if len(head) < pos + 8:
            raise StoreError("record header runs past the segment", None, offset)
        return struct.unpack_from(">q", head, pos)[0]

    # -- consume queues ---------------------------------------------------------------------------------------

    def queue_ids(self) -> list[tuple[str, int]]:
        """The (topic, queue id) pairs of ``consumequeue/`` (file or RocksDB); batch queues: :meth:`batch_queue_ids`."""
        return list(self._queue_ids)

    def batch_queue_ids(self) -> list[tuple[str, int]]:
        """The (topic, queue id) pairs of ``batchconsumequeue/`` (5.x topics with ``queue.type=BatchCQ``)."""
        return list(self._batch_ids)

    def topics(self) -> list[str]:
        names = {t for t, _ in self._queue_ids} | {t for t, _ in self._batch_ids} | set(self.config.topics)
        return sorted(names)

    def batch_topics(self) -> set[str]:
        """Topics whose queues are batch consume queues: ``topics.json`` attributes say ``queue.type=BatchCQ``
        (spec §7.2, §4.3; a ``+queue.type`` key as the admin API spells it is read too), or a
        ``batchconsumequeue/`` directory exists for them."""
        found = {t for t, _ in self._batch_ids}
        for topic, config in self.config.topics.items():
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
                                                                log_min_offset=self.commitlog.min_offset)
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
                                     log_min_offset=self.commitlog.min_offset, live=self.abort_exists)
                    self._queues[key] = q
        return q

    def queue_infos(self) -> list[QueueInfo]:
        """Every queue's info: ``consumequeue/`` ones, then ``batchconsumequeue/`` ones (``kind`` tells)."""
        return [*(self.queue(t, q).info() for t, q in self._queue_ids),
                *(self.batch_queue(t, q).info() for t, q in self._batch_ids)]

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
                yield unit, self.message_at(unit.physical_offset)
            except StoreError as e:
                if isinstance(e, RecordInProgress) or (self.abort_exists and unit.physical_offset >= self._log_end()):
                    # a running (or crashed) broker: the queue runs ahead of the log's complete records
                    yield unit, Problem(unit.file, unit.position, f"unit {unit.queue_offset} points at "
                                        f"{unit.physical_offset}, past the complete records: {e}", "cq-ahead-of-log",
                                        "warning")
                    continue
                yield unit, Problem(unit.file, unit.position, f"unit {unit.queue_offset} points at {unit.physical_offset}: {e}",
                                    "cq-dangling")

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
                                    f"points at {unit.physical_offset}: {e}", "cq-dangling")
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
        """End of the last commitlog segment this Store knows (a live broker may have added one since)."""
        segs = self.commitlog.segments
        return segs[-1].start_offset + max(segs[-1].file_size, self.commitlog.segment_size) if segs else 0

    def message_by_queue_offset(self, topic: str, queue_id: int, queue_offset: int) -> Message:
        cq = self.queue(topic, queue_id)
        info = cq.info()
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
        return msg

    def queue_offset_by_time(self, topic: str, queue_id: int, timestamp: int) -> int:
        """First queue offset whose message was stored at or after ``timestamp`` (binary search, as the broker)."""
        cq = self.queue(topic, queue_id)
        info = cq.info()
        lo, hi = info.min_offset, info.max_offset
        while lo < hi:
            mid = (lo + hi) // 2
            if self.store_timestamp_at(cq.unit(mid).physical_offset) < timestamp:
                lo = mid + 1
            else:
                hi = mid
        return lo

    # -- index files ------------------------------------------------------------------------------------------

    def index_files(self) -> list[IndexFileReader]:
        """Index files in name (creation) order; unreadable ones are reported in index_problems()."""
        with self._lock:
            if self._index_readers is None:
                self._index_readers = self._open_index_files()
        return self._index_readers

    def _open_index_files(self) -> list[IndexFileReader]:
        readers: list[IndexFileReader] = []
        base = self.root / "index"
        names = sorted(p.name for p in base.iterdir()
                       if decimal_name(p.name, INDEX_NAME_WIDTH) is not None) if base.is_dir() else []
        slots, items = self._index_geometry(base, names)
        for name in names:
            try:
                reader = IndexFileReader(self.root, f"index/{name}", slots, items)
            except StoreError as e:
                self._index_problems.append(Problem(e.file or f"index/{name}", e.offset or 0, e.reason, "bad-index-file"))
                continue
            self._index_problems.extend(reader.problems)
            readers.append(reader)
        return readers

    def _index_geometry(self, base: Path, names: list[str]) -> tuple[int | None, int | None]:
        """Slots and items are one broker setting for all files: the geometry most file sizes agree on.

        A single truncated file then reads with its siblings' geometry (and is reported as too short)
        instead of being unreadable.
        """
        if self.index_slots or self.index_items:
            return self.index_slots, self.index_items
        votes: Counter[tuple[int, int]] = Counter()
        for name in names:
            try:
                fitted = infer_geometry((base / name).stat().st_size)
            except OSError:
                continue
            if fitted is not None:
                votes[fitted] += 1
        if not votes:
            return None, None
        return votes.most_common(1)[0][0]

    def index_problems(self) -> list[Problem]:
        self.index_files()
        return list(self._index_problems)

    def _key_checker(self, topic: str, key: str):
        def check(phy_offset: int) -> bool | None:
            try:
                msg = self.message_at(phy_offset)
            except StoreError:
                return None
            return msg.topic == topic and (key == msg.unique_key or key in msg.keys)

        return check

    def index_range_problems(self, reader: IndexFileReader) -> list[Problem]:
        """Where ``reader``'s header begin/end is not what the broker wrote for its items (read once per file)."""
        found = self._range_problems.get(reader.rel)
        if found is None:
            found = self._range_problems[reader.rel] = header_range_problems(reader, self.stored_at)
        return found

    def chain(self, topic: str, key: str, begin: int = 0, end: int = MAX_TIME, limit: int | None = None,
              budget: Budget | None = None) -> list[ChainWalk]:
        """The hash-slot walk for topic#key in every index file, newest first, as the broker's query visits them.

        ``limit`` caps the items walked per file (the stop reason says so); None walks whole chains. Once
        ``budget`` runs out, the remaining files are listed with their slot only, as not searched, and the
        budget's note says why. A file whose header range is not what the broker wrote is walked whole,
        whatever the time window (its times come from that header: see :meth:`lookup_key`), and says so.
        """
        full_key = index_key(topic, key)
        walks = []
        for reader in reversed(self.index_files()):
            if budget is not None and budget.expired():
                w = reader.walk(full_key, limit=0)  # the slot only: no item is read
                walks.append(ChainWalk(w.file, w.key, w.key_hash, w.slot, w.slot_position, w.slot_value, (),
                                       "not searched", budget.note(f"walking {len(walks)} index file(s)")))
                continue
            bad_range = self.index_range_problems(reader)
            if bad_range:
                # any time the header makes of an item: no window may stop the walk (a begin of -2^63 included)
                walk = reader.walk(full_key, -(1 << 64), 1 << 64, self._key_checker(topic, key), limit)
                walks.append(replace(walk, note=f"{_untrusted_range(bad_range)}: walked whole, whatever the "
                                     "time window"))
                continue
            if not is_time_matched(reader.header, begin, end) and (begin, end) != (0, MAX_TIME):
                walk = reader.walk(full_key, begin, end, None)
                walks.append(
                    ChainWalk(walk.file, walk.key, walk.key_hash, walk.slot, walk.slot_position, walk.slot_value, (),
                              "not searched", "file time range is outside the query window")
                )
                continue
            walks.append(reader.walk(full_key, begin, end, self._key_checker(topic, key), limit))
        return walks

    def lookup_key(self, topic: str, key: str, begin: int = 0, end: int = MAX_TIME) -> list[KeyHit]:
        """Messages indexed under topic#key in [begin, end], hash collisions filtered out by reading the real key;
        for a BatchCQ topic also the inner messages with that key (read from its batch queues: not indexed)."""
        hits = self._indexed_hits(topic, key, begin, end)
        hits += self._scanned_hits(topic, key, begin, end, {h.message.physical_offset for h in hits})
        return hits + list(self._inner_key_hits(topic, key, begin, end, set()))

    def _indexed_hits(self, topic: str, key: str, begin: int, end: int) -> list[KeyHit]:
        """What following the chains of topic#key finds (every index file that can be trusted)."""
        hits: list[KeyHit] = []
        seen: set[int] = set()
        for walk in self.chain(topic, key, begin, end):
            for step in walk.steps:
                # a file walked whole (its header range is wrong): the message's own time decides, not the header's
                if not (step.hash_matches and step.key_matches and (step.in_time_range or walk.note)):
                    continue
                off = step.item.phy_offset
                if off in seen:
                    continue
                msg = self.message_at(off)
                if walk.note and not begin <= msg.store_timestamp <= end:
                    continue
                seen.add(off)
                hits.append(KeyHit(msg, walk.file, step.item.number, "unique_key" if key == msg.unique_key else "key",
                                   walk.note))
        return hits

    def _scanned_hits(self, topic: str | None, key: str, begin: int, end: int, seen: set[int]) -> list[KeyHit]:
        """What the commitlog ranges of untrusted index files hold under ``key`` (``topic`` None: any topic, for
        a unique key), past the offsets in ``seen``; each hit says how it was found."""
        hits: list[KeyHit] = []
        for reader, start, stop in self._untrusted_ranges():
            if ((begin, end) != (0, MAX_TIME) and not is_time_matched(reader.header, begin, end)
                    and reader.header.end_timestamp > 0 and not self.index_range_problems(reader)):
                continue
            note = (f"{reader.rel} cannot be trusted ({reader.header_problems[0].reason}): found by scanning the "
                    f"commitlog range it covered, {start}..{stop}")
            for msg in scan_for_key(self, topic, key, begin, end, start, stop):
                if msg.physical_offset not in seen:
                    seen.add(msg.physical_offset)
                    hits.append(KeyHit(msg, reader.rel, 0, "unique_key" if key == msg.unique_key else "key", note))
        return hits

    def _inner_key_hits(self, topic: str, key: str, begin: int, end: int, seen: set[tuple[int, int]]
                        ) -> Iterator[KeyHit]:
        """Inner messages of ``topic``'s batch queues whose KEYS or UNIQ_KEY is ``key``: the broker indexes only
        the batch record (its UNIQ_KEY), so these are found by reading the topic's inner-batch records."""
        for t, qid in self._batch_ids:
            if t != topic:
                continue
            bcq = self.batch_queue(t, qid)
            for unit in bcq.units(0):
                if isinstance(unit, Problem) or not begin <= unit.store_timestamp <= end:
                    continue
                try:
                    msg = self.message_at(unit.physical_offset)
                    inner = inner_messages(msg, unit.msg_base_offset) if is_inner_batch(msg) else []
                except StoreError:
                    continue  # verify reports it
                for m in inner:
                    if (m.physical_offset, m.inner_index) in seen or not (key == m.unique_key or key in m.keys):
                        continue
                    seen.add((m.physical_offset, m.inner_index))
                    yield KeyHit(m, unit.file, 0, "unique_key" if key == m.unique_key else "key",
                                 "an inner message of a batch record: the broker does not index these, found by "
                                 f"reading {bcq.rel_dir}")

    def _untrusted_ranges(self) -> list[tuple[IndexFileReader, int, int]]:
        """(reader, first, last physical offset it covered) of each index file whose counters cannot be trusted."""
        readers = self.index_files()
        if all(r.trusted for r in readers):
            return []
        log_start, log_end = self.min_offset, self.max_offset()
        return [(r, *covered_range(r, readers[i + 1] if i + 1 < len(readers) else None,
                                   readers[i - 1] if i else None, log_start, log_end))
                for i, r in enumerate(readers) if not r.trusted]

    def index_trust_problems(self) -> list[Problem]:
        """Why key lookups scan part of the log, or walk a file whole: the header findings of every index file
        whose counters or range cannot be trusted."""
        return [p for r in self.index_files()
                for p in (r.header_problems if not r.trusted else []) + self.index_range_problems(r)]

    def lookup_unique_key(self, unique_key: str, topics: list[str] | None = None) -> list[KeyHit]:
        """Messages whose UNIQ_KEY is ``unique_key``; the index key needs the topic, so every known topic's chain
        is followed, and the ranges of untrusted index files are scanned once for all of them."""
        candidates = topics or sorted(set(self.topics()) | set(SYSTEM_TOPICS))
        hits: list[KeyHit] = []
        for topic in candidates:
            hits.extend(h for h in self._indexed_hits(topic, unique_key, 0, MAX_TIME)
                        if h.message.unique_key == unique_key)
        scanned = self._scanned_hits(None, unique_key, 0, MAX_TIME,
                                     {h.message.physical_offset for h in hits})
        wanted = set(candidates)
        hits.extend(h for h in scanned if h.message.unique_key == unique_key
                    and (topics is None or h.message.topic in wanted))
        for topic in sorted({t for t, _ in self._batch_ids} & wanted):  # inner messages: not indexed
            hits.extend(h for h in self._inner_key_hits(topic, unique_key, 0, MAX_TIME, set())
                        if h.message.unique_key == unique_key)
        hits.sort(key=lambda h: h.message.physical_offset)
        return hits

    # -- ids and references -------------------------------------------------------------------------------------

    def resolve_id(self, text: str) -> list[IdReading]:
        return decode_id(text, self)

    def find(self, ref: str) -> Message:
        """A message by physical offset (decimal), offset msgId or unique key."""
        ref = ref.strip()
        number = parse_integer(ref)  # ASCII digits or 0x hex only: int() would read '٣' as 3
        if number is not None and len(ref) not in (32, 56):
            return self.message_at(OFFSET.parse(ref, "offset"))  # -1 or 2**64: the range message
        if len(ref) in (32, 56):  # an id (its hex may happen to have no A-F); a digits-only one may be an offset
            for reading in decode_id(ref, self):
                if reading.found and reading.physical_offset is not None:
                    return self.message_at(reading.physical_offset)
            if number is not None and OFFSET.fits(number):
                return self.message_at(number)
            raise NotFound(f"no message with id {ref} in this store")
        raise BadInput(f"{ref[:100]!r} is neither a physical offset ({OFFSET.allowed()}) nor a 32/56-hex message id")

    # -- consumers ----------------------------------------------------------------------------------------------

    def consumer_lag(self) -> list[dict]:
        """Each (group, topic, queue) of consumerOffset.json with its committed offset and lag against the queue."""
        rows = []
        for (topic, group), queues in sorted(self.config.consumer_offsets.items()):
            for queue_id, offset in sorted(queues.items()):
                try:
                    info = self.queue(topic, queue_id).info()
                    max_offset, lag = info.max_offset, max(0, info.max_offset - offset)
                except NotFound:
                    max_offset, lag = None, None
                rows.append(dict(group=group, topic=topic, queue_id=queue_id, consumer_offset=offset,
                                 max_offset=max_offset, lag=lag))
        return rows

    def unknown_files(self) -> list[Problem]:
        """Entries of commitlog/, index/ and consumequeue/ no reader reads (see strays.py); listed once."""
        if self._unknown is None:
            self._unknown = unknown_entries(self.root)
        return list(self._unknown)

    def problems(self) -> list[Problem]:
        """Problems found without walking the data: layout, unknown files, index headers, checkpoint, config."""
        return [*self.commitlog.problems, *self.unknown_files(), *self.index_problems(), *self.checkpoint_problems(),
                *self.config.findings(), *interrupted_rebuild_problems(self.root)]


def decode_id(text: str, store: Store | None = None) -> list[IdReading]:
    """Both readings of a message id (offset msgId first), each checked against the store when one is given."""
    text = text.strip().upper()
    try:
        off = decode_offset_msg_id(text)
        uk = decode_uniq_key(text)
    except MsgIdError as e:
        raise BadInput(str(e)) from None
    offset_reading = IdReading("offset_msg_id", {"ip": off.ip, "port": off.port, "offset": off.offset})
    uniq_reading = IdReading(
        "unique_key",
        {"ip": uk.ip, "pid": uk.pid, "class_loader_hash": uk.class_loader_hash,
         "time_since_month_start": uk.time_since_month_start, "counter": uk.counter},
    )
    if store is None:
        return [offset_reading, uniq_reading]
    found_off = False
    try:
        msg = store.message_at(off.offset)
        found_off = msg.msg_id == text
    except StoreError:
        pass
    offset_reading = IdReading(offset_reading.kind, offset_reading.fields, found_off, off.offset if found_off else None)
    hits = store.lookup_unique_key(text)
    uniq_reading = IdReading(uniq_reading.kind, uniq_reading.fields, bool(hits),
                             hits[0].message.physical_offset if hits else None)
    return [offset_reading, uniq_reading]


def _untrusted_range(problems: list[Problem]) -> str:
    """The note of a lookup in an index file whose header range is wrong."""
    return f"{problems[0].file}'s header range cannot be trusted ({problems[0].reason})"
