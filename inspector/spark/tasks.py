"""What runs on the executors: open a store read-only with our engine and walk one unit of work.

Plain Python, no Spark: every function here takes task descriptions planned on the driver
(:mod:`inspector.spark.plan`) and yields plain tuples in the order of a schema of
:mod:`inspector.spark.schemas`, so it is tested without a session. Nothing but a store path and a
segment / queue / index-file number crosses the wire; the bytes are read here, through the engine's
read-only mmap.

Failures stay local: a segment whose walk raises is reported (``SegmentReport.error``) with whatever it
produced before the failure, and the job goes on with the other segments.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from inspector.engine import (
    MESSAGE_FIELDS,
    Blank,
    BrokerConfig,
    Entry,
    Geometry,
    Message,
    Problem,
    QueueUnit,
    QueueWrite,
    Store,
    StoreError,
    b64,
    configured_trace_topic,
    dispatch_record,
    dledger_entry,
    inner_batch_of,
    inner_messages,
    is_inner_batch,
    open_store,
    queue_ends,
    segment_entries,
    sys_flag_parts,
    trace_object_row,
    verify_index_file,
    verify_queue,
    verify_segment,
)
from inspector.engine import NOT_FATAL as RECOVERY_NOT_FATAL

Sink = Callable[[object], None]  # where a task sends its small side results (an accumulator's add)

# --- task descriptions (planned on the driver, pickled to the executors) -------------------------------------


@dataclass(frozen=True)
class StoreRef:
    """A store as every executor opens it: an absolute path plus the geometry options given on the command line."""

    path: str
    segment_size: int | None = None
    cq_file_size: int | None = None
    index_slots: int | None = None
    index_items: int | None = None
    broker_config: BrokerConfig | None = None  # --broker-config, parsed on the driver
    dledger_member: str | None = None  # --dledger-member: the member of a root holding several

    def open(self) -> Store:
        # the engine's one way from what the user typed to a store (the broker.conf parsed once, on the driver)
        return open_store(self.path, segment_size=self.segment_size, cq_file_size=self.cq_file_size,
                          index_slots=self.index_slots, index_items=self.index_items,
                          broker_config=self.broker_config, dledger_member=self.dledger_member)

    @property
    def trace_topic(self) -> str | None:
        """The broker config's custom trace topic (``msgTraceTopicName``), whose bodies rows decode too."""
        return configured_trace_topic(self.broker_config)


@dataclass(frozen=True)
class SegmentTask:
    store: StoreRef
    index: int  # position in store.segments
    name: str  # file name (20-digit start offset)
    file: str  # path relative to the store root
    start_offset: int
    file_size: int
    since: int | None = None  # export --since/--until: only records stored in [since, until) leave the task
    until: int | None = None


@dataclass(frozen=True)
class QueueTask:
    store: StoreRef
    index: int  # position in store.queue_ids() followed by store.batch_queue_ids()
    topic: str
    queue_id: int
    geometry: Geometry
    log_end: int  # Store.max_offset(), computed on the driver from the segment reports
    kind: str = "consumequeue"  # or "batchconsumequeue" (5.x BatchCQ topics, 46-byte units)


@dataclass(frozen=True)
class IndexTask:
    store: StoreRef
    index: int  # position in store.index_files()
    file: str  # "index/<name>"


# --- one segment ---------------------------------------------------------------------------------------------


