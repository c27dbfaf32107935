"""Structured mutations of every file kind the engine reads, each with the invariant it breaks (issue 22, item 4).

test_fuzz_store.py damages bytes blindly (flips, garbage, truncation) and asks only "no crash". Here each
:class:`Mutation` aims at one field of one structure of a copy of ``sample_store/`` (a commitlog record's
TOTALSIZE, magic, sysFlag, lengths, PHYSICALOFFSET, body; a consume-queue unit's offset, size, tagsCode; an
index file's header counters and times, slots and items; the checkpoint; a config file's JSON; the names of
segments, queue folders and index files) and, where the damage breaks an invariant one can state, returns
:class:`Expect`: the (file, offset) a finding from ``verify`` must name. Offsets come from the pristine copy
read through the engine (:class:`Layout`), never typed in.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

from inspector.engine import Message, Store
from inspector.engine.read.layout import regions
from parsers.checkpoint import CHECKPOINT_FILE_SIZE as CHECKPOINT_SIZE
from parsers.indexfile import item_position, slot_position

I32_MIN, I32_MAX, I64_MIN, I64_MAX = -(1 << 31), (1 << 31) - 1, -(1 << 63), (1 << 63) - 1
COMPRESSED, V6_HOSTS, COMPRESSION_TYPE = 0x001, 0x030, 0x700
ZSTD_BITS = COMPRESSED | (2 << 8)


# -- the pristine store, read once ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    file: str
    position: int
    sys_flag: int
    fields: dict[str, tuple[int, int]]  # name -> (position in the segment, length)
    unit: tuple[str, int] | None  # the consume-queue unit pointing at it


@dataclass
class Layout:
    """Where every structure sits in the pristine store (read through the engine)."""

    root: Path
    records: list[Record] = field(default_factory=list)
    units: list[tuple[str, int, int, int, int]] = field(default_factory=list)  # file, position, offset, size, tags
    index_files: list[tuple[str, int, int, int]] = field(default_factory=list)  # rel, slots, items, index_count
    configs: list[str] = field(default_factory=list)
    segments: list[str] = field(default_factory=list)
    queue_dirs: list[str] = field(default_factory=list)  # consumequeue/TOPIC

    def __repr__(self) -> str:
        return f"Layout({self.root})"

    def _repr_pretty_(self, p, cycle: bool) -> None:
        """Hypothesis prints a failing example's arguments with its own pretty-printer, which spells out a
        dataclass field by field (~350 kB for the sample store's layout, and a warning pytest turns into the
        failure that hides the real one): the short form."""
        p.text(repr(self))


def read_layout(root: Path) -> Layout:
    lay = Layout(root)
    with Store(root) as s:
        unit_of = {}
        for topic, qid in s.queue_ids():
            for u in s.queue(topic, qid).units(0):
                unit_of[u.physical_offset] = (u.file, u.position)
                lay.units.append((u.file, u.position, u.physical_offset, u.size, u.tags_code))
        for m in (e for e in s.entries() if isinstance(e, Message)):
            start = m.physical_offset - m.position
            region = next(r for r in regions(s.commitlog, m.physical_offset, m.physical_offset + 1)
                          if r.start == m.physical_offset)
            fields = {f.name: (f.start - start, f.length) for f in region.fields}
            lay.records.append(Record(m.file, m.position, m.sys_flag, fields, unit_of.get(m.physical_offset)))
        for r in s.index_files():
            lay.index_files.append((r.rel, r.slot_count, r.item_count, r.header.index_count))
        lay.segments = [seg.file for seg in s.segments]
        lay.queue_dirs = sorted({f"consumequeue/{t}" for t, _ in s.queue_ids()})
    lay.configs = sorted(p.relative_to(root).as_posix() for p in (root / "config").glob("*.json"))
    return lay


def copy_store(lay: Layout, target: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(lay.root, target, ignore=shutil.ignore_patterns("README.md"))
    return target


# -- what a mutation must make verify say ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Expect:
    """A finding naming ``file`` at an offset in ``offsets`` (any of them), or, when ``alternatives`` are given,
    one naming one of those (file, offset) pairs instead (a broken cross-reference may be reported at either
    end). ``any_offset``: the file alone must be named (config JSON, names, whose "offset" is a position in text
    or 0)."""

    file: str
    offsets: tuple[int, ...] = (0,)
    alternatives: tuple[tuple[str, int], ...] = ()
    any_offset: bool = False

    def met_by(self, findings: list[tuple[str, int]]) -> bool:
        for file, offset in findings:
            if file == self.file and (self.any_offset or offset in self.offsets):
                return True
            if (file, offset) in self.alternatives:
                return True
        return False

    def __str__(self) -> str:
        where = "any offset" if self.any_offset else "/".join(map(str, self.offsets))
        return f"{self.file} @ {where}" + (f" (or {list(self.alternatives)})" if self.alternatives else "")


def _patch(root: Path, rel: str, position: int, data: bytes) -> bool:
    """Write ``data`` at ``position``; False when the bytes were already those (nothing was broken)."""
    path = root / rel
    raw = bytearray(path.read_bytes())
    old = bytes(raw[position : position + len(data)])
    raw[position : position + len(data)] = data
    path.write_bytes(bytes(raw))
    return old != data


def _int(value: int, length: int) -> bytes:
    return (value % (1 << (8 * length))).to_bytes(length, "big")  # two's complement, any width


# -- the mutations ----------------------------------------------------------------------------------------------------

# record fields whose change the walk itself must notice at the record (sizes and magic must agree, the offset
# must be the record's own, the body must match its CRC); QUEUEID/QUEUEOFFSET must agree with the unit
RECORD_FIELDS = ("TOTALSIZE", "MAGICCODE", "BODYCRC", "PHYSICALOFFSET", "SYSFLAG", "BODY length", "TOPIC length",
                 "PROPERTIES length", "QUEUEID", "QUEUEOFFSET", "BODY", "STORETIMESTAMP")
AT_RECORD = {"TOTALSIZE", "MAGICCODE", "BODYCRC", "PHYSICALOFFSET", "BODY length", "TOPIC length",
             "PROPERTIES length", "BODY"}
AT_UNIT = {"QUEUEID", "QUEUEOFFSET"}
CQ_FIELDS = {"offset": (0, 8), "size": (8, 4), "tagsCode": (12, 8)}
INDEX_HEADER = {"beginTimestamp": (0, 8), "endTimestamp": (8, 8), "beginPhyOffset": (16, 8), "endPhyOffset": (24, 8),
                "hashSlotCount": (32, 4), "indexCount": (36, 4)}
INDEX_ITEM = {"keyHash": (0, 4), "phyOffset": (4, 8), "timeDiff": (12, 4), "prevIndex": (16, 4)}
CHECKPOINT_FIELDS = {"physicMsgTimestamp": 0, "logicsMsgTimestamp": 8, "indexMsgTimestamp": 16}
CONFIG_SHAPES = ("huge-number-value", "huge-number-key", "deep-nesting", "top-level")
TOP_LEVELS = ("[]", "null", "1", "true", '"x"', "[{}]")
FOREIGN_NAMES = {
    "commitlog": ("99999999999999999999", str(1 << 63), "abc", "1" * 25, "-1", "00000000000000065536.tmp"),
    "consumequeue": ("abc", "99999999999999999999", "-1", "1" * 25),  # a queue folder name under a topic
    "index": ("notatime", "1" * 25, "99999999999999999999"),
}


@dataclass(frozen=True)
class Mutation:
    """``target`` names the structure (a record field, a cq field, ...), ``pick`` which one (mod their count),
    ``value`` what is written (an integer for fields, a shape or name for config and names)."""

    kind: str  # record | cq | index-header | index-slot | index-item | checkpoint | config | name
    target: str
    pick: int
    value: int | str

    def apply(self, root: Path, lay: Layout) -> Expect | None:
        return getattr(self, "_" + self.kind.replace("-", "_"))(root, lay)

    def _record(self, root: Path, lay: Layout) -> Expect | None:
        rec = lay.records[self.pick % len(lay.records)]
        pos, length = rec.fields[self.target]
        if self.target == "BODY":  # flip one bit of the body: its CRC no longer holds
            at = pos + int(self.value) % length
            raw = (root / rec.file).read_bytes()
            _patch(root, rec.file, at, bytes([raw[at] ^ 1]))
            return Expect(rec.file, (rec.position,))
        value = int(self.value)
        if not _patch(root, rec.file, pos, _int(value, length)):
            return None
        here = Expect(rec.file, (rec.position,))
        if self.target in AT_RECORD:
            return here
        if self.target in AT_UNIT and rec.unit:
            return Expect(rec.file, (rec.position,), (rec.unit,))
        if self.target == "SYSFLAG":
            new = value & 0xFFFFFFFF
            # the hosts' widths change (12 more bytes per v6 host): the lengths no longer add up, unless one host
            # widens as the other narrows (born v6 -> v4 with store v4 -> v6): the record then stays
            # self-consistent with garbled hosts, and what the flag's other bits break (a transaction type) shows
            # at its consume-queue unit, not at the record
            if bin(new & V6_HOSTS).count("1") != bin(rec.sys_flag & V6_HOSTS).count("1"):
                return here
            if new & COMPRESSED and not rec.sys_flag & COMPRESSED:  # a JSON body is no zlib/LZ4/ZSTD stream
                return here
        return None

    def _cq(self, root: Path, lay: Layout) -> Expect | None:
        file, position, *_ = lay.units[self.pick % len(lay.units)]
        at, length = CQ_FIELDS[self.target]
        if not _patch(root, file, position + at, _int(int(self.value), length)):
            return None
        if self.target == "tagsCode":  # a tags hash, or a delivery time: no invariant across every topic
            return None
        return Expect(file, (position,))

    def _index_header(self, root: Path, lay: Layout) -> Expect | None:
        rel, *_ = lay.index_files[self.pick % len(lay.index_files)]
        at, length = INDEX_HEADER[self.target]
        if not _patch(root, rel, at, _int(int(self.value), length)):
            return None
        if self.target in ("hashSlotCount", "indexCount"):  # slots and items then disagree with it somewhere
            return Expect(rel, any_offset=True)
        return Expect(rel, (at,))  # the times and offsets the items themselves carry

    def _index_slot(self, root: Path, lay: Layout) -> Expect | None:
        rel, slots, items, count = lay.index_files[self.pick % len(lay.index_files)]
        slot = (self.pick // len(lay.index_files)) % slots
        value = int(self.value)
        if not _patch(root, rel, slot_position(slot), _int(value, 4)):
            return None
        if value < 0 or value >= min(count, items):  # no item has that number
            return Expect(rel, (slot_position(slot),))
        return None

    def _index_item(self, root: Path, lay: Layout) -> Expect | None:
        rel, slots, items, count = lay.index_files[self.pick % len(lay.index_files)]
        number = 1 + (self.pick // len(lay.index_files)) % (min(count, items) - 1)
        at, length = INDEX_ITEM[self.target]
        item = item_position(number, slots)
        value = int(self.value)
        if not _patch(root, rel, item + at, _int(value, length)):
            return None
        if self.target in ("keyHash", "phyOffset"):  # the item no longer matches the record it points at
            return Expect(rel, (item, item + at))
        if self.target == "prevIndex" and (value < 0 or value >= number):  # links only go to older items
            return Expect(rel, (item, item + at))
        return None

    def _checkpoint(self, root: Path, lay: Layout) -> Expect | None:
        if self.target == "size":  # the file is CHECKPOINT_SIZE bytes (a page); anything else is damage
            size = int(self.value) % (2 * CHECKPOINT_SIZE)
            path = root / "checkpoint"
            raw = path.read_bytes()
            path.write_bytes((raw + bytes(CHECKPOINT_SIZE))[:size])
            return Expect("checkpoint", (0,)) if size != CHECKPOINT_SIZE else None
        at = CHECKPOINT_FIELDS[self.target]
        value = int(self.value)
        if not _patch(root, "checkpoint", at, _int(value, 8)):
            return None
        # a flush time after every stored message (or before the epoch) cannot be
        return Expect("checkpoint", (at,)) if value < 0 or value > 4_000_000_000_000 else None

    def _config(self, root: Path, lay: Layout) -> Expect | None:
        rel = lay.configs[self.pick % len(lay.configs)]
        path = root / rel
        text = path.read_text()
        digits = "1" * (4301 + int(self.value) % 2000)  # Python refuses int() of more than 4300 digits
        if self.target == "huge-number-value":
            text = text.replace('"counter":', f'"counter":{digits},"was":', 1)
        elif self.target == "huge-number-key":
            at = text.rindex("{") + 1  # the table the broker keys by number (offsetTable, ...)
            text = text[:at] + digits + ":1," + text[at:]
        elif self.target == "deep-nesting":
            depth = 1000 + int(self.value) % 200_000
            text = text.replace('"counter":', '"deep":' + "[" * depth + "]" * depth + ',"counter":', 1)
        else:
            text = TOP_LEVELS[int(self.value) % len(TOP_LEVELS)]
        path.write_text(text)
        return Expect(rel, any_offset=True)

    def _name(self, root: Path, lay: Layout) -> Expect | None:
        name = FOREIGN_NAMES[self.target][int(self.value) % len(FOREIGN_NAMES[self.target])]
        if self.target == "commitlog":  # a copy of the last segment under a name the broker never writes
            source = root / lay.segments[-1]
        elif self.target == "index":
            source = root / lay.index_files[self.pick % len(lay.index_files)][0]
        else:
            topic = root / lay.queue_dirs[self.pick % len(lay.queue_dirs)]
            source = next(p for p in topic.iterdir() if p.is_dir())
        target = source.parent / name
        (shutil.copytree if source.is_dir() else shutil.copyfile)(source, target)
        return Expect(target.relative_to(root).as_posix(), any_offset=True)

    def __str__(self) -> str:
        value = self.value if not isinstance(self.value, int) or abs(self.value) < 1 << 64 else f"{self.value:.3e}"
        return f"{self.kind}:{self.target}#{self.pick}={value}"


# -- strategies -------------------------------------------------------------------------------------------------------


def _width_values(bits: int) -> st.SearchStrategy[int]:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    edges = [0, 1, -1, 2, 20, 46, 91, 127, 128, 255, 65_536, 131_072, lo, hi, lo + 1, hi - 1]
    return st.one_of(st.sampled_from([e for e in edges if lo <= e <= hi]), st.integers(lo, hi))


def _fields(kind: str, table: dict[str, tuple[int, int]]) -> st.SearchStrategy[Mutation]:
    return st.one_of(*(st.builds(Mutation, st.just(kind), st.just(name), st.integers(0, 1 << 16),
                                 _width_values(8 * length)) for name, (_, length) in table.items()))


def _record_values(name: str) -> st.SearchStrategy[int]:
    if name == "SYSFLAG":  # compression bits (every type), host widths, and any value at all
        return st.one_of(st.sampled_from([ZSTD_BITS, COMPRESSED, COMPRESSED | (1 << 8), COMPRESSED | (3 << 8),
                                          V6_HOSTS, 0x10, 0x80, 0x40]), _width_values(32))
    if name == "BODY":
        return st.integers(0, 1 << 16)
    bits = {"QUEUEOFFSET": 64, "PHYSICALOFFSET": 64, "STORETIMESTAMP": 64, "TOPIC length": 8,
            "PROPERTIES length": 16}.get(name, 32)
    return _width_values(bits)


def mutations() -> st.SearchStrategy[Mutation]:
    record = st.one_of(*(st.builds(Mutation, st.just("record"), st.just(n), st.integers(0, 1 << 16), _record_values(n))
                         for n in RECORD_FIELDS))
    slot_or_item = st.one_of(
        st.builds(Mutation, st.just("index-slot"), st.just("slot"), st.integers(0, 1 << 16), _width_values(32)),
        _fields("index-item", INDEX_ITEM))
    checkpoint = st.one_of(
        st.builds(Mutation, st.just("checkpoint"), st.just("size"), st.integers(0, 7), st.integers(0, 1 << 14)),
        st.builds(Mutation, st.just("checkpoint"), st.sampled_from(sorted(CHECKPOINT_FIELDS)), st.just(0),
                  _width_values(64)))
    config = st.builds(Mutation, st.just("config"), st.sampled_from(CONFIG_SHAPES), st.integers(0, 15),
                       st.integers(0, 1 << 20))
    name = st.builds(Mutation, st.just("name"), st.sampled_from(sorted(FOREIGN_NAMES)), st.integers(0, 63),
                     st.integers(0, 15))
    return st.one_of(record, _fields("cq", CQ_FIELDS), _fields("index-header", INDEX_HEADER), slot_or_item,
                     checkpoint, config, name)

