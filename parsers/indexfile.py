"""IndexFile: 40-byte header, slot table, 20-byte items (spec §5)."""

from __future__ import annotations

from construct import Array, Int32sb, Int64sb, Struct, this

INDEX_HEADER_SIZE = 40
INDEX_SLOT_SIZE = 4
INDEX_ITEM_SIZE = 20
DEFAULT_SLOT_COUNT = 5_000_000
DEFAULT_ITEM_COUNT = 20_000_000
DEFAULT_SLOT_TO_ITEM_RATIO = 4  # broker defaults: maxIndexNum = 4 x maxHashSlotNum

IndexHeader = Struct(
    "begin_timestamp" / Int64sb * "store time of the first item (before it: previous file's end, or 0)",
    "end_timestamp" / Int64sb * "store time of the last item",
    "begin_phy_offset" / Int64sb * "commitlog offset of the first item's message",
    "end_phy_offset" / Int64sb * "commitlog offset of the last item's message",
    "hash_slot_count" / Int32sb * "number of slots in use (NOT the slot-table size)",
    "index_count" / Int32sb * "next item number; starts at 1, items written = index_count - 1",
)

IndexSlot = Int32sb
"""A slot: item number of the newest item of that bucket, 0 = empty."""

IndexItem = Struct(
    "key_hash" / Int32sb * "abs(hashCode) of topic#key (0 for Integer.MIN_VALUE)",
    "phy_offset" / Int64sb * "commitlog offset of the message",
    "time_diff" / Int32sb * "(storeTimestamp - header.begin_timestamp) / 1000, seconds",
    "prev_index" / Int32sb * "item number of the previous (older) item of the same slot, 0 = end",
)

IndexFile = Struct(
    "header" / IndexHeader,
    "slots" / Array(this._.slot_count, IndexSlot),
    "items" / Array(this._.item_count, IndexItem),
)
"""A whole index file; parse/build with ``slot_count=`` and ``item_count=`` (geometry is configuration)."""


def index_file_size(slot_count: int, item_count: int) -> int:
    return INDEX_HEADER_SIZE + slot_count * INDEX_SLOT_SIZE + item_count * INDEX_ITEM_SIZE


def slot_position(slot: int) -> int:
    return INDEX_HEADER_SIZE + slot * INDEX_SLOT_SIZE


def item_position(item_number: int, slot_count: int) -> int:
    return INDEX_HEADER_SIZE + slot_count * INDEX_SLOT_SIZE + item_number * INDEX_ITEM_SIZE


def infer_geometry(file_size: int, ratio: int = DEFAULT_SLOT_TO_ITEM_RATIO) -> tuple[int, int] | None:
    """(slots, items) for a file of this size assuming items = ratio x slots, or None if none fits.

    420,000,040 bytes -> (5,000,000, 20,000,000); 5,416 bytes -> (64, 256).
    """
    body = file_size - INDEX_HEADER_SIZE
    per_slot = INDEX_SLOT_SIZE + ratio * INDEX_ITEM_SIZE
    if body <= 0 or body % per_slot:
        return None
    slots = body // per_slot
    return slots, slots * ratio
