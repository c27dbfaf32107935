"""The guided tour of a store: the steps every front end shows, each with the view to open and where.

``tour_steps(store)`` returns plain frozen dataclasses and renders nothing. Each :class:`TourStep` says what to
show through its ``target`` (a hex window with highlighted bytes, a consume-queue unit, an index chain, ...)
and carries a few sentences written for people meeting RocketMQ's files for the first time. Every case is
looked up in the store it is given (never a fixed offset): a store that lacks a case gets a step with
``available=False`` and a ``missing_reason``. ``step_view`` turns a step into JSON-ready data.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field

import numpy as np

from inspector.engine.maintain.dispatch import cq_unit_bytes
from inspector.engine.model.budget import Budget, Partial, budget_or_none
from inspector.engine.model.errors import BudgetExceeded, StoreError
from inspector.engine.model.records import Blank, Message, Problem
from inspector.engine.read.collisions import MAX_ITEMS, MAX_MESSAGES, find_collisions
from inspector.engine.read.layout import blank_fields, message_fields
from inspector.engine.read.recovery import recover
from inspector.engine.read.slots import busiest_slots, walk_slot
from parsers import commitlog as cl
from parsers.consumequeue import CQ_UNIT_SIZE
from parsers.indexfile import INDEX_HEADER_SIZE, INDEX_SLOT_SIZE
from parsers.java import index_key, index_key_hash, java_string_hash
from parsers.msgid import decode_offset_msg_id, decode_uniq_key

SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX"
HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC"
OP_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC"
SYSTEM_PREFIXES = ("%RETRY%", "%DLQ%", "%LMQ%", "rmq_sys_", "RMQ_SYS_", "SCHEDULE_TOPIC", "TRANS_CHECK_MAX_TIME_TOPIC")

# Every search reads a bounded sample of the store (never time proportional to its size); the sample store fits
# inside every bound, so its tour is the complete one.
SEARCH_RECORDS = 5000  # records read while looking for a case near the start of the log
SEARCH_INDEX_FILES = 4  # index files searched for a chain to show
SEARCH_QUEUES = 256  # consume queues looked at for a queue with a second file
SEARCH_SEGMENTS = 8  # commitlog segments scanned for a BLANK
SEARCH_UNITS = 2000  # units of one system queue (delay, half, op) read
SEARCH_HALVES = 200  # half messages whose commit is looked up
HEX_CONTEXT = 32


# -- what a step points at -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    """Bytes to highlight: [start, end) as physical offsets (hex views) or file positions (file views)."""

    start: int
    end: int
    label: str


@dataclass(frozen=True)
class HexTarget:
    """A commitlog hex view of [start, end) (physical offsets) with ``highlights``; ``focus`` names the one
    field the text is about (a RocketMQ field name such as "MAGICCODE"), when there is one."""

    file: str
    start: int
    end: int
    highlights: tuple[Span, ...]
    focus: str | None = None
    caption: str = ""
    kind: str = field(default="hex", init=False)


@dataclass(frozen=True)
class DirEntry:
    path: str  # relative to the store root; directories end with "/"
    role: str
    count: int | None = None  # files (or queues) inside, where that helps


@dataclass(frozen=True)
class DirectoryTarget:
    root: str
    entries: tuple[DirEntry, ...]
    caption: str = ""
    kind: str = field(default="directory", init=False)


@dataclass(frozen=True)
class CqTarget:
    """One consume-queue unit (20 bytes at ``position`` of ``file``) and the commitlog record it points at."""

    topic: str
    queue_id: int
    queue_offset: int
    file: str
    position: int
    physical_offset: int
    size: int
    tags_code: int
    unit_hex: str
    tags_meaning: str  # what tags_code is for this unit
    record_file: str
    record_end: int
    caption: str = ""
    kind: str = field(default="cq", init=False)

    @property
    def highlights(self) -> tuple[Span, ...]:
        """The three fields of the unit as file positions."""
        p = self.position
        return (Span(p, p + 8, "physical offset"), Span(p + 8, p + 12, "size"), Span(p + 12, p + 20, "tagsCode"))


@dataclass(frozen=True)
class ChainTarget:
    """The hash-slot walk for ``topic#key`` in index file ``file`` (newest item first)."""

    topic: str
    key: str
    key_string: str
    hash_code: int  # Java String.hashCode(), signed
    key_hash: int  # what the index stores: abs(hash_code)
    file: str
    slot_count: int
    slot: int
    slot_position: int
    slot_value: int
    items: tuple[int, ...]  # item numbers visited, newest first
    matching_items: tuple[int, ...]  # same hash and the message really has the key
    other_hash_items: tuple[int, ...]  # same slot, different hash: skipped
    collision_items: tuple[int, ...]  # same hash, different key
    other_key: str | None = None  # the colliding key (collision step)
    caption: str = ""
    kind: str = field(default="chain", init=False)


@dataclass(frozen=True)
class IndexHeaderTarget:
    """An index file's 40-byte header, ``fields`` highlighted (byte ranges in ``highlights``)."""

    file: str
    fields: tuple[str, ...]
    values: tuple[tuple[str, int], ...]  # every header field, in order
    highlights: tuple[Span, ...]
    slot_count: int
    item_count: int
    used_slots: int  # non-zero slots counted in the slot table
    items_written: int
    caption: str = ""
    kind: str = field(default="index-header", init=False)


@dataclass(frozen=True)
class IdsTarget:
    """The two ids of one message and what each decodes to."""

    physical_offset: int
    msg_id: str
    unique_key: str
    msg_id_fields: tuple[tuple[str, str], ...]
    unique_key_fields: tuple[tuple[str, str], ...]
    caption: str = ""
    kind: str = field(default="ids", init=False)


