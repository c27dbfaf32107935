"""Trace records: the bodies of the trace topic's messages (``RMQ_SYS_TRACE_TOPIC``, a region's
``rmq_sys_TRACE_DATA_*``, or the broker's ``msgTraceTopicName``) decoded into one frozen record per trace record.

The layout is ``parsers/trace.py``'s (the client's ``TraceDataEncoder``); this module names the fields for the
front ends and answers which topic is a trace topic. One trace message holds the records of several messages
(the client's trace dispatcher batches them), so a view of one traced message filters by ``msg_id``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields

from inspector.engine.model.broker_config import BrokerConfig
from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message, Problem
from inspector.engine.read.commitlog.body import decompress_body
from parsers.trace import MESSAGE_TYPES, TRACE_TOPIC, TRACE_TOPIC_PREFIX, OtherShape, parse_trace_body

__all__ = ["TRACE_FIELDS", "TRACE_TOPIC", "TRACE_TOPIC_PREFIX", "SCAN_CAP", "TraceBody", "TraceEntry", "TraceOther",
           "TraceRecord", "TraceTimeline", "configured_trace_topic", "decode_trace", "decode_trace_bytes", "is_trace_topic",
           "trace_timeline"]


@dataclass(frozen=True)
class TraceRecord:
    """One trace record, its fields named as the client's ``TraceContext``/``TraceBean`` name them; a field its
    type (or its shape: an older client's) does not carry is None. ``index`` counts the records of the body
    from 0; ``shape`` names the layout (``parsers/trace.py`` LAYOUTS); ``msg_type`` is MessageType's name."""

    index: int
    type: str
    shape: str
    msg_id: str
    timestamp: int | None = None
    region_id: str | None = None
    group: str | None = None
    request_id: str | None = None
    topic: str | None = None
    tags: str | None = None
    keys: str | None = None
    store_host: str | None = None
    body_length: int | None = None
    cost_time: int | None = None
    success: bool | None = None
    client_host: str | None = None
    offset_msg_id: str | None = None
    msg_type: str | None = None
    retry_times: int | None = None
    context_code: int | None = None
    transaction_id: str | None = None
    transaction_state: str | None = None
    from_transaction_check: bool | None = None


TRACE_FIELDS = tuple(f.name for f in fields(TraceRecord))  # the order views and Spark rows list them in


@dataclass(frozen=True)
class TraceOther:
    """A record of the body no layout fits (another type, another field count, a number that is none): its
    text as written, and why. Never an exception: trace bodies are store bytes like any other."""

    index: int
    text: str
    reason: str


@dataclass(frozen=True)
class TraceBody:
    """A trace message's body decoded: its records in order (``TraceRecord`` or ``TraceOther``), whether it
    ended with FIELD_SPLITOR as the encoder writes, and ``error`` when the body could not be read at all (a
    compressed body that does not decompress)."""

    records: tuple[TraceRecord | TraceOther, ...]
    terminated: bool
    error: str | None = None

    def about(self, msg_id: str) -> tuple[TraceRecord, ...]:
        """The records tracing ``msg_id`` (its UNIQ_KEY, or its offset msgId for a Pub)."""
        return tuple(r for r in self.records if isinstance(r, TraceRecord)
                     and msg_id.upper() in (r.msg_id.upper(), (r.offset_msg_id or "").upper()))

    def summary(self) -> str:
        """'3 trace records: Pub, SubBefore, SubAfter' (and '1 of another shape')."""
        known = [r.type for r in self.records if isinstance(r, TraceRecord)]
        other = len(self.records) - len(known)
        text = f"{len(known)} trace record{'' if len(known) == 1 else 's'}"
        if known:
            text += ": " + ", ".join(known)
        if other:
            text += f"; {other} of another shape"
        if self.error:
            text += f"; {self.error}"
        return text


def is_trace_topic(topic: str | None, trace_topic: str | None = None) -> bool:
    """``topic`` holds trace records: the default trace topic, a region's (``TraceConstants.TRACE_TOPIC_PREFIX``),
    or ``trace_topic`` (the broker's ``msgTraceTopicName``, or the user's ``--trace-topic``)."""
    if not isinstance(topic, str):  # a batch's interning table may hold empty slots
        return False
    return topic == TRACE_TOPIC or topic.startswith(TRACE_TOPIC_PREFIX) or (bool(trace_topic) and topic == trace_topic)


def configured_trace_topic(config: BrokerConfig | None, override: str | None = None) -> str | None:
    """The custom trace topic: ``override`` (``--trace-topic``), else the broker config's ``msgTraceTopicName``
    (None: only the default ``RMQ_SYS_TRACE_TOPIC`` and the regions' trace topics hold trace records). For a
    front end that has a config but no open Store (Spark's executors); ``trace_topic_of`` asks a Store."""
    if override:
        return override
    return config.properties.get("msgTraceTopicName") if config is not None else None


def decode_trace_bytes(data: bytes) -> TraceBody:
    """A trace body's bytes decoded. Never raises."""
    parsed = parse_trace_body(data)
    records: list[TraceRecord | TraceOther] = []
    for i, item in enumerate(parsed.records):
        if isinstance(item, OtherShape):
            records.append(TraceOther(i, item.text, item.reason))
            continue
        values = dict(item.fields)
        if "msg_type" in values:
            values["msg_type"] = MESSAGE_TYPES[values["msg_type"]]
        records.append(TraceRecord(index=i, type=item.type, shape=item.shape, **values))
    return TraceBody(tuple(records), parsed.terminated)


def decode_trace(msg: Message, trace_topic: str | None = None) -> TraceBody | None:
    """``msg``'s body decoded as trace records when its topic is a trace topic (``is_trace_topic``), else None.
    Decompresses per the sysFlag (the trace producer compresses bodies over its threshold); a body that does not
    decompress is a TraceBody with no records and the reason."""
    if not is_trace_topic(msg.topic, trace_topic):
        return None
    data = msg.body
    if msg.compressed:
        try:
            data = decompress_body(msg)
        except StoreError as e:
            return TraceBody((), False, f"the body does not decompress: {e.reason}")
    return decode_trace_bytes(data)


@dataclass(frozen=True)
class TraceEntry:
    """One trace record on a message's timeline, with the trace message that holds it (its topic and offset)."""

    record: TraceRecord
    topic: str
    physical_offset: int
    store_timestamp: int

    @property
    def when(self) -> int:
        """The record's own time; the trace message's store time for a record without one (a CLOUD SubAfter)."""
        return self.record.timestamp if self.record.timestamp is not None else self.store_timestamp


@dataclass(frozen=True)
class TraceTimeline:
    """Every trace record that mentions one message, by time. ``ids``: the ids searched (the REF, and the other
    id of the message when the store holds it); ``source``: ``index`` (found through the index by the traced id,
    the key the trace producer indexes) or ``scan`` (the index found none: the trace topics' queues were read);
    ``notes`` say what a partial answer left out (a cap, unreadable units, bodies of another shape)."""

    ref: str
    ids: tuple[str, ...]
    topics: tuple[str, ...]
    entries: tuple[TraceEntry, ...]
    source: str
    messages_read: int
    notes: tuple[str, ...]


SCAN_CAP = 1_000_000  # trace messages a fallback scan reads at most (it says so when it stops there)


def trace_timeline(ref: str, ids: tuple[str, ...], topics: tuple[str, ...],
                   lookup: Callable[[str, str], Iterable[Message]],
                   scan: Callable[[str], Iterable[Message | Problem]],
                   trace_topic: str | None = None, cap: int = SCAN_CAP) -> TraceTimeline:
    """The trace records of ``topics`` that mention any of ``ids``: through ``lookup(topic, key)`` (the index),
    else through ``scan(topic)`` (every unit of the topic's queues, a Problem for one that cannot be read) up to
    ``cap`` messages. Sorted by the record's time, then by where it is stored."""
    notes: list[str] = []
    found: dict[int, Message] = {}
    for topic in topics:
        for key in ids:
            for msg in lookup(topic, key):
                found[msg.physical_offset] = msg
    source, read = "index", len(found)
    if not found:
        source, read, skipped = "scan", 0, 0
        for topic in topics:
            for item in scan(topic):
                if read >= cap:
                    notes.append(f"the scan stopped after {cap:,} trace messages; later ones were not read")
                    break
                if isinstance(item, Problem):
                    skipped += 1
                    continue
                read += 1
                body = decode_trace(item, trace_topic)
                if body is not None and any(body.about(i) for i in ids):
                    found[item.physical_offset] = item
            else:
                continue
            break
        if skipped:
            notes.append(f"{skipped:,} queue unit(s) of the trace topics could not be read and were skipped")
    entries: dict[tuple[int, int], TraceEntry] = {}
    other = 0
    for offset, msg in found.items():
        body = decode_trace(msg, trace_topic)
        if body is None:
            continue
        if body.error:
            notes.append(f"trace message @ {offset}: {body.error}")
        other += sum(isinstance(r, TraceOther) for r in body.records)
        for i in ids:
            for record in body.about(i):
                entries[(offset, record.index)] = TraceEntry(record, msg.topic, offset, msg.store_timestamp)
    if other:
        notes.append(f"{other} record(s) of another shape in these trace messages (show each message to see them)")
    ordered = sorted(entries.values(), key=lambda e: (e.when, e.physical_offset, e.record.index))
    return TraceTimeline(ref, ids, topics, tuple(ordered), source, read, tuple(notes))
