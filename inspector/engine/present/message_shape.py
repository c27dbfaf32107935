"""The one outward shape of a message: every field a message shows in ``--json``, the web API, the TUI detail
and Spark rows, its type and how it is derived from a :class:`Message`, declared once.

:func:`inspector.engine.present.views.message_view` is built from :data:`MESSAGE_FIELDS`; the Spark schema
(``inspector.spark.schemas.MESSAGE``) and its rows (``spark.tasks.message_row``) take the same names and types
from it. The bulk JSON template of ``views_bulk`` is generated from it (and refuses to import on a field it
cannot write); the Arrow columns of ``spark.arrow`` take its names, and the tests hold both fast paths equal,
value for value, to what the declaration derives on the sample stores.

What every shape adds after these fields is declared here too, so JSON and Spark rows name and nest it alike:
the body (:data:`BODY_FIELDS`: ``body_base64``, the stored bytes in base64, and ``body_truncated``), a DLedger
record's entry (the ``dledger`` object, :func:`dledger_entry`) and an inner-batch message's place in its
record (the ``inner_batch`` object, :func:`inner_batch_of`). JSON leaves an object out when the record has
none; a Spark row holds null there. A trace topic's record's ``trace`` object is declared beside its decoder,
in ``present/traceviews.py`` (``TRACE_OBJECT_KINDS``, ``trace_object_row``). The ``lmq`` object (a message read through an LMQ queue) is JSON's only:
Spark reads the commitlog, never through a queue.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from inspector.engine.model.meaning import SYS_FLAG_PART_NAMES, sys_flag_parts
from inspector.engine.model.records import InnerMessage, Message
from parsers.dledger import ENTRY_HEADER_SIZE as DLEDGER_HEADER

__all__ = ["BODY_FIELDS", "DLEDGER_ENTRY_KINDS", "DLEDGER_HEADER", "INNER_BATCH_KINDS", "MESSAGE_FIELDS", "MessageField",
           "SYS_FLAG_PART_KINDS", "dledger_entry", "inner_batch_of", "message_fields"]


@dataclass(frozen=True)
class MessageField:
    """One field of a message's outward shape. ``kind``: ``string``, ``int32``, ``int64``, ``bool``,
    ``string_map``, ``string_list`` or ``sys_flag_parts`` (an object of :data:`SYS_FLAG_PART_KINDS`)."""

    name: str
    kind: str
    derive: Callable[[Message], object]
    nullable: bool = False


def _attr(name: str) -> Callable[[Message], object]:
    return lambda m: getattr(m, name)


def _field(name: str, kind: str, derive: Callable[[Message], object] | None = None,
           nullable: bool = False) -> MessageField:
    return MessageField(name, kind, derive or _attr(name), nullable)


MESSAGE_FIELDS: tuple[MessageField, ...] = (
    _field("file", "string"),
    _field("position", "int64"),
    _field("physical_offset", "int64"),
    _field("total_size", "int32"),
    _field("magic_version", "int32"),
    _field("body_crc", "int64"),
    _field("body_crc_ok", "bool"),
    _field("queue_id", "int32"),
    _field("flag", "int32"),
    _field("queue_offset", "int64"),
    _field("stored_physical_offset", "int64"),
    _field("sys_flag", "int32"),
    _field("sys_flag_parts", "sys_flag_parts", lambda m: sys_flag_parts(m.sys_flag)),
    _field("born_timestamp", "int64"),
    _field("born_host", "string", lambda m: str(m.born_host)),
    _field("store_timestamp", "int64"),
    _field("store_host", "string", lambda m: str(m.store_host)),
    _field("reconsume_times", "int32"),
    _field("prepared_transaction_offset", "int64"),
    _field("topic", "string"),
    _field("properties", "string_map", lambda m: dict(m.properties)),
    _field("tags", "string", nullable=True),
    _field("keys", "string_list"),
    _field("unique_key", "string", nullable=True),
    _field("msg_id", "string"),
    _field("transaction", "string"),
    _field("compression", "string", nullable=True),
    _field("body_length", "int32", lambda m: len(m.body)),
)
"""Every field of a message's outward shape, in the order every view shows them."""

# parsers.commitlog.sys_flag_parts, field for field: (name, kind, nullable)
SYS_FLAG_PART_KINDS: tuple[tuple[str, str, bool], ...] = tuple(
    (name, {"compression_type": "string", "transaction": "string", "unused_bits": "int32"}.get(name, "bool"),
     name == "compression_type")
    for name in SYS_FLAG_PART_NAMES)


def message_fields(msg: Message) -> dict:
    """The declared fields of ``msg``, by name, in order: the start of every view of a message."""
    return {f.name: f.derive(msg) for f in MESSAGE_FIELDS}


# After the declared fields, in this order: (name, kind, nullable). Nullable: a Spark job that reads no bodies
# (stats, keyindex) holds null in both.
BODY_FIELDS: tuple[tuple[str, str, bool], ...] = (("body_base64", "string", True), ("body_truncated", "bool", True))

# the ``dledger`` object (spec part 2 §16): the entry the record is the body of, field by field
DLEDGER_ENTRY_KINDS: tuple[tuple[str, str, bool], ...] = (
    ("raft_index", "int64", False), ("term", "int64", False), ("entry_position", "int64", False),
    ("entry_size", "int64", False))

# the ``inner_batch`` object: an inner message's place in its 5.x inner-batch record
INNER_BATCH_KINDS: tuple[tuple[str, str, bool], ...] = (
    ("index", "int32", False), ("count", "int32", False), ("base_queue_offset", "int64", False),
    ("item_position", "int64", False))


def dledger_entry(msg: Message) -> dict | None:
    """The ``dledger`` object of a record read from a DLedger store (its entry starts a header before it);
    None for a plain store's record."""
    if msg.raft_index is None:
        return None
    return {"raft_index": msg.raft_index, "term": msg.raft_term,
            "entry_position": msg.position - DLEDGER_HEADER, "entry_size": msg.total_size + DLEDGER_HEADER}


def inner_batch_of(msg: Message) -> dict | None:
    """The ``inner_batch`` object of one message of an inner-batch record; None for any other message."""
    if not isinstance(msg, InnerMessage):
        return None
    return {"index": msg.inner_index, "count": msg.inner_count, "base_queue_offset": msg.base_queue_offset,
            "item_position": msg.item_position}
