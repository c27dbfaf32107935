"""The tour's step model and its views: what a step points at (a hex window, a consume-queue unit, an index
chain, ...), the :class:`TourStep` itself, ``step_view`` (a step as JSON-ready data) and ``cursor_offset``.

Plain frozen dataclasses that render nothing; every front end draws them its own way.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from inspector.engine.model.records import Message
from inspector.engine.present.layout import message_fields

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


def _field_spans(msg: Message, names: tuple[str, ...] | None = None) -> tuple[Span, ...]:
    spans = []
    for f in message_fields(msg):
        if names is None or f.name in names:
            spans.append(Span(f.start, f.end, f"{f.number} {f.name}"))
    return tuple(spans)


def record_hex(msg: Message, names: tuple[str, ...] | None, focus: str | None, caption: str) -> HexTarget:
    return HexTarget(msg.file, msg.physical_offset, msg.end_offset, _field_spans(msg, names), focus, caption)


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


def cursor_offset(target) -> int:
    """Where a hex view puts its cursor for a hex-like target: the focused field's start, else the target's start."""
    focus = getattr(target, "focus", None)
    if focus:
        for span in target.highlights:
            if span.label.endswith(focus):
                return span.start
    return target.start
