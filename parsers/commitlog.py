"""CommitLog message record, BLANK end-of-segment record and sysFlag (spec §2).

Field names are ours (snake_case); the docs carry RocketMQ's field numbers
(1 TOTALSIZE ... 17 PROPERTIES) so readers can cross-reference
``CommitLog.checkMessageAndReturnSize``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from construct import (
    Adapter,
    BitsInteger,
    BitStruct,
    Bytes,
    Const,
    Enum,
    Flag,
    GreedyBytes,
    IfThenElse,
    Int8sb,
    Int16sb,
    Int32sb,
    Int64sb,
    Prefixed,
    Struct,
    this,
)

from parsers.adapters import IpAddress, Utf8Text

MAGIC_V1 = -626843481  # 0xDAA320A7
MAGIC_V2 = -626843477  # 0xDAA320AB, 5.1.0+: two-byte topic length
MAGIC_BLANK = -875286124  # 0xCBD43194
MESSAGE_MAGICS = (MAGIC_V1, MAGIC_V2)

END_FILE_MIN_BLANK_LENGTH = 8  # a record is written only if it leaves 8 spare bytes (spec §2.11)

# sysFlag bits (MessageSysFlag)
COMPRESSED_FLAG = 0x001
MULTI_TAGS_FLAG = 0x002
TRANSACTION_MASK = 0x00C
TRANSACTION_NOT_TYPE = 0x000
TRANSACTION_PREPARED_TYPE = 0x004
TRANSACTION_COMMIT_TYPE = 0x008
TRANSACTION_ROLLBACK_TYPE = 0x00C
BORNHOST_V6_FLAG = 0x010
STOREHOSTADDRESS_V6_FLAG = 0x020
NEED_UNWRAP_FLAG = 0x040
INNER_BATCH_FLAG = 0x080
COMPRESSION_TYPE_MASK = 0x700

TRANSACTION_NAMES = {0: "NOT_TYPE", 4: "PREPARED", 8: "COMMIT", 12: "ROLLBACK"}
COMPRESSION_NAMES = {0: "ZLIB", 1: "LZ4", 2: "ZSTD", 3: "ZLIB"}  # 0 = pre-4.9.4 records, read as zlib

NAME_VALUE_SEPARATOR = "\x01"
PROPERTY_SEPARATOR = "\x02"

SysFlag = BitStruct(
    "unused" / BitsInteger(21) * "bits 11-31, unused",
    "compression_type"
    / Enum(BitsInteger(3), ZLIB_LEGACY=0, LZ4=1, ZSTD=2, ZLIB=3)
    * "bits 8-10: codec of a compressed body (0 = zlib, pre-4.9.4)",
    "inner_batch" / Flag * "bit 7 INNER_BATCH_FLAG: one record carries several messages",
    "need_unwrap" / Flag * "bit 6 NEED_UNWRAP_FLAG",
    "store_host_v6" / Flag * "bit 5 STOREHOSTADDRESS_V6_FLAG: store host is 16+4 bytes",
    "born_host_v6" / Flag * "bit 4 BORNHOST_V6_FLAG: born host is 16+4 bytes",
    "transaction"
    / Enum(BitsInteger(2), NOT_TYPE=0, PREPARED=1, COMMIT=2, ROLLBACK=3)
    * "bits 2-3: transaction type",
    "multi_tags" / Flag * "bit 1 MULTI_TAGS_FLAG (legacy)",
    "compressed" / Flag * "bit 0 COMPRESSED_FLAG: body is compressed",
)
"""The 32-bit sysFlag as named parts; parse the 4 big-endian bytes of field 8."""

Host4 = Struct("ip" / IpAddress(Bytes(4)), "port" / Int32sb)
Host6 = Struct("ip" / IpAddress(Bytes(16)), "port" / Int32sb)


@dataclass
class Properties:
    """The properties string as a list of segments, exactly as stored.

    RocketMQ writes ``name 0x01 value 0x02`` for every pair. ``entries`` keeps each
    0x02-separated segment in order (``value`` is None for a segment without 0x01),
    and ``terminated`` says whether the string ended with 0x02, so any bytes
    round-trip. :meth:`as_map` applies RocketMQ's own reading rules.
    """

    entries: list[tuple[str, str | None]] = field(default_factory=list)
    terminated: bool = True

    @classmethod
    def from_map(cls, mapping: dict[str, str]) -> Properties:
        entries = [(k, v) for k, v in mapping.items() if v is not None]
        return cls(entries, bool(entries))

    @classmethod
    def from_text(cls, text: str) -> Properties:
        if not text:
            return cls([], False)
        parts = text.split(PROPERTY_SEPARATOR)
        terminated = parts[-1] == ""
        if terminated:
            parts.pop()
        entries: list[tuple[str, str | None]] = []
        for part in parts:
            name, sep, value = part.partition(NAME_VALUE_SEPARATOR)
            entries.append((name, value) if sep else (part, None))
        return cls(entries, terminated)

    def to_text(self) -> str:
        text = PROPERTY_SEPARATOR.join(
            name if value is None else name + NAME_VALUE_SEPARATOR + value for name, value in self.entries
        )
        return text + PROPERTY_SEPARATOR if self.terminated and self.entries else text

    def as_map(self) -> dict[str, str]:
        """``MessageDecoder.string2messageProperties``: short, nameless or valueless segments dropped, later wins."""
        result: dict[str, str] = {}
        for name, value in self.entries:
            if value is None or len(name) + 1 + len(value) < 3 or not name or not value:
                continue
            result[name] = value
        return result

    def malformed_segments(self) -> list[str]:
        """Segments RocketMQ would silently drop (no separator, empty name or value)."""
        return [
            name if value is None else name + NAME_VALUE_SEPARATOR + value
            for name, value in self.entries
            if value is None or not name or not value
        ]


class PropertiesAdapter(Adapter):
    """UTF-8 properties text <-> :class:`Properties` (byte-exact both ways)."""

    def _decode(self, obj, context, path):
        return Properties.from_text(obj)

    def _encode(self, obj, context, path):
        if isinstance(obj, dict):
            obj = Properties.from_map(obj)
        return obj.to_text()


MessageRecord = Struct(
    "total_size" / Int32sb * "1 TOTALSIZE: length of the whole record, this field included",
    "magic_code" / Int32sb * "2 MAGICCODE: 0xDAA320A7 (v1) or 0xDAA320AB (v2)",
    "body_crc" / Int32sb * "3 BODYCRC: CRC-32 of the stored body & 0x7FFFFFFF",
    "queue_id" / Int32sb * "4 QUEUEID",
    "flag" / Int32sb * "5 FLAG: the producer's opaque flag",
    "queue_offset" / Int64sb * "6 QUEUEOFFSET: 0 for PREPARED and ROLLBACK records",
    "physical_offset" / Int64sb * "7 PHYSICALOFFSET: segment start + position of this record",
    "sys_flag" / Int32sb * "8 SYSFLAG: see SysFlag",
    "born_timestamp" / Int64sb * "9 BORNTIMESTAMP: producer clock, ms",
    "born_host" / IfThenElse(this.sys_flag & BORNHOST_V6_FLAG, Host6, Host4) * "10 BORNHOST",
    "store_timestamp" / Int64sb * "11 STORETIMESTAMP: broker clock, ms",
    "store_host" / IfThenElse(this.sys_flag & STOREHOSTADDRESS_V6_FLAG, Host6, Host4) * "12 STOREHOSTADDRESS",
    "reconsume_times" / Int32sb * "13 RECONSUMETIMES",
    "prepared_transaction_offset" / Int64sb * "14 PREPARED TRANSACTION OFFSET",
    "body" / Prefixed(Int32sb, GreedyBytes) * "15 BODY: length-prefixed, possibly compressed",
    "topic"
    / IfThenElse(
        this.magic_code == MAGIC_V2,
        Utf8Text(Prefixed(Int16sb, GreedyBytes)),
        Utf8Text(Prefixed(Int8sb, GreedyBytes)),
    )
    * "16 TOPIC: length is int8 (v1) or int16 (v2), read signed",
    "properties"
    / PropertiesAdapter(Utf8Text(Prefixed(Int16sb, GreedyBytes)))
    * "17 PROPERTIES: name 0x01 value 0x02 ...",
)
"""One message record (v1 or v2). TOTALSIZE is not checked here: the engine checks it."""

BlankRecord = Struct(
    "total_size" / Int32sb * "1 TOTALSIZE: bytes left in the segment (only these 8 are written)",
    "magic_code" / Const(MAGIC_BLANK, Int32sb) * "2 MAGICCODE: 0xCBD43194",
)
"""The 8 bytes a broker writes where the next message does not fit (spec §2.11)."""

RecordHead = Struct(
    "total_size" / Int32sb * "1 TOTALSIZE",
    "magic_code" / Int32sb * "2 MAGICCODE",
)
"""The first 8 bytes of any record: enough to tell a message from a BLANK or garbage."""

InnerBatchItem = Struct(
    "total_size" / Int32sb * "item total size",
    "magic_code" / Int32sb * "written as 0",
    "body_crc" / Int32sb * "written as 0",
    "flag" / Int32sb,
    "body" / Prefixed(Int32sb, GreedyBytes),
    "properties" / PropertiesAdapter(Utf8Text(Prefixed(Int16sb, GreedyBytes))),
)
"""One message inside an inner-batch body (``MessageDecoder.encodeMessages``, spec §2.10)."""


def _inner_item_frame() -> tuple[str, str]:
    """The ``struct`` formats of an inner-batch item's frame, from :data:`InnerBatchItem`: its fixed fields with
    the body's length prefix (the head), and the properties' length prefix. The fast decoder and the writer use
    these; the schema stays the one declaration."""
    formats = []
    for sub in InnerBatchItem.subcons:
        field = sub
        while hasattr(field, "subcon") and type(field).__name__ != "Prefixed":
            field = field.subcon
        formats.append((field.lengthfield if type(field).__name__ == "Prefixed" else field).fmtstr[1:])
    return ">" + "".join(formats[:-1]), ">" + formats[-1]


INNER_ITEM_HEAD_FORMAT, INNER_ITEM_PROPERTIES_LENGTH_FORMAT = _inner_item_frame()
"""``>lllll`` (total size, magic, body CRC, flag, body length) and ``>h`` (properties length)."""


def host_width(sys_flag: int, v6_flag: int) -> int:
    return 20 if sys_flag & v6_flag else 8


def topic_length_width(magic_code: int) -> int:
    return 2 if magic_code == MAGIC_V2 else 1


def record_length(
    body_length: int, topic_length: int, properties_length: int, sys_flag: int = 0, magic_code: int = MAGIC_V1
) -> int:
    """``MessageExtEncoder.calMsgLength``: 74 + BH + SH + B + TL + T + P.

    Spec §2.8 prints the constant as 72, but its own term list (4+4+4+4+4+8+8+4+8
    + 8 + 4+8 + 4 + 2) sums to 74, and its IPv4 figure (91 = 74 + 8 + 8 + 1) agrees.
    """
    return (
        74
        + host_width(sys_flag, BORNHOST_V6_FLAG)
        + host_width(sys_flag, STOREHOSTADDRESS_V6_FLAG)
        + body_length
        + topic_length_width(magic_code)
        + topic_length
        + properties_length
    )


def transaction_type(sys_flag: int) -> int:
    return sys_flag & TRANSACTION_MASK


def compression_type(sys_flag: int) -> int:
    return (sys_flag & COMPRESSION_TYPE_MASK) >> 8


def sys_flag_parts(sys_flag: int) -> dict[str, object]:
    """sysFlag as plain named parts (the SysFlag schema, without construct containers)."""
    parsed = SysFlag.parse((sys_flag & 0xFFFFFFFF).to_bytes(4, "big"))
    return {
        "compressed": bool(parsed.compressed),
        "compression_type": COMPRESSION_NAMES.get(int(parsed.compression_type), str(int(parsed.compression_type)))
        if parsed.compressed
        else None,
        "multi_tags": bool(parsed.multi_tags),
        "transaction": TRANSACTION_NAMES[sys_flag & TRANSACTION_MASK],
        "born_host_v6": bool(parsed.born_host_v6),
        "store_host_v6": bool(parsed.store_host_v6),
        "need_unwrap": bool(parsed.need_unwrap),
        "inner_batch": bool(parsed.inner_batch),
        "unused_bits": int(parsed.unused),
    }


def make_sys_flag(
    *,
    compressed: bool = False,
    compression: int = 0,
    transaction: int = TRANSACTION_NOT_TYPE,
    born_host_v6: bool = False,
    store_host_v6: bool = False,
    multi_tags: bool = False,
    need_unwrap: bool = False,
    inner_batch: bool = False,
) -> int:
    flag = transaction & TRANSACTION_MASK
    if compressed:
        flag |= COMPRESSED_FLAG | ((compression & 7) << 8)
    if multi_tags:
        flag |= MULTI_TAGS_FLAG
    if born_host_v6:
        flag |= BORNHOST_V6_FLAG
    if store_host_v6:
        flag |= STOREHOSTADDRESS_V6_FLAG
    if need_unwrap:
        flag |= NEED_UNWRAP_FLAG
    if inner_batch:
        flag |= INNER_BATCH_FLAG
    return flag
