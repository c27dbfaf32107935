"""Structured mutations of every file kind the engine reads, each with the invariant it breaks (issue 22, item 4).

test_fuzz_store.py damages bytes blindly (flips, garbage, truncation) and asks only "no crash". Here each
:class:`Mutation` aims at one field of one structure of a copy of ``sample_store/`` (a commitlog record's
TOTALSIZE, magic, sysFlag, lengths, PHYSICALOFFSET, body; a consume-queue unit's offset, size, tagsCode; an
index file's header counters and times, slots and items; the checkpoint; a config file's JSON; the names of
segments, queue folders and index files) and, where the damage breaks an invariant one can state, returns
:class:`Expect`: the (file, offset) a finding from ``verify`` must name. Offsets come from the pristine copy
read through the engine (:class:`Layout`), never typed in. ``Mutation.store`` names the pristine store
(:func:`build_store`): the sample, the DLedger sample, a writer-made timer store or an LMQ store, whose own
structures (:func:`new_store_mutations`) sit in the same Layout.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from fuzz_support import sync_copy
from hypothesis import strategies as st

from inspector.engine import Message, Store
from inspector.engine.model.multidispatch import INNER_MULTI_DISPATCH, INNER_MULTI_QUEUE_OFFSET
from inspector.engine.present.layout import regions
from inspector.engine.read.commitlog.mapped import data_extents
from inspector.engine.read.dledger.dledger import DLedgerMember, homes
from inspector.engine.read.timer.timerstore import CHECK_FILE, TimerLog, read_wheel
from parsers.checkpoint import CHECKPOINT_FILE_SIZE as CHECKPOINT_SIZE
from parsers.dledger import INDEX_UNIT_SIZE
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
    ids: tuple[str, ...] = ()  # its offset msgId and UNIQ_KEY as the pristine store reads them (story's, trace's REF)


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
    # the structures of the stores issue 18/19 taught the engine (empty for a store without them)
    entries: list[tuple[str, int]] = field(default_factory=list)  # DLedger entry headers: data file, position
    end_markers: list[tuple[str, int]] = field(default_factory=list)  # DLedger end-of-file markers
    dledger_units: list[tuple[str, int]] = field(default_factory=list)  # DLedger index units: file, position
    dledger_texts: list[str] = field(default_factory=list)  # dledger-<id>/checkpoint, currterm
    timer_units: list[tuple[str, int]] = field(default_factory=list)  # timerlog units: file, position
    timer_blanks: list[tuple[str, int]] = field(default_factory=list)  # the 16-byte blank closing a full file
    wheel_slots: list[int] = field(default_factory=list)  # used timerwheel slot numbers
    timercheck: bool = False
    timer_end: int = 0  # where the broker's recovery of the timer log stops
    timer_flush_limit: int = 0  # the furthest flush position a broker leaves: the end of the last file
    lmq_props: list[tuple[str, int, int, tuple]] = field(default_factory=list)  # file, value start, length (of
    # an INNER_MULTI_* property value in a record), (file, position) of the record and of its units
    lmq_units: list[tuple[str, int]] = field(default_factory=list)  # the units of %LMQ% queues
    batch_units: list[tuple[str, int]] = field(default_factory=list)  # batchconsumequeue/ units: file, position

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
            lay.records.append(Record(m.file, m.position, m.sys_flag, fields, unit_of.get(m.physical_offset),
                                      tuple(i for i in (m.msg_id, m.unique_key) if i)))
        for r in s.index_files():
            lay.index_files.append((r.rel, r.slot_count, r.item_count, r.header.index_count))
        lay.segments = [seg.file for seg in s.segments]
        lay.queue_dirs = sorted({f"consumequeue/{t}" for t, _ in s.queue_ids()})
    lay.configs = sorted(p.relative_to(root).as_posix() for p in (root / "config").glob("*.json"))
    if (root / "config" / "timermetrics").is_file():  # fastjson without a suffix, read as a config file
        lay.configs.append("config/timermetrics")
    lay.lmq_units = [(f, p) for f, p, *_ in lay.units if f.startswith("consumequeue/%LMQ%")]
    lay.lmq_props = [value for r in lay.records for value in _lmq_values(root, r, lay.units)]
    _read_dledger(root, lay)
    _read_timer(root, lay)
    _read_batch_units(root, lay)
    return lay


def _read_batch_units(root: Path, lay: Layout) -> None:
    """Every written 46-byte unit of ``batchconsumequeue/`` (read from the files: a unit the writer wrote is never
    all zeros, a preallocated tail always is)."""
    for path in sorted((root / "batchconsumequeue").glob("*/*/*")):
        raw = path.read_bytes()
        rel = path.relative_to(root).as_posix()
        lay.batch_units += [(rel, k) for k in range(0, len(raw) - BATCH_UNIT_SIZE + 1, BATCH_UNIT_SIZE)
                            if any(raw[k : k + BATCH_UNIT_SIZE])]


def _lmq_values(root: Path, rec: Record, units: list) -> list[tuple[str, int, int, tuple[tuple[str, int], ...]]]:
    """Where the values of a record's INNER_MULTI_DISPATCH and INNER_MULTI_QUEUE_OFFSET properties sit, with the
    record and every unit pointing at it (a broken property may be reported at either end)."""
    start, length = rec.fields["PROPERTIES"]  # a field's place in its segment
    offset = int(rec.file.rsplit("/", 1)[1]) + rec.position
    ends = ((rec.file, rec.position), *((f, p) for f, p, o, *_ in units if o == offset))
    raw = (root / rec.file).read_bytes()[start : start + length]
    found, at = [], 0
    for pair in raw.split(b"\x02"):
        name, _, value = pair.partition(b"\x01")
        if name.decode("latin-1") in (INNER_MULTI_DISPATCH, INNER_MULTI_QUEUE_OFFSET) and value:
            found.append((rec.file, start + at + len(name) + 1, len(value), ends))
        at += len(pair) + 1
    return found


def _read_dledger(root: Path, lay: Layout) -> None:
    for home in homes(root)[:1]:
        member = DLedgerMember(root, home)
        runs, _ = member.index_runs()
        for run in runs:
            lay.dledger_units += [(run.file, k * INDEX_UNIT_SIZE) for k in range(len(run.units))]
            for pos in run.units["pos"].tolist():
                seg = next(s for s in lay.segments if s.startswith(f"{home.name}/data/")
                           and int(s.rsplit("/", 1)[1]) <= pos < int(s.rsplit("/", 1)[1]) + (root / s).stat().st_size)
                lay.entries.append((seg, pos - int(seg.rsplit("/", 1)[1])))
        last = {}
        for seg, position in lay.entries:  # the marker follows a file's last entry, when the file is not the last
            last[seg] = position + int.from_bytes((root / seg).read_bytes()[position + 4 : position + 8], "big")
        lay.end_markers = [(seg, end) for seg, end in sorted(last.items())[:-1]]
        lay.dledger_texts = [f"{home.name}/{n}" for n in ("checkpoint", "currterm") if (home / n).is_file()]


def _read_timer(root: Path, lay: Layout) -> None:
    log = TimerLog(root)
    if not log.present:
        return
    units = log.units()
    lay.timer_end = units.end
    size = log.file_size
    lay.timer_flush_limit = units.end - units.end % size + size if units.end % size else units.end
    files = sorted(p.name for p in (root / "timerlog").iterdir())
    for offset in units.offset.tolist():
        name = max(n for n in files if int(n) <= offset)
        lay.timer_units.append((f"timerlog/{name}", offset - int(name)))
    for name in files[:-1]:  # a file the broker rolled over ends with a blank after its last unit
        last = max((p for f, p in lay.timer_units if f == f"timerlog/{name}"), default=None)
        if last is not None:
            lay.timer_blanks.append((f"timerlog/{name}", last + 52))
    wheel = read_wheel(root)
    lay.wheel_slots = wheel.index.tolist() if wheel is not None else []
    lay.timercheck = (root / CHECK_FILE).is_file()


def copy_store(lay: Layout, target: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(lay.root, target, ignore=shutil.ignore_patterns("README.md"), copy_function=_sparse_copy)
    return target


def reuse_copy(source: Path, target: Path) -> Path:
    """copy_store's copy of ``source`` at ``target``, redoing only what differs from the copy an earlier example
    left there (fuzz_support.sync_copy): the fuzzers' scratch store."""
    return sync_copy(source, target, _sparse_copy)


