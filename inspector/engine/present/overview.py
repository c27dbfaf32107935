"""Whole-store and id overviews as JSON-ready dicts: what `rmq-inspect info` / `decode-id` print and the web
overview and resolver pages show (one definition, same field names everywhere)."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable

from inspector.engine.model.budget import Budget, budget_or_none
from inspector.engine.model.errors import BudgetExceeded, StoreError
from inspector.engine.model.records import IdReading
from inspector.engine.present.views import (
    checkpoint_view,
    id_reading_view,
    index_file_view,
    problem_view,
    queue_view,
)
from inspector.engine.read.commitlog.mapped import TAIL_BUDGET
from inspector.engine.read.config.rocksdb_config import summarize
from inspector.engine.read.config.settings import settings_view
from inspector.engine.read.queues.collector import few_collections
from inspector.engine.read.store.answers import dledger_view, recover
from inspector.engine.read.store.store import Store, decode_id
from parsers.msgid import uniq_key_nearly_time

Progress = Callable[[str, int], None]
"""``progress(stage, physical offset)``: "scan" (a segment scan starts or ends at that offset), "recovery" (its
walk reached it), then "queues" and "index files" (offset 0) as the overview reads them."""


def store_overview(store: Store, *, budget: Budget | None = None, progress: Progress | None = None) -> dict:
    """``truncated`` is None, or (when ``budget`` ran out) says where it stopped: then ``segments`` and their
    problems are the first ones, and ``max_physical_offset`` (needs every segment) and ``recovery`` (walks the
    last ones) are None when not computed. ``progress`` (see :data:`Progress`) follows the walk."""
    stop = budget_or_none(budget)
    told = progress or _silent
    scans, truncated = _scans(store, stop, told)
    max_offset = store.max_offset() if truncated is None else None  # the scans are cached: no second walk
    recovery = None
    if truncated is None:
        try:
            recovery = recover(store, budget=stop, progress=lambda offset: told("recovery", offset)).as_dict()
        except BudgetExceeded as e:
            truncated = str(e)
    told("queues", 0)
    topics = _topics(store)
    told("index files", 0)
    problems = [*store.problems(), *(p for s in scans for p in s.problems), *store.delay_table().problems]
    if store.rocksdb_cq is not None:  # reads of the RocksDB consume queue that failed while the topics were read
        problems += store.rocksdb_cq.problems
    offsets = store.consumer_offsets()
    return {
        "store": str(store.root),
        "segment_size": store.commitlog.segment_size,
        "segments": [
            {"name": s.segment.name, "file": s.segment.file, "start_offset": s.segment.start_offset,
             "file_size": s.segment.file_size, "valid_end": s.valid_end_offset, "data_end_position": s.data_end,
             "messages": s.messages, "blank_position": s.blank_position, "blank_size": s.blank_size,
             "first_store_timestamp": s.first_store_timestamp, "last_store_timestamp": s.last_store_timestamp,
             "preallocated": s.preallocated, "problems": len(s.problems)}
            for s in scans
        ],
        "min_physical_offset": store.min_offset,
        "max_physical_offset": max_offset,
        "topics": topics,
        "index_files": [index_file_view(r.info()) for r in store.index_files()],
        "checkpoint": checkpoint_view(_safe_checkpoint(store)),
        "abort_file": store.abort_exists,
        "lock_file": store.lock_exists,
        "clean_shutdown": store.clean_shutdown,
        # abort is there while a broker runs and after it crashed: a state to know, not damage
        "shutdown": "clean (no abort file)" if store.clean_shutdown else "broker running or crashed (abort file present)",
        "recovery": recovery,
        "consumer_groups": [] if offsets.error is not None else store.consumer_lag(),
        # where the offsets (and so the lag) come from: the broker's choice (see offsets.py)
        "offsets": {"source": offsets.source, "reason": offsets.reason, "label": offsets.label(),
                    "error": None if offsets.error is None else str(offsets.error)},
        "config_databases": [vars(d) for d in summarize(store.root)],
        "topics_source": store.config.topics_source,  # topics.json, or the RocksDB database the broker keeps
        "problems": [problem_view(p) for p in problems],
        # each broker setting the store is read with, and where it came from (flag, broker.conf, inferred, default)
        "settings": settings_view(store.settings()),
        "truncated": truncated,
        **({"dledger": dledger} if (dledger := dledger_view(store)) is not None else {}),
        # only on a store whose zero tail after the log's end is written out past what the overview reads of it
        **({"tail_not_checked": TAIL_NOT_CHECKED_NOTE} if any(s.tail_unchecked for s in scans) else {}),
    }


TAIL_NOT_CHECKED_NOTE = ("bytes after the log's end: not checked by info past the first "
                         f"{TAIL_BUDGET >> 20} MiB of zeros written out (verify checks them)")


def _silent(stage: str, offset: int) -> None:
    pass


def _scans(store: Store, budget: Budget, progress: Progress) -> tuple[list, str | None]:
    """Segment scans until ``budget`` runs out (checked between segments, and before recovery's walk)."""
    total = len(store.segments)
    scans = []
    for i in range(total):
        if budget.expired():
            return scans, budget.note(f"scanning {i} of {total} segments")
        segment = store.segments[i]
        progress("scan", segment.start_offset)
        scans.append(store.scan_segment(i))
        progress("scan", segment.start_offset + segment.file_size)
    if budget.expired():
        return scans, budget.note(f"scanning all {total} segments (recovery not run)")
    return scans, None


def _safe_checkpoint(store: Store):
    try:
        return store.checkpoint()
    except StoreError:
        return None  # reported among the problems


def _topics(store: Store) -> list[dict]:
    by_topic: dict[str, list[dict]] = {}
    with few_collections():  # an info and a view dict per queue, 16,000 queues (read/queues/collector.py)
        for q in store.queue_infos():
            by_topic.setdefault(q.topic, []).append(queue_view(q))
    configured = store.config.topics
    names = sorted(set(by_topic) | set(configured))
    return [
        {"topic": t, "configured": t in configured, "queues": by_topic.get(t, []),
         "message_count": sum(q["message_count"] for q in by_topic.get(t, []))}
        for t in names
    ]


def id_overview(text: str, store: Store | None = None) -> dict:
    """Both readings of an id (``offset_msg_id``, ``unique_key``), and at the top the reading that is the id:
    ``kind`` and that reading's fields, the one that finds a message when a store is given (the offset msgId
    when neither or both do; a UNIQ_KEY read as an offset msgId has a nonsense port and offset). The UNIQ_KEY's
    ``approximate_timestamp`` is dated by the found message's born time, else from today (:func:`unique_key_time`)."""
    readings, approximate, how = resolve_message_id(text, store)
    offset_r, uniq_r = (id_reading_view(r) for r in readings)
    uniq_r["approximate_timestamp"] = approximate
    uniq_r["month_from"] = how
    offset_r["invalid"] = offset_msg_id_flaw(readings[0])
    data: dict = {"id": text.strip().upper()}
    found = [r for r in (offset_r, uniq_r) if r["found"]]
    top = found[0] if found else offset_r
    data.update({k: v for k, v in top.items() if k not in ("found", "physical_offset")})
    data.update(offset_msg_id=offset_r, unique_key=uniq_r)
    if store is not None:
        data["found_as"] = [r["kind"] for r in found]
        data["physical_offset"] = found[0]["physical_offset"] if found else None
    return data


def offset_msg_id_flaw(reading: IdReading) -> str | None:
    """Why the offset-msgId reading cannot be one a broker made (a port is 16 bits, an offset not negative: the
    UNIQ_KEY of a 32-hex id reads as port 1194797587), None when it could be."""
    port, offset = reading.fields.get("port"), reading.fields.get("offset")
    if isinstance(port, int) and port < 0:
        return f"not a valid offset msgId: port {port} is not a port (0..65535)"
    if isinstance(port, int) and port > 0xFFFF:
        return f"not a valid offset msgId: port {port} is over 65535"
    if isinstance(offset, int) and offset < 0:
        return f"not a valid offset msgId: physical offset {offset} is negative"
    return None


def resolve_message_id(text: str, store: Store | None = None) -> tuple[list[IdReading], int, str]:
    """The one msgId resolution every view asks: both readings of ``text`` (offset msgId, then UNIQ_KEY), each
    checked against ``store`` when one is given, and the UNIQ_KEY's producer time with how its month was chosen
    (the found message's born time, else today's month: :func:`unique_key_time`)."""
    readings = store.resolve_id(text) if store is not None else decode_id(text)
    offset_r, uniq_r = readings
    approximate, how = unique_key_time(uniq_r, store, uniq_r if uniq_r.found or not offset_r.found else offset_r)
    return readings, approximate, how


def unique_key_time(reading: IdReading, store: Store | None = None,
                    found: IdReading | None = None) -> tuple[int, str]:
    """The UNIQ_KEY reading's producer time, and how its month was chosen: by the born time of the message the
    key finds in ``store`` (the key counts ms since the start of the month the producer started in), else from
    today as RocketMQ's client does (:func:`approximate_unique_key_time`). One answer for the CLI, web and TUI."""
    basis = None
    found = found or reading  # the reading that found the message (the offset msgId one: the id's message still)
    if store is not None and found.found and found.physical_offset is not None:
        try:
            basis = store.message_at(found.physical_offset).born_timestamp
        except StoreError:
            pass  # the key was found but its record cannot be read now: today's month, and the reason says so
    return approximate_unique_key_time(reading.fields["time_since_month_start"], basis)


def approximate_unique_key_time(span_ms: int, basis_ms: int | None = None) -> tuple[int, str]:
    """The producer's time from a UNIQ_KEY's ms-since-month-start, and how the month was chosen: from
    ``basis_ms`` (the message's born time, when the key was found) or from today, as RocketMQ's client does."""
    tz = dt.datetime.now().astimezone().tzinfo
    if basis_ms is not None:
        return uniq_key_nearly_time(span_ms, basis_ms + 60_000, tz), "month of the message's born time"
    return uniq_key_nearly_time(span_ms, int(time.time() * 1000), tz), "month guessed from today's date"
