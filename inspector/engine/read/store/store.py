"""``Store``: a store root opened read-only. It opens and owns the files (commitlog, consume queues, index, config,
DLedger member) and hands each helper what it needs (a CommitLog, the queues, paths, values): nothing below it
takes a Store."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from inspector.engine.model.arguments import (
    CQ_FILE_SIZE,
    INDEX_ITEMS,
    INDEX_SLOTS,
    OFFSET,
    SEGMENT_SIZE,
    parse_integer,
)
from inspector.engine.model.broker_config import BrokerConfig
from inspector.engine.model.budget import Budget
from inspector.engine.model.errors import BadInput, BudgetExceeded, NotFound, StoreError
from inspector.engine.model.geometry import Geometry, files_geometry, parse_delay_levels
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
from inspector.engine.read.commitlog.commitlog import CommitLog, Entry, SegmentScan
from inspector.engine.read.commitlog.journal import interrupted_rebuild_problems
from inspector.engine.read.commitlog.scans import LogScans
from inspector.engine.read.commitlog.tail import RecordInProgress
from inspector.engine.read.config.checkpoint import checkpoint_problems, read_checkpoint
from inspector.engine.read.config.config import ConfigSet, load_config
from inspector.engine.read.config.offsets import ConsumerOffsets, OffsetPlaces, load_consumer_offsets
from inspector.engine.read.config.rocksdb_config import apply_topic_database
from inspector.engine.read.config.settings import (
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
from inspector.engine.read.config.storeroot import unopenable
from inspector.engine.read.dledger.dledger import dledger_folders, member_of, member_root, opened_member
from inspector.engine.read.dledger.members import MemberChoice
from inspector.engine.read.index.coverage import IndexSpan, ScanLimits, Uncovered
from inspector.engine.read.index.indexfile import IndexFileReader
from inspector.engine.read.index.store_keys import MAX_TIME, KeyIndex
from inspector.engine.read.queues.batchconsumequeue import BatchConsumeQueue
from inspector.engine.read.queues.consumequeue import ConsumeQueue
from inspector.engine.read.queues.cq_bulk import QueueEnds
from inspector.engine.read.queues.rocksdb_queue import RocksDBConsumeQueueStore, RocksDBQueue
from inspector.engine.read.queues.store_queues import StoreQueues
from inspector.engine.read.store.retention import id_expired_reason
from inspector.engine.read.store.strays import unknown_entries
from inspector.engine.read.timer.timerstore import timer_log_not_files
from parsers import commitlog as cl
from parsers.msgid import MsgIdError, decode_offset_msg_id, decode_uniq_key


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
        dledger_member: str | None = None,
    ):
        """Sizes given here are flags: they win over ``broker_config`` (a parsed broker.conf), which wins over
        what the files show. ``delay_levels``: messageDelayLevel from a flag; without it and without one in
        ``broker_config`` the table is inferred from the store (:meth:`delay_table`)."""
        self.root = Path(root)
        reason = unopenable(self.root)  # not whether it is a store: check_store_root, for the front ends
        if reason is not None:
            raise BadInput(reason, str(root))
        resolved = self.root.resolve()
        self.root = member_root(resolved) or self.root  # dledger-n0/ or its data/: the store root
        opened = opened_member(resolved)  # dledger-n1/ given: that member is the one read
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
        folders = commitlog_folders(self.root, broker_config)
        dledger = dledger_folders(self.root, dledger_member, broker_config, opened) if folders is None else None
        self.dledger_data: str | None = dledger[1] if dledger else None  # e.g. "dledger-n0/data"
        # several members under the root: which one is read, which are not (a warning in problems())
        self.dledger_choice: MemberChoice | None = dledger[2] if dledger else None
        self.commitlog = CommitLog(self.root, given.get("segment_size"),
                                   directories=dledger[0] if dledger else folders,
                                   entry_folders=frozenset({dledger[1]} if dledger else ()))
        # the files of each format, owned here; each object is given the parts it reads, never the Store
        self.queues = StoreQueues(self.root, self.commitlog, self.cq_file_size)
        self.log_scans = LogScans(self.commitlog)
        self.key_index = KeyIndex(self.root, self.commitlog, self.queues, self.log_scans.max_offset,
                                  self.index_slots, self.index_items)
        self._config: ConfigSet | None = None
        self._offsets: ConsumerOffsets | None = None
        self._unknown: list[Problem] | None = None
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
        self.queues.close()
        self.key_index.close()

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
        return read_checkpoint(self.root)

    def checkpoint_problems(self) -> list[Problem]:
        return checkpoint_problems(self.root)

    @property
    def config(self) -> ConfigSet:
        if self._config is None:
            config = load_config(self.root)
            apply_topic_database(config, self.root, self.broker_config)  # storeType=defaultRocksDB, v2
            self._config = config
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
                table = infer_delay_levels(self.queues)
            self._delay_table = table
        return self._delay_table

    def geometry(self, base: Geometry | None = None, **overrides: int | str | None) -> Geometry:
        """Geometry from the store's own files first, then ``overrides``, then ``base`` (without it the broker
        defaults with this store's delay levels, :meth:`delay_table`)."""
        if base is None:
            base = Geometry(delay_levels=self.delay_table().text)
        return files_geometry(base, self._file_sizes(), overrides)

    def _file_sizes(self) -> dict[str, int | None]:
        """The sizes the files show: the log's segment size, the first file-backed queue's file size, the first
        index file's slots and items (None where no file shows one)."""
        found: dict[str, int | None] = {"segment_size": self.commitlog.segment_size or None}
        for topic, qid in self.queues.queue_ids():
            q = self.queues.queue(topic, qid)
            if getattr(q, "files", None):
                found["cq_file_size"] = q.file_size
                break
        readers = self.index_files()
        if readers and readers[0].slot_count:
            found["index_slots"], found["index_items"] = readers[0].slot_count, readers[0].item_count
        return found

    def settings(self) -> list[Setting]:
        """Each broker setting the engine reads this store with, and where it came from (see settings.py)."""
        geometry = self.geometry()
        values = {k: getattr(geometry, k) for k in ("segment_size", "cq_file_size", "index_slots", "index_items")}
        inferred = {k: v for k, v in self._file_sizes().items() if k != "segment_size" and v is not None}
        if self.commitlog.segments:
            inferred["segment_size"] = self.commitlog.segment_size
        return [*path_settings(self.root, self.commitlog.directory, self.broker_config),
                *size_settings(self._flags, self.broker_config, inferred, values),
                delay_setting(self.delay_table()), *other_settings(self.broker_config)]

    # -- commitlog -------------------------------------------------------------------------------------------

    @property
    def segments(self):
        return self.commitlog.segments

    def scan_segment(self, index: int) -> SegmentScan:
        """Walk segment ``index`` once (cached)."""
        return self.log_scans.scan_segment(index)

    def scans(self) -> list[SegmentScan]:
        return self.log_scans.scans()

    @property
    def min_offset(self) -> int:
        return self.commitlog.min_offset

    def max_offset(self) -> int:
        """End of the last good record of the log (what RocketMQ's recovery would set as the write position)."""
        return self.log_scans.max_offset()

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
        return self.commitlog.store_timestamp_at(offset)

    def store_timestamps_at(self, offsets: Sequence[int]) -> dict[int, int | StoreError]:
        """:meth:`store_timestamp_at` of many offsets (the StoreError it raises in its place), the heads of the
        records read from each segment's mapping together with numpy: 32,000 record reads of a 16,000-queue
        group's sides cost ~0.2 s one by one (issue 30). An offset no segment holds whole 80 bytes of is read
        by :meth:`store_timestamp_at` itself."""
        found: dict[int, int | StoreError] = {}
        # sorted(set()), not np.unique: numpy 2's unique imports numpy.ma (~10 ms) on its first call
        wanted = np.array(sorted(set(offsets)), dtype=np.int64)
        starts = np.array([s.start_offset for s in self.commitlog.segments], dtype=np.int64)
        which = np.searchsorted(starts, wanted, side="right") - 1
        rest = wanted[which < 0].tolist()
        for i in sorted(set(which[which >= 0].tolist())):
            seg = self.commitlog.segments[i]
            mine = wanted[which == i]
            try:
                arr = self.commitlog.map(seg).array
            except StoreError:
                rest += mine.tolist()
                continue
            rel = mine - seg.start_offset
            whole = rel + 80 <= len(arr)
            rest += mine[~whole].tolist()
            rel, mine = rel[whole], mine[whole]
            flag = _gather(arr, rel + 36, ">i4")
            stamps = _gather(arr, rel + np.where(flag & cl.BORNHOST_V6_FLAG, 68, 56), ">i8")
            found.update(zip(mine.tolist(), stamps.tolist(), strict=True))
        for offset in rest:
            try:
                found[offset] = self.store_timestamp_at(offset)
            except StoreError as e:
                found[offset] = e
        return found

    # -- ids and references -------------------------------------------------------------------------------------

    def resolve_id(self, text: str, scan: bool = True) -> list[IdReading]:
        """Both readings of ``text``, checked here; ``scan``: the unique key's lookup also reads the log no index
        file covers (the reading's note says when that is where it was found)."""
        return decode_id(text, self, scan)

    def find(self, ref: str, scan: bool = True) -> Message:
        """A message by physical offset (decimal), offset msgId or unique key (``scan``: see :meth:`locate`)."""
        return self.locate(ref, scan)[0]

    def locate(self, ref: str, scan: bool = True) -> tuple[Message, str | None]:
        """:meth:`find`, and how the message was found when no index file led there (None otherwise). ``scan``:
        a unique key is also looked for in the log no index file covers; not found, the reason says what was
        searched (and, with ``scan`` False, what was not)."""
        ref = ref.strip()
        if len(ref) in (32, 56):
            for reading in decode_id(ref, self, scan):
                if reading.found and reading.physical_offset is not None:
                    return self.message_at(reading.physical_offset), reading.note
        return self._find(ref, scan), None

    def _find(self, ref: str, scan: bool) -> Message:
        """A message by offset; an id here is one neither reading found (the not-found reason says why)."""
        number = parse_integer(ref)  # ASCII digits or 0x hex only: int() would read '٣' as 3
        if number is not None and len(ref) not in (32, 56):
            offset = OFFSET.parse(ref, "offset")  # -1 or 2**64: the range message
            try:
                return self.message_at(offset)
            except (NotFound, RecordInProgress):
                raise
            except StoreError as e:  # the log's end offset or past it names nothing (exit 1), it is no damage
                if self.commitlog.past_the_data(offset):
                    raise NotFound(f"physical offset {offset} is past the end of the log (only zeros from here to "
                                   "the end of its last segment)", e.file, e.offset) from None
                raise
        if len(ref) in (32, 56):  # an id no reading found (locate asked); a digits-only one may be an offset
            if number is not None and OFFSET.fits(number):
                return self.message_at(number)
            expired = id_expired_reason(self.commitlog.retention_floor, ref)
            if expired:
                raise NotFound(expired)
            coverage = self.index_coverage_note(scan)
            raise NotFound(f"no message with id {ref} in this store" + (f" ({coverage})" if coverage else ""))
        raise BadInput(f"{ref[:100]!r} is neither a physical offset ({OFFSET.allowed()}) nor a 32/56-hex message id")

    # -- consume queues (StoreQueues) ----------------------------------------------------------------------------

    @property
    def rocksdb_cq(self) -> RocksDBConsumeQueueStore | None:
        """The RocksDB consume queue when consumequeue/ is a RocksDB database (5.2.0+); None otherwise."""
        return self.queues.rocksdb_cq

    def queue_ids(self) -> list[tuple[str, int]]:
        """The (topic, queue id) pairs of ``consumequeue/`` (file or RocksDB); batch queues: :meth:`batch_queue_ids`."""
        return self.queues.queue_ids()

    def batch_queue_ids(self) -> list[tuple[str, int]]:
        """The (topic, queue id) pairs of ``batchconsumequeue/`` (5.x topics with ``queue.type=BatchCQ``)."""
        return self.queues.batch_queue_ids()

    def topics(self) -> list[str]:
        return self.queues.topics(self.config.topics)

    def batch_topics(self) -> set[str]:
        """Topics whose queues are batch consume queues (topics.json says so, or a batchconsumequeue/ exists)."""
        return self.queues.batch_topics(self.config.topics)

    def batch_queue(self, topic: str, queue_id: int) -> BatchConsumeQueue:
        return self.queues.batch_queue(topic, queue_id)

    def queue(self, topic: str, queue_id: int) -> ConsumeQueue | RocksDBQueue | BatchConsumeQueue:
        """The queue of (topic, queue id): from ``consumequeue/``, else from ``batchconsumequeue/``."""
        return self.queues.queue(topic, queue_id)

    def queue_infos(self) -> list[QueueInfo]:
        return self.queues.queue_infos()

    def queue_info(self, topic: str, queue_id: int) -> QueueInfo:
        """``queue(topic, queue_id).info()``, answered from :meth:`prefetch_infos` when it found it."""
        return self.queues.queue_info(topic, queue_id)

    def prefetch_infos(self, ids: Iterable[tuple[str, int]],
                       peek: Callable[[QueueInfo], Sequence[int]] | None = None) -> QueueEnds:
        """Many queues' infos found in one pass and kept for :meth:`queue_info` (``StoreQueues.prefetch_infos``)."""
        return self.queues.prefetch_infos(ids, peek)

    def queue_messages(self, topic: str, queue_id: int, from_offset: int = 0
                       ) -> Iterator[tuple[CqUnit | BatchUnit, Message | Problem]]:
        """Units of one queue with the message each points at (or a Problem saying why it could not be read)."""
        return self.queues.queue_messages(topic, queue_id, from_offset)

    def message_by_queue_offset(self, topic: str, queue_id: int, queue_offset: int) -> Message:
        return self.queues.message_by_queue_offset(topic, queue_id, queue_offset)

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

    # -- index files and keys (KeyIndex) ---------------------------------------------------------------------

    def index_files(self) -> list[IndexFileReader]:
        """Index files in name (creation) order; unreadable ones are reported in index_problems()."""
        return self.key_index.index_files()

    def index_problems(self) -> list[Problem]:
        return self.key_index.index_problems()

    def index_range_problems(self, reader: IndexFileReader) -> list[Problem]:
        return self.key_index.index_range_problems(reader)

    def index_trust_problems(self) -> list[Problem]:
        return self.key_index.index_trust_problems()

    def chain(self, topic: str, key: str, begin: int = 0, end: int = MAX_TIME, limit: int | None = None,
              budget: Budget | None = None) -> list[ChainWalk]:
        """The hash-slot walk for topic#key in every index file, newest first (see ``KeyIndex.chain``)."""
        return self.key_index.chain(topic, key, begin, end, limit, budget)

    def lookup_key(self, topic: str, key: str, begin: int = 0, end: int = MAX_TIME, scan: bool = True) -> list[KeyHit]:
        """See ``KeyIndex.lookup_key``; ``scan``: also read the log no index file covers."""
        return self.key_index.lookup_key(topic, key, begin, end, scan)

    def lookup_unique_key(self, unique_key: str, topics: list[str] | None = None, scan: bool = True,
                          unreadable: list[tuple[str, int]] | None = None) -> list[KeyHit]:
        """Messages whose UNIQ_KEY is ``unique_key`` (in ``topics``, else in every topic this store knows);
        ``unreadable`` collects (index file, offset) of items with the key's hash whose record cannot be read."""
        return self.key_index.lookup_unique_key(unique_key, topics, [] if topics else self.topics(), scan, unreadable)

    def index_coverage(self) -> tuple[list[IndexSpan], list[Uncovered]]:
        """Each index file's span of the log and the ranges no index file covers (``KeyIndex.coverage``)."""
        return self.key_index.coverage()

    def scan_unindexed(self, topic: str | None, key: str,
                       budget: Budget | None = None) -> tuple[list[KeyHit], str | None]:
        """Only the scan of the log no index file covers for ``key`` (``topic`` None: any), each hit marked
        "found by scan: ...": for a view that walks the chains itself (the web's chain page). With the hits, why
        the scan stopped short when ``budget`` ran out (None: it scanned every such range)."""
        hits: list[KeyHit] = []
        try:
            self.key_index.uncovered_hits(topic, key, 0, MAX_TIME, set(), budget, hits)
        except BudgetExceeded as e:
            return hits, str(e)
        return hits, None

    @contextlib.contextmanager
    def scan_limits(self, budget: Budget | None = None,
                    progress: Callable[[int, int], None] | None = None) -> Iterator[ScanLimits]:
        """Inside the block, the lookups' scans of the log no index file covers (``lookup_key``, ``locate`` and
        ``find`` by a unique key) stop once ``budget`` runs out, keeping what they found (the yielded limits'
        ``stopped`` then says where), and report ``progress(bytes scanned, bytes to scan)`` between batches. The
        limits hold for this Store's lookups in the calling thread until the block ends (the CLI's whole command,
        one ``story_of``: another thread's lookups, a web request beside it, keep their own)."""
        limits = ScanLimits(budget, progress)
        before, self.key_index.scan_limits = self.key_index.scan_limits, limits
        try:
            yield limits
        finally:
            self.key_index.scan_limits = before

    def index_coverage_note(self, scan: bool = True) -> str | None:
        """What a key lookup did about the log no index covers (``KeyIndex.coverage_note``); None: all covered."""
        return self.key_index.coverage_note(scan)

    # -- consumers ----------------------------------------------------------------------------------------------

    def consumer_offsets(self) -> ConsumerOffsets:
        """The consumer offsets from where the broker keeps them (``offsets.py``: consumerOffset.json,
        lmqConsumerOffset.json or a RocksDB config database), with the source named. Read once."""
        with self._lock:
            if self._offsets is None:
                self._offsets = load_consumer_offsets(OffsetPlaces(self.root, self.config, self.broker_config))
            return self._offsets

    def consumer_lag(self) -> list[dict]:
        """Each (group, topic, queue) of the offsets' source (:meth:`consumer_offsets` names it) with its committed
        offset and lag against the queue; StoreError (naming the database) when that source cannot be read."""
        offsets = self.consumer_offsets()
        if offsets.error is not None:
            raise offsets.error
        rows = []
        # every queue an offset names, its ends found in one pass (16,000 queues: issue 30)
        self.prefetch_infos(sorted({(t, q) for (t, _), queues in offsets.table.items() for q in queues}))
        for (topic, group), queues in sorted(offsets.table.items()):
            for queue_id, offset in sorted(queues.items()):
                try:
                    info = self.queue_info(topic, queue_id)
                    # from the effective min: below it the broker moves the consumer to it (OFFSET_TOO_SMALL)
                    max_offset, lag = info.max_offset, max(0, info.max_offset - max(offset, info.min_offset))
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
                *self.config.findings(), *self.consumer_offsets().problems, *interrupted_rebuild_problems(self.root),
                *self.dledger_member_problems(), *self.not_file_problems()]

    def not_file_problems(self) -> list[Problem]:
        """Entries named like a timer-log or DLedger index file that are no regular file (a FIFO, a device, a
        folder): skipped unopened by their readers, named here (info) as the commitlog's and the queues' are
        (verify's walks of those files name them themselves). A listing of two folders, no file opened."""
        member = member_of(self.root, self.dledger_data)
        return [*timer_log_not_files(self.root), *(member.not_index_files() if member is not None else ())]

    def dledger_member_problems(self) -> list[Problem]:
        """A warning when the root holds DLedger members that are not read (info and verify give it)."""
        found = self.dledger_choice.problem() if self.dledger_choice is not None else None
        return [found] if found is not None else []


def decode_id(text: str, store: Store | None = None, scan: bool = True) -> list[IdReading]:
    """Both readings of a message id (offset msgId first), each checked against the store when one is given
    (``scan``: the unique key also in the log no index file covers)."""
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
    hits = store.lookup_unique_key(text, scan=scan)
    uniq_reading = IdReading(uniq_reading.kind, uniq_reading.fields, bool(hits),
                             hits[0].message.physical_offset if hits else None, hits[0].note if hits else None)
    return [offset_reading, uniq_reading]


def _gather(arr: np.ndarray, at: np.ndarray, dtype: str) -> np.ndarray:
    """The big-endian integers of ``dtype`` at byte positions ``at`` of ``arr`` (uint8), as int64."""
    width = np.dtype(dtype).itemsize
    return arr[at[:, None] + np.arange(width)].copy().view(dtype).ravel().astype(np.int64)