@dataclass
class SegmentReport:
    """What the walk of one segment found: the figures of ``CommitLog.scan_segment`` plus what recovery needs."""

    store: str
    index: int
    name: str
    file: str
    start_offset: int
    file_size: int
    messages: int = 0
    data_end: int = 0
    blank_position: int | None = None
    blank_size: int | None = None
    first_store_timestamp: int = 0
    last_store_timestamp: int = 0
    max_store_timestamp: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)  # job-specific findings (e.g. records not dispatched)
    error: str | None = None
    # recovery (inspector.engine.read.store.recovery.recover): entries before the first fatal problem
    fatal: Problem | None = None
    last_record_offset: int | None = None
    last_record_end: int | None = None
    blank_offset: int | None = None  # physical offset of a BLANK seen before any fatal problem
    # verify, a DLedger data file: for the driver's DLedger checks (check_dledger), the entries its clean runs
    # hold: MatchedEntries when the task found each equal to its index unit, else their rows ((4, n) int64:
    # record offset, size, Raft index, term)
    entry_heads: object = None  # SegmentVerdict.entry_heads, handed back to verify_dledger as it came
    # verify: the segment's records its queues do not cover (QueueCoverage.uncovered), merged on the driver
    uncovered: dict | None = None

    @property
    def key(self) -> tuple[str, int]:
        return self.store, self.index

    @property
    def has_data(self) -> bool:
        return bool(self.messages) or self.blank_position is not None

    @property
    def valid_end_offset(self) -> int:
        return self.start_offset + self.data_end

    def row(self) -> tuple:
        """A row of :data:`inspector.spark.schemas.SEGMENT`."""
        return (self.store, self.index, self.name, self.start_offset, self.file_size, self.messages, self.data_end,
                self.blank_position, self.blank_size, max(0, self.file_size - self.data_end),
                self.first_store_timestamp, self.last_store_timestamp, len(self.problems),
                [problem_row(p) for p in self.problems], self.error)


def problem_row(p: Problem) -> tuple:
    return (p.file, p.offset, p.code, p.severity, p.reason)


class SegmentWalk:
    """Walks one segment's entries (messages, BLANK, problems) and fills a :class:`SegmentReport`.

    ``entries()`` yields what ``CommitLog.entries`` yields for this segment; the consumer may call
    :meth:`fail` if its own handling of an entry raises. The store stays open (``self.store``) while the
    walk runs and is closed when it ends.
    """

    def __init__(self, task: SegmentTask, *, check_crc: bool = True):
        self.task = task
        self.check_crc = check_crc
        self.store: Store | None = None
        self.report = SegmentReport(task.store.path, task.index, task.name, task.file, task.start_offset,
                                    task.file_size)

    def entries(self) -> Iterator[Entry]:
        try:
            self.store = self.task.store.open()
            yield from self._walk(self.store)
        except Exception as e:  # noqa: BLE001 - one segment's failure is reported, not fatal to the job
            self.fail(e)
        finally:
            if self.store is not None:
                self.store.close()

    def _walk(self, store: Store) -> Iterator[Entry]:
        _planned_segment(store, self.task)
        for entry in segment_entries(store, self.task.index, check_crc=self.check_crc):
            self._observe(entry)
            yield entry

    def _observe(self, entry: Entry) -> None:
        r = self.report
        if isinstance(entry, Message):
            r.messages += 1
            r.data_end = entry.position + entry.total_size
            if not r.first_store_timestamp:
                r.first_store_timestamp = entry.store_timestamp
            r.last_store_timestamp = entry.store_timestamp
            r.max_store_timestamp = max(r.max_store_timestamp, entry.store_timestamp)
            if r.fatal is None:
                r.last_record_offset, r.last_record_end = entry.physical_offset, entry.end_offset
        elif isinstance(entry, Blank):
            r.blank_position, r.blank_size = entry.position, entry.total_size
            r.data_end = entry.position
            if r.fatal is None:
                r.blank_offset = entry.physical_offset
        else:
            r.problems.append(entry)
            if r.fatal is None and entry.code not in RECOVERY_NOT_FATAL:
                r.fatal = entry

    def fail(self, e: BaseException) -> None:
        if self.report.error is None:
            self.report.error = f"{type(e).__name__}: {e}"


# --- rows ----------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _sys_flag_parts(sys_flag: int) -> tuple:
    return tuple(sys_flag_parts(sys_flag).values())  # SYS_FLAG_PART_NAMES order, as the schema's struct