@dataclass(frozen=True)
class RecoveryTarget:
    """Where recovery ends the log, and the bytes around that end (a hex window of physical offsets)."""

    mode: str
    start_segment: str | None
    end_offset: int
    last_record_offset: int | None
    reason: str
    torn: bool
    problem_file: str | None
    problem_offset: int | None  # physical offset of the record recovery rejected
    file: str
    start: int
    end: int
    highlights: tuple[Span, ...]
    caption: str = ""
    kind: str = field(default="recovery", init=False)


@dataclass(frozen=True)
class RebuildTarget:
    """What a rebuild reads and writes, in numbers taken from this store."""

    min_offset: int
    end_offset: int
    queues: int
    cq_units: int
    index_files: int
    index_items: int
    command: str
    caption: str = ""
    kind: str = field(default="rebuild", init=False)


Target = HexTarget | DirectoryTarget | CqTarget | ChainTarget | IndexHeaderTarget | IdsTarget | RecoveryTarget | RebuildTarget


@dataclass(frozen=True)
class TourStep:
    number: int  # 1-based position in the tour
    id: str
    title: str
    text: str
    target: Target | None
    available: bool = True
    missing_reason: str | None = None
    extra: tuple[Target, ...] = ()  # further views the text refers to
    commands: tuple[str, ...] = ()  # rmq-inspect commands that show the same thing


STEP_IDS = ("directory", "record", "segment-end", "cq-unit", "key-chain", "index-header", "collision", "ids",
            "delay", "transaction", "torn-tail", "rebuild")

TITLES = {
    "directory": "The store directory",
    "record": "One commitlog record, field by field",
    "segment-end": "The end of a segment: the BLANK record",
    "cq-unit": "A consume-queue unit and the record it points at",
    "key-chain": "From a key to its hash, slot and chain",
    "index-header": "What hashSlotCount and indexCount really count",
    "collision": "A real hash collision",
    "ids": "Offset msgId versus unique key",
    "delay": "A delayed message on disk",
    "transaction": "A transaction on disk",
    "torn-tail": "A torn tail, and how recovery finds the end",
    "rebuild": "What rebuild does",
}


NOT_COMPUTED = "not computed: "  # how a step the budget cut off starts its missing_reason


class Missing(Exception):
    """The store lacks this step's case."""


def tour_steps(store, *, budget: Budget | None = None) -> list[TourStep]:
    """Every step of the tour for ``store``, in order; steps whose case the store lacks say why.

    With a ``budget`` that runs out, the steps from the one being built on are not computed: each says so
    (``available=False``) and the returned :class:`~inspector.engine.model.budget.Partial` list has ``truncated`` set.
    The steps before it are exactly those of the complete tour.
    """
    ctx = _Context(store, budget_or_none(budget))
    builders = {
        "directory": _directory, "record": _record, "segment-end": _segment_end, "cq-unit": _cq_unit,
        "key-chain": _key_chain, "index-header": _index_header, "collision": _collision, "ids": _ids,
        "delay": _delay, "transaction": _transaction, "torn-tail": _torn_tail, "rebuild": _rebuild,
    }
    steps = Partial()
    for number, step_id in enumerate(STEP_IDS, 1):
        if steps.truncated is None and ctx.budget.expired():
            steps.truncated = ctx.budget.note(f"{number - 1} of {len(STEP_IDS)} steps")
        if steps.truncated is not None:
            reason = NOT_COMPUTED + steps.truncated
            steps.append(TourStep(number, step_id, TITLES[step_id], reason, None, False, reason))
            continue
        try:
            text, target, extra, commands = builders[step_id](ctx)
            steps.append(TourStep(number, step_id, TITLES[step_id], text, target, True, None, tuple(extra),
                                  tuple(commands)))
        except Missing as e:
            steps.append(TourStep(number, step_id, TITLES[step_id], str(e), None, False, str(e)))
        except BudgetExceeded:
            steps.truncated = ctx.budget.note(f"{number - 1} of {len(STEP_IDS)} steps")
            reason = NOT_COMPUTED + steps.truncated
            steps.append(TourStep(number, step_id, TITLES[step_id], reason, None, False, reason))
        except StoreError as e:
            reason = f"this store could not be read for this step: {e}"
            steps.append(TourStep(number, step_id, TITLES[step_id], reason, None, False, reason))
    return steps


def step_view(step: TourStep) -> dict:
    """A step as JSON-ready data (lists, dicts, str, int, bool, None). Targets carry their ``kind``; a CqTarget
    also its ``highlights`` (positions in the consume-queue file)."""
    view = _plain(dataclasses.asdict(step))
    for target, data in ((step.target, view["target"]), *zip(step.extra, view["extra"], strict=True)):
        if isinstance(target, CqTarget):
            data["highlights"] = _plain([dataclasses.asdict(s) for s in target.highlights])
    return view


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


# -- shared look-ups ---------------------------------------------------------------------------------------------


class _Context:
    def __init__(self, store, budget: Budget):
        self.store = store
        self.budget = budget
        self.root = str(store.root)
        self._nice: Message | None | bool = False
        self._recovery = None

    def recovery(self):
        """``recover(store)``, once per tour (two steps show it; it walks up to three segments)."""
        if self._recovery is None:
            self._recovery = recover(self.store, budget=self.budget)
        return self._recovery

    def cmd(self, command: str, *args: str, store: bool = True) -> str:
        """An rmq-inspect command line on this store (``store=False``: the command takes no STORE argument)."""
        head = ["rmq-inspect", command] + ([_shell(self.root)] if store else [])
        return " ".join(head + [_shell(a) for a in args])

    def nice_message(self) -> Message:
        """An ordinary message to look at: user topic, tags, keys, unique key, IPv4 hosts, plain small body."""
        if self._nice is False:
            self._nice = None
            fallback = None
            for n, entry in enumerate(self.store.entries()):
                if n > SEARCH_RECORDS:
                    break
                if n % 256 == 255:
                    self.budget.check("reading records")
                if not isinstance(entry, Message):
                    continue
                fallback = fallback or entry
                if (not _is_system(entry.topic) and entry.transaction == "NOT_TYPE" and not entry.compressed
                        and entry.tags and entry.keys and entry.unique_key and entry.magic_version == 1
                        and not entry.sys_flag & (cl.BORNHOST_V6_FLAG | cl.STOREHOSTADDRESS_V6_FLAG)
                        and len(entry.body) <= 400):
                    self._nice = entry
                    break
            if self._nice is None:
                self._nice = fallback
        if self._nice is None:
            raise Missing("The commitlog holds no message, so there is no record to look at.")
        return self._nice  # type: ignore[return-value]


