"""What a commitlog record's fields mean, said once (spec §2.2-§2.6): magic version, sysFlag parts, transaction
and compression names, the properties map and what is read from it, the offset msgId.

Every reader of the engine answers these questions through this module: :class:`~.records.Message` for one
record, the front ends (Spark's columnar batches derive them per distinct sysFlag / per record from here), the
JSON views. The layouts themselves stay declared once, in ``parsers.commitlog``; this module only names what
their values mean, so a second reading of a record cannot drift from the first.
"""

from __future__ import annotations

from functools import lru_cache

from parsers import commitlog as cl
from parsers.msgid import encode_offset_msg_id

# The properties text: ``name \x01 value \x02`` per pair (MessageDecoder.NAME_VALUE_SEPARATOR / PROPERTY_SEPARATOR)
PROPERTY_SEPARATOR = cl.PROPERTY_SEPARATOR
NAME_VALUE_SEPARATOR = cl.NAME_VALUE_SEPARATOR

# The parts of sysFlag, in the order of the Spark/JSON ``sys_flag_parts`` struct (parsers.commitlog.sys_flag_parts)
SYS_FLAG_PART_NAMES = ("compressed", "compression_type", "multi_tags", "transaction", "born_host_v6",
                       "store_host_v6", "need_unwrap", "inner_batch", "unused_bits")


def magic_version(magic_code: int) -> int:
    """2 for MESSAGE_MAGIC_CODE_V2 (topic length in 2 bytes), else 1 (spec §2.2)."""
    return 2 if magic_code == cl.MAGIC_V2 else 1


def transaction_name(sys_flag: int) -> str:
    """NOT_TYPE, PREPARED, COMMIT or ROLLBACK: bits 2-3 of sysFlag (MessageSysFlag.TRANSACTION_*)."""
    return cl.TRANSACTION_NAMES[sys_flag & cl.TRANSACTION_MASK]


def gets_queue_unit(transaction: str) -> bool:
    """Whether dispatch gives a record of this transaction type (``transaction_name``) a consume-queue unit:
    NOT_TYPE and COMMIT only (spec §4.3; ``ConsumeQueue.putMessagePositionInfoWrapper`` via the dispatcher)."""
    return transaction in ("NOT_TYPE", "COMMIT")


def is_compressed(sys_flag: int) -> bool:
    return bool(sys_flag & cl.COMPRESSED_FLAG)


def compression_name(sys_flag: int) -> str | None:
    """The body codec (ZLIB, LZ4, ZSTD; UNKNOWN for another type), None when the body is not compressed."""
    if not is_compressed(sys_flag):
        return None
    return cl.COMPRESSION_NAMES.get(cl.compression_type(sys_flag), "UNKNOWN")


def sys_flag_parts(sys_flag: int) -> dict[str, object]:
    """sysFlag as named parts (the SysFlag schema's reading), keys in :data:`SYS_FLAG_PART_NAMES` order."""
    return dict(_sys_flag_parts(sys_flag))  # a fresh dict: a caller may change its copy


@lru_cache(maxsize=1024)
def _sys_flag_parts(sys_flag: int) -> tuple[tuple[str, object], ...]:
    # a pure reading of a 32-bit int through a construct parse (~0.1 ms): a store holds a handful of distinct
    # sysFlags, and a list page reads 50 of them, so each is parsed once (the parts are immutable values)
    parts = cl.sys_flag_parts(sys_flag)
    return tuple((name, parts[name]) for name in SYS_FLAG_PART_NAMES)


def properties_map(text: str) -> dict[str, str]:
    """``MessageDecoder.string2messageProperties``: pairs with a name and a value, a later name wins in the first
    one's place."""
    return cl.Properties.from_text(text).as_map()


def tags_of(properties: dict[str, str]) -> str | None:
    return properties.get("TAGS") or None


def keys_of(properties: dict[str, str]) -> list[str]:
    """KEYS split on single spaces, empty pieces dropped (``IndexService.buildIndex``)."""
    return [k for k in properties.get("KEYS", "").split(" ") if k]


def unique_key_of(properties: dict[str, str]) -> str | None:
    return properties.get("UNIQ_KEY") or None


def offset_msg_id(ip: str, port: int, physical_offset: int) -> str:
    """The offset msgId: store host + physical offset, upper-case hex (spec §6.1)."""
    return encode_offset_msg_id(ip, port, physical_offset)


def offset_msg_id_prefix(ip: str, port: int) -> str:
    """The host part of every offset msgId of this store host (the 16 offset digits follow)."""
    return encode_offset_msg_id(ip, port, 0)[:-16]


def offset_msg_id_suffix(physical_offset: int) -> str:
    """The offset part of an offset msgId: 16 upper-case hex digits of the offset as an unsigned 64-bit value."""
    return format(physical_offset & 0xFFFFFFFFFFFFFFFF, "016X")