def _sparse_copy(source: str, target: str) -> None:
    """copy2, keeping the holes of a large sparse file (a 37 MB timerwheel holding a few slots) as holes: every
    example copies the store, and the fingerprint reads every allocated byte."""
    size = os.path.getsize(source)
    extents = data_extents(Path(source)) if size >= 1 << 20 else None
    if extents is None:
        shutil.copy2(source, target)
        return
    with open(source, "rb") as f, open(target, "wb") as g:
        for start, end in extents:
            f.seek(start)
            g.seek(start)
            g.write(f.read(end - start))
        g.truncate(size)
    shutil.copystat(source, target)


# -- the pristine stores ------------------------------------------------------------------------------------------

SAMPLE_STORES = Path(__file__).resolve().parents[2]
T0 = 1_700_000_000_500
LMQ = "%LMQ%x"
BATCH_TOPIC = "Bat"


def build_store(name: str, target: Path) -> Path:
    """The pristine store ``name`` at ``target``: sample and dledger are the repository's samples; timer (a timer
    log of two files, the first closed by its blank, pending and due timers), lmq (records multi-dispatched to
    two LMQ queues, lmqConsumerOffset.json) and batch (a 5.x BatchCQ topic with an inner batch, its units in
    batchconsumequeue/) are written by our writer with small files."""
    if name in ("sample", "dledger"):
        source = SAMPLE_STORES / ("sample_store" if name == "sample" else "sample_store_dledger")
        return copy_store(Layout(source), target)
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter
    from inspector.engine.model.geometry import Geometry

    small = Geometry(segment_size=64 << 10, cq_file_size=20 * 64, index_slots=64, index_items=256)
    if name == "batch":
        with StoreWriter(target, small, clock=lambda: T0, topic_attributes={BATCH_TOPIC: {"queue.type": "BatchCQ"}}
                         ) as w:
            w.append(MessageSpec(BATCH_TOPIC, b"one", keys=["b1"], store_timestamp=T0))
            w.append(MessageSpec(BATCH_TOPIC, b"", store_timestamp=T0 + 1,
                                 batch=[MessageSpec(BATCH_TOPIC, b"in%d" % i) for i in range(3)]))
            w.append(MessageSpec(BATCH_TOPIC, b"two", queue_id=1, store_timestamp=T0 + 2))
            w.append(MessageSpec("Plain", b"plain", store_timestamp=T0 + 3))
        return target
    if name == "timer":
        with StoreWriter(target, small, timer_file_size=52 * 3 + 16) as w:
            for i, delay in enumerate((3000, 60_000, 5000, 120_000, 7000)):
                w.append(MessageSpec("Orders", b"t%d" % i, keys=[f"k{i}"], deliver_ms=T0 + delay,
                                     store_timestamp=T0 + i * 10))
            w.append(MessageSpec("Pay", b"plain", store_timestamp=T0 + 10_000))
        return target
    offsets = {("TopicA", "g"): {0: 1}, (LMQ, LMQ): {0: 2}}
    with StoreWriter(target, small, clock=lambda: T0, consumer_offsets=offsets, enable_lmq=True) as w:
        w.append(MessageSpec("TopicA", b"a", tags="t1", keys=["k1"], unique_key="", lmq_queues=[LMQ],
                             store_timestamp=T0))
        w.append(MessageSpec("TopicA", b"b", queue_id=1, unique_key="", lmq_queues=["%LMQ%y", LMQ],
                             store_timestamp=T0 + 1))
        w.append(MessageSpec("TopicA", b"c", unique_key="", lmq_queues=[LMQ], store_timestamp=T0 + 2))
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
# 5.x checkpoint offsets (HA): any value is only checked against the log by a broker that is a slave
CHECKPOINT_OFFSETS = {"masterFlushedOffset": 24, "confirmPhyOffset": 32}
# BatchConsumeQueue's 46-byte unit (spec §4.3)
BATCH_UNIT_SIZE = 46
BATCH_CQ = {"offset": (0, 8), "size": (8, 4), "tagsCode": (12, 8), "storeTimestamp": (20, 8),
            "msgBaseOffset": (28, 8), "batchSize": (36, 2), "compactedOffset": (38, 4), "reserved": (42, 4)}
