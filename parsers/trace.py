"""Message trace bodies: the text the client's ``TraceDataEncoder`` writes into ``RMQ_SYS_TRACE_TOPIC``.

A body is UTF-8 text: records each ended by FIELD_SPLITOR ``\\x02``, the fields of a record separated by
CONTENT_SPLITOR ``\\x01``; the first field names the record type (``TraceType``), and each type has its own
field list (``encoderFromContextBean`` writes it, ``decoderFromTraceDataString`` reads it; the trace dispatcher
puts several records, of several messages, into one body). Example, one Pub record as a 4.9.8 client writes it::

    Pub\\x011700000000000\\x01DefaultRegion\\x01pg\\x01TopicTest\\x01C0A8...\\x01TagA\\x01k1\\x01
    10.0.0.1:10911\\x0111\\x013\\x010\\x010A00000100002A9F...\\x01true\\x02

Not a construct schema: construct parses by byte widths and counts, and these records are split text whose
shape is known only from how many fields a record has (the decoder itself picks the shape by ``line.length``).
So each type is a small declarative table instead: its shapes, each a tuple of (field, kind), keyed by the field
count, with the client versions that write it. Parse and build are two loops over the same table, and round-trip
byte for byte: a text field keeps its exact characters (Java writes an absent value as ``null``), a number or a
flag is parsed only when its text is the one Java's ``append`` writes (so it builds back identically); anything
else (an unknown type, another count, a number that is no number) is an :class:`OtherShape` with the reason.

Versions (tags rocketmq-all-4.9.8 and rocketmq-all-5.3.1, ``client/.../trace/TraceDataEncoder.java``):

- Pub: 14 fields from both (``offsetMsgId`` then ``success`` at the end); the decoder also reads 13 (older
  clients: no ``offsetMsgId``) and 15 (``clientHost`` appended, "compatible with the old version").
- SubBefore: 8 fields, the same in both.
- SubAfter: 9 fields (``contextCode``, then ``timeStamp`` and ``groupName``) from both unless the access channel
  is CLOUD; CLOUD stops after ``contextCode``: 5.3.1 writes ``contextCode\\x01\\x02`` (an empty 8th field, which
  Java's ``split`` drops), 4.9.8 writes ``contextCode\\x01`` with no ``\\x02`` at all, so its next record runs on
  (an other shape here, as it is in the client's own decoder). 6 fields: clients before ``contextCode``.
- EndTransaction: 13 fields in both.
- Recall: 7 fields, added after 5.3.1 (apache/rocketmq #8975, delay-message recall); neither tag writes it.
- ``msgType`` is ``MessageType``'s ordinal: 4.9.8 has 4 values, 5.3.1 adds ``Order_Msg`` (4).
"""

from __future__ import annotations

from typing import NamedTuple

CONTENT_SPLITOR = "\x01"
FIELD_SPLITOR = "\x02"
TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC"  # TopicValidator.RMQ_SYS_TRACE_TOPIC, the default msgTraceTopicName
TRACE_TOPIC_PREFIX = "rmq_sys_TRACE_DATA_"  # TraceConstants.TRACE_TOPIC_PREFIX: a region's trace topic

MESSAGE_TYPES = ("Normal_Msg", "Trans_Msg_Half", "Trans_msg_Commit", "Delay_Msg", "Order_Msg")  # MessageType
TRANSACTION_STATES = ("COMMIT_MESSAGE", "ROLLBACK_MESSAGE", "UNKNOW")  # LocalTransactionState, as Java spells it

# field kinds: "text" kept as written; "long" / "int" a Java long / int as toString writes it (the decoder's
# Long.parseLong / Integer.parseInt: outside their range the client itself fails); "bool" true/false;
# "msg_type" the MessageType ordinal; "tx_state" a LocalTransactionState name; "end" an empty last field
_PUB_HEAD = (("timestamp", "long"), ("region_id", "text"), ("group", "text"), ("topic", "text"),
             ("msg_id", "text"), ("tags", "text"), ("keys", "text"), ("store_host", "text"),
             ("body_length", "int"), ("cost_time", "int"), ("msg_type", "msg_type"))
_SUB_AFTER_HEAD = (("request_id", "text"), ("msg_id", "text"), ("cost_time", "int"), ("success", "bool"),
                   ("keys", "text"))

# type -> {field count after the type name: (shape name, fields)}
LAYOUTS: dict[str, dict[int, tuple[str, tuple[tuple[str, str], ...]]]] = {
    "Pub": {
        13: ("4.x/5.x", _PUB_HEAD + (("offset_msg_id", "text"), ("success", "bool"))),
        12: ("older client, no offsetMsgId", _PUB_HEAD + (("success", "bool"),)),
        14: ("with clientHost", _PUB_HEAD + (("offset_msg_id", "text"), ("success", "bool"),
                                             ("client_host", "text"))),
    },
    "SubBefore": {
        7: ("4.x/5.x", (("timestamp", "long"), ("region_id", "text"), ("group", "text"), ("request_id", "text"),
                        ("msg_id", "text"), ("retry_times", "int"), ("keys", "text"))),
    },
    "SubAfter": {
        8: ("4.x/5.x", _SUB_AFTER_HEAD + (("context_code", "int"), ("timestamp", "long"), ("group", "text"))),
        7: ("5.x CLOUD channel, no time or group", _SUB_AFTER_HEAD + (("context_code", "int"), ("", "end"))),
        6: ("CLOUD channel, no time or group", _SUB_AFTER_HEAD + (("context_code", "int"),)),
        5: ("older client, no contextCode", _SUB_AFTER_HEAD),
    },
    "EndTransaction": {
        12: ("4.x/5.x", (("timestamp", "long"), ("region_id", "text"), ("group", "text"), ("topic", "text"),
                         ("msg_id", "text"), ("tags", "text"), ("keys", "text"), ("store_host", "text"),
                         ("msg_type", "msg_type"), ("transaction_id", "text"), ("transaction_state", "tx_state"),
                         ("from_transaction_check", "bool"))),
    },
    "Recall": {
        6: ("after 5.3.1", (("timestamp", "long"), ("region_id", "text"), ("group", "text"), ("topic", "text"),
                            ("msg_id", "text"), ("success", "bool"))),
    },
}
TRACE_TYPES = tuple(LAYOUTS)  # TraceType, in its declaration order


