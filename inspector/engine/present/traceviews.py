"""Trace records as JSON-ready views and text lines: what ``show``/``messages --json``, the web's message page,
the TUI's message detail, ``rmq-inspect trace`` and Spark's trace rows share."""

from __future__ import annotations

from dataclasses import asdict

from inspector.engine.model.records import Message, fmt_time
from inspector.engine.read.commitlog.trace import (
    TRACE_FIELDS,
    TraceBody,
    TraceEntry,
    TraceOther,
    TraceRecord,
    TraceTimeline,
    decode_trace,
    decode_trace_bytes,
)


def trace_record_view(record: TraceRecord | TraceOther) -> dict:
    """A record's fields by name (every TRACE_FIELDS key, None where its type has none), or an other shape's
    text and reason (``type`` None)."""
    if isinstance(record, TraceOther):
        return {"index": record.index, "type": None, "other_shape": record.reason, "text": record.text}
    return asdict(record)


def trace_body_view(body: TraceBody) -> dict:
    """A trace message's decoded body: its records, whether it ended as the encoder ends it, and an error."""
    return {"records": [trace_record_view(r) for r in body.records], "terminated": body.terminated,
            "error": body.error, "summary": body.summary()}


def trace_entry_view(entry: TraceEntry) -> dict:
    return {"trace_topic": entry.topic, "physical_offset": entry.physical_offset,
            "store_timestamp": entry.store_timestamp, "time": entry.when, **trace_record_view(entry.record)}


def trace_timeline_view(timeline: TraceTimeline) -> dict:
    return {"ref": timeline.ref, "ids": list(timeline.ids), "trace_topics": list(timeline.topics),
            "source": timeline.source, "trace_messages_read": timeline.messages_read, "notes": list(timeline.notes),
            "records": [trace_entry_view(e) for e in timeline.entries]}


# the fields a one-line description names, per type, after the time (raw: callers escape for their medium)
_LINE_FIELDS = {
    "Pub": ("group", "topic", "tags", "keys", "store_host", "body_length", "cost_time", "msg_type", "offset_msg_id",
            "success", "client_host"),
    "SubBefore": ("group", "request_id", "retry_times", "keys"),
    "SubAfter": ("group", "request_id", "cost_time", "success", "context_code", "keys"),
    "EndTransaction": ("group", "topic", "transaction_id", "transaction_state", "from_transaction_check",
                       "msg_type", "store_host"),
    "Recall": ("group", "topic", "success"),
}


def trace_record_pairs(record: TraceRecord | TraceOther) -> list[tuple[str, str]]:
    """(name, value) pairs to show a record's fields, in the client's order, None fields left out. Raw store
    text: a terminal view passes each value through terminal_text, a page escapes it."""
    if isinstance(record, TraceOther):
        return [("other shape", record.reason), ("text", record.text)]
    pairs = [("type", record.type), ("msg_id", record.msg_id)]
    if record.timestamp is not None:
        pairs.append(("timestamp", f"{record.timestamp} ({fmt_time(record.timestamp)})"))
    for name in _LINE_FIELDS.get(record.type, TRACE_FIELDS):
        value = getattr(record, name)
        if value is not None:
            pairs.append((name, "true" if value is True else "false" if value is False else str(value)))
    if record.region_id is not None:
        pairs.append(("region_id", record.region_id))
    return pairs


# one row per trace record (Spark's trace table, and the records of a message row's ``trace`` struct):
# TRACE_FIELDS, then an other shape's reason and text
TRACE_ROW_FIELDS = (*TRACE_FIELDS, "other_shape", "text")

# their kinds, in message_shape's words (string, int32, int64, bool) and whether null may stand there: a Java
# long is int64, a Java int int32; every field but ``index`` is null where a record's type (or shape) has none
_NOT_TEXT = {"index": "int32", "timestamp": "int64", "body_length": "int32", "cost_time": "int32", "success": "bool",
             "retry_times": "int32", "context_code": "int32", "from_transaction_check": "bool"}
TRACE_ROW_KINDS: tuple[tuple[str, str, bool], ...] = tuple(
    (name, _NOT_TEXT.get(name, "string"), name != "index") for name in TRACE_ROW_FIELDS)

# the ``trace`` object of a message row (trace_body_view's keys, in its order): the records as TRACE_ROW_KINDS
# structs (a JSON record leaves out the keys of another kind of record: null in a row), then the body's facts
TRACE_OBJECT_KINDS: tuple[tuple[str, str, bool], ...] = (
    ("records", "trace_records", False), ("terminated", "bool", False), ("error", "string", True),
    ("summary", "string", False))


def _record_row(record: TraceRecord | TraceOther) -> tuple:
    """A record as a TRACE_ROW_FIELDS tuple (an other shape: ``type`` None, its reason and text; a known record:
    ``other_shape`` and ``text`` None)."""
    if isinstance(record, TraceOther):
        return (record.index, *(None,) * (len(TRACE_FIELDS) - 1), record.reason, record.text)
    return (*(getattr(record, name) for name in TRACE_FIELDS), None, None)


def trace_rows(data: bytes) -> list[tuple]:
    """A trace body's records as tuples in TRACE_ROW_FIELDS order. Never raises."""
    return [_record_row(r) for r in decode_trace_bytes(data).records]


def trace_object_row(msg: Message, trace_topic: str | None = None) -> tuple | None:
    """``message_view``'s ``trace`` object as a row's struct (TRACE_OBJECT_KINDS order: the records as
    TRACE_ROW_FIELDS tuples, terminated, error, summary); None for a record of no trace topic (``trace_topic``:
    the custom one). Decompresses as ``message_view`` does. Never raises."""
    body = decode_trace(msg, trace_topic)
    if body is None:
        return None
    return ([_record_row(r) for r in body.records], body.terminated, body.error, body.summary())