CONFIG_SHAPES = ("huge-number-value", "huge-number-key", "deep-nesting", "top-level")
TOP_LEVELS = ("[]", "null", "1", "true", '"x"', "[{}]")
DLEDGER_ENTRY = {"magic": (0, 4), "size": (4, 4), "index": (8, 8), "term": (16, 8), "pos": (24, 8),
                 "channel": (32, 4), "chainCrc": (36, 4), "bodyCrc": (40, 4), "bodyLength": (44, 4)}
# DLedger 0.3.1.2 never computes nor checks channel, chainCrc or bodyCrc (DLedgerEntryCoder writes what it is
# given, recovery reads magic, size, pos and body length only): no invariant
DLEDGER_UNCHECKED = {"channel", "chainCrc", "bodyCrc"}
DLEDGER_END = {"magic": (0, 4), "remaining": (4, 4)}
DLEDGER_UNIT = {"magic": (0, 4), "pos": (4, 8), "size": (12, 4), "index": (16, 8), "term": (24, 8)}
DLEDGER_TEXTS = ("garbage", "negative", "huge", "empty", "no-equals", "ahead", "nul")
TIMER_UNIT = {"size": (0, 4), "prevPos": (4, 8), "magic": (12, 4), "writeTime": (16, 8), "delay": (24, 4),
              "commitlogOffset": (28, 8), "recordSize": (36, 4), "topicHash": (40, 4), "reserved": (44, 8)}
