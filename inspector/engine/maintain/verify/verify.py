"""``verify``: every problem in a store, each with file, offset and a short reason (issue: write/rebuild/verify).

Checks, in order: commitlog layout and every record (magic, sizes, length formula,
body CRC, the 5.x ``__CRC32#`` property, PHYSICALOFFSET, BLANK at segment ends); a DLedger store's entries,
index units, Raft indexes, terms and term files (:mod:`~inspector.engine.maintain.verify.dledger`);
consume queues and batch consume queues against the records they point at; index files (header counters,
time ranges, items against their messages' keys, chains); checkpoint; consumer
offsets; config files.

The checks of each structure have modules of their own: :mod:`~inspector.engine.maintain.verify.queues`
(consume queues), :mod:`~inspector.engine.maintain.verify.batch_queues` (batch consume queues),
:mod:`~inspector.engine.maintain.verify.index` (index files) and
:mod:`~inspector.engine.maintain.verify.crosschecks` (what the one commitlog walk vouches for, so most units
and items need no record read of their own). This module runs them in order and holds the small checks of
the checkpoint, consumer offsets and ``__CRC32#`` property.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from inspector.engine.maintain.verify.batch_queues import check_batch_queue
from inspector.engine.maintain.verify.coverage import QueueCoverage
from inspector.engine.maintain.verify.crosschecks import CrossChecks
from inspector.engine.maintain.verify.dledger import check_dledger, index_stream
from inspector.engine.maintain.verify.index import chain_summary, check_index, wants_chain_summary
from inspector.engine.maintain.verify.index_gaps import index_gap_problems
from inspector.engine.maintain.verify.lmq import lmq_record_problems
from inspector.engine.maintain.verify.queues import check_queue
from inspector.engine.maintain.verify.timer import check_timer
from inspector.engine.model.crc import rocketmq_crc32
from inspector.engine.model.errors import StoreError
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.records import Message, Problem
from inspector.engine.read.commitlog.body import CodecMissing, decompress_body
from inspector.engine.read.commitlog.journal import interrupted_rebuild_problems
from inspector.engine.read.commitlog.parallel import default_workers
from inspector.engine.read.config.checkpoint import FUTURE_SLACK_MS
from inspector.engine.read.store.answers import store_load_problems
from inspector.engine.scan.kernels import LAZY_BYTES, numba_enabled, small_job
from parsers.java import (
    CRC_PROPERTY_NAME,
    CRC_PROPERTY_TAIL_LENGTH,
    parse_crc_property_digits,
)

Progress = Callable[[str, int, int], None]  # (phase, done, total)


@dataclass(frozen=True)
class VerifyReport:
    problems: tuple[Problem, ...]
    messages: int
    cq_units: int
    index_items: int
    dledger_recovery: str | None = None  # a DLedger store: where DLedger's own recovery would stop, and why

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


def verify(store, geometry: Geometry | None = None, *, progress: Progress | None = None,
           workers: int | None = None, fast: bool = True) -> VerifyReport:
    """Every problem in the store, in a stable order (commitlog, queues, index files, checkpoint, offsets, config).

    One walk of the commitlog checks every record and tables what the cross-checks need (bulk path); each
    consume-queue unit and index item the tables vouch for is then done, and every other one is checked one
    by one against the record it points at. ``workers``: threads for the walk (default: the CPUs available,
    at most 4). ``fast=False`` checks everything one by one; the report is the same either way.

    A store with less than ``kernels.LAZY_BYTES`` of records is checked on the Python path when the compiled
    kernels are not loaded yet (loading them costs more than they save there; an empty numba cache, the first
    command after an install, would compile them: seconds). The report is the same.
    """
    with small_job(store.commitlog.data_bytes(LAZY_BYTES)):
        return _verify(store, geometry, progress, workers, fast)


def _verify(store, geometry: Geometry | None, progress: Progress | None, workers: int | None,
            fast: bool) -> VerifyReport:
    from inspector.engine.read.store.answers import store_geometry

    geometry = geometry or store_geometry(store)
    workers = default_workers() if workers is None else max(1, workers)
    cross = CrossChecks(store) if fast and numba_enabled() else None
    pool = ThreadPoolExecutor(1, thread_name_prefix="verify-chains")
    # the index files' chain passes read those files alone (a compiled kernel, no GIL): under way from the start,
    # beside the walk and the queue checks (an aged store's index has twice the items of its log)
    chains = ({r.rel: pool.submit(chain_summary, r) for r in store.index_files() if wants_chain_summary(r)}
              if cross is not None else {})
    try:
        return _checked(store, geometry, progress, workers, fast, cross, chains)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _checked(store, geometry: Geometry, progress: Progress | None, workers: int, fast: bool,
             cross: CrossChecks | None, chains: dict) -> VerifyReport:
    problems: list[Problem] = [*store.commitlog.problems, *store.unknown_files()]
    messages = 0
    last_ts = 0
    total = max(1, sum(s.file_size for s in store.segments))
    heads = index_stream(store)  # DLedger: each entry the walk tables (record offset, size, Raft index, term)
    coverage = QueueCoverage(store)  # records no consume queue holds

    def on_table(table) -> None:  # tables come only with the compiled kernels, as does ``cross``
        cross.add(table)
        if table.dledger and heads is not None:
            heads.add(table.table[[0, 1, 10, 11]])

    if fast:
        for seg in store.segments:
            summary = coverage.add_segment(store, seg, lambda m: record_problems(store, m), on_table, workers)
            problems.extend(summary.problems)
            messages += summary.scan.messages
            last_ts = max(last_ts, summary.max_store_timestamp)
            if progress:
                progress("commitlog", seg.end_offset - store.min_offset, total)
        if cross is not None:
            cross.flush()
    else:
        for entry in store.entries(check_crc=True):
            if isinstance(entry, Problem):
                problems.append(entry)
            elif isinstance(entry, Message):
                messages += 1
                last_ts = max(last_ts, entry.store_timestamp)
                problems.extend(record_problems(store, entry))
                coverage.add_message(entry)
                if progress and messages % 4096 == 0:
                    progress("commitlog", entry.end_offset - store.min_offset, total)
    problems.extend(store.dledger_member_problems())  # members under the root that are not read
    dledger = check_dledger(store, problems, heads)  # entries against the index, Raft indexes and terms, files
    if dledger is not None:
        problems.extend(dledger.problems)
    # multi-dispatch properties the broker cannot dispatch as written; the LMQ queues the records name, covered
    problems.extend(lmq_record_problems(store, coverage))
    # what the broker's load refuses (file lengths against the store's one size, queue types): before the queues'
    # own findings, so a file's length is judged against the store's size, not its queue's (one finding a file)
    problems.extend(store_load_problems(store))
    cq_units = 0
    log_end = store.max_offset()
    for topic, qid in store.queue_ids():
        found, n = check_queue(store, topic, qid, geometry, log_end, cross)
        problems.extend(found)
        cq_units += n
    for topic, qid in store.batch_queue_ids():  # 5.x batchconsumequeue/: 46-byte units, counted with the others
        found, n = check_batch_queue(store, topic, qid, geometry, log_end)
        problems.extend(found)
        cq_units += n
    problems.extend(coverage.problems())  # records past their queue's end, or with no queue at all
    problems.extend(check_timer(store)[0])  # 5.x timer store: timerlog units, wheel chains, timercheck
    index_items = 0
    for reader in store.index_files():
        found, n = check_index(store, reader, cross, chains.get(reader.rel))
        problems.extend(found)
        index_items += n
    problems.extend(store.index_problems())
    problems.extend(index_gap_problems(store))  # the log no index file covers (lookups by key miss it)
    problems.extend(store.checkpoint_problems())
    problems.extend(check_checkpoint(store, last_ts))
    problems.extend(check_consumer_offsets(store))
    problems.extend(store.config.findings())
    problems.extend(interrupted_rebuild_problems(store.root))
    table = getattr(store, "delay_table", None)
    if table is not None and table().text == geometry.delay_levels:  # what the inference found, when it was used
        problems.extend(table().problems)
    return VerifyReport(tuple(_dedupe(problems)), messages, cq_units, index_items,
                        dledger.recovery if dledger is not None else None)


def finding_key(p: Problem) -> tuple:
    """What makes a finding one fact: its file, offset and code, and where the file has no offsets (offset 0: a
    config file) its entry, or when it names none what it says."""
    return p.file, p.offset, p.code, p.entry if p.entry is not None else p.reason if not p.offset else ""


def _dedupe(problems: list[Problem]) -> Iterator[Problem]:
    # One fact found by two checks is said once (finding_key)
    seen = set()
    for p in problems:
        key = finding_key(p)
        if key not in seen:
            seen.add(key)
            yield p


def record_problems(store, msg: Message) -> list[Problem]:
    """verify's checks of one record beyond the walk's: the ``__CRC32#`` property, a compressed body."""
    return [*crc_property_problems(store, msg), *body_problems(msg)]


