"""Create a new RocketMQ store directory exactly as a broker lays it out (spec §1-§7, §9.1, §10.1, §11).

:class:`StoreWriter` plays producer + broker: it takes :class:`MessageSpec` inputs, encodes commitlog records
the way ``MessageExtEncoder`` / ``DefaultAppendMessageCallback.doAppend`` do, dispatches every record through
:mod:`inspector.engine.maintain.rebuild.dispatch` (consume queues, index files), and on :meth:`StoreWriter.close` writes the
checkpoint and the ``config/*.json`` files of a cleanly shut-down broker.

This module is the orchestration; the jobs it hands out have modules of their own:
:mod:`~inspector.engine.maintain.write.messagespec` (input and results), :mod:`~inspector.engine.maintain.write.messageflow`
(what one send writes, and the fixed property order), :mod:`~inspector.engine.maintain.write.encode` (the bytes of a
record), :mod:`~inspector.engine.maintain.write.segments` (commitlog segments and BLANKs) and
:mod:`~inspector.engine.maintain.write.brokerfiles` (checkpoint and config files).

Files a broker writes that this writer does not: ``abort`` (clean shutdown: none, unless ``aging`` says the
broker crashed), the pre-allocated next
commitlog segment, ``.bak`` copies of config files (none exist after a single persist), the startup system
topics and groups (``TBW102``, ``SELF_TEST_TOPIC``, ``TOOLS_CONSUMER`` ...) in the config files, and the 5.x
timer store (``timerwheel``, ``timerlog``, ``config/timercheck``, ``config/timermetrics``) unless a message
has a delivery time (:mod:`~inspector.engine.maintain.write.timerflow`). ``lock`` is created with the 4 bytes
``lock``, as every broker that ever started leaves it.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType

from inspector.engine.maintain.rebuild.bcq_builder import BatchConsumeQueueBuilder
from inspector.engine.maintain.rebuild.cq_builder import ConsumeQueueBuilder
from inspector.engine.maintain.rebuild.dispatch import check_path_component, dispatch_request, lmq_requests
from inspector.engine.maintain.rebuild.index_builder import IndexBuilder
from inspector.engine.maintain.rebuild.timer_builder import TimerBuilder
from inspector.engine.maintain.write.aging import Aged, Aging, age_store
from inspector.engine.maintain.write.brokerfiles import checkpoint_bytes, write_config_files
from inspector.engine.maintain.write.dledger_log import DLedgerLogWriter, DLedgerOptions
from inspector.engine.maintain.write.encode import _Prepared, format_host, parse_host
from inspector.engine.maintain.write.messageflow import MessageFlow
from inspector.engine.maintain.write.messagespec import TRANSACTIONS, AppendResult, MessageSpec, _Half
from inspector.engine.maintain.write.recordspec import RecordSpec
from inspector.engine.maintain.write.segments import SegmentWriter
from inspector.engine.maintain.write.sendback import SendBackFlow
from inspector.engine.maintain.write.timerflow import TimerFlow
from inspector.engine.model.errors import BadInput
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.multidispatch import MultiDispatchError, lmq_targets
from inspector.engine.read.timer.timerstore import DEFAULT_PRECISION_MS, effective_precision
from parsers.commitlog import (
    INNER_BATCH_FLAG,
    TRANSACTION_COMMIT_TYPE,
    TRANSACTION_MASK,
    TRANSACTION_NOT_TYPE,
)
from parsers.msgid import encode_offset_msg_id, encode_uniq_key, uniq_key_time_span
from parsers.timer import TIMER_LOG_DEFAULT_FILE_SIZE

__all__ = ["StoreWriter"]

DEFAULT_MAX_MESSAGE_SIZE = 4 * 1024 * 1024  # MessageStoreConfig.maxMessageSize (body limit)
QUEUE_TYPE_ATTRIBUTE, BATCH_CQ = "queue.type", "BatchCQ"  # TopicAttributes.QUEUE_TYPE_ATTRIBUTE, CQType.BatchCQ


def _wall_clock() -> int:
    return time.time_ns() // 1_000_000



class StoreWriter(MessageFlow, TimerFlow, SendBackFlow):
    """Writes a new store directory; see the module docstring. Use as a context manager or call :meth:`close`.

    * ``geometry``: segment, consume-queue and index sizes, delay levels.
    * ``clock``: the broker's wall clock (ms) for missing store timestamps, index file names and the config
      files' dataVersion; None: store timestamps default to the real time, index files are named after the
      record that creates them and dataVersion uses the last store timestamp - so explicit timestamps give
      byte-identical stores.
    * ``tz``: zone of the index file names and of the UNIQ_KEY month start.
    * ``producer_ip``, ``pid``, ``class_loader_hash``: the ``MessageClientIDSetter`` fixed part; the counter
      starts at 0 and advances per generated id.
    * ``store_host``: default STOREHOSTADDRESS (also the born host of op records).
    * ``consumer_offsets``: ``{(topic, group): {queue_id: offset}}`` for ``consumerOffset.json`` (the
      groups also go to ``subscriptionGroup.json``); ``delay_offsets``: ``{level: offset}`` for
      ``delayOffset.json`` (default: 0 for every level used, i.e. nothing delivered yet);
      ``queue_nums``: read/write queue numbers per topic for ``topics.json``; ``topic_attributes``: each
      topic's ``attributes`` in ``topics.json`` (5.x, e.g. ``{"queue.type": "BatchCQ"}``: that topic's units
      go to ``batchconsumequeue/`` and it may take inner batches, see ``MessageSpec.batch``). All four are
      attributes that may be changed until :meth:`close` (the queue type before the topic's first record).
    * ``max_message_size``: largest stored body accepted (``maxMessageSize``, 4 MiB).
    * ``timer_now``: the timer store's "now" (ms): timers due before it are delivered into their topics, the
      rest stay pending (default: the last store time written); ``timer_precision_ms`` and
      ``timer_file_size``: timerPrecisionMs and mappedFileSizeTimerLog (defaults 1000 and 100 MiB).
    * ``dledger``: write a DLedger store (:class:`DLedgerOptions`): records become entries of
      ``dledger-<id>/data/`` (after ``pre_dledger`` records in ``commitlog/``), at offsets pos + 48.
    * ``strip_commit_properties``: remove ``TRAN_MSG``, ``REAL_TOPIC``, ``REAL_QID`` from COMMIT records
      (spec §10.1). Set False to reproduce brokers whose ``EndTransactionProcessor`` encodes the properties
      before clearing them (seen in 5.x sources before 5.2), which keeps all three in the stored record.
    * ``enable_lmq``: the broker's ``enableLmq`` (spec part 2 §17): the consumer offsets then go to
      ``lmqConsumerOffset.json`` (a ``%LMQ%`` group's queue-0 offset in its ``lmqOffsetTable``) and no
      ``consumerOffset.json`` is written. None (default): True exactly when a message had ``lmq_queues``.
    * ``aging``: the store's past after the day (:class:`~inspector.engine.maintain.write.aging.Aging`:
      retention and the broker's cleanup, a crash, a torn tail), applied by :meth:`close` after everything is
      written; what it did is :attr:`aged`. Not for DLedger stores.

    What was written: :attr:`segments`, :attr:`consume_queues` (a :class:`ConsumeQueueBuilder`: ``files``,
    ``max_offsets``), :attr:`batch_queues` (a :class:`BatchConsumeQueueBuilder`, likewise) and :attr:`index` (an :class:`IndexBuilder`: ``files`` with their headers,
    ``index_msg_timestamp``).
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        geometry: Geometry | None = None,
        *,
        clock: Callable[[], int] | None = None,
        tz: dt.tzinfo = dt.UTC,
        producer_ip: str = "127.0.0.1",
        pid: int = 1,
        class_loader_hash: int = 0,
        store_host: str = "127.0.0.1:10911",
        consumer_offsets: Mapping[tuple[str, str], Mapping[int, int]] | None = None,
        delay_offsets: Mapping[int, int] | None = None,
        queue_nums: Mapping[str, int] | None = None,
        topic_attributes: Mapping[str, Mapping[str, str]] | None = None,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        strip_commit_properties: bool = True,
        enable_lmq: bool | None = None,
        timer_now: int | None = None,
        timer_precision_ms: int | None = None,
        timer_file_size: int | None = None,
        dledger: DLedgerOptions | None = None,
        aging: Aging | None = None,
    ) -> None:
        self.root = Path(root)
        self.geometry = geometry if geometry is not None else Geometry()
        if aging is not None and dledger is not None:
            raise BadInput("aging is modelled for commitlog stores, not DLedger ones")
        self.aging = aging
        self.aged: Aged | None = None  # set by close() when aging was given
        self._segment_last_write: dict[str, int] = {}  # segment name -> store time of its last record
        self._last_record = -1  # physical offset of the last record written
        if self.root.exists():
            if not self.root.is_dir():
                raise BadInput("the store root exists and is not a directory", file=str(self.root))
            if any(self.root.iterdir()):
                raise BadInput("refusing to write into a non-empty directory", file=str(self.root))
        try:
            ipaddress.ip_address(producer_ip)
        except ValueError as e:
            raise BadInput(f"producer_ip is not an IP address: {producer_ip!r}") from e
        self.clock = clock
        self.tz = tz
        self.producer_ip = str(ipaddress.ip_address(producer_ip))
        self.pid = pid
        self.class_loader_hash = class_loader_hash
        self.store_host = format_host(*parse_host(store_host))
        self.consumer_offsets: dict[tuple[str, str], dict[int, int]] = {
            key: dict(value) for key, value in (consumer_offsets or {}).items()
        }
        self.delay_offsets: dict[int, int] | None = dict(delay_offsets) if delay_offsets is not None else None
        self.queue_nums: dict[str, int] = dict(queue_nums or {})
        self.topic_attributes: dict[str, dict[str, str]] = {
            topic: dict(attributes) for topic, attributes in (topic_attributes or {}).items()
        }
        self.max_message_size = max_message_size
        self.strip_commit_properties = strip_commit_properties
        self.enable_lmq = enable_lmq
        self._lmq_offsets: dict[str, int] = {}  # MultiDispatch's "name-0" keys: each LMQ queue's next offset
        self._max_delay_level = self.geometry.max_delay_level  # parsed once: it is a property
        self.timer_now = timer_now
        self.timers = TimerBuilder(effective_precision(timer_precision_ms or DEFAULT_PRECISION_MS),
                                   timer_file_size or TIMER_LOG_DEFAULT_FILE_SIZE)

        # builders first: they validate the geometry before anything is created on disk
        self._commitlog: SegmentWriter | DLedgerLogWriter = (
            SegmentWriter(self.root / "commitlog", self.geometry.segment_size) if dledger is None
            else DLedgerLogWriter(self.root, self.geometry.segment_size, dledger))
        self.consume_queues = ConsumeQueueBuilder(self.root, self.geometry)
        self.batch_queues = BatchConsumeQueueBuilder(self.root)
        self.index = IndexBuilder(self.root, self.geometry, clock=clock, tz=tz)
        for sub in ("commitlog", "consumequeue", "config"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        (self.root / "lock").write_bytes(b"lock")  # DefaultMessageStore writes "lock" at position 0
        self._queue_offsets: dict[tuple[str, int], int] = {}
        self._topic_queues: dict[str, int] = {}  # topic -> max queue id seen (stored and real topics)
        self._halves_by_index: dict[int, _Half] = {}
        self._recent: OrderedDict[int, tuple[AppendResult, _Prepared]] = OrderedDict()  # send_back, deliver
        self._halves_by_key: dict[str, _Half] = {}
        self._delay_levels: set[int] = set()
        self._uniq_counter = 0
        self._count = 0
        self._last_store_timestamp = 0
        self._logics_timestamp = 0  # checkpoint.logicsMsgTimestamp: store time of the last queue unit written
        self._any_record = False
        self._closed = False

    # -- public ---------------------------------------------------------------------------------------------

    def append(self, spec: MessageSpec) -> AppendResult:
        """Write one message (and whatever the broker writes with it); see :class:`MessageSpec`."""
        if self._closed:
            raise BadInput("the writer is closed")
        if not isinstance(spec, MessageSpec):
            raise BadInput(f"append takes a MessageSpec, not {type(spec).__name__}")
        if spec.lmq_queues and spec.transaction in ("commit", "rollback"):
            raise BadInput("lmq_queues is only for ordinary messages (not transactional, delayed or batched)")
        if spec.transaction is not None and spec.transaction not in TRANSACTIONS:
            raise BadInput(
                f"transaction is one of {', '.join(TRANSACTIONS)} or None, not {spec.transaction!r}"
            )
        index = self._count
        store_timestamp = spec.store_timestamp if spec.store_timestamp is not None else self._clock_now()
        counter = self._uniq_counter
        self._timer_deliver(store_timestamp)  # copies of timers due before this message come first
        try:
            if spec.transaction in ("commit", "rollback"):
                result = self._end_transaction(spec, index, store_timestamp)
            else:
                result = self._append_message(spec, index, store_timestamp)
        except BadInput:
            self._uniq_counter = counter  # a refused message consumes no generated id
            raise
        self._count += 1
        return result

    def append_stored(self, record: RecordSpec, *, keep_offsets: bool = False) -> AppendResult:
        """Write a record another store held (a ``messages --json`` line, :class:`RecordSpec`) as it is, and
        dispatch it as the broker's reput would. ``keep_offsets``: its physical and queue offsets must be the ones
        the line names (BadInput otherwise: a gap is never filled)."""
        if self._closed:
            raise BadInput("the writer is closed")
        expect = record.expected_offsets() if keep_offsets else None
        if keep_offsets and expect is None:
            raise BadInput("--keep-offsets: the line has no physical_offset and queue_offset")
        entries = self._commitlog.entries if isinstance(self._commitlog, DLedgerLogWriter) else None
        if keep_offsets and record.entry is not None and entries is None:
            raise BadInput(f"--keep-offsets: the record was DLedger entry {record.entry[0]} (term {record.entry[1]}): "
                           "write with --dledger and the old store's --pre-dledger and --dledger-term (`info` shows "
                           "its term timeline)")
        prepared = record.prepared
        messages = 1
        if self._is_batch_topic(prepared.topic) and prepared.sys_flag & INNER_BATCH_FLAG:
            messages = _inner_num(prepared)
        result = self._write(prepared, self._count, messages, expect=expect)
        self._note_stored_lmq(prepared)
        if keep_offsets:
            record.check_msg_id(result.physical_offset)
            if isinstance(self._commitlog, DLedgerLogWriter) and self._commitlog.entries != entries:
                written = (entries, self._commitlog.options.term_at(entries))
                if record.entry != written:
                    raise BadInput(f"--keep-offsets: the record was DLedger entry {record.entry}, here it is entry "
                                   f"{written} (Raft index, term): give the old store's --pre-dledger and "
                                   "--dledger-term")
        self._count += 1
        return result

    def commit(self, half_ref: int | str, *, store_timestamp: int | None = None) -> AppendResult:
        """Shortcut for ``append(MessageSpec("", b"", transaction="commit", half_ref=...))``."""
        return self.append(
            MessageSpec("", b"", transaction="commit", half_ref=half_ref, store_timestamp=store_timestamp)
        )

    def rollback(self, half_ref: int | str, *, store_timestamp: int | None = None) -> AppendResult:
        """Shortcut for ``append(MessageSpec("", b"", transaction="rollback", half_ref=...))``."""
        return self.append(
            MessageSpec("", b"", transaction="rollback", half_ref=half_ref, store_timestamp=store_timestamp)
        )

    def close(self) -> None:
        """Flush everything and write checkpoint and config files (a clean shutdown: no ``abort``), then apply
        ``aging`` if given."""
        if self._closed:
            return
        self._closed = True
        self._timer_close(self.root)  # delivered copies are records: before the commitlog is closed
        self._commitlog.close()
        self.consume_queues.close()
        self.batch_queues.close()
        self.index.close()
        checkpoint = checkpoint_bytes(
            self._last_store_timestamp, self._logics_timestamp, self.index.index_msg_timestamp
        )
        (self.root / "checkpoint").write_bytes(checkpoint)
        write_config_files(
            self.root / "config",
            self._config_now(),
            self._topic_queues,
            self.consumer_offsets,
            self.queue_nums,
            self._delay_levels,
            self.delay_offsets,
            self.topic_attributes,
            # a broker that multi-dispatched has enableLmq: every offset then goes to lmqConsumerOffset.json
            enable_lmq=self.enable_lmq if self.enable_lmq is not None else bool(self._lmq_offsets),
        )
        if self.aging is not None:  # the store's past comes after its day: everything above is on disk
            last = (self._last_record, self._commitlog.max_offset) if self._any_record else None
            self.aged = age_store(self.root, self.aging, last_write=self._segment_last_write, last_record=last,
                                  geometry=self.geometry, tz=self.tz)

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def segments(self) -> list[Path]:
        """The commitlog segment files written so far (a DLedger store: old segments, then data files)."""
        return list(self._commitlog.segments)

    @property
    def max_physical_offset(self) -> int:
        """The commitlog's max offset: first byte after the last record."""
        return self._commitlog.max_offset

    # -- records --------------------------------------------------------------------------------------------

    def _write(self, prepared: _Prepared, index: int, messages: int = 1,
               expect: tuple[int, int] | None = None) -> AppendResult:
        """Append one validated record and dispatch it (``doAppend`` + reput). ``messages``: how many queue
        offsets the record takes (an inner batch's INNER_NUM; ``BatchConsumeQueue.increaseQueueOffset``).
        ``expect``: the (physical, queue) offsets the record must get (``append_stored`` keeping offsets)."""
        check_path_component(prepared.topic, "topic")
        physical_offset = self._commitlog.reserve(prepared.total_size)
        tran = prepared.sys_flag & TRANSACTION_MASK
        key = (prepared.topic, prepared.queue_id)
        queue_offset = 0
        if tran in (TRANSACTION_NOT_TYPE, TRANSACTION_COMMIT_TYPE):  # assignOffset / increaseOffset
            queue_offset = self._queue_offsets.get(key, 0)
            self._queue_offsets[key] = queue_offset + messages
        if expect is not None and (physical_offset, queue_offset) != expect:
            raise BadInput(_offsets_refusal(expect, (physical_offset, queue_offset), first=not self._any_record))
        self._commitlog.write(prepared.build(physical_offset, queue_offset))
        self._last_store_timestamp = prepared.store_timestamp
        self._last_record = physical_offset
        # the mapped file's last modification: what deleteExpiredFileByTime compares with fileReservedTime
        segment = physical_offset - physical_offset % self.geometry.segment_size
        self._segment_last_write[f"{segment:020d}"] = prepared.store_timestamp
        self._any_record = True
        self._note_topic(prepared.topic, prepared.queue_id)
        request = dispatch_request(
            prepared.topic,
            prepared.queue_id,
            physical_offset,
            prepared.total_size,
            prepared.store_timestamp,
            queue_offset,
            prepared.sys_flag,
            prepared.prepared_transaction_offset,
            prepared.properties.as_map(),
            self.geometry,
        )
        batch = self._is_batch_topic(prepared.topic)
        queues = self.batch_queues if batch else self.consume_queues
        if queues.put(request):
            self._logics_timestamp = request.store_timestamp
        if not batch:  # ConsumeQueue.multiDispatchLmqQueue: LMQ units after the record's own (no index item)
            for lmq in lmq_requests(request):
                self.consume_queues.put(lmq)
        self.index.put(request)
        result = AppendResult(
            index=index,
            physical_offset=physical_offset,
            queue_offset=queue_offset,
            topic=prepared.topic,
            queue_id=prepared.queue_id,
            msg_id=encode_offset_msg_id(prepared.store_host[0], prepared.store_host[1], physical_offset),
            unique_key=request.unique_key,
            total_size=prepared.total_size,
            sys_flag=prepared.sys_flag,
            store_timestamp=prepared.store_timestamp,
        )
        self._remember(result, prepared)
        return result

    # MessageClientIDSetter.createUniqID
    def _create_uniq_id(self, born_timestamp: int) -> str:
        # the key's time is the ms since the start of the born month, found through Python's datetime, which ends
        # in year 9999 (Java's Calendar goes on to the end of a long): a later born time cannot be keyed here
        try:
            span = uniq_key_time_span(born_timestamp, self.tz)
        except (ValueError, OverflowError, OSError) as e:
            raise BadInput(f"born time {born_timestamp} ms is past what this writer can compute a unique key for "
                           f"(year 9999): {e}") from None
        key = encode_uniq_key(self.producer_ip, self.pid, self.class_loader_hash, span, self._uniq_counter)
        self._uniq_counter += 1
        return key

    def _is_batch_topic(self, topic: str) -> bool:
        """Whether the topic's ``queue.type`` attribute is ``BatchCQ`` (spec §4.3: its units go to
        ``batchconsumequeue/``)."""
        return self.topic_attributes.get(topic, {}).get(QUEUE_TYPE_ATTRIBUTE) == BATCH_CQ

    def _next_queue_offset(self, topic: str, queue_id: int) -> int:
        return self._queue_offsets.get((topic, queue_id), 0)

    def _note_stored_lmq(self, prepared: _Prepared) -> None:
        """A stored multi-dispatched record: its LMQ queues' next offsets follow the ones it holds (a message
        written after it continues them), and the store is an enableLmq broker's (lmqConsumerOffset.json)."""
        try:
            targets = lmq_targets(prepared.topic, prepared.queue_id, prepared.properties.as_map())
        except MultiDispatchError:
            return  # dispatched as the broker would: not at all (verify says why)
        for t in targets:
            self._lmq_offsets[t.queue] = max(self._lmq_offsets.get(t.queue, 0), t.queue_offset + 1)

    def _lmq_offset(self, queue: str) -> int:
        return self._lmq_offsets.get(queue, 0)

    def _lmq_advance(self, queue: str) -> None:
        self._lmq_offsets[queue] = self._lmq_offsets.get(queue, 0) + 1

    def _clock_now(self) -> int:
        return self.clock() if self.clock is not None else _wall_clock()

    def _note_topic(self, topic: str, queue_id: int) -> None:
        self._topic_queues[topic] = max(self._topic_queues.get(topic, 0), queue_id)

    # -- config files ---------------------------------------------------------------------------------------

    def _config_now(self) -> int:
        if self.clock is not None:
            return self.clock()
        return self._last_store_timestamp if self._any_record else _wall_clock()


def _inner_num(prepared: _Prepared) -> int:
    """An inner-batch record's message count (its INNER_NUM property): the queue offsets it takes."""
    text = prepared.properties.as_map().get("INNER_NUM", "")
    if not text.isdigit() or not 0 < int(text) <= 1 << 20:
        raise BadInput(f"an inner-batch record needs its INNER_NUM property (a message count), not {text!r}")
    return int(text)


def _offsets_refusal(expect: tuple[int, int], got: tuple[int, int], *, first: bool = False) -> str:
    """Why a record cannot keep its offsets: the writer would put it elsewhere (a gap before it, or records out
    of order); nothing fills a gap in the middle of a segment that a broker's recovery walks past."""
    (phys, queue), (at, next_queue) = expect, got
    if phys != at and first:
        return (f"--keep-offsets: the first record is at physical_offset {phys}, but a new log starts at {at}: a log "
                "whose first segments were deleted (an aged store) cannot keep its offsets; write without "
                "--keep-offsets to renumber")
    if phys != at:
        return (f"--keep-offsets: physical_offset {phys}, but the record before ends at {at} (the log must be "
                "contiguous: a gap inside a segment cannot be filled with anything a broker's recovery walks past, "
                "the BLANK record only ends a segment; write without --keep-offsets to renumber)")
    return (f"--keep-offsets: queue_offset {queue}, but the queue's next offset is {next_queue} (each queue must be "
            "contiguous from 0: a consume queue with a hole stops the broker's recovery of it; write without "
            "--keep-offsets to renumber)")