TIMER_UNIT_CHECKED = {"size", "prevPos", "commitlogOffset", "recordSize", "topicHash"}
TIMER_BLANK = {"size": (0, 4), "prevPos": (4, 8), "magic": (12, 4)}
WHEEL_SLOT = {"time": (0, 8), "firstPos": (8, 8), "lastPos": (16, 8), "num": (24, 4), "magic": (28, 4)}
TIMERCHECK = {"lastReadTimeMs": (0, 8), "lastTimerLogFlushPos": (8, 8), "lastTimerQueueOffset": (16, 8),
              "masterTimerQueueOffset": (24, 8), "stateVersion": (32, 8), "timestamp": (40, 8), "counter": (48, 8)}
LMQ_BYTES = b",%\x01\x02\x00\xff-9X 0"  # separators, digits, a sign, a NUL, a byte no UTF-8 holds
LMQ_OFFSET_SHAPES = ("negative", "huge", "not-lmq", "no-at", "text")
# whole-file damage (Mutation._file_*), by the store it applies to
FILE_TARGETS = {"sample": ("cq-length", "queue-type"), "dledger": ("data-rename", "cq-length"),
                "timer": ("timerlog-empty",), "lmq": ("lmq-gone", "lmq-last-zeroed", "cq-length")}
FOREIGN_NAMES = {
    "commitlog": ("99999999999999999999", str(1 << 63), "abc", "1" * 25, "-1", "00000000000000065536.tmp"),
    "consumequeue": ("abc", "99999999999999999999", "-1", "1" * 25),  # a queue folder name under a topic
    "index": ("notatime", "1" * 25, "99999999999999999999"),
}


SPECIAL_KINDS = ("fifo", "zero", "directory", "urandom")  # what replaces a file in a "special" mutation
SPECIAL_TARGETS = ("segment", "cq", "index", "config", "checkpoint")