def body_problems(msg: Message) -> list[Problem]:
    """A body whose sysFlag says it is compressed (ZLIB, LZ4, ZSTD) must decompress: a consumer would fail on it."""
    if not msg.compressed:
        return []
    try:
        decompress_body(msg)
    except CodecMissing as e:
        return [Problem(msg.file, msg.position, f"{e.reason}: not checked", "codec-missing", "warning")]
    except StoreError as e:
        return [Problem(msg.file, msg.position, e.reason, "body-undecompressable")]
    return []


def crc_property_problems(store, msg: Message) -> list[Problem]:
    """5.2.0+ ``__CRC32#``: reversed decimal digits of the CRC of the record's first TOTALSIZE-20 bytes."""
    value = msg.properties.get(CRC_PROPERTY_NAME)
    if value is None:
        return []
    try:
        expected = parse_crc_property_digits(value)
    except ValueError:
        return [Problem(msg.file, msg.position, f"__CRC32# property {value!r} is not ten digits", "bad-crc-property")]
    data = store.commitlog.read(msg.physical_offset, msg.total_size - CRC_PROPERTY_TAIL_LENGTH)
    actual = rocketmq_crc32(data)
    if actual != expected:
        return [Problem(msg.file, msg.position, f"__CRC32# property says {expected}, the record gives {actual}",
                        "crc-property-mismatch")]
    return []


