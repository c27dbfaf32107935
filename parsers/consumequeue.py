"""ConsumeQueue, ConsumeQueueExt and BatchConsumeQueue units (spec §4)."""

from __future__ import annotations

from construct import GreedyBytes, Int16sb, Int32sb, Int64sb, Prefixed, Rebuild, Struct, len_, this

CQ_UNIT_SIZE = 20
CQ_DEFAULT_UNITS_PER_FILE = 300_000
CQ_DEFAULT_FILE_SIZE = CQ_UNIT_SIZE * CQ_DEFAULT_UNITS_PER_FILE  # 6,000,000 bytes
PRE_BLANK_SIZE = 0x7FFFFFFF  # size of the units that pad a queue starting past offset 0

ConsumeQueueUnit = Struct(
    "physical_offset" / Int64sb * "commitlog physical offset of the record",
    "size" / Int32sb * "the record's TOTALSIZE",
    "tags_code" / Int64sb * "TAGS.hashCode() sign-extended, delivery time, or an ext address",
)
"""One 20-byte unit. size 0 marks the unwritten tail; (0, 0x7FFFFFFF, 0) is a pre-blank unit."""

CQ_EXT_MIN_UNIT_SIZE = 20
CQ_EXT_DEFAULT_FILE_SIZE = 48 * 1024 * 1024
CQ_EXT_END_BLANK = -1  # int16 written where the next unit does not fit
CQ_EXT_ADDR_LIMIT = -2_147_483_649  # tagsCode at or below this is an ext address

ConsumeQueueExtUnit = Struct(
    "size" / Rebuild(Int16sb, CQ_EXT_MIN_UNIT_SIZE + len_(this.filter_bitmap)) * "20 + bitmap length",
    "tags_code" / Int64sb * "real tag hash, or delivery time for the schedule topic",
    "store_timestamp" / Int64sb * "message store timestamp, ms",
    "filter_bitmap" / Prefixed(Int16sb, GreedyBytes) * "bitmap length (int16) then the SQL92 filter bitmap",
)
"""One ConsumeQueueExt unit (``ConsumeQueueExt.CqExtUnit``)."""

BCQ_UNIT_SIZE = 46
BCQ_DEFAULT_FILE_SIZE = BCQ_UNIT_SIZE * 300_000  # 13,800,000 bytes

BatchConsumeQueueUnit = Struct(
    "physical_offset" / Int64sb * "commitlog physical offset",
    "size" / Int32sb * "record size",
    "tags_code" / Int64sb,
    "store_timestamp" / Int64sb,
    "msg_base_offset" / Int64sb * "queue offset of the first message in the record",
    "batch_size" / Int16sb * "number of messages in the record (INNER_NUM, else 1)",
    "compacted_offset" / Int32sb * "written as -1",
    "reserved" / Int32sb * "0",
)
"""One 46-byte BatchConsumeQueue unit."""


def is_ext_address(tags_code: int) -> bool:
    """``ConsumeQueueExt.isExtAddr``: ext addresses lie below every int32 hash."""
    return tags_code <= CQ_EXT_ADDR_LIMIT


def ext_address_to_offset(address: int) -> int:
    """Real byte offset in the ext queue of a decorated address (addr + 2^63)."""
    return address + (1 << 63)


def ext_offset_to_address(offset: int) -> int:
    return offset - (1 << 63)


def is_pre_blank(physical_offset: int, size: int, tags_code: int) -> bool:
    return physical_offset == 0 and size == PRE_BLANK_SIZE and tags_code == 0


def cq_file_size(configured: int) -> int:
    """``getMappedFileSizeConsumeQueue`` rounds a configured size up to a multiple of 20."""
    units = -(-configured // CQ_UNIT_SIZE)
    return units * CQ_UNIT_SIZE
