"""Plain, JSON-ready views of engine records: the field names the CLI's --json and the web API share."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import (
    Blank,
    ChainWalk,
    CheckpointInfo,
    IdReading,
    IndexFileInfo,
    KeyHit,
    LmqMessage,
    Message,
    Problem,
    QueueInfo,
    b64,
)
from inspector.engine.present.layout import Region
from inspector.engine.present.message_shape import dledger_entry, inner_batch_of, message_fields
from inspector.engine.present.traceviews import trace_body_view
from inspector.engine.read.commitlog.body import decompress_body
from inspector.engine.read.commitlog.trace import decode_trace

if TYPE_CHECKING:  # a type only: the coverage module brings numpy and the commitlog reader
    from inspector.engine.read.index.coverage import Uncovered


def message_view(msg: Message, *, decompress: bool = False, body_limit: int | None = None,
                 trace_topic: str | None = None) -> dict:
    """Every field of a message. ``body_limit`` caps the body bytes included (``body_truncated`` says so). A
    trace topic's record (``is_trace_topic``; ``trace_topic``: the custom one) also has ``trace``: its records."""
    body = msg.body if body_limit is None else msg.body[:body_limit]
    view = message_fields(msg)  # the declared shape (present/message_shape.py), then the body as asked
    view.update({
        "body_base64": b64(body),
        "body_truncated": len(body) < len(msg.body),
    })
    for name, obj in (("dledger", dledger_entry(msg)), ("inner_batch", inner_batch_of(msg))):
        if obj is not None:  # declared in present/message_shape.py; JSON leaves out what the record has not
            view[name] = obj
    if isinstance(msg, LmqMessage):  # read through an LMQ queue: its offset there, and the record's own
        view["lmq"] = {"queue": msg.lmq_queue, "queue_offset": msg.queue_offset,
                       "record_queue_id": msg.record_queue_id, "record_queue_offset": msg.record_queue_offset}
    trace = decode_trace(msg, trace_topic)
    if trace is not None:  # a trace topic's record: its body's trace records by name (the raw body stays above)
        view["trace"] = trace_body_view(trace)
    if decompress:
        try:
            plain = decompress_body(msg)
            shown = plain if body_limit is None else plain[:body_limit]
            view["body_decompressed_base64"] = b64(shown)
            view["body_decompressed_length"] = len(plain)
            view["decompress_error"] = None
        except StoreError as e:
            view["body_decompressed_base64"] = None
            view["body_decompressed_length"] = None
            view["decompress_error"] = e.reason
    return view


def blank_view(blank: Blank) -> dict:
    return {"type": "blank", "file": blank.file, "position": blank.position,
            "physical_offset": blank.physical_offset, "total_size": blank.total_size}


def problem_view(p: Problem) -> dict:
    return {"file": p.file, "offset": p.offset, "code": p.code, "severity": p.severity, "reason": p.reason}


def queue_view(q: QueueInfo) -> dict:
    view = {"topic": q.topic, "queue_id": q.queue_id, "min_offset": q.min_offset, "max_offset": q.max_offset,
            "message_count": q.message_count, "files": list(q.files), "max_physical_end": q.max_physical_end,
            "kind": q.kind}
    if q.units is not None:
        view["units"] = q.units
    return view


def index_file_view(info: IndexFileInfo) -> dict:
    h = info.header
    return {
        "name": info.name, "file": info.file, "file_size": info.file_size,
        "slot_count": info.slot_count, "item_count": info.item_count,
        "begin_timestamp": h.begin_timestamp, "end_timestamp": h.end_timestamp,
        "begin_phy_offset": h.begin_phy_offset, "end_phy_offset": h.end_phy_offset,
        "hash_slot_count": h.hash_slot_count, "index_count": h.index_count, "items_written": h.items_written,
    }


def checkpoint_view(c: CheckpointInfo | None) -> dict | None:
    if c is None:
        return None
    return {"file": c.file, "file_size": c.file_size, "physic_msg_timestamp": c.physic_msg_timestamp,
            "logics_msg_timestamp": c.logics_msg_timestamp, "index_msg_timestamp": c.index_msg_timestamp,
            "master_flushed_offset": c.master_flushed_offset, "confirm_phy_offset": c.confirm_phy_offset}


def chain_view(walk: ChainWalk) -> dict:
    view = {
        "file": walk.file, "key": walk.key, "key_hash": walk.key_hash, "slot": walk.slot,
        "slot_position": walk.slot_position, "slot_value": walk.slot_value,
        "stop_reason": walk.stop_reason, "skipped_reason": walk.skipped_reason,
        "items": [
            {"item": s.item.number, "key_hash": s.item.key_hash, "phy_offset": s.item.phy_offset,
             "time_diff": s.item.time_diff, "time": s.time_ms, "prev_index": s.item.prev_index,
             "hash_matches": s.hash_matches, "key_matches": s.key_matches, "in_time_range": s.in_time_range}
            for s in walk.steps
        ],
    }
    if walk.note is not None:
        view["note"] = walk.note
    return view


def key_hit_view(hit: KeyHit, **kw) -> dict:
    view = message_view(hit.message, **kw)
    view["index_file"] = hit.index_file
    view["index_item"] = hit.item_number
    view["matched_by"] = hit.matched_by
    if hit.note is not None:
        view["note"] = hit.note
    return view


def unindexed_view(gaps: list[Uncovered], scanned: bool) -> dict:
    """The JSON fields of a key lookup over log no index file covers: the ranges (first and last byte) and whether
    the lookup scanned them (``scanned`` False: they were not searched)."""
    return {"unindexed_ranges": [{"start": g.start, "end": g.stop - 1, "after_index_file": g.after,
                                  "before_index_file": g.before} for g in gaps],
            "unindexed_scanned": scanned}


def id_reading_view(r: IdReading) -> dict:
    view = {"kind": r.kind, **r.fields, "found": r.found, "physical_offset": r.physical_offset}
    if r.note is not None:
        view["note"] = r.note
    return view


_SURROGATE = re.compile("[\ud800-\udfff]")


def has_undecodable(text: str) -> bool:
    """Store bytes that are no UTF-8 reach every view as lone surrogates (the engine decodes with surrogateescape)."""
    return _SURROGATE.search(text) is not None


def printable(text: str) -> str:
    """``text`` with each byte that was no UTF-8 shown as ``\\xNN``: no terminal, page or URL can encode a lone
    surrogate. Text without such bytes comes back unchanged (the same object, so str subclasses survive)."""
    if not has_undecodable(text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def region_view(r: Region) -> dict:
    """A hex region (``layout.regions``) with its named fields: what ``hex --json`` and the web hex page show."""
    return {"kind": r.kind, "start": r.start, "end": r.end, "label": r.label,
            "fields": [{"number": f.number, "name": f.name, "start": f.start, "length": f.length, "value": f.value}
                       for f in r.fields]}