def make_special(path: Path, kind: str) -> Path:
    """A special file of ``kind`` (one of SPECIAL_KINDS) at ``path``: a FIFO, a directory, or a link to the
    character device /dev/<kind>."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.symlink_to(f"/dev/{kind}")
    return path


@dataclass(frozen=True)
class Mutation:
    """``target`` names the structure (a record field, a cq field, ...), ``pick`` which one (mod their count),
    ``value`` what is written (an integer for fields, a shape or name for config and names)."""

    kind: str  # record | cq | index-header | index-slot | index-item | checkpoint | config | name | dledger-entry
    # | dledger-end | dledger-index | dledger-text | timer-unit | timer-blank | timer-wheel | timercheck
    # | lmq-prop | lmq-cq | lmq-offset | special | file (FILE_TARGETS) | batch-cq
    target: str
    pick: int
    value: int | str
    store: str = "sample"  # which pristine store is mutated: sample | dledger | timer | lmq | batch

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
        at = {**CHECKPOINT_FIELDS, **CHECKPOINT_OFFSETS}[self.target]
        value = int(self.value)
        if not _patch(root, "checkpoint", at, _int(value, 8)) or self.target in CHECKPOINT_OFFSETS:
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

    def _special(self, root: Path, lay: Layout) -> Expect | None:
        """Issue 35: a file replaced by a FIFO (opening it for reading would block), a link to /dev/zero or
        /dev/urandom (never ends) or a directory; a finding must name it and nothing may block or slurp it."""
        files = {"segment": lay.segments, "cq": sorted({u[0] for u in lay.units}),
                 "index": [f[0] for f in lay.index_files], "config": lay.configs, "checkpoint": ["checkpoint"]}
        rel = files[self.target][self.pick % len(files[self.target])]
        path = root / rel
        path.unlink()
        make_special(path, SPECIAL_KINDS[int(self.value) % len(SPECIAL_KINDS)])
        return Expect(rel, any_offset=True)

    # -- the structures of issues 18 and 19 --------------------------------------------------------------------------

    def _int_field(self, root: Path, where: tuple[str, int], table: dict[str, tuple[int, int]]) -> bool:
        at, length = table[self.target]
        return _patch(root, where[0], where[1] + at, _int(int(self.value), length))

    def _dledger_entry(self, root: Path, lay: Layout) -> Expect | None:
        k = self.pick % len(lay.entries)
        file, position = lay.entries[k]
        if not self._int_field(root, (file, position), DLEDGER_ENTRY) or self.target in DLEDGER_UNCHECKED:
            return None
        return Expect(file, (position,), (lay.dledger_units[k],))  # the entry, or its index unit

    def _picked_field(self, root: Path, places: list[tuple[str, int]],
                      table: dict[str, tuple[int, int]]) -> tuple[str, int] | None:
        """The (file, position) of the structure picked from ``places`` once its field is changed; None when
        there is none or the bytes were already those."""
        if not places:
            return None
        where = places[self.pick % len(places)]
        return where if self._int_field(root, where, table) else None

    def _dledger_end(self, root: Path, lay: Layout) -> Expect | None:
        where = self._picked_field(root, lay.end_markers, DLEDGER_END)
        return Expect(where[0], (where[1],)) if where else None

    def _dledger_index(self, root: Path, lay: Layout) -> Expect | None:
        k = self.pick % len(lay.dledger_units)
        file, position = lay.dledger_units[k]
        if not self._int_field(root, (file, position), DLEDGER_UNIT):
            return None
        return Expect(file, (position,), (lay.entries[k],))

    def _dledger_text(self, root: Path, lay: Layout) -> Expect | None:
        rel = next((t for t in lay.dledger_texts if t.endswith(self.target)), None)
        if rel is None:
            return None
        path = root / rel
        lines = path.read_bytes().split(b"\n")
        key = lines[int(self.value) % max(1, len(lines) - 1)].partition(b"=")[0]
        shape = DLEDGER_TEXTS[self.pick % len(DLEDGER_TEXTS)]
        new = {"garbage": b"\x00\x17garbage\xff", "negative": key + b"=-7", "huge": key + b"=" + b"9" * 5000,
               "empty": b"", "no-equals": key, "ahead": key + b"=100000", "nul": key + b"=1\x00"}[shape]
        if shape == "empty":
            path.write_bytes(b"")
        else:
            path.write_bytes(b"\n".join(new if line.partition(b"=")[0] == key else line for line in lines))
        if shape == "ahead" and key not in (b"endIndex", b"committedIndex"):
            return None  # voteLeader=100000 is a name; a term may run ahead of the log (elections, no entries)
        if key == b"voteLeader" and shape not in ("garbage", "no-equals"):
            return None  # any text is a name: DLedger checks it against no peer list when it loads
        if shape == "empty" and self.target == "currterm":
            return None  # DLedger reads a missing or empty currterm as term 0: a fresh member
        return Expect(rel, any_offset=True)

    def _timer_unit(self, root: Path, lay: Layout) -> Expect | None:
        file, position = lay.timer_units[self.pick % len(lay.timer_units)]
        if not self._int_field(root, (file, position), TIMER_UNIT):
            return None
        if self.target in TIMER_UNIT_CHECKED or (self.target == "magic" and (int(self.value) | 0xF) != 0xF):
            field_at = position + TIMER_UNIT[self.target][0]  # the unit, or the field itself
            return Expect(file, (position, field_at), _slot_fields(lay))
        return None

    def _timer_blank(self, root: Path, lay: Layout) -> Expect | None:
        where = self._picked_field(root, lay.timer_blanks, TIMER_BLANK)
        return Expect(where[0], (where[1],)) if where and self.target != "prevPos" else None

    def _timer_wheel(self, root: Path, lay: Layout) -> Expect | None:
        slot = lay.wheel_slots[self.pick % len(lay.wheel_slots)]
        if not self._int_field(root, ("timerwheel", slot * 32), WHEEL_SLOT):
            return None
        # the slot is one structure: a changed lastPos may show as its firstPos or num no longer agreeing
        return Expect("timerwheel", tuple(range(slot * 32, slot * 32 + 32, 8))) \
            if self.target in ("time", "firstPos", "lastPos", "num") else None

    def _timercheck(self, root: Path, lay: Layout) -> Expect | None:
        if not lay.timercheck:
            return None
        if self.target == "size":
            size = int(self.value) % 120
            path = root / CHECK_FILE
            path.write_bytes((path.read_bytes() + bytes(120))[:size])
            return Expect(CHECK_FILE, any_offset=True) if size < 56 else None
        if not self._int_field(root, (CHECK_FILE, 0), TIMERCHECK):
            return None
        value = int(self.value)
        if self.target == "lastTimerLogFlushPos" and (value < 0 or value > lay.timer_flush_limit):
            return Expect(CHECK_FILE, any_offset=True)
        return None

    def _lmq_prop(self, root: Path, lay: Layout) -> Expect | None:
        file, start, length, ends = lay.lmq_props[self.pick % len(lay.lmq_props)]
        byte = LMQ_BYTES[int(self.value) % len(LMQ_BYTES)]
        if not _patch(root, file, start + (self.pick // len(lay.lmq_props)) % length, bytes([byte])):
            return None
        return Expect(ends[0][0], (ends[0][1],), ends[1:])

    def _lmq_cq(self, root: Path, lay: Layout) -> Expect | None:
        where = self._picked_field(root, lay.lmq_units, CQ_FIELDS)
        return Expect(where[0], (where[1],)) if where and self.target != "tagsCode" else None

    def _batch_cq(self, root: Path, lay: Layout) -> Expect | None:
        """A field of a batch consume-queue unit: extreme values anywhere; the unit's own place, offset and
        size must then be found (as a plain unit's), the others are not checked against anything."""
        where = self._picked_field(root, lay.batch_units, BATCH_CQ)
        return Expect(where[0], (where[1],)) if where and self.target in ("offset", "size") else None

    def _lmq_offset(self, root: Path, lay: Layout) -> Expect | None:
        rel = "config/lmqConsumerOffset.json"
        path = root / rel
        text = path.read_text()
        key = '"%LMQ%x@%LMQ%x":'
        value = {"negative": f"-{1 + int(self.value)}", "huge": "9" * (20 + int(self.value) % 5000),
                 "not-lmq": "2", "no-at": "2", "text": '"two"'}[self.target]
        new_key = {"not-lmq": '"TopicA@g":', "no-at": '"%LMQ%x":'}.get(self.target, key)
        path.write_text(text.replace(key + "2", new_key + value, 1))
        return Expect(rel, any_offset=True)

    # -- whole files and folders (issue 35: what the broker's load refuses, queues gone, corners of sizes) -----------

    def _file(self, root: Path, lay: Layout) -> Expect | None:
        return getattr(self, "_file_" + self.target.replace("-", "_"))(root, lay)

    def _file_cq_length(self, root: Path, lay: Layout) -> Expect | None:
        """A consume-queue file cut or grown to another length (``truncate -s``): MappedFileQueue.load refuses it."""
        files = sorted({f for f, *_ in lay.units})
        rel = files[self.pick % len(files)]
        path = root / rel
        size = path.stat().st_size
        length = int(self.value) % (2 * size + 1)
        if length == size:
            return None
        with open(path, "r+b") as f:
            f.truncate(length)
        return Expect(rel, (0,))

    def _file_lmq_gone(self, root: Path, lay: Layout) -> Expect | None:
        """An %LMQ% queue folder deleted: the records multi-dispatched to it have no unit there."""
        queues = sorted({f.rsplit("/", 2)[0] for f, _ in lay.lmq_units})
        if not queues:
            return None
        shutil.rmtree(root / queues[self.pick % len(queues)])
        return Expect(lay.segments[0], any_offset=True)

    def _file_lmq_last_zeroed(self, root: Path, lay: Layout) -> Expect | None:
        """The last unit of an %LMQ% queue zeroed: the queue ends before the record multi-dispatched to it."""
        queues = sorted({f.rsplit("/", 2)[0] for f, _ in lay.lmq_units})
        if not queues:
            return None
        queue = queues[self.pick % len(queues)]
        file, position = max(u for u in lay.lmq_units if u[0].startswith(queue + "/"))
        _patch(root, file, position, bytes(20))
        return Expect(lay.segments[0], any_offset=True)

    def _file_timerlog_empty(self, root: Path, lay: Layout) -> Expect | None:
        """Timer-log files emptied (0 bytes) from the picked one on: with all of them, no length to divide by."""
        files = sorted({f for f, _ in lay.timer_units})
        if not files:
            return None
        for rel in files[self.pick % len(files):]:
            (root / rel).write_bytes(b"")
        return Expect(files[self.pick % len(files)], any_offset=True)

    def _file_data_rename(self, root: Path, lay: Layout) -> Expect | None:
        """A DLedger data file renamed off its offset (``...131072`` -> ``...131000``)."""
        data = sorted({f for f, _ in lay.entries})
        if len(data) < 2:
            return None
        rel = data[1 + self.pick % (len(data) - 1)]
        start = int(rel.rsplit("/", 1)[1])
        moved = f"{rel.rsplit('/', 1)[0]}/{start - 1 - int(self.value) % 1024:020d}"
        (root / rel).rename(root / moved)
        return Expect(moved, any_offset=True)

    def _file_queue_type(self, root: Path, lay: Layout) -> Expect | None:
        """A topic with consume queues marked ``"queue.type":"BatchCQ"`` in topics.json (queueTypeShouldBe)."""
        topic = lay.queue_dirs[self.pick % len(lay.queue_dirs)].split("/", 1)[1]
        path = root / "config" / "topics.json"
        doc = json.loads(path.read_text())
        table = doc.setdefault("topicConfigTable", {})
        table.setdefault(topic, {"topicName": topic})["attributes"] = {"queue.type": "BatchCQ"}
        path.write_text(json.dumps(doc))
        return Expect(f"consumequeue/{topic}", (0,))

    def __str__(self) -> str:
        value = self.value if not isinstance(self.value, int) or abs(self.value) < 1 << 64 else f"{self.value:.3e}"
        where = "" if self.store == "sample" else f"{self.store}/"
        return f"{where}{self.kind}:{self.target}#{self.pick}={value}"


def _slot_fields(lay: Layout) -> tuple[tuple[str, int], ...]:
    """Every field of every used wheel slot: a unit's broken link may be reported at its slot (firstPos, num)."""
    return tuple(("timerwheel", n * 32 + at) for n in lay.wheel_slots for at in (0, 8, 16, 24))


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
        st.builds(Mutation, st.just("checkpoint"), st.sampled_from(sorted({**CHECKPOINT_FIELDS, **CHECKPOINT_OFFSETS})),
                  st.just(0), _width_values(64)))
    config = st.builds(Mutation, st.just("config"), st.sampled_from(CONFIG_SHAPES), st.integers(0, 15),
                       st.integers(0, 1 << 20))
    name = st.builds(Mutation, st.just("name"), st.sampled_from(sorted(FOREIGN_NAMES)), st.integers(0, 63),
                     st.integers(0, 15))
    special = st.builds(Mutation, st.just("special"), st.sampled_from(SPECIAL_TARGETS), st.integers(0, 63),
                        st.integers(0, len(SPECIAL_KINDS) - 1))
    return st.one_of(record, _fields("cq", CQ_FIELDS), _fields("index-header", INDEX_HEADER), slot_or_item,
                     checkpoint, config, name, special)