def _is_system(topic: str) -> bool:
    return topic.startswith(SYSTEM_PREFIXES)


def _shell(text: str) -> str:
    safe = all(c.isalnum() or c in "-_./:%#@=," for c in text)
    return text if safe and text else "'" + text.replace("'", "'\\''") + "'"


def _utc(ms: int) -> str:
    try:
        return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"
    except (OverflowError, OSError, ValueError):
        return f"{ms} ms"


def _n(value: int) -> str:
    return f"{value:,}"


def _field_spans(msg: Message, names: tuple[str, ...] | None = None) -> tuple[Span, ...]:
    spans = []
    for f in message_fields(msg):
        if names is None or f.name in names:
            spans.append(Span(f.start, f.end, f"{f.number} {f.name}"))
    return tuple(spans)


def _record_hex(msg: Message, names: tuple[str, ...] | None, focus: str | None, caption: str) -> HexTarget:
    return HexTarget(msg.file, msg.physical_offset, msg.end_offset, _field_spans(msg, names), focus, caption)


# -- the steps ---------------------------------------------------------------------------------------------------

ROLES = (
    ("commitlog/", "the message log: every message of every topic, appended in the order the broker received "
                   "it, cut into equal files named by the offset of their first byte"),
    ("consumequeue/", "one small index per topic and queue: 20-byte units that say where each message of the "
                      "queue sits in the commitlog"),
    ("index/", "hash indexes from topic#key to commitlog offsets, for looking messages up by key or id"),
    ("checkpoint", "4 KiB of timestamps saying how far the log, the queues and the indexes were flushed"),
    ("config/", "JSON files: topics, subscription groups, consumer offsets, delay progress"),
    ("abort", "present only while a broker runs (or after it crashed): its presence asks for careful recovery"),
    ("lock", "locked by a running broker so that two brokers never share one store"),
    ("consumequeue_ext/", "optional extension of the consume queues (filter bitmaps)"),
    ("batchconsumequeue/", "consume queues of batch topics (46-byte units)"),
    ("timerlog/", "the timer store's log (RocketMQ 5 timer messages)"),
    ("timerwheel", "the timer store's wheel of time slots"),
)


def _directory(ctx: _Context):
    root = ctx.store.root
    entries = []
    for path, role in ROLES:
        p = root / path.rstrip("/")
        if not p.exists():
            continue
        count = None
        if path == "commitlog/":
            count = len(ctx.store.segments)
        elif path == "consumequeue/":
            count = len(ctx.store.queue_ids())
        elif path == "index/":
            count = len(ctx.store.index_files())
        elif path.endswith("/") and p.is_dir():
            count = sum(1 for _ in p.iterdir())
        entries.append(DirEntry(path, role, count))
    if not any(e.path == "commitlog/" for e in entries):
        raise Missing("This directory has no commitlog/ folder, so it is not a RocketMQ store.")
    seg = ctx.store.segments
    size = ctx.store.commitlog.segment_size
    topics = sorted({t for t, _ in ctx.store.queue_ids()})
    text = (
        f"A broker keeps everything under one directory. The commitlog is the heart of it: {len(seg)} file(s) of "
        f"{_n(size)} bytes, and each file is named by the position of its first byte in one endless log, so "
        f"'{seg[0].name if seg else '-'}' starts at offset {seg[0].start_offset if seg else 0}. "
        f"Messages of all topics are mixed in that log. "
        f"The consume queues ({len(ctx.store.queue_ids())} queues of {len(topics)} topics here) and the index "
        f"files are derived from the log: a broker can rebuild them from it. "
        f"The checkpoint and config/ hold progress and metadata; "
        + ("there is no abort file, so the last broker shut down cleanly." if ctx.store.clean_shutdown
           else "an abort file is present: the last broker did not shut down cleanly.")
    )
    target = DirectoryTarget(ctx.root, tuple(entries), "the folders of the store and what each one holds")
    return text, target, (), (ctx.cmd("info"),)


def _record(ctx: _Context):
    msg = ctx.nice_message()
    fields = message_fields(msg)
    by = {f.name: f for f in fields}
    topic_len = by["TOPIC"].length
    props_len = by["PROPERTIES"].length
    fixed = msg.total_size - len(msg.body) - topic_len - props_len
    text = (
        f"This is the message at physical offset {msg.physical_offset} ({msg.topic}, queue {msg.queue_id}, "
        f"tag '{msg.tags}'). A record starts with its own length, TOTALSIZE = {msg.total_size}, then the magic "
        f"code {msg.magic_code & 0xFFFFFFFF:08X} that marks a message. Next come fixed-size numbers: the CRC of "
        f"the body, the queue id and the message's number in that queue ({msg.queue_offset}), its own physical "
        f"offset again, flags, two timestamps (producer and broker clock) and two hosts (producer and broker). "
        f"Only the last three parts vary in length, each with its length in front: the body "
        f"({len(msg.body)} bytes), the topic ({topic_len}) and the properties ({props_len}), which hold the tag, "
        f"the keys and the unique key as name/value text. So TOTALSIZE = {fixed} + {len(msg.body)} + "
        f"{topic_len} + {props_len}; {fixed} is the fixed part of a record with IPv4 hosts "
        f"(it grows by 12 bytes for each IPv6 host)."
    )
    target = _record_hex(msg, None, None, f"the record at {msg.physical_offset}, every field marked")
    return text, target, (), (ctx.cmd("hex", str(msg.physical_offset), "--length", str(msg.total_size)),
                              ctx.cmd("show", str(msg.physical_offset)))


