"""A hex window over a consume-queue, batch consume-queue or index file, its units named field by field (spec §4,
§5): what the TUI's hex screen shows for a file that is not the commitlog.

Positions are byte positions in the file; a region is one unit, the index header, one slot or one item, with
:class:`FieldSpan` fields as a commitlog record's (number, name, start, length, value). A file whose size does
not fit its layout (a torn last unit, a short index file) is shown as far as it goes, ``problem`` saying why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from inspector.engine.model.errors import BadInput, NotFound, StoreError
from inspector.engine.model.files import open_regular
from inspector.engine.model.records import fmt_time
from inspector.engine.present.layout import FieldSpan, Region
from parsers.consumequeue import (
    BCQ_UNIT_SIZE,
    CQ_UNIT_SIZE,
    PRE_BLANK_SIZE,
    BatchConsumeQueueUnit,
    ConsumeQueueUnit,
)
from parsers.indexfile import (
    DEFAULT_ITEM_COUNT,
    DEFAULT_SLOT_COUNT,
    INDEX_HEADER_SIZE,
    INDEX_ITEM_SIZE,
    INDEX_SLOT_SIZE,
    IndexHeader,
    IndexItem,
    IndexSlot,
    index_file_size,
)

FILE_KINDS = {"consumequeue": "consume queue", "batchconsumequeue": "batch consume queue", "index": "index file"}
# (field name, bytes, how its value reads, the parser's name for it) per unit kind, in file order
CQ_FIELDS = (("CQ offset (commitlog)", 8, "offset", "physical_offset"), ("size", 4, "int", "size"),
             ("tags code", 8, "int", "tags_code"))
BCQ_FIELDS = (*CQ_FIELDS, ("store timestamp", 8, "time", "store_timestamp"),
              ("msg base offset", 8, "int", "msg_base_offset"), ("batch size", 2, "int", "batch_size"),
              ("compacted offset", 4, "int", "compacted_offset"), ("reserved", 4, "int", "reserved"))
HEADER_FIELDS = (("beginTimestamp", 8, "time", "begin_timestamp"), ("endTimestamp", 8, "time", "end_timestamp"),
                 ("beginPhyOffset", 8, "offset", "begin_phy_offset"), ("endPhyOffset", 8, "offset", "end_phy_offset"),
                 ("hashSlotCount", 4, "int", "hash_slot_count"), ("indexCount", 4, "int", "index_count"))
ITEM_FIELDS = (("keyHash", 4, "int", "key_hash"), ("phyOffset", 8, "offset", "phy_offset"),
               ("timeDiff (s)", 4, "int", "time_diff"), ("prevIndex", 4, "int", "prev_index"))


@dataclass(frozen=True)
class FileHex:
    """Bytes ``[start, start + len(data))`` of ``file`` (relative to the store root) and the regions over them."""

    file: str
    kind: str  # consumequeue, batchconsumequeue, index
    size: int  # the file's size in bytes
    start: int
    data: bytes
    regions: tuple[Region, ...]
    problem: str | None = None  # the file does not fit its layout (said on every window of it)
    layout: str = ""  # e.g. "20-byte units, queue offsets 0…39" or "header 40 + 64 slots x 4 + 256 items x 20"

    def region_at(self, pos: int) -> Region | None:
        return next((r for r in self.regions if r.start <= pos < r.end), None)


def file_kind(rel: str) -> str:
    """consumequeue, batchconsumequeue or index, from where the file lies under the store root (BadInput for a
    file of another kind: the commitlog has its own hex view)."""
    top = Path(rel).parts[0] if Path(rel).parts else ""
    if top not in FILE_KINDS:
        raise BadInput(f"{rel}: not a consume-queue, batch consume-queue or index file (their hex view reads files "
                       "under consumequeue/, batchconsumequeue/ or index/; the commitlog is the hex screen's own)")
    return top


def store_file(store, path: str | Path) -> str:
    """``path`` (absolute, or relative to the store root) as the store's relative name; NotFound when it is no
    file under the root."""
    root = Path(store.root).resolve()
    given = Path(path)
    full = (given if given.is_absolute() else root / given).resolve()
    try:
        rel = full.relative_to(root).as_posix()
    except ValueError:
        raise BadInput(f"{path}: not inside the store ({root})") from None
    if not full.is_file():
        raise NotFound(f"{rel}: no such file in the store")
    file_kind(rel)
    return rel


def file_hex(store, rel: str, start: int, length: int) -> FileHex:
    """Up to ``length`` bytes of ``rel`` from ``start`` and the units, header, slots and items over them."""
    kind = file_kind(rel)
    path = Path(store.root) / rel
    try:  # the guarded open: a FIFO or device put there since store_file looked is refused, never waited on
        with open_regular(path) as f:  # a window, never the whole file (an index file is 400 MB)
            size = os.fstat(f.fileno()).st_size
            start = max(0, min(start, size))
            f.seek(start)
            data = f.read(max(0, min(length, size - start)))
    except OSError as e:
        raise StoreError(f"cannot read: {e.strerror or e}", rel) from e
    end = start + len(data)
    if kind == "index":
        return _index_hex(store, rel, size, start, data, end)
    unit = CQ_UNIT_SIZE if kind == "consumequeue" else BCQ_UNIT_SIZE
    fields = CQ_FIELDS if kind == "consumequeue" else BCQ_FIELDS
    schema = ConsumeQueueUnit if kind == "consumequeue" else BatchConsumeQueueUnit
    base = _first_queue_offset(path.name, unit)
    regions = []
    for pos in range(start - start % unit, end, unit):
        raw = _read(path, pos, unit, data, start)
        if len(raw) < unit:
            regions.append(Region("damaged", pos, pos + len(raw), (), f"torn unit: {len(raw)} of {unit} bytes"))
            break
        qoff = None if base is None else base + pos // unit
        label = f"unit {pos // unit:,}" + ("" if qoff is None else f", queue offset {qoff:,}")
        parsed = schema.parse(raw)
        if not any(raw):
            regions.append(Region("zero", pos, pos + unit, _fields(pos, fields, parsed), label + " (not written)"))
            continue
        if kind == "consumequeue" and parsed.size == PRE_BLANK_SIZE and parsed.physical_offset == 0:
            label += " (pre-blank: the queue starts later)"
        regions.append(Region("unit", pos, pos + unit, _fields(pos, fields, parsed), label))
    torn = size % unit
    problem = (f"file size {size:,} is not a multiple of the {unit}-byte unit: the last {torn} bytes are a torn "
               f"unit" if torn else None)
    first = "" if base is None else f", queue offsets from {base:,}"
    return FileHex(rel, kind, size, start, data, tuple(regions), problem,
                   f"{unit}-byte units, {size // unit:,} in the file{first}")


def _index_hex(store, rel: str, size: int, start: int, data: bytes, end: int) -> FileHex:
    slots, items, problem = _index_geometry(store, rel, size)
    path = Path(store.root) / rel
    items_at = INDEX_HEADER_SIZE + slots * INDEX_SLOT_SIZE
    regions: list[Region] = []
    pos = start
    if pos < INDEX_HEADER_SIZE:
        raw = _read(path, 0, INDEX_HEADER_SIZE, data, start)
        if len(raw) < INDEX_HEADER_SIZE:
            regions.append(Region("damaged", 0, len(raw), (), f"header cut short: {len(raw)} of 40 bytes"))
        else:
            regions.append(Region("header", 0, INDEX_HEADER_SIZE, _fields(0, HEADER_FIELDS, IndexHeader.parse(raw)),
                                  "index header"))
        pos = INDEX_HEADER_SIZE
    if pos < items_at:
        for p in range(pos - (pos - INDEX_HEADER_SIZE) % INDEX_SLOT_SIZE, min(end, items_at), INDEX_SLOT_SIZE):
            raw = _read(path, p, INDEX_SLOT_SIZE, data, start)
            slot = (p - INDEX_HEADER_SIZE) // INDEX_SLOT_SIZE
            if len(raw) < INDEX_SLOT_SIZE:
                regions.append(Region("damaged", p, p + len(raw), (), f"slot {slot:,} cut short"))
                break
            value = IndexSlot.parse(raw)
            fields = (FieldSpan("1", "item number (newest of the slot)", p, 4, f"{value:,}" + (" (empty)" if not value
                                                                                              else "")),)
            regions.append(Region("slot" if value else "zero", p, p + INDEX_SLOT_SIZE, fields, f"slot {slot:,}"))
        pos = items_at
    if pos < end:
        for p in range(pos - (pos - items_at) % INDEX_ITEM_SIZE, end, INDEX_ITEM_SIZE):
            raw = _read(path, p, INDEX_ITEM_SIZE, data, start)
            number = (p - items_at) // INDEX_ITEM_SIZE
            if len(raw) < INDEX_ITEM_SIZE:
                regions.append(Region("damaged", p, p + len(raw), (), f"item {number:,} cut short"))
                break
            label = f"item {number:,}" + (" (item 0 is never written)" if number == 0 else "")
            regions.append(Region("item" if any(raw) else "zero", p, p + INDEX_ITEM_SIZE,
                                  _fields(p, ITEM_FIELDS, IndexItem.parse(raw)), label))
    layout = f"header 40 + {slots:,} slots x 4 + {items:,} items x 20 = {index_file_size(slots, items):,} bytes"
    return FileHex(rel, "index", size, start, data, tuple(regions), problem, layout)


def _index_geometry(store, rel: str, size: int) -> tuple[int, int, str | None]:
    """Slots and items of the index file ``rel`` as the store's reader takes them, and what does not fit."""
    for reader in store.index_files():
        if reader.rel == rel:
            problems = [p.reason for p in reader.problems]
            if reader.slot_count:
                return reader.slot_count, reader.item_count, "; ".join(problems) or None
            break
    slots = store.index_slots or DEFAULT_SLOT_COUNT
    items = store.index_items or DEFAULT_ITEM_COUNT
    need = index_file_size(slots, items)
    note = None if size == need else f"file is {size:,} bytes, {slots:,} slots and {items:,} items need {need:,}"
    return slots, items, note


def _first_queue_offset(name: str, unit: int) -> int | None:
    """The queue offset of a consume-queue file's first unit (its name is its first byte's position in the
    queue), None for a name that is no number."""
    return int(name) // unit if name.isdigit() else None


def _read(path: Path, pos: int, length: int, data: bytes, start: int) -> bytes:
    """``length`` bytes at ``pos``: from the window when it holds them, else from the file (a unit across the
    window's edge)."""
    if start <= pos and pos + length <= start + len(data):
        return data[pos - start : pos - start + length]
    with open(path, "rb") as f:
        f.seek(pos)
        return f.read(length)


def _fields(pos: int, layout: tuple[tuple[str, int, str, str], ...], parsed) -> tuple[FieldSpan, ...]:
    """The fields of a unit the parser read (``parsed``), at their byte positions from ``pos``."""
    spans = []
    at = pos
    for number, (name, width, how, attr) in enumerate(layout, 1):
        value = getattr(parsed, attr)
        text = f"{fmt_time(value)} ({value})" if how == "time" and value > 0 else f"{value:,}"
        spans.append(FieldSpan(str(number), name, at, width, text))
        at += width
    return tuple(spans)