CHECKPOINT_FUTURE_SLACK_MS = FUTURE_SLACK_MS  # a day (read/config/checkpoint.py)
"""With no record to compare with, a checkpoint time may run ahead of this machine's clock by a day (the
broker's clock and ours differ, time zones do not matter: both are epoch ms); further is no time a broker wrote."""

_CHECKPOINT_TIMES = (("physicMsgTimestamp", 0, "data the broker flushed is missing"),
                     ("logicsMsgTimestamp", 8, "a consume queue was written from a record that is missing"),
                     ("indexMsgTimestamp", 16, "a full index file ends at a record that is missing"))


def check_checkpoint(store, last_ts: int, now_ms: int | None = None) -> list[Problem]:
    """The checkpoint's three times (spec §3.4): each is a record's STORETIMESTAMP or 0, so never negative and
    never after the newest record (``last_ts``, the walk's largest STORETIMESTAMP; exact, as the broker takes
    them from records). Without records, after ``now_ms`` (default: this clock) + CHECKPOINT_FUTURE_SLACK_MS."""
    try:
        cp = store.checkpoint()
    except StoreError:
        return []  # reported by checkpoint_problems
    if cp is None:
        return []
    values = (cp.physic_msg_timestamp, cp.logics_msg_timestamp, cp.index_msg_timestamp)
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    found = []
    for (name, at, missing), value in zip(_CHECKPOINT_TIMES, values, strict=True):
        if value < 0:
            found.append(Problem("checkpoint", at, f"{name} {value} is negative: the broker writes a record's "
                                 "store time or 0", "checkpoint-time"))
        elif last_ts and value > last_ts:
            late = (f"; it is also after this machine's clock ({now_ms}) by more than a day: not a time a broker "
                    "wrote" if value > now_ms + CHECKPOINT_FUTURE_SLACK_MS else "")
            found.append(Problem("checkpoint", at, f"{name} {value} is after the newest record ({last_ts}): "
                                 f"{missing}{late}", "checkpoint-ahead"))
        elif not last_ts and value > now_ms + CHECKPOINT_FUTURE_SLACK_MS:
            found.append(Problem("checkpoint", at, f"{name} {value} is more than a day after now ({now_ms}), and "
                                 "no record tells otherwise: not a time a broker wrote", "checkpoint-time"))
    return found


def check_consumer_offsets(store) -> list[Problem]:
    """Each committed offset within its queue's [min, max], against the source the broker reads offsets from
    (named in each finding), with the source's own findings (unreadable: an error; other sources disagreeing)."""
    offsets = getattr(store, "consumer_offsets", None)
    found = list(offsets().problems) if offsets is not None else []
    try:
        rows = store.consumer_lag()
    except StoreError:
        return found  # the unreadable database is among the findings
    source = offsets().source if offsets is not None else "config/consumerOffset.json"
    for row in rows:
        if row["max_offset"] is None:
            continue
        info = store.queue(row["topic"], row["queue_id"]).info()
        off = row["consumer_offset"]
        if 0 <= off < info.min_offset:
            # DefaultMessageStore.getMessage answers OFFSET_TOO_SMALL with nextBeginOffset = the queue's min
            # (nextOffsetCorrection) and the broker moves the consumer there (4.9.8 and 5.3.1): normal past retention
            found.append(Problem(source, 0,
                                 f"{row['topic']}@{row['group']} queue {row['queue_id']}: offset {off} is below the "
                                 f"queue's min offset {info.min_offset} (its units expired): will be corrected by the "
                                 "broker", "consumer-offset-expired", "info", entry=_offset_entry(row)))
        elif not info.min_offset <= off <= info.max_offset:
            found.append(Problem(source, 0,
                                 f"{row['topic']}@{row['group']} queue {row['queue_id']}: offset {off} is outside "
                                 f"[{info.min_offset}, {info.max_offset}]", "consumer-offset-range", "warning",
                                 entry=_offset_entry(row)))
    return found


def _offset_entry(row: dict) -> str:
    """A consumer offset's entry: its group, topic and queue (the locator of a finding in the offsets file)."""
    return f"{row['topic']}@{row['group']}/{row['queue_id']}"
