"""The one outward shape of a message: every field a message shows in ``--json``, the web API, the TUI detail
and Spark rows, its type and how it is derived from a :class:`Message`, declared once.

:func:`inspector.engine.present.views.message_view` is built from :data:`MESSAGE_FIELDS`; the Spark schema
(``inspector.spark.schemas.MESSAGE``) and its rows (``spark.tasks.message_row``) take the same names and types
from it. The fast paths (the bulk JSON template in ``views_bulk``, the Arrow columns in ``spark.arrow``) are
checked against it: ``views_bulk`` refuses to import when its template's keys are not these names in this
order, and the tests hold both equal, value for value, to what the declaration derives on the sample stores.

What the shapes add around these fields is said where it is added: the body (``body_base64`` and
``body_truncated`` in JSON, raw ``body`` bytes in Spark), a DLedger record's entry (a ``dledger`` object in
JSON, ``raft_index``/``raft_term`` columns in Spark), the ``inner_batch`` and ``lmq`` objects (JSON).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from inspector.engine.model.meaning import SYS_FLAG_PART_NAMES, sys_flag_parts
from inspector.engine.model.records import Message

__all__ = ["MESSAGE_FIELDS", "MessageField", "SYS_FLAG_PART_KINDS", "message_fields"]


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