def _segment_end(ctx: _Context):
    store = ctx.store
    for i, seg in enumerate(store.segments[:SEARCH_SEGMENTS]):
        ctx.budget.check("scanning segments")
        scan = store.scan_segment(i)
        if scan.blank_position is None:
            continue
        blank_phy = seg.start_offset + scan.blank_position
        left = seg.file_size - scan.blank_position
        last_start = store.commitlog.boundary_before(blank_phy - 1) if scan.messages else None
        nxt = None
        if i + 1 < len(store.segments):
            try:
                nxt = store.message_at(store.segments[i + 1].start_offset)
            except StoreError:
                nxt = None
        window_start = max(seg.start_offset, blank_phy - HEX_CONTEXT)
        window_end = min(seg.end_offset, blank_phy + max(HEX_CONTEXT, 16))
        spans = [Span(s.start, s.end, f"{s.number} {s.name}") for s in
                 blank_fields(Blank(seg.file, scan.blank_position, blank_phy, scan.blank_size or left))]
        if left > cl.END_FILE_MIN_BLANK_LENGTH:
            spans.append(Span(blank_phy + 8, seg.end_offset, "never written (zeros)"))
        target = HexTarget(seg.file, window_start, window_end, tuple(spans), "MAGICCODE",
                           f"the last bytes of segment {seg.name}")
        extra = []
        why = ""
        if nxt is not None:
            extra.append(_record_hex(nxt, ("TOTALSIZE", "MAGICCODE"), "TOTALSIZE",
                                     f"the record that did not fit: the first one of segment {store.segments[i + 1].name}"))
            why = (f"The next message was {nxt.total_size} bytes long: with only {left} bytes left, "
                   f"{nxt.total_size} + 8 = {nxt.total_size + 8} > {left}, so it went to the start of the next "
                   f"file, {store.segments[i + 1].name}. ")
        last = f" The last message of this file starts at {last_start} and ends right where the BLANK begins." \
            if last_start is not None else ""
        text = (
            f"Segment {seg.name} is not filled to the last byte: its data ends at position {scan.blank_position} "
            f"(physical offset {blank_phy}), {left} bytes before the end of the file.{last} "
            f"The broker writes a message into a file only if, after it, at least 8 bytes remain. When a message "
            f"does not fit, the broker writes just those 8 bytes, a BLANK record: the number of bytes left "
            f"({left}) and the magic code CBD43194, and leaves the rest of the file as it was (zeros). "
            f"{why}The 8-byte rule guarantees that every full segment ends with a BLANK, so a reader always knows "
            f"where a file's data stops."
        )
        return text, target, extra, (ctx.cmd("hex", str(window_start), "--length", str(window_end - window_start)),
                                     ctx.cmd("info"))
    if len(store.segments) > SEARCH_SEGMENTS:
        raise Missing(f"None of the first {SEARCH_SEGMENTS} segments of this commitlog is sealed with a BLANK record.")
    raise Missing("No segment of this commitlog is sealed with a BLANK record yet: the log still fits in its "
                  "first file, so there is no segment end to look at.")


def _tags_meaning(topic: str, tags_code: int, msg: Message | None) -> str:
    if msg is not None and topic == SCHEDULE_TOPIC and msg.properties.get("DELAY"):
        return f"delivery time {_utc(tags_code)} ({tags_code} ms), not a tag hash"
    if msg is not None and msg.tags:
        return f"hashCode of the tag '{msg.tags}' ({java_string_hash(msg.tags)})"
    return "0: the message has no tag"


def _cq_target(ctx: _Context, unit, msg: Message, caption: str) -> CqTarget:
    return CqTarget(unit.topic, unit.queue_id, unit.queue_offset, unit.file, unit.position, unit.physical_offset,
                    unit.size, unit.tags_code, cq_unit_bytes(unit.physical_offset, unit.size, unit.tags_code).hex().upper(),
                    _tags_meaning(unit.topic, unit.tags_code, msg), msg.file, msg.end_offset, caption)