def _tagged(store: str, kind: str, table: dict[str, tuple[int, int]]) -> st.SearchStrategy[Mutation]:
    return st.one_of(*(st.builds(Mutation, st.just(kind), st.just(name), st.integers(0, 1 << 16),
                                 _width_values(8 * length), st.just(store)) for name, (_, length) in table.items()))


def new_store_mutations() -> st.SearchStrategy[Mutation]:
    """The structures of the DLedger sample, a writer-made timer store, an LMQ store (issues 18, 19) and a batch
    queue store (issue 35: extreme values in every field of its units), and the commitlog records, queue units and
    config files of those stores."""
    dledger = st.one_of(
        _tagged("dledger", "dledger-entry", DLEDGER_ENTRY), _tagged("dledger", "dledger-end", DLEDGER_END),
        _tagged("dledger", "dledger-index", DLEDGER_UNIT),
        st.builds(Mutation, st.just("dledger-text"), st.sampled_from(("checkpoint", "currterm")),
                  st.integers(0, 1 << 10), st.integers(0, 15), st.just("dledger")),
        st.builds(Mutation, st.just("record"), st.sampled_from(RECORD_FIELDS), st.integers(0, 1 << 16),
                  _width_values(32), st.just("dledger")),
        _tagged("dledger", "cq", CQ_FIELDS))
    timer = st.one_of(
        _tagged("timer", "timer-unit", TIMER_UNIT), _tagged("timer", "timer-blank", TIMER_BLANK),
        _tagged("timer", "timer-wheel", WHEEL_SLOT), _tagged("timer", "timercheck", TIMERCHECK),
        st.builds(Mutation, st.just("timercheck"), st.just("size"), st.just(0), st.integers(0, 1 << 10),
                  st.just("timer")),
        st.builds(Mutation, st.just("config"), st.sampled_from(CONFIG_SHAPES), st.integers(0, 15),
                  st.integers(0, 1 << 20), st.just("timer")))
    lmq = st.one_of(
        st.builds(Mutation, st.just("lmq-prop"), st.just("byte"), st.integers(0, 1 << 16), st.integers(0, 255),
                  st.just("lmq")),
        _tagged("lmq", "lmq-cq", CQ_FIELDS),
        st.builds(Mutation, st.just("lmq-offset"), st.sampled_from(LMQ_OFFSET_SHAPES), st.just(0),
                  st.integers(0, 1 << 16), st.just("lmq")),
        st.builds(Mutation, st.just("config"), st.sampled_from(CONFIG_SHAPES), st.integers(0, 15),
                  st.integers(0, 1 << 20), st.just("lmq")))
    files = st.one_of(*(st.builds(Mutation, st.just("file"), st.sampled_from(targets), st.integers(0, 1 << 10),
                                  st.integers(0, 1 << 24), st.just(store)) for store, targets in FILE_TARGETS.items()))
    batch = st.one_of(_tagged("batch", "batch-cq", BATCH_CQ), _tagged("batch", "cq", CQ_FIELDS))
    return st.one_of(dledger, timer, lmq, files, batch)