# MESSAGE_FIELDS' derivations in row order; sys_flag_parts as the schema's struct (a tuple, cached per sysFlag)
_ROW_FIELDS = tuple((lambda m: _sys_flag_parts(m.sys_flag)) if f.kind == "sys_flag_parts" else f.derive
                    for f in MESSAGE_FIELDS)


def _struct(obj: dict | None) -> tuple | None:
    return None if obj is None else tuple(obj.values())  # the declared order, as the schema's struct


def message_row(msg: Message, store: str, segment: str, *, with_body: bool = True,
                trace_topic: str | None = None) -> tuple:
    """A row of :data:`inspector.spark.schemas.MESSAGE`: the store and segment, then ``message_view``'s fields
    (``MESSAGE_FIELDS``, the body in base64, the ``dledger``, ``inner_batch`` and ``trace`` objects as structs;
    ``trace_topic``: the store's custom trace topic, ``configured_trace_topic``; a job without bodies has no
    trace either)."""
    return (store, segment, *[derive(msg) for derive in _ROW_FIELDS],
            b64(msg.body) if with_body else None, False if with_body else None,
            _struct(dledger_entry(msg)), _struct(inner_batch_of(msg)),
            trace_object_row(msg, trace_topic) if with_body else None)


def record_rows(msg: Message, store: str, segment: str, *, with_body: bool = True,
                trace_topic: str | None = None) -> list[tuple]:
    """A record's MESSAGE rows: one, or for a 5.x inner-batch record one per inner message, as ``messages
    --topic T --queue N`` lists them (queue offset = the record's QUEUEOFFSET, i.e. INNER_BASE, + i; its own
    flag, properties, keys, tags and body; the record's physical offset, msgId, sizes and times). A body that
    does not split into items stays one row (the record as stored; ``verify`` names what is wrong with it)."""
    if is_inner_batch(msg):
        try:
            return [message_row(m, store, segment, with_body=with_body, trace_topic=trace_topic)
                    for m in inner_messages(msg)]
        except StoreError:
            pass
    return [message_row(msg, store, segment, with_body=with_body, trace_topic=trace_topic)]


def message_rows(tasks: Iterable[SegmentTask], sink: Sink, *, with_body: bool = True) -> Iterator[tuple]:
    """Every message of the segments, one MESSAGE row each (an inner batch's messages each a row of its own:
    ``record_rows``); each segment's report goes to ``sink``."""
    for task in tasks:
        walk = SegmentWalk(task)
        trace_topic = task.store.trace_topic
        for entry in walk.entries():
            if isinstance(entry, Message):
                if (task.since is not None and entry.store_timestamp < task.since) or \
                        (task.until is not None and entry.store_timestamp >= task.until):
                    continue  # export --since/--until, as the Arrow path applies it (arrow.py)
                try:
                    rows = record_rows(entry, task.store.path, task.name, with_body=with_body,
                                       trace_topic=trace_topic)
                except Exception as e:  # noqa: BLE001
                    walk.fail(e)
                    break
                yield from rows
        sink(walk.report)


# --- verify ----------------------------------------------------------------------------------------------------


def finding_row(store: str, phase: int, task: int, seq: int, p: Problem) -> tuple:
    """A row of :data:`inspector.spark.schemas.FINDING`."""
    return (store, phase, task, seq, p.file, p.offset, p.code, p.severity, p.reason, p.entry)


# the order of verify's report: layout, records, LMQ multi-dispatch properties, queues, index files, the rest
PHASE_LAYOUT, PHASE_RECORDS, PHASE_LMQ, PHASE_QUEUES, PHASE_INDEX, PHASE_REST = range(6)


