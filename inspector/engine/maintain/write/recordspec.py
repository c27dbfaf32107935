"""A stored record given back to ``write`` (issue 32 item 4): a line ``messages --json`` printed, written as the
record it describes, not through the producer's and broker's flow (no property added, no UNIQ_KEY made, no
transaction or delay rewriting): its sysFlag, flag, hosts, times, reconsume times, prepared-transaction offset,
properties (in the order given) and body (``body_base64``: the stored bytes, compressed as sysFlag says) as they
are, so ``messages --json | jq 'select(...)' | rmq-inspect write NEW -`` makes a store of exactly those records.

A line is such a record when it holds a field only ``messages --json`` prints (:data:`RECORD_MARKERS`). Its other
fields are derived from the record, and each is checked or ignored, never refused for being there:

- checked (a mismatch is a ``BadInput`` naming the field; the line says the record is not what it claims):
  ``total_size`` (the record's size as written: properties that do not encode back to the same bytes show
  here), ``magic_version``, ``body_length``, ``body_crc_ok`` (``body_crc`` is the stored field, written as given:
  a record with a bad CRC stays one), ``tags`` / ``keys`` / ``unique_key`` (from the properties),
  ``transaction`` / ``compression`` / ``sys_flag_parts`` (from sysFlag); ``body_truncated`` must be false;
- with ``keep_offsets``: ``physical_offset``, ``queue_offset`` and ``stored_physical_offset`` must be where the
  writer puts the record (the writer refuses a gap: nothing a broker's recovery walks past can fill a span in
  the middle of a segment, the BLANK record only ends one), and ``msg_id`` (store host and offset) is checked;
  A DLedger entry's ``dledger`` (Raft index and term) is checked too: the new store must then be a DLedger one
  (``--dledger`` with the old store's ``--pre-dledger`` and ``--dledger-term``s);
- ignored: ``file`` and ``position`` (a place in the old store's files), without ``keep_offsets`` the offsets,
  ``msg_id`` and ``dledger`` (the new store's place), and the views of the body or of the queue it was read
  through: ``body_decompressed_*``, ``decompress_error``, ``trace``, ``lmq``, an inner-batch record's
  ``inner_messages`` (its body, split; the record is written whole). An inner message listed through its BatchCQ
  queue (``inner_batch``) is refused: its record is the line to write.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspector.engine.maintain.write.encode import _prepare, _Prepared, _utf8
from inspector.engine.maintain.write.messagespec import _typed
from inspector.engine.model.arguments import INT64_MAX
from inspector.engine.model.crc import rocketmq_crc32
from inspector.engine.model.errors import BadInput
from inspector.engine.model.meaning import (
    compression_name,
    keys_of,
    magic_version,
    offset_msg_id,
    sys_flag_parts,
    tags_of,
    transaction_name,
    unique_key_of,
)
from parsers.commitlog import Properties

__all__ = ["RECORD_MARKERS", "RecordSpec"]

# fields only a stored record has: their presence makes a line a RecordSpec
RECORD_MARKERS = frozenset({
    "file", "position", "physical_offset", "total_size", "magic_version", "body_crc", "body_crc_ok", "queue_offset",
    "stored_physical_offset", "sys_flag", "sys_flag_parts", "msg_id", "body_length", "body_truncated"})
_WRITTEN = {"topic", "body", "body_base64", "queue_id", "flag", "sys_flag", "born_timestamp", "born_host",
            "store_timestamp", "store_host", "reconsume_times", "prepared_transaction_offset", "properties",
            "body_crc"}
_CHECKED = {"total_size", "magic_version", "body_length", "body_crc_ok", "tags", "keys", "unique_key",
            "transaction", "compression", "sys_flag_parts", "body_truncated", "physical_offset", "queue_offset",
            "stored_physical_offset", "msg_id"}
_IGNORED = {"file", "position", "body_decompressed_base64", "body_decompressed_length", "decompress_error", "trace",
            "lmq", "inner_messages", "inner_messages_error"}


@dataclass(frozen=True)
class RecordSpec:
    """One stored record to write as it is: ``prepared`` (everything but its offsets) and the line's derived
    fields (``claims``), checked against the record once its place is known (:meth:`check`)."""

    prepared: _Prepared
    claims: dict[str, Any]
    entry: tuple[int, int] | None = None  # (Raft index, term) of the DLedger entry the record was


    @classmethod
    def from_json(cls, obj: object) -> RecordSpec | None:
        """The record a ``messages --json`` line describes; None for any other line (a message to send)."""
        if not isinstance(obj, Mapping) or not RECORD_MARKERS & set(obj):
            return None
        if "inner_batch" in obj:  # a BatchCQ queue's listing gives the inner messages; the log order the records
            raise BadInput("an inner message of an inner-batch record (read through its BatchCQ queue): export in "
                           "log order (messages --json without --queue) to get the record")
        unknown = sorted(set(obj) - _WRITTEN - _CHECKED - _IGNORED - {"dledger"})
        if unknown:
            raise BadInput(f"unknown record field(s): {', '.join(unknown)}")
        if obj.get("body_truncated"):
            raise BadInput("body_truncated is true: the line holds only part of the body")
        if ("body" in obj) == ("body_base64" in obj):
            raise BadInput("a record needs its body: body_base64 (the stored bytes), or body (text)")
        if "body_base64" in obj:
            try:
                body = base64.b64decode(_typed(obj, "body_base64", str), validate=True)
            except ValueError:
                raise BadInput("body_base64 is not valid base64") from None
        else:
            body = _utf8(_typed(obj, "body", str), "body")
        properties = obj.get("properties", {})
        if not isinstance(properties, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                          for k, v in properties.items()):
            raise BadInput("properties must be an object of string values")
        body_crc = _typed(obj, "body_crc", int, None, nullable=True)
        if body_crc is not None and not -(1 << 31) <= body_crc < 1 << 31:  # BODYCRC is an int32 (Int32sb)
            raise BadInput(f"field body_crc must be an integer in [{-(1 << 31)}, {(1 << 31) - 1}], not {body_crc}")
        sys_flag = _typed(obj, "sys_flag", int, 0)
        prepared = _prepare(
            topic=_typed(obj, "topic", str), body=body, properties=Properties.from_map(dict(properties)),
            queue_id=_typed(obj, "queue_id", int, 0), flag=_typed(obj, "flag", int, 0),
            sys_flag=sys_flag, born_timestamp=_typed(obj, "born_timestamp", int),
            born_host=_typed(obj, "born_host", str), store_timestamp=_typed(obj, "store_timestamp", int),
            store_host=_typed(obj, "store_host", str), reconsume_times=_typed(obj, "reconsume_times", int, 0),
            prepared_transaction_offset=_typed(obj, "prepared_transaction_offset", int, 0),
            body_crc=body_crc)
        if prepared.sys_flag != sys_flag:  # _prepare sets the IPv6 bits from the hosts, as the broker does
            raise BadInput(f"field sys_flag is {sys_flag}, but its hosts make it {prepared.sys_flag} (IPv6 bits)")
        claims = {k: obj[k] for k in _CHECKED if k in obj}
        _check(claims, _derived(prepared))
        return cls(prepared, claims, _entry(obj.get("dledger")))

    def expected_offsets(self) -> tuple[int, int] | None:
        """(physical offset, queue offset) the line claims; None when it names neither."""
        if "physical_offset" not in self.claims and "queue_offset" not in self.claims:
            return None
        physical = _typed(self.claims, "physical_offset", int)
        queue = _typed(self.claims, "queue_offset", int)
        if not 0 <= physical <= INT64_MAX:
            raise BadInput(f"field physical_offset must be an integer in [0, {INT64_MAX}], not {physical}")
        stored = self.claims.get("stored_physical_offset", physical)
        if stored != physical:
            raise BadInput(f"stored_physical_offset {stored} is not physical_offset {physical}: a record the "
                           "broker did not write there; --keep-offsets keeps only what a broker writes")
        return physical, queue

    def check_msg_id(self, physical_offset: int) -> None:
        """With --keep-offsets: the line's msg_id is the one the record has at ``physical_offset``."""
        if "msg_id" in self.claims:
            host = self.prepared.store_host
            _check_one("msg_id", self.claims["msg_id"], offset_msg_id(host[0], host[1], physical_offset))


def _entry(value: object) -> tuple[int, int] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise BadInput("dledger must be an object (raft_index, term, ...)")
    return _typed(value, "raft_index", int), _typed(value, "term", int)


def _derived(p: _Prepared) -> dict[str, Any]:
    props = p.properties.as_map()
    return {"total_size": p.total_size, "magic_version": magic_version(p.magic), "body_length": len(p.body),
            "body_crc_ok": rocketmq_crc32(p.body) == p.body_crc, "tags": tags_of(props),
            "keys": keys_of(props), "unique_key": unique_key_of(props), "transaction": transaction_name(p.sys_flag),
            "compression": compression_name(p.sys_flag), "sys_flag_parts": sys_flag_parts(p.sys_flag)}


def _check(claims: dict[str, Any], derived: dict[str, Any]) -> None:
    for name, value in derived.items():
        if name in claims:
            _check_one(name, claims[name], value)


def _check_one(name: str, claimed: object, actual: object) -> None:
    if claimed != actual:
        shown = repr(claimed) if len(repr(claimed)) <= 60 else f"{repr(claimed)[:60]}..."
        raise BadInput(f"field {name} is {shown}, but the record as written has {actual!r}")
