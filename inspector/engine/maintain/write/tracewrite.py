"""Trace messages for the writer: the message a client's trace dispatcher sends for a batch of trace records
(``AsyncTraceDispatcher``: topic ``RMQ_SYS_TRACE_TOPIC``, body the records as ``TraceDataEncoder`` writes them,
KEYS every traced msgId and its message keys: the ``transKey`` set the index then finds the records by)."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.model.errors import BadInput
from parsers.trace import (
    LAYOUTS,
    MESSAGE_TYPES,
    TRACE_TOPIC,
    TRANSACTION_STATES,
    TraceBody,
    TraceRecordFields,
    build_trace_body,
)

KEY_SEPARATOR = " "  # MessageConst.KEY_SEPARATOR: how the encoder splits a bean's keys into index keys


def trace_record(spec: Mapping[str, object]) -> TraceRecordFields:
    """``{"type": "Pub", "shape": ..., <field>: value, ...}`` as a record of its layout (``shape``: one of the
    type's LAYOUTS names, the 4.x/5.x one by default; ``msg_type`` a MessageType name or ordinal). BadInput for a
    type, shape or field the layout does not have, or a field it has that is missing."""
    kind = spec.get("type")
    if kind not in LAYOUTS:
        raise BadInput(f"trace record type {kind!r}: one of {', '.join(LAYOUTS)}")
    shapes = {name: layout for name, layout in LAYOUTS[kind].values()}
    shape = spec.get("shape", next(iter(shapes)))
    if shape not in shapes:
        raise BadInput(f"{kind} trace record shape {shape!r}: one of {', '.join(shapes)}")
    names = [name for name, _ in shapes[shape] if name]
    values = {k: v for k, v in spec.items() if k not in ("type", "shape")}
    extra = sorted(set(values) - set(names))
    missing = [n for n in names if n not in values]
    if extra or missing:
        raise BadInput(f"{kind} ({shape}) trace record: " + "; ".join(
            part for part in (f"no field {', '.join(extra)}" if extra else "",
                              f"missing {', '.join(missing)}" if missing else "") if part))
    if isinstance(values.get("msg_type"), str) and values["msg_type"] in MESSAGE_TYPES:
        values["msg_type"] = MESSAGE_TYPES.index(values["msg_type"])
    for name, field_kind in shapes[shape]:
        if name and not _fits(field_kind, values[name]):
            raise BadInput(f"{kind} trace record: {name} {values[name]!r} is no {_KIND_NAMES[field_kind]}")
    return TraceRecordFields(kind, shape, values)


_KIND_NAMES = {"text": "string", "long": "Java long", "int": "Java int", "bool": "true or false",
               "msg_type": f"MessageType ({', '.join(MESSAGE_TYPES)})",
               "tx_state": f"transaction state ({', '.join(TRANSACTION_STATES)})"}


def _fits(kind: str, value: object) -> bool:
    """``value`` is what the layout's ``kind`` writes (so the body built parses back to it)."""
    if kind == "text":
        return isinstance(value, str) and "\x01" not in value and "\x02" not in value
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "tx_state":
        return value in TRANSACTION_STATES
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    bits = {"long": 63, "int": 31}.get(kind)
    return 0 <= value < len(MESSAGE_TYPES) if bits is None else -(1 << bits) <= value < (1 << bits)


def trace_keys(records: Sequence[TraceRecordFields]) -> list[str]:
    """The index keys of a trace message: each record's msgId, then its keys split on spaces (empty ones and
    repeats dropped), as ``encoderFromContextBean`` collects ``transKey``."""
    keys: list[str] = []
    for record in records:
        for key in [str(record.fields.get("msg_id", "")), *str(record.fields.get("keys") or "").split(KEY_SEPARATOR)]:
            if key and key not in keys:
                keys.append(key)
    return keys


def trace_spec(records: Sequence[Mapping[str, object]], *, topic: str = TRACE_TOPIC, queue_id: int = 0,
               store_timestamp: int | None = None, store_host: str | None = None) -> MessageSpec:
    """One trace message holding ``records`` (each as :func:`trace_record` takes it) for the writer."""
    parsed = [trace_record(r) for r in records]
    body = build_trace_body(TraceBody(tuple(parsed), True))
    return MessageSpec(topic=topic, body=body, queue_id=queue_id, keys=trace_keys(parsed),
                       store_timestamp=store_timestamp, store_host=store_host,
                       producer_group="_INNER_TRACE_PRODUCER-DEFAULT")  # TraceConstants.GROUP_NAME_PREFIX


def trace_json(obj: Mapping[str, object]) -> dict[str, object]:
    """A JSON Lines message with ``trace`` (a list of records as :func:`trace_record` takes them) as the plain
    message it stands for: ``body`` the packed records, ``keys`` their index keys (unless given), ``topic``
    RMQ_SYS_TRACE_TOPIC (unless given). BadInput with a body of its own, or records that are no objects."""
    records = obj.get("trace")
    if not isinstance(records, list) or not records or not all(isinstance(r, Mapping) for r in records):
        raise BadInput("trace must be a non-empty list of trace record objects")
    if "body" in obj or "body_base64" in obj:
        raise BadInput("a trace message's body is its trace records: give trace, not body or body_base64")
    parsed = [trace_record(r) for r in records]
    out = {k: v for k, v in obj.items() if k != "trace"}
    out["body_base64"] = base64.b64encode(build_trace_body(TraceBody(tuple(parsed), True))).decode()
    out.setdefault("keys", trace_keys(parsed))
    out.setdefault("topic", TRACE_TOPIC)
    return out