def verify_segments(tasks: Iterable[SegmentTask], sink: Sink) -> Iterator[tuple]:
    """Record-level checks of ``verify`` (every entry's problems, the ``__CRC32#`` property), per segment.

    The segment is summarised as ``verify`` does it (``CommitLog.summarise_segment``: clean runs checked in
    bulk, every other record one by one), on one thread: Spark runs the segments in parallel.
    """
    ends: dict[StoreRef, dict] = {}  # each store's queue ends, read once per partition of tasks
    for task in tasks:
        report = SegmentReport(task.store.path, task.index, task.name, task.file, task.start_offset, task.file_size)
        found: list[Problem] = []
        lmq: list[Problem] = []
        try:
            with task.store.open() as store:
                seg = _planned_segment(store, task)
                if task.store not in ends:
                    ends[task.store] = queue_ends(store)
                verdict = verify_segment(store, seg, ends[task.store])
            # the driver merges every task's share of the coverage and the entry heads, where verify reports them
            report.uncovered = verdict.uncovered
            scan = verdict.scan
            report.messages, report.data_end = scan.messages, scan.data_end
            report.blank_position, report.blank_size = scan.blank_position, scan.blank_size
            report.first_store_timestamp, report.last_store_timestamp = scan.first_store_timestamp, scan.last_store_timestamp
            report.max_store_timestamp = verdict.max_store_timestamp
            report.problems = list(scan.problems)
            report.entry_heads = verdict.entry_heads
            found, lmq = list(verdict.problems), list(verdict.lmq_problems)
        except Exception as e:  # noqa: BLE001 - one segment's failure is reported, not fatal to the job
            report.error = f"{type(e).__name__}: {e}"
            found = [Problem(task.file, 0, f"the segment could not be checked: {report.error}", "check-failed")]
        for seq, p in enumerate(found):
            yield finding_row(task.store.path, PHASE_RECORDS, task.index, seq, p)
        for seq, p in enumerate(lmq):
            yield finding_row(task.store.path, PHASE_LMQ, task.index, seq, p)
        sink(report)


def _planned_segment(store: Store, task: SegmentTask):
    segments = store.segments
    seg = segments[task.index] if task.index < len(segments) else None
    if seg is None or seg.name != task.name:
        raise StoreError("the commitlog changed since the job was planned", task.file)
    return seg


def verify_queues(tasks: Iterable[QueueTask], sink: Sink) -> Iterator[tuple]:
    """Consume queues against the records they point at (``verify``'s queue phase), one queue at a time."""
    stores: dict[StoreRef, Store] = {}
    try:
        for task in tasks:
            units = 0
            try:
                store = stores.get(task.store) or stores.setdefault(task.store, task.store.open())
                found, units = verify_queue(store, task.topic, task.queue_id, task.geometry, task.log_end,
                                              task.kind)
            except Exception as e:  # noqa: BLE001
                found = [Problem(f"{task.kind}/{task.topic}/{task.queue_id}", 0,
                                 f"the queue could not be checked: {type(e).__name__}: {e}", "check-failed")]
            for seq, p in enumerate(found):
                yield finding_row(task.store.path, PHASE_QUEUES, task.index, seq, p)
            sink(("cq_units", task.store.path, task.index, units))
    finally:
        for s in stores.values():
            s.close()


def verify_index_files(tasks: Iterable[IndexTask], sink: Sink) -> Iterator[tuple]:
    """Index files against the messages their items point at (``verify``'s index phase), one file at a time."""
    stores: dict[StoreRef, Store] = {}
    try:
        for task in tasks:
            items = 0
            try:
                store = stores.get(task.store) or stores.setdefault(task.store, task.store.open())
                readers = store.index_files()
                reader = readers[task.index] if task.index < len(readers) else None
                if reader is None or reader.rel != task.file:
                    raise StoreError("the index directory changed since the job was planned", task.file)
                found, items = verify_index_file(store, reader)
            except Exception as e:  # noqa: BLE001
                found = [Problem(task.file, 0, f"the index file could not be checked: {type(e).__name__}: {e}",
                                 "check-failed")]
            for seq, p in enumerate(found):
                yield finding_row(task.store.path, PHASE_INDEX, task.index, seq, p)
            sink(("index_items", task.store.path, task.index, items))
    finally:
        for s in stores.values():
            s.close()


