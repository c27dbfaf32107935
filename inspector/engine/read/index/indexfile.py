"""Index files: header, slot table and item chains over a read-only mmap (spec §5)."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import (
    ChainStep,
    ChainWalk,
    IndexFileInfo,
    IndexHeaderInfo,
    IndexItem,
    Problem,
)
from inspector.engine.read.commitlog.mapped import MappedFile
from parsers.indexfile import (
    INDEX_HEADER_SIZE,
    INDEX_ITEM_SIZE,
    INDEX_SLOT_SIZE,
    IndexHeader,
    index_file_size,
    infer_geometry,
    item_position,
    slot_position,
)
from parsers.java import index_key_hash, index_slot

_ITEM = struct.Struct(">iqii")
_SLOT = struct.Struct(">i")

KeyCheck = Callable[[int], "bool | None"]


def is_time_matched(header: IndexHeaderInfo, begin: int, end: int) -> bool:
    """``IndexFile.isTimeMatched``: the window encloses the file, or begin or end falls inside it."""
    b, e = header.begin_timestamp, header.end_timestamp
    return (begin < b and end > e) or (b <= begin <= e) or (b <= end <= e)


def header_problems(rel: str, h: IndexHeaderInfo, slots: int, items: int) -> list[Problem]:
    """The header counters against the file's geometry: indexCount in 1..items (0 reads as 1, as the broker
    does), hashSlotCount in 0..slots, and no slot in use without an item. Outside them the chains cannot be
    followed (a lookup would answer "not found" for messages that are there)."""
    found = []
    if not (0 <= h.index_count <= items) and items:
        found.append(Problem(rel, 36, f"indexCount {h.index_count} is outside 0..{items} (the file's item table): "
                             "the items cannot be trusted", "index-header"))
    if not (0 <= h.hash_slot_count <= slots) and slots:
        found.append(Problem(rel, 32, f"hashSlotCount {h.hash_slot_count} is outside 0..{slots} (the file's slot "
                             "table)", "index-header"))
    elif h.hash_slot_count > 0 and h.index_count <= 1 and not found:
        found.append(Problem(rel, 36, f"indexCount {h.index_count} says no item was written, hashSlotCount "
                             f"{h.hash_slot_count} that slots are in use", "index-header"))
    return found


class IndexFileReader:
    """One index file. Geometry (slots, items) is configuration: given, or inferred from the size (1:4)."""

    def __init__(self, root: Path, rel: str, slots: int | None = None, items: int | None = None):
        self.rel = rel
        self.name = Path(rel).name
        self.mf = MappedFile(root / rel, rel)
        self.problems: list[Problem] = []
        size = self.mf.size
        if slots and items:
            geometry = (slots, items)
        elif slots:
            geometry = (slots, max(0, (size - INDEX_HEADER_SIZE - slots * INDEX_SLOT_SIZE) // INDEX_ITEM_SIZE))
        elif items:
            geometry = (max(0, (size - INDEX_HEADER_SIZE - items * INDEX_ITEM_SIZE) // INDEX_SLOT_SIZE), items)
        else:
            geometry = infer_geometry(size)
            if geometry is None:
                self.problems.append(
                    Problem(rel, 0, f"size {size} fits no 1:4 slot/item geometry; give --index-slots/--index-items",
                            "index-geometry")
                )
                geometry = (0, 0)
        self.slot_count, self.item_count = geometry
        expected = index_file_size(self.slot_count, self.item_count)
        if self.slot_count and size != expected:
            self.problems.append(
                Problem(rel, min(size, expected), f"file is {size} bytes, {self.slot_count} slots and "
                        f"{self.item_count} items need {expected}", "index-size")
            )
        if size < INDEX_HEADER_SIZE:
            raise StoreError(f"file is {size} bytes, shorter than the 40-byte header", rel, 0)
        h = IndexHeader.parse(self.mf.read(0, INDEX_HEADER_SIZE))
        self.header = IndexHeaderInfo(
            h.begin_timestamp, h.end_timestamp, h.begin_phy_offset, h.end_phy_offset, h.hash_slot_count, h.index_count
        )
        self.header_problems = header_problems(rel, self.header, self.slot_count, self.item_count)
        self.problems.extend(self.header_problems)

    @property
    def trusted(self) -> bool:
        """Whether the header's counters fit the file: a lookup can then follow its chains (else it must scan)."""
        return not self.header_problems

    def info(self) -> IndexFileInfo:
        return IndexFileInfo(self.name, self.rel, self.mf.size, self.slot_count, self.item_count, self.header)

    def close(self) -> None:
        self.mf.close()

    @property
    def effective_index_count(self) -> int:
        """indexCount as the broker uses it: a value <= 0 is treated as 1."""
        return self.header.index_count if self.header.index_count > 0 else 1

    @property
    def written_items(self) -> int:
        """How many items :meth:`items` returns: 1 .. indexCount-1, bounded by the item table and the file."""
        last = min(self.effective_index_count, self.item_count) - 1
        base = INDEX_HEADER_SIZE + self.slot_count * INDEX_SLOT_SIZE
        readable = (self.mf.size - base) // INDEX_ITEM_SIZE - 1 if self.mf.size >= base else -1
        return max(0, min(last, readable))

    def slot_value(self, slot: int) -> int | None:
        """The raw slot value, or None when the slot lies outside the (possibly truncated) file."""
        pos = slot_position(slot)
        if slot < 0 or slot >= self.slot_count or pos + INDEX_SLOT_SIZE > self.mf.size:
            return None
        return _SLOT.unpack_from(self.mf.buf, pos)[0]

    def item(self, number: int) -> IndexItem | None:
        """Item ``number`` (1-based; 0 is never used), or None when outside the table or the file."""
        if number < 0 or number >= self.item_count:
            return None
        pos = item_position(number, self.slot_count)
        if pos + INDEX_ITEM_SIZE > self.mf.size:
            return None
        key_hash, phy, diff, prev = _ITEM.unpack_from(self.mf.buf, pos)
        return IndexItem(number, key_hash, phy, diff, prev)

    def walk(self, key: str, begin: int = 0, end: int = (1 << 63) - 1, key_check: KeyCheck | None = None,
             limit: int | None = None) -> ChainWalk:
        """Follow the chain of ``key``'s slot as ``IndexFile.selectPhyOffset`` does, recording every item visited.

        Unlike the broker we do not stop at 64 results, and a visited-set guards against looping links.
        """
        key_hash = index_key_hash(key)
        slot = index_slot(key_hash, self.slot_count) if self.slot_count else 0
        value = self.slot_value(slot)
        count = self.effective_index_count
        base = dict(file=self.rel, key=key, key_hash=key_hash, slot=slot, slot_position=slot_position(slot))
        if value is None:
            return ChainWalk(**base, slot_value=0, steps=(), stop_reason="slot lies outside the file (truncated?)")
        if value <= 0 or value > count or count <= 1:
            reason = "slot is empty" if value == 0 else f"slot value {value} is out of range (indexCount {count})"
            return ChainWalk(**base, slot_value=value, steps=(), stop_reason=reason)
        steps: list[ChainStep] = []
        seen: set[int] = set()
        number = value
        stop = "end of chain"
        while True:
            if number in seen:
                stop = f"loop: item {number} was already visited"
                break
            if limit is not None and len(steps) >= limit:
                stop = f"stopped after {limit} items (limit)"
                break
            seen.add(number)
            item = self.item(number)
            if item is None:
                stop = f"item {number} lies outside the file"
                break
            if item.time_diff < 0:
                stop = f"item {number} has a negative time difference"
                break
            time_ms = item.time_ms(self.header.begin_timestamp)
            in_range = begin <= time_ms <= end
            hash_ok = item.key_hash == key_hash
            key_ok = key_check(item.phy_offset) if (hash_ok and key_check is not None) else (False if not hash_ok else None)
            steps.append(ChainStep(item, time_ms, hash_ok, key_ok, in_range))
            prev = item.prev_index
            if prev <= 0:
                break
            if prev > count:
                stop = f"link {prev} is past indexCount {count}"
                break
            if prev == number:
                stop = f"item {number} links to itself"
                break
            if time_ms < begin:
                stop = "older items are before the time window"
                break
            number = prev
        return ChainWalk(**base, slot_value=value, steps=tuple(steps), stop_reason=stop)

    def items(self) -> list[IndexItem]:
        """Every written item, 1 .. indexCount-1 (bounded by the file)."""
        result = []
        for n in range(1, min(self.effective_index_count, self.item_count)):
            item = self.item(n)
            if item is None:
                break
            result.append(item)
        return result
