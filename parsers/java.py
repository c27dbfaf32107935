"""Java-compatible primitives RocketMQ's store relies on (spec §0, §2.5, §2.7, §5.4, §11)."""

from __future__ import annotations

import zlib

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1


def to_int32(value: int) -> int:
    """Wrap an integer to a signed 32-bit Java int."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def java_string_hash(text: str) -> int:
    """Java ``String.hashCode()``: runs over UTF-16 code units, not UTF-8 bytes."""
    h = 0
    data = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return to_int32(h)


def key_hash_of(hash_code: int) -> int:
    """``IndexFile.indexKeyHashMethod`` after ``key.hashCode()``: ``Math.abs``, then 0 when that is still negative
    (``Math.abs(Integer.MIN_VALUE)`` is MIN_VALUE: it has no positive int32)."""
    return 0 if to_int32(hash_code) == INT32_MIN else abs(to_int32(hash_code))


def index_key_hash(key: str) -> int:
    """``IndexFile.indexKeyHashMethod``: abs(hashCode), 0 when hashCode is Integer.MIN_VALUE."""
    return key_hash_of(java_string_hash(key))


def index_key(topic: str, key: str) -> str:
    """``IndexService.buildKey``: the topic as stored in the record, '#', the key."""
    return f"{topic}#{key}"


def index_slot(key_hash: int, slot_count: int) -> int:
    """Slot of a (non-negative) key hash in a table of ``slot_count`` slots."""
    return key_hash % slot_count


def tags_code(tags: str | None) -> int:
    """CQ tagsCode of an ordinary message: TAGS.hashCode() sign-extended to int64, 0 without tags."""
    if not tags:
        return 0
    return java_string_hash(tags)


def rocketmq_crc32(data: bytes | bytearray | memoryview) -> int:
    """``UtilAll.crc32``: standard CRC-32 masked with 0x7FFFFFFF (an empty body gives 0)."""
    if len(data) == 0:
        return 0
    return zlib.crc32(data) & 0x7FFFFFFF


CRC_PROPERTY_NAME = "__CRC32#"
CRC_PROPERTY_TAIL_LENGTH = len(CRC_PROPERTY_NAME) + 1 + 10 + 1  # 20 bytes (spec §2.7)


def crc_property_digits(value: int) -> str:
    """The ``__CRC32#`` value: decimal digits least significant first, right-padded with '0'."""
    return str(value)[::-1].ljust(10, "0")


def parse_crc_property_digits(digits: str) -> int:
    """Inverse of :func:`crc_property_digits` (readers reverse the digits)."""
    if len(digits) != 10 or not (digits.isascii() and digits.isdigit()):  # isdigit() alone takes "²", "١"
        raise ValueError(f"not a __CRC32# value: {digits!r}")
    return int(digits[::-1])