# --- rebuild-cq ------------------------------------------------------------------------------------------------


def dispatch_rows(tasks: Iterable[SegmentTask], sink: Sink, geometries: dict[str, Geometry]) -> Iterator[tuple]:
    """DISPATCH rows of every message: the queue units ``rebuild`` dispatches (``dispatch_record``; CRC not
    checked there, but recovery's view of the segment needs it, so the walk checks it). What a record could not
    be dispatched to goes to the segment's report as notes."""
    for task in tasks:
        walk = SegmentWalk(task, check_crc=True)
        geometry = geometries[task.store.path]
        for entry in walk.entries():
            if not isinstance(entry, Message):
                continue
            try:
                units, notes = dispatch_record(entry, geometry)
            except Exception as e:  # noqa: BLE001
                walk.fail(e)
                break
            walk.report.notes.extend(notes)
            for u in units:
                yield (task.store.path, u.topic, u.queue_id, u.read_offset, u.physical_offset, u.total_size,
                       u.tags_code, u.store_timestamp, u.queue_offset, u.sys_flag, u.prepared_transaction_offset)
        sink(walk.report)


@dataclass(frozen=True)
class QueueWritten:
    store: str
    topic: str
    queue_id: int
    units: int  # consume-queue units written
    records: int  # records dispatched (a PREPARED or ROLLBACK one gets no unit)
    files: tuple[str, ...]  # relative to the output directory
    warnings: tuple[str, ...]
    error: str | None = None


def write_queues(rows: Iterable, targets: dict[str, tuple[str, Geometry]],
                 batch_topics: dict[str, tuple[StoreRef, set[str]]] | None = None) -> Iterator[QueueWritten]:
    """Write the queues of DISPATCH rows sorted by (store, topic, queue_id, read_offset): one ``QueueWrite``
    per queue under the store's output directory (any partitioning by queue gives the single-process bytes;
    a retried task's QueueWrite first removes what an earlier attempt wrote for the queue).

    ``batch_topics``: per store, its ref and the topics whose ``queue.type`` is ``BatchCQ`` (``Store.batch_topics``):
    their queues go to ``batchconsumequeue/``, each record re-read from the store (opened here once).
    """
    current: tuple | None = None
    writer: QueueWrite | None = None
    units = records = 0
    error: str | None = None
    batch_topics = batch_topics or {}
    stores: dict[str, Store] = {}

    def finish() -> QueueWritten | None:
        if current is None:
            return None
        files, warnings = writer.close() if writer is not None else ((), ())
        return QueueWritten(current[0], current[1], current[2], units, records, files, warnings, error)

    for row in rows:
        store, topic, queue_id = row[0], row[1], row[2]
        key = (store, topic, queue_id)
        if key != current:
            done = finish()
            if done is not None:
                yield done
            current, writer, units, records, error = key, None, 0, 0, None
            out, geometry = targets[store]
            try:
                opened = None
                if topic in batch_topics.get(store, (None, ()))[1]:
                    opened = stores.get(store) or stores.setdefault(store, batch_topics[store][0].open())
                writer = QueueWrite(out, topic, queue_id, geometry, opened)
            except Exception as e:  # noqa: BLE001 - this queue is reported, the others are written
                error = f"{type(e).__name__}: {e}"
        if writer is None:
            continue
        try:
            records += 1
            units += int(writer.put(QueueUnit(*row[1:])))
        except Exception as e:  # noqa: BLE001
            error = f"{type(e).__name__}: {e}"
            writer.close()
            writer = None
    done = finish()
    for opened in stores.values():
        opened.close()
    if done is not None:
        yield done