class TraceRecordFields(NamedTuple):
    """One record of a known shape: its type, the shape's name (LAYOUTS), and its fields by name, typed."""

    type: str
    shape: str
    fields: dict[str, object]


class OtherShape(NamedTuple):
    """A record no layout matches: its text as written, and why (kept whole so it builds back)."""

    text: str
    reason: str


class TraceBody(NamedTuple):
    """A parsed body: its records in order; ``terminated``: the last record ends with FIELD_SPLITOR, as the
    encoder writes every record."""

    records: tuple[TraceRecordFields | OtherShape, ...]
    terminated: bool


def _parse_value(name: str, kind: str, text: str) -> object:
    if kind == "text":
        return text
    if kind == "end":
        if text:
            raise ValueError(f"an empty last field, not {text[:40]!r}")
        return None
    if kind == "bool":
        if text not in ("true", "false"):
            raise ValueError(f"{name} is {text[:40]!r}, not true or false")
        return text == "true"
    if kind == "tx_state":
        if text not in TRANSACTION_STATES:
            raise ValueError(f"{name} is {text[:40]!r}, not one of {', '.join(TRANSACTION_STATES)}")
        return text
    # int and msg_type: the digits Java's Long.toString writes (no '+', no leading zeros) so they build back
    if not (text.isascii() and text.lstrip("-").isdigit()) or str(int(text)) != text:
        raise ValueError(f"{name} is {text[:40]!r}, not a number")
    value = int(text)
    bits = 63 if kind == "long" else 31
    if not -(1 << bits) <= value < (1 << bits):
        raise ValueError(f"{name} is {text[:40]!r}, past a Java {kind}")
    if kind == "msg_type" and not 0 <= value < len(MESSAGE_TYPES):
        raise ValueError(f"{name} is {value}, not a MessageType ordinal (0-{len(MESSAGE_TYPES) - 1})")
    return value


def _build_value(kind: str, value: object) -> str:
    if kind == "end":
        return ""
    if kind == "bool":
        return "true" if value else "false"
    return str(value)


def parse_record(text: str) -> TraceRecordFields | OtherShape:
    """One record's text (without its FIELD_SPLITOR) by its type's layout; an OtherShape when none fits."""
    parts = text.split(CONTENT_SPLITOR)
    kind, rest = parts[0], parts[1:]
    shapes = LAYOUTS.get(kind)
    if shapes is None:
        return OtherShape(text, f"type {kind[:40]!r} is none of {', '.join(TRACE_TYPES)}")
    shape = shapes.get(len(rest))
    if shape is None:
        counts = " or ".join(str(n) for n in sorted(shapes))
        return OtherShape(text, f"{kind} with {len(rest)} fields after the type; its layouts have {counts}")
    name, layout = shape
    fields: dict[str, object] = {}
    for (field, field_kind), value in zip(layout, rest, strict=True):
        try:
            parsed = _parse_value(field, field_kind, value)
        except ValueError as e:
            return OtherShape(text, f"{kind}: {e}")
        if field:
            fields[field] = parsed
    return TraceRecordFields(kind, name, fields)


def build_record(record: TraceRecordFields | OtherShape) -> str:
    """The text ``parse_record`` reads back as ``record`` (without FIELD_SPLITOR)."""
    if isinstance(record, OtherShape):
        return record.text
    layouts = {name: layout for name, layout in LAYOUTS[record.type].values()}
    if record.shape not in layouts:
        raise ValueError(f"{record.type} has no shape {record.shape!r}")
    layout = layouts[record.shape]
    values = [_build_value(kind, record.fields.get(field)) for field, kind in layout]
    return CONTENT_SPLITOR.join([record.type, *values])


def parse_trace_text(text: str) -> TraceBody:
    """A body's text as its records. Never raises: a record no layout fits is an OtherShape."""
    if not text:
        return TraceBody((), False)
    pieces = text.split(FIELD_SPLITOR)
    terminated = pieces[-1] == ""
    if terminated:
        pieces.pop()
    return TraceBody(tuple(parse_record(p) for p in pieces), terminated)


def parse_trace_body(data: bytes) -> TraceBody:
    """A body's bytes as its records (UTF-8, as the client sends; undecodable bytes kept as surrogates so
    ``build_trace_body`` gives the same bytes back)."""
    return parse_trace_text(data.decode("utf-8", "surrogateescape"))


def build_trace_text(body: TraceBody) -> str:
    text = FIELD_SPLITOR.join(build_record(r) for r in body.records)
    return text + FIELD_SPLITOR if body.terminated else text


def build_trace_body(body: TraceBody) -> bytes:
    return build_trace_text(body).encode("utf-8", "surrogateescape")