def _cq_unit(ctx: _Context):
    store = ctx.store
    candidates = [(t, q) for t, q in store.queue_ids() if not _is_system(t)][:SEARCH_QUEUES]
    if not candidates:
        raise Missing("This store has no consume queue of an ordinary topic.")
    chosen = None
    for t, q in candidates:  # a queue with a second file shows how files are named
        ctx.budget.check("looking at consume queues")
        cq = store.queue(t, q)
        info = cq.info()
        files = getattr(cq, "files", ())
        if len(files) >= 2 and info.max_offset > files[1][0] // CQ_UNIT_SIZE:
            chosen = (t, q, files[1][0] // CQ_UNIT_SIZE)
            break
    if chosen is None:
        for t, q in candidates:
            info = store.queue(t, q).info()
            if info.message_count >= 1:
                chosen = (t, q, min(info.min_offset + 1, info.max_offset - 1))
                break
    if chosen is None:
        raise Missing("Every consume queue of this store is empty.")
    topic, queue_id, queue_offset = chosen
    cq = store.queue(topic, queue_id)
    unit = cq.unit(queue_offset)
    msg = store.message_at(unit.physical_offset)
    file_start = (unit.queue_offset * CQ_UNIT_SIZE) - unit.position
    target = _cq_target(ctx, unit, msg, f"unit {queue_offset} of {topic} queue {queue_id}")
    file_name = unit.file.rsplit("/", 1)[-1]
    text = (
        f"A consume queue is the list of one queue's messages, in order, without the messages themselves. Each "
        f"unit is 20 bytes: where the record starts in the commitlog (8 bytes), how long it is (4) and a tag "
        f"code (8). This is unit number {queue_offset} of {topic} queue {queue_id}: it sits at byte "
        f"{unit.position} of file {file_name}. The file name is a byte count, not a message number: "
        f"{int(file_name)} bytes / 20 = unit {file_start // CQ_UNIT_SIZE}, and {unit.position} / 20 = "
        f"{unit.position // CQ_UNIT_SIZE} more, so this is queue offset {queue_offset}. "
        f"The unit points at physical offset {unit.physical_offset} with size {unit.size}; the record there "
        f"says TOTALSIZE {msg.total_size}, QUEUEOFFSET {msg.queue_offset} and topic {msg.topic}, which is how a "
        f"reader checks that both agree. The tag code is {target.tags_meaning}: consumers filter by tag "
        f"without reading the record."
    )
    extra = (_record_hex(msg, ("TOTALSIZE", "QUEUEID", "QUEUEOFFSET", "TOPIC"), "QUEUEOFFSET",
                         f"the record unit {queue_offset} points at"),)
    return text, target, extra, (ctx.cmd("messages", "--topic", topic, "--queue", str(queue_id), "--from",
                                         str(queue_offset), "--limit", "3"),
                                 ctx.cmd("show", str(unit.physical_offset)))


def _key_for_hash(msg: Message, key_hash: int) -> str | None:
    """The key of ``msg`` (business keys first, then the unique key) whose index key hashes to ``key_hash``."""
    for k in [*msg.keys, *([msg.unique_key] if msg.unique_key else [])]:
        if index_key_hash(index_key(msg.topic, k)) == key_hash:
            return k
    return None


def _chain_target(ctx: _Context, topic: str, key: str, file: str, caption: str, other_key: str | None = None):
    walks = [w for w in ctx.store.chain(topic, key) if w.file == file]
    if not walks:
        raise Missing(f"index file {file} was not searched")
    w = walks[0]
    reader = next(r for r in ctx.store.index_files() if r.rel == file)
    items = tuple(s.item.number for s in w.steps)
    matching = tuple(s.item.number for s in w.steps if s.hash_matches and s.key_matches)
    other = tuple(s.item.number for s in w.steps if not s.hash_matches)
    collide = tuple(s.item.number for s in w.steps if s.hash_matches and s.key_matches is False)
    return ChainTarget(topic, key, w.key, java_string_hash(w.key), w.key_hash, file, reader.slot_count, w.slot,
                       w.slot_position, w.slot_value, items, matching, other, collide, other_key, caption), w


def _key_chain(ctx: _Context):
    store = ctx.store
    readers = store.index_files()
    if not readers:
        raise Missing("This store has no index files.")
    for reader in readers[:SEARCH_INDEX_FILES]:
        ctx.budget.check("searching index files")
        for slot, count in busiest_slots(reader, 8):
            if count < 2:
                continue
            chain = walk_slot(reader, slot)
            if not chain.items:
                continue
            newest = chain.items[0]
            try:
                msg = store.message_at(newest.phy_offset)
            except StoreError:
                continue
            key = _key_for_hash(msg, newest.key_hash)
            if key is None or msg.topic.startswith(SYSTEM_PREFIXES):
                continue
            target, walk = _chain_target(ctx, msg.topic, key, reader.rel, f"the chain of slot {slot} in {reader.name}")
            if target.collision_items:
                continue  # the collision has a step of its own
            hc = target.hash_code
            text = (
                f"The index answers 'which messages have key K?'. It does not store keys, only numbers. Take "
                f"the key '{key}' of topic {msg.topic}: the index key is the string '{target.key_string}' "
                f"(topic, '#', key). Java's String.hashCode() of it is {hc}; the index keeps the absolute value, "
                f"{target.key_hash}. With {target.slot_count} slots per file, {target.key_hash} % "
                f"{target.slot_count} = slot {target.slot}, a 4-byte cell at byte {target.slot_position} of "
                f"{reader.name}. The slot holds the number of the newest item of that slot, {target.slot_value}; "
                f"each 20-byte item holds the key hash, the message's physical offset, a time difference and the "
                f"number of the previous (older) item of the same slot. Following those links visits "
                f"{len(target.items)} item(s): {len(target.matching_items)} for this key, "
                f"{len(target.other_hash_items)} for other keys that share the slot, which are skipped because "
                f"their hash differs."
            )
            return text, target, (), (ctx.cmd("chain", msg.topic, key), ctx.cmd("key", msg.topic, key))
    raise Missing("No index slot of this store chains two or more items.")


def _index_header(ctx: _Context):
    readers = ctx.store.index_files()
    if not readers:
        raise Missing("This store has no index files.")
    full = [r for r in readers if r.effective_index_count >= r.item_count > 0]
    reader = (full or readers)[0]
    h = reader.header
    used = _used_slots(reader)
    values = (("begin_timestamp", h.begin_timestamp), ("end_timestamp", h.end_timestamp),
              ("begin_phy_offset", h.begin_phy_offset), ("end_phy_offset", h.end_phy_offset),
              ("hash_slot_count", h.hash_slot_count), ("index_count", h.index_count))
    target = IndexHeaderTarget(reader.rel, ("hash_slot_count", "index_count"), values,
                               (Span(32, 36, "hashSlotCount"), Span(36, 40, "indexCount")),
                               reader.slot_count, reader.item_count, used, h.items_written,
                               f"the header of {reader.name}")
    full_note = (f" That equals the file's capacity of {reader.item_count} items, so this file is full and the "
                 f"broker moved on to a new index file." if h.index_count >= reader.item_count else "")
    text = (
        f"The first 40 bytes of an index file are its header. Two of its numbers are often misread. "
        f"hashSlotCount is {h.hash_slot_count} here, but the file has {reader.slot_count} slots: it counts the "
        f"slots in use, increased each time an item lands in an empty slot (the slot table here really has "
        f"{used} non-empty slots). The number of slots is broker configuration and is not written anywhere in "
        f"the file; rmq-inspect infers it from the file size. indexCount is {h.index_count}, but the file holds "
        f"{h.items_written} items: it is the number the next item will get, it starts at 1, and item 0 is never "
        f"used.{full_note} The header also keeps the first and last store time and commitlog offset it indexes, "
        f"so a time-bounded query can skip whole files."
    )
    return text, target, (), (ctx.cmd("info"),)


def _used_slots(reader) -> int:
    n = min(reader.slot_count, max(0, (reader.mf.size - INDEX_HEADER_SIZE) // INDEX_SLOT_SIZE))
    if n <= 0:
        return 0
    table = np.frombuffer(reader.mf.buf, dtype=">i4", count=n, offset=INDEX_HEADER_SIZE)
    return int(np.count_nonzero(table))


def _collision(ctx: _Context):
    found = find_collisions(ctx.store, time_budget=ctx.budget)
    if not found:
        raise Missing("No two different keys of this store share a hash in the same index file (the search "
                      f"reads up to {MAX_ITEMS} index items and {MAX_MESSAGES} messages). The sample store "
                      "has one: "
                      "OrderEvents#coupon-Aa7K and OrderEvents#coupon-BB7K.")
    c = found[0]
    (s1, n1, p1), (s2, n2, p2) = c.keys[0], c.keys[1]
    topic, key = s1.split("#", 1)
    target, _ = _chain_target(ctx, topic, key, c.file, f"slot chain holding both {s1} and {s2}", other_key=s2.split("#", 1)[1])
    text = (
        f"'{s1}' and '{s2}' are different strings, yet Java's hashCode gives both {java_string_hash(s1)}, so "
        f"their index items carry the same key hash {c.key_hash} and sit in the same slot, {target.slot}, of "
        f"{c.file.rsplit('/', 1)[-1]} (items {n1} and {n2}). The index stores only that 32-bit hash, never the "
        f"key, so a broker asked for '{key}' returns both messages, at {p1} and {p2}. Collisions are rare but "
        f"normal: a client that looks messages up by key must read each result and compare its real keys. "
        f"rmq-inspect does that, and marks the impostor as a hash collision in the chain."
    )
    return text, target, (), (ctx.cmd("chain", topic, key), ctx.cmd("key", topic, key))


def _ids(ctx: _Context):
    msg = ctx.nice_message()
    if not msg.unique_key:
        raise Missing("The messages of this store carry no unique key (UNIQ_KEY).")
    off = decode_offset_msg_id(msg.msg_id)
    try:
        uk = decode_uniq_key(msg.unique_key)
    except ValueError:  # MsgIdError: a UNIQ_KEY property is producer-written text, not always an id
        raise Missing(f"The unique key of the message at {msg.physical_offset} is not a message id.") from None
    target = IdsTarget(
        msg.physical_offset, msg.msg_id, msg.unique_key,
        (("store host", off.ip), ("port", str(off.port)), ("physical offset", str(off.offset))),
        (("producer host", uk.ip), ("pid", str(uk.pid)), ("class loader hash", f"{uk.class_loader_hash & 0xFFFFFFFF:08X}"),
         ("ms since the start of the month", str(uk.time_since_month_start)), ("counter", str(uk.counter))),
        f"both ids of the message at {msg.physical_offset}",
    )
    text = (
        f"Every message has two ids of 32 hex characters, and they are easy to mix up. The offset msgId "
        f"{msg.msg_id} is made by the broker: the broker's address {off.ip}:{off.port} and the record's physical "
        f"offset {off.offset}. It points straight into this store, so reading it needs no index. The unique key "
        f"{msg.unique_key} is made by the producer before sending: its address {uk.ip}, process id {uk.pid}, a "
        f"class-loader hash, the milliseconds since the start of the month and a counter. It is stored as the "
        f"UNIQ_KEY property and indexed like a key, and it is what a producer's SendResult.getMsgId() returns. "
        f"Both have the same length for IPv4 hosts, so a tool cannot tell them apart by looking: rmq-inspect "
        f"tries both readings and says which one finds a message."
    )
    return text, target, (), (ctx.cmd("decode-id", msg.msg_id, "--store", ctx.root, store=False),
                              ctx.cmd("decode-id", msg.unique_key, "--store", ctx.root, store=False))


def _delay(ctx: _Context):
    store = ctx.store
    best = None
    for t, q in store.queue_ids():
        if t != SCHEDULE_TOPIC:
            continue
        for n, (unit, msg) in enumerate(store.queue_messages(t, q)):
            if n >= SEARCH_UNITS:
                break
            if n % 256 == 255:
                ctx.budget.check(f"reading {SCHEDULE_TOPIC}")
            if unit is None or isinstance(msg, Problem) or not msg.properties.get("DELAY"):
                continue
            real = msg.properties.get("REAL_TOPIC", "")
            if best is None or (best[1].properties.get("REAL_TOPIC", "").startswith("%") and not real.startswith("%")):
                best = (unit, msg)
            if not real.startswith("%"):
                break
        if best is not None and not best[1].properties.get("REAL_TOPIC", "").startswith("%"):
            break
    if best is None:
        raise Missing(f"No message of this store went through {SCHEDULE_TOPIC}: nothing was sent with a delay level.")
    unit, msg = best
    level = msg.properties["DELAY"]
    real_topic = msg.properties.get("REAL_TOPIC", "?")
    real_qid = msg.properties.get("REAL_QID", "?")
    delay_ms = unit.tags_code - msg.store_timestamp
    target = _cq_target(ctx, unit, msg, f"the unit of the delayed message in {SCHEDULE_TOPIC} queue {unit.queue_id}")
    extra = [_record_hex(msg, ("TOPIC", "QUEUEID", "STORETIMESTAMP", "PROPERTIES"), "PROPERTIES",
                         "the parked record: system topic, queue = level - 1, DELAY and REAL_TOPIC properties")]
    delivered = ""
    if msg.unique_key and real_topic != "?":
        try:
            copies = [h.message for h in store.lookup_key(real_topic, msg.unique_key)
                      if h.message.physical_offset > msg.physical_offset]
        except StoreError:
            copies = []
        if copies:
            copy = copies[0]
            extra.append(_record_hex(copy, ("TOPIC", "QUEUEID", "STORETIMESTAMP"), "TOPIC",
                                     f"the same message delivered to {real_topic}"))
            delivered = (f" When it was due, the broker wrote it again, this time into {real_topic} queue "
                         f"{copy.queue_id} at physical offset {copy.physical_offset} (stored "
                         f"{(copy.store_timestamp - msg.store_timestamp) / 1000:g} s later), where consumers see it.")
    text = (
        f"A producer asked for delay level {level}. The broker does not hold the message in memory: it writes it "
        f"to the commitlog at once, but under the system topic {SCHEDULE_TOPIC}, queue {unit.queue_id} "
        f"(level - 1), with the real destination kept in the properties REAL_TOPIC={real_topic} and "
        f"REAL_QID={real_qid}. Its consume-queue unit is the interesting part: the tag code is not a tag hash but "
        f"the delivery time, {unit.tags_code} = store time {msg.store_timestamp} + {delay_ms} ms "
        f"({_utc(unit.tags_code)}). A scheduler reads each level's queue in order and delivers what is due."
        f"{delivered}"
    )
    return text, target, extra, (ctx.cmd("messages", "--topic", SCHEDULE_TOPIC, "--queue", str(unit.queue_id)),
                                 ctx.cmd("show", str(msg.physical_offset)))


def _transaction(ctx: _Context):
    store = ctx.store
    if (HALF_TOPIC, 0) not in store.queue_ids():
        raise Missing(f"This store has no {HALF_TOPIC} queue: no transactional message was sent.")
    halves = [(u, m) for u, m in _first_units(store, HALF_TOPIC, SEARCH_HALVES) if isinstance(m, Message)]
    ops: list[Message] = []
    if (OP_TOPIC, 0) in store.queue_ids():
        ops = [m for u, m in _first_units(store, OP_TOPIC, SEARCH_UNITS) if isinstance(m, Message)]
    ctx.budget.check(f"reading {HALF_TOPIC}")
    chosen = None
    for unit, half in halves:
        ctx.budget.check("looking up commit records")
        real = half.properties.get("REAL_TOPIC")
        commit = None
        if real and half.unique_key:
            for hit in store.lookup_key(real, half.unique_key):
                m = hit.message
                if m.transaction == "COMMIT" and m.prepared_transaction_offset == half.physical_offset:
                    commit = m
                    break
        op = next((o for o in ops if str(unit.queue_offset) in o.body.decode("utf-8", "replace").split(",")), None)
        if commit is not None:
            chosen = (unit, half, commit, op)
            break
        if chosen is None:
            chosen = (unit, half, None, op)
    if chosen is None:
        raise Missing(f"The {HALF_TOPIC} queue is empty.")
    unit, half, commit, op = chosen
    extra = [_record_hex(half, ("SYSFLAG", "TOPIC", "PROPERTIES"), "TOPIC",
                         f"the half message, parked in {HALF_TOPIC} (queue offset {unit.queue_offset})")]
    if op is not None:
        extra.append(_record_hex(op, ("TOPIC", "BODY"), "BODY",
                                 f"the op record: its body names the half by queue offset {unit.queue_offset}"))
    op_text = (f" Finally an op record in {OP_TOPIC} at {op.physical_offset}, tag 'd', with body "
               f"'{op.body.decode('utf-8', 'replace')}', marks the half as done: it names the half by its queue "
               f"offset ({unit.queue_offset}), not by its physical offset." if op is not None else "")
    if commit is not None:
        target = _record_hex(commit, ("SYSFLAG", "PREPARED TRANSACTION OFFSET"), "PREPARED TRANSACTION OFFSET",
                             f"the COMMIT record at {commit.physical_offset}")
        text = (
            f"A transactional message is written twice. First the half message: the broker stores it at "
            f"{half.physical_offset} under the system topic {HALF_TOPIC}, with the real topic in REAL_TOPIC, so "
            f"no consumer sees it yet. When the producer commits, the broker writes a new record into "
            f"{commit.topic} queue {commit.queue_id} at {commit.physical_offset}: its sysFlag says COMMIT "
            f"(0x{commit.sys_flag & cl.TRANSACTION_MASK:X}) and its PREPARED TRANSACTION OFFSET field is "
            f"{commit.prepared_transaction_offset}, the physical offset of the half.{op_text} A rolled-back "
            f"transaction has the half and the op record but no commit."
        )
        shown = commit
    else:
        target = _record_hex(half, ("SYSFLAG", "TOPIC", "PROPERTIES"), "TOPIC", f"the half message at {half.physical_offset}")
        extra = extra[1:]
        text = (
            f"This store has a transaction that was never committed. Its half message is at {half.physical_offset} "
            f"under the system topic {HALF_TOPIC}, with the real topic in REAL_TOPIC, so no consumer ever saw "
            f"it.{op_text} Had it been committed, a second record with sysFlag COMMIT and the half's physical "
            f"offset in its PREPARED TRANSACTION OFFSET field would sit in the real topic."
        )
        shown = half
    return text, target, extra, (ctx.cmd("messages", "--topic", HALF_TOPIC, "--queue", "0"),
                                 ctx.cmd("show", str(shown.physical_offset)))


def _first_units(store, topic: str, limit: int) -> list:
    """The first ``limit`` (unit, message or Problem) pairs of ``topic`` queue 0 that have a unit."""
    found = []
    for unit, msg in store.queue_messages(topic, 0):
        if unit is not None:
            found.append((unit, msg))
            if len(found) >= limit:
                break
    return found


def _torn_tail(ctx: _Context):
    store = ctx.store
    if not store.segments:
        raise Missing("The commitlog has no segment.")
    r = ctx.recovery()
    torn = r.stop_problem is not None
    if torn:
        p = r.stop_problem
        seg = next((s for s in store.segments if s.file == p.file), store.segments[-1])
        bad = seg.start_offset + p.offset
        start = r.last_record_offset if r.last_record_offset is not None and r.last_record_offset >= seg.start_offset \
            else max(seg.start_offset, bad - HEX_CONTEXT)
        end = min(seg.end_offset, bad + 64)
        spans = [Span(bad, end, f"rejected: {p.reason}")]
        if r.last_record_offset is not None and r.last_record_offset >= seg.start_offset:
            spans.insert(0, Span(r.last_record_offset, bad, "last good record"))
        target = RecoveryTarget(r.mode, r.start_segment, r.end_offset, r.last_record_offset, r.reason, True,
                                p.file, bad, seg.file, start, end, tuple(spans), "where recovery stops")
        text = (
            f"This store has a torn tail. When a broker restarts it does not trust the log blindly: "
            f"{_mode_text(r.mode)} it walks the records from {r.start_segment}, checking each one's magic code, "
            f"length and body CRC. The last good record starts at {r.last_record_offset}; the bytes at {bad} "
            f"fail ({p.reason}). So the log ends at {r.end_offset}: the broker would set its write position there "
            f"and overwrite the torn bytes with new messages. A torn tail is what a crash leaves when a record "
            f"was only partly written to disk."
        )
    else:
        last = store.message_at(r.last_record_offset) if r.last_record_offset is not None else None
        seg = store.commitlog.segment_for(last.physical_offset) if last else store.segments[-1]
        start = last.physical_offset if last else seg.start_offset
        end = min(seg.end_offset, r.end_offset + HEX_CONTEXT)
        spans = []
        if last is not None:
            spans.append(Span(last.physical_offset, last.end_offset, "last record"))
        if end > r.end_offset:
            spans.append(Span(r.end_offset, end, "zeros: end of the log"))
        target = RecoveryTarget(r.mode, r.start_segment, r.end_offset, r.last_record_offset, r.reason, False,
                                None, None, seg.file, start, end, tuple(spans), "where recovery finds the end")
        text = (
            f"When a broker restarts it must find where the log really ends, because the files are allocated in "
            f"advance and only partly written. {_mode_text(r.mode).capitalize()} it walks the records from "
            f"{r.start_segment}, checking each one's magic code, length and body CRC, and stops at the first one "
            f"that fails. In this store it stops at {r.end_offset}, right after the last record "
            f"({r.last_record_offset}), because only zeros follow: a clean end, no torn tail. A torn tail is what a "
            f"crash in the middle of a write leaves: a TOTALSIZE and magic code that look right but a record cut "
            f"short, followed by zeros or by bytes of an older record, or a body whose CRC does not match. "
            f"Recovery would end the log just before it and later messages would overwrite it; the stale bytes "
            f"stay on disk until then, which is why a reader must not trust bytes past the end."
        )
    return text, target, (), (ctx.cmd("info"), ctx.cmd("verify"))


def _mode_text(mode: str) -> str:
    if mode == "normal":
        return "since no abort file is left, this is a normal recovery:"
    return "since an abort file is left, this is an abnormal recovery, which starts from a segment the checkpoint vouches for:"


def _rebuild(ctx: _Context):
    store = ctx.store
    if not store.segments:
        raise Missing("The commitlog has no segment, so there is nothing to rebuild from.")
    r = ctx.recovery()
    infos = store.queue_infos()
    cq_units = sum(i.message_count for i in infos)
    readers = store.index_files()
    items = sum(rd.header.items_written for rd in readers)
    command = ctx.cmd("rebuild", "--out", "/tmp/rebuilt-store")
    target = RebuildTarget(store.min_offset, r.end_offset, len(infos), cq_units, len(readers), items, command,
                           "what rebuild reads and what it writes")
    text = (
        f"Only the commitlog is the truth; consume queues and index files are derived from it, the way a broker "
        f"builds them while it runs. Rebuild does that work again: it reads every record from offset "
        f"{store.min_offset} to the recovered end {r.end_offset}, and for each one it does what the broker's "
        f"dispatcher does. Every record gets a 20-byte unit in its queue unless its sysFlag marks it PREPARED or "
        f"ROLLBACK (a current broker's half message is an ordinary record of the half topic, so it gets one), "
        f"and every record except a rollback gets one index item for its unique key "
        f"and one for each of its keys, in hash-slot chains exactly as the broker links them. This store has "
        f"{len(infos)} queues with {_n(cq_units)} units and {len(readers)} index files with {_n(items)} items; a "
        f"rebuild writes the same into a new directory (or, with --in-place, swaps them in and keeps the old "
        f"ones as a backup). Use it when queues or index files are lost or damaged."
    )
    return text, target, (), (command, ctx.cmd("verify"))


__all__ = [
    "NOT_COMPUTED", "STEP_IDS", "ChainTarget", "CqTarget", "DirEntry", "DirectoryTarget", "HexTarget",
    "IdsTarget", "IndexHeaderTarget", "RebuildTarget", "RecoveryTarget", "Span", "Target", "TourStep",
    "step_view", "tour_steps",
]


def cursor_offset(target) -> int:
    """Where a hex view puts its cursor for a hex-like target: the focused field's start, else the target's start."""
    focus = getattr(target, "focus", None)
    if focus:
        for span in target.highlights:
            if span.label.endswith(focus):
                return span.start
    return target.start
