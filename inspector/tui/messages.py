"""Messages the thread workers post back to the UI (plain dataclasses; workers never touch widgets)."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.message import Message

from inspector.engine import ChainWalk, IdReading, Problem, Region, Segment, SegmentScan, Story


@dataclass
class OverviewLoaded(Message):
    """Everything the overview shows that needs no walk of the commitlog."""

    data: object  # inspector.tui.screens.overview.OverviewData


@dataclass
class QueuesListed(Message):
    """Progress of the overview's listing of queue ends: ``done`` of ``total`` queues."""

    done: int
    total: int


@dataclass
class SegmentScanned(Message):
    """One commitlog segment walked (``complete`` False when the walk was cancelled part way)."""

    index: int
    scan: SegmentScan
    complete: bool = True


@dataclass
class ScanProgress(Message):
    """Progress of a long walk: ``done`` of ``total`` (bytes, items...), with what is being done."""

    task: str
    label: str
    done: int
    total: int
    finished: bool = False


@dataclass
class RegionsReady(Message):
    """The engine's regions for a window of one segment (or why they could not be read)."""

    segment_start: int
    start: int
    end: int
    regions: tuple[Region, ...]
    error: str | None = None
    segment: Segment | None = None  # the segment the window lies in (None with an error)
    zero_fills: tuple[tuple[int, int], ...] = ()  # all-zero runs after BLANK records, to fold


@dataclass
class JumpTo(Message):
    """Move the hex cursor here (found by a worker: next/previous message...)."""

    offset: int


@dataclass
class RowsFound(Message):
    """A batch of message offsets for the message browser (``generation`` tells stale scans apart)."""

    generation: int
    offsets: list[int]
    done: int
    total: int
    finished: bool = False
    cancelled: bool = False
    note: str = ""  # a partial or unusual answer said (a key lookup that scanned the log past an untrusted index file)


@dataclass
class ChainReady(Message):
    topic: str
    key: str
    walks: list[ChainWalk]
    java_hash: int
    keys_by_item: dict[tuple[str, int], str] = field(default_factory=dict)  # (file, item) -> key string it indexes
    answer: str | None = None  # no message has the key: the CLI key's not-found line ("expired: ..." or "no ...")


@dataclass
class SlotReady(Message):
    file: str
    slot: int
    chain: object  # inspector.engine.read.index.slots.SlotChain
    begin_timestamp: int
    keys_by_item: dict[int, str] = field(default_factory=dict)


@dataclass
class BusiestReady(Message):
    file: str
    slots: list[tuple[int, int]]


@dataclass
class IdResolved(Message):
    text: str
    readings: list[IdReading]
    store_hosts: list[str]
    approx_time: int | None
    approx_basis: str


@dataclass
class VerifyDone(Message):
    problems: tuple[Problem, ...] | None  # None when cancelled
    messages: int = 0
    cq_units: int = 0
    index_items: int = 0


@dataclass
class WorkerFailed(Message):
    """A worker hit an error it could not show by itself."""

    what: str
    error: str


@dataclass
class StoryTold(Message):
    """The story of one message, read (``generation``: which question it answers; an older one is dropped)."""

    story: Story
    generation: int


@dataclass
class SearchFound(Message):
    """A batch of the search screen's hits as they come (``generation``: which search; an older one is dropped):
    ``hits`` (GrepHits), the ``problems`` met, ``done`` of ``total`` bytes; with ``finished`` the engine's
    ``end`` (a GrepEnd: how far, and why it stopped early) or, for an index lookup, its ``note``."""

    generation: int
    hits: list = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    done: int = 0
    total: int = 1
    finished: bool = False
    end: object = None  # inspector.engine.GrepEnd
    note: str = ""


@dataclass
class StoreReloaded(Message):
    """The store opened again (the reload key): the new ``store`` (None when opening failed: ``summary`` says
    why) and what changed, in one line."""

    store: object
    summary: str
    shape: object = None  # the new store's StoreShape (the next reload compares with it)


@dataclass
class FollowedMessages(Message):
    """Follow mode: the complete messages (matching the list's filters) the broker wrote since the last poll,
    where the follower is, and a note (damage met past them; a record still being written is none)."""

    generation: int
    messages: list
    position: int
    note: str = ""
