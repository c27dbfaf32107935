"""Slot-level views of an index file: any slot's chain, occupancy, the busiest slots (spec §5.3)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from inspector.engine.model.records import IndexItem
from inspector.engine.read.index.indexfile import IndexFileReader
from parsers.indexfile import INDEX_HEADER_SIZE, INDEX_ITEM_SIZE, INDEX_SLOT_SIZE

_ITEM_DTYPE = np.dtype([("key_hash", ">i4"), ("phy_offset", ">i8"), ("time_diff", ">i4"), ("prev_index", ">i4")])


@dataclass(frozen=True)
class SlotChain:
    file: str
    slot: int
    slot_position: int
    slot_value: int
    items: tuple[IndexItem, ...]
    stop_reason: str


def walk_slot(reader: IndexFileReader, slot: int, limit: int = 100_000) -> SlotChain:
    """Every item chained from ``slot``, newest first, whatever its key (bounded, loop-safe)."""
    value = reader.slot_value(slot)
    pos = INDEX_HEADER_SIZE + slot * INDEX_SLOT_SIZE
    if value is None:
        return SlotChain(reader.rel, slot, pos, 0, (), f"slot {slot} is outside the slot table or the file")
    count = reader.effective_index_count
    if value <= 0 or value >= count:
        return SlotChain(reader.rel, slot, pos, value, (), "slot is empty" if value == 0 else
                         f"slot value {value} is out of range (indexCount {count})")
    items: list[IndexItem] = []
    seen: set[int] = set()
    number, stop = value, "end of chain"
    while number > 0:
        if number in seen:
            stop = f"loop: item {number} was already visited"
            break
        if len(items) >= limit:
            stop = f"stopped after {limit} items"
            break
        seen.add(number)
        item = reader.item(number)
        if item is None or number >= count:
            stop = f"item {number} lies outside the file"
            break
        items.append(item)
        number = item.prev_index
    return SlotChain(reader.rel, slot, pos, value, tuple(items), stop)


def items_array(reader: IndexFileReader) -> np.ndarray:
    """The written items 1 .. indexCount-1 (bounded by the file) as one structured array over the mapping."""
    n = max(0, min(reader.effective_index_count, reader.item_count) - 1)
    start = INDEX_HEADER_SIZE + reader.slot_count * INDEX_SLOT_SIZE + INDEX_ITEM_SIZE  # item 1
    available = max(0, (reader.mf.size - start) // INDEX_ITEM_SIZE)
    n = min(n, available)
    if n == 0:
        return np.zeros(0, dtype=_ITEM_DTYPE)
    return np.frombuffer(reader.mf.buf, dtype=_ITEM_DTYPE, count=n, offset=start)


def items_per_slot(reader: IndexFileReader) -> np.ndarray:
    """Number of written items whose hash falls in each slot (the chain lengths of a sound file)."""
    if reader.slot_count == 0:
        return np.zeros(0, dtype=np.int64)
    hashes = items_array(reader)["key_hash"].astype(np.int64)
    hashes = hashes[hashes >= 0]
    return np.bincount(hashes % reader.slot_count, minlength=reader.slot_count)


def busiest_slots(reader: IndexFileReader, n: int = 20) -> list[tuple[int, int]]:
    """(slot, items) of the n slots holding the most items, most first."""
    counts = items_per_slot(reader)
    if counts.size == 0:
        return []
    order = np.argsort(-counts, kind="stable")[:n]
    return [(int(s), int(counts[s])) for s in order if counts[s] > 0]


def slot_occupancy(reader: IndexFileReader, bins: int = 200) -> list[float]:
    """Share of non-empty slots in each of ``bins`` equal runs of the slot table (for a heat strip)."""
    if reader.slot_count == 0:
        return []
    available = max(0, (reader.mf.size - INDEX_HEADER_SIZE) // INDEX_SLOT_SIZE)
    n = min(reader.slot_count, available)
    table = np.frombuffer(reader.mf.buf, dtype=">i4", count=n, offset=INDEX_HEADER_SIZE) if n else np.zeros(0)
    used = np.zeros(reader.slot_count, dtype=bool)
    used[:n] = table != 0
    bins = max(1, min(bins, reader.slot_count))
    edges = np.linspace(0, reader.slot_count, bins + 1).astype(np.int64)
    return [float(used[a:b].mean()) if b > a else 0.0 for a, b in zip(edges[:-1], edges[1:], strict=True)]
