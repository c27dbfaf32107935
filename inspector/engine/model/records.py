"""Frozen dataclasses that cross the engine boundary (never construct Containers)."""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

from inspector.engine.model import meaning
from inspector.engine.model.clock import in_output_zone
from inspector.engine.model.crc import rocketmq_crc32
from inspector.engine.model.verdicts import VERDICTS
from parsers import commitlog as cl

T = TypeVar("T")


@dataclass(frozen=True)
class Host:
    ip: str
    port: int

    def __str__(self) -> str:
        return f"[{self.ip}]:{self.port}" if ":" in self.ip else f"{self.ip}:{self.port}"


@dataclass(frozen=True)
class Problem:
    """Something wrong in a store file: where (file relative to the store root, byte position in it) and why."""

    file: str
    offset: int
    reason: str
    code: str
    severity: str = "error"  # "error", "warning" or "info" (normal, e.g. retention's leftovers: never fails verify)
    # where in a file that has no byte offsets (a config file's entry, named whole: all its findings are at offset
    # 0 and the reason shows a key cut short): what tells two findings apart. Not in the outward views (the reason
    # names the entry); the report says one fact once by it (verify's finding_key)
    entry: str | None = None
    # the commitlog physical offset a finding about another file is about (a queue unit's or an index item's
    # target): where "open it" goes, and how a list groups findings under the log damage that caused them. Not
    # part of the fact (equality) nor of the outward views (the reason names it)
    points_at: int | None = field(default=None, compare=False)
    # the bytes from ``offset`` a damage finding spans (what a walk skipped), None when it names one place
    length: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        # one verdict per fact: the table decides a code's severity, whichever producer (census, a reader, verify,
        # preflight) made the finding (model/verdicts.py; BY_CONTEXT's codes keep the producer's)
        known = VERDICTS.get(self.code)
        if known is not None and known.severity != self.severity:
            object.__setattr__(self, "severity", known.severity)

    def __str__(self) -> str:
        return f"{self.file} @ {self.offset}: {self.reason}"


def listed_then_counted(items: Sequence[T], limit: int, one: Callable[[T], Problem],
                        rest: Callable[[int, T, T], Problem]) -> list[Problem]:
    """One finding per item up to ``limit`` (``one``), then, when there are more, ONE finding that counts them
    (``rest(how many, the first left out, the last)``, a code of its own ending in ``-more``): the cap every
    list of like findings keeps (a wheel of 1.2 million misplaced slots), said in the output, never silent."""
    found = [one(item) for item in items[:limit]]
    if len(items) > limit:
        found.append(rest(len(items) - limit, items[limit], items[-1]))
    return found


@dataclass(frozen=True)
class Segment:
    """One commitlog segment file."""

    name: str
    file: str  # path relative to the store root
    start_offset: int
    file_size: int
    entry_header: int = 0  # 48 for a DLedger data file: each record follows an entry header (spec part 2 §16)

    @property
    def end_offset(self) -> int:
        return self.start_offset + self.file_size


@dataclass(frozen=True)
class Blank:
    """The BLANK end-of-segment record."""

    file: str
    position: int
    physical_offset: int
    total_size: int


@dataclass(frozen=True)
class MoreAfterLimit:
    """A listing stopped at its limit with more to give: where the next message is (to continue with ``--from``)."""

    limit: int
    physical_offset: int
    queue_offset: int


class _RawProperties:
    """``Message.properties_entries`` / ``properties_terminated`` of a message decoded with its properties raw.

    A non-data descriptor: a Message built by its constructor holds both fields in its ``__dict__`` (which
    wins over this descriptor); one built by ``decode.new_message`` holds the raw properties text under
    :data:`RAW_PROPERTIES` instead, split here the first time either field is read (most bulk readers never
    look at the properties: splitting them was most of the cost of a Message). Equality, hashing, ``repr``
    and ``dataclasses`` helpers read the fields as attributes, so they see the same values either way.
    """

    def __init__(self, name: str, default):
        self.name = name
        self.default = default

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.default
        d = obj.__dict__
        props = cl.Properties.from_text(d.pop(RAW_PROPERTIES, ""))
        d["properties_entries"] = tuple(props.entries)
        d["properties_terminated"] = props.terminated
        return d[self.name]


RAW_PROPERTIES = "_properties_raw"  # instance key of the unsplit properties text (see _RawProperties)


@dataclass(frozen=True)
class Message:
    """One decoded commitlog message record.

    ``physical_offset`` is where the record is (segment start + position);
    ``stored_physical_offset`` is field 7 as written, which a sane record matches.
    """

    file: str
    position: int
    physical_offset: int
    total_size: int
    magic_code: int
    body_crc: int
    queue_id: int
    flag: int
    queue_offset: int
    stored_physical_offset: int
    sys_flag: int
    born_timestamp: int
    born_host: Host
    store_timestamp: int
    store_host: Host
    reconsume_times: int
    prepared_transaction_offset: int
    body: bytes
    topic: str
    properties_entries: tuple[tuple[str, str | None], ...] = ()
    properties_terminated: bool = True
    raft_index: int | None = None  # a DLedger store: the record's entry's Raft index and term (spec part 2 §16)
    raft_term: int | None = None

    @cached_property
    def properties(self) -> dict[str, str]:
        raw = self.__dict__.get(RAW_PROPERTIES)
        if raw is not None:  # still unsplit: the map straight from the text (entries stay unsplit)
            return meaning.properties_map(raw)
        return cl.Properties(list(self.properties_entries), self.properties_terminated).as_map()

    @property
    def properties_text(self) -> str:
        """The properties as stored (``Properties.to_text`` of the entries; the raw text when still unsplit)."""
        raw = self.__dict__.get(RAW_PROPERTIES)
        if raw is not None:
            return raw
        return cl.Properties(list(self.properties_entries), self.properties_terminated).to_text()

    @property
    def magic_version(self) -> int:
        return meaning.magic_version(self.magic_code)

    @property
    def tags(self) -> str | None:
        return meaning.tags_of(self.properties)

    @property
    def keys(self) -> list[str]:
        """KEYS split on single spaces, empty pieces dropped (``IndexService.buildIndex``)."""
        return meaning.keys_of(self.properties)

    @property
    def unique_key(self) -> str | None:
        return meaning.unique_key_of(self.properties)

    @cached_property
    def body_crc_ok(self) -> bool:
        return rocketmq_crc32(self.body) == self.body_crc

    @property
    def msg_id(self) -> str:
        """The offset msgId: store host + physical offset, upper-case hex."""
        return meaning.offset_msg_id(self.store_host.ip, self.store_host.port, self.stored_physical_offset)

    @property
    def transaction(self) -> str:
        return meaning.transaction_name(self.sys_flag)

    @property
    def compressed(self) -> bool:
        return meaning.is_compressed(self.sys_flag)

    @property
    def compression(self) -> str | None:
        return meaning.compression_name(self.sys_flag)

    @property
    def end_offset(self) -> int:
        return self.physical_offset + self.total_size


# after @dataclass: the constructor keeps its defaults, instances without the fields split the raw text
Message.properties_entries = _RawProperties("properties_entries", ())  # type: ignore[assignment]
Message.properties_terminated = _RawProperties("properties_terminated", True)  # type: ignore[assignment]


@dataclass(frozen=True)
class InnerMessage(Message):
    """One message of an inner-batch record (spec §2.10), as the consumer unwraps it
    (``MessageDecoder.decodeMessage``): the batch record's topic, queue, hosts, timestamps, sysFlag, file and
    physical offset; its own flag, body and properties (so tags, keys, unique key); queue offset = the
    record's base + ``inner_index``. ``body_crc`` is the item's stored CRC field (written as 0);
    ``body_crc_ok`` is the batch record's body CRC check. ``item_position``: where the item starts inside the
    record's (decompressed) body."""

    inner_index: int = 0
    inner_count: int = 1
    base_queue_offset: int = 0
    item_position: int = 0
    record_body_crc_ok: bool = True

    @property  # type: ignore[override]
    def body_crc_ok(self) -> bool:
        return self.record_body_crc_ok


@dataclass(frozen=True)
class LmqMessage(Message):
    """A record as read through an LMQ queue it was multi-dispatched to (spec part 2 §17): ``queue_id`` and
    ``queue_offset`` are the LMQ queue's (0 and the record's ``INNER_MULTI_QUEUE_OFFSET`` at the position of
    ``lmq_queue`` in ``INNER_MULTI_DISPATCH``); the record's own topic is kept, and its own queue id and queue
    offset are in ``record_queue_id`` / ``record_queue_offset``."""

    lmq_queue: str = ""
    record_queue_id: int = 0
    record_queue_offset: int = 0


@dataclass(frozen=True)
class CqUnit:
    """One consume-queue unit, with where it sits."""

    topic: str
    queue_id: int
    queue_offset: int
    physical_offset: int
    size: int
    tags_code: int
    file: str
    position: int

    @property
    def is_pre_blank(self) -> bool:
        return self.physical_offset == 0 and self.size == 0x7FFFFFFF and self.tags_code == 0


@dataclass(frozen=True)
class BatchUnit(CqUnit):
    """One 46-byte batch consume-queue unit (spec §4.3), with where it sits. ``queue_offset`` is the message
    offset a row stands for: ``msg_base_offset`` for the unit itself, base + i for its i-th inner message."""

    store_timestamp: int
    msg_base_offset: int
    batch_size: int
    compacted_offset: int
    reserved: int

    @property
    def is_pre_blank(self) -> bool:
        return False  # a batch consume queue has no pre-blank units


QUEUE_KIND_CQ = "consumequeue"
QUEUE_KIND_BATCH = "batchconsumequeue"


@dataclass(frozen=True)
class QueueInfo:
    topic: str
    queue_id: int
    min_offset: int  # first real (non pre-blank) unit
    max_offset: int  # exclusive: next queue offset to be written
    files: tuple[str, ...]
    max_physical_end: int  # phyOffset + size of the last unit (0 when empty)
    kind: str = QUEUE_KIND_CQ  # the directory it is read from: consumequeue or batchconsumequeue
    units: int | None = None  # batch queues: how many 46-byte units (records) hold the messages

    @property
    def message_count(self) -> int:
        return self.max_offset - self.min_offset


@dataclass(frozen=True)
class IndexHeaderInfo:
    begin_timestamp: int
    end_timestamp: int
    begin_phy_offset: int
    end_phy_offset: int
    hash_slot_count: int
    index_count: int

    @property
    def items_written(self) -> int:
        return max(self.index_count, 1) - 1


@dataclass(frozen=True)
class IndexFileInfo:
    name: str
    file: str
    file_size: int
    slot_count: int
    item_count: int
    header: IndexHeaderInfo


@dataclass(frozen=True)
class IndexItem:
    number: int
    key_hash: int
    phy_offset: int
    time_diff: int
    prev_index: int

    def time_ms(self, begin_timestamp: int) -> int:
        return begin_timestamp + self.time_diff * 1000


@dataclass(frozen=True)
class ChainStep:
    """One item visited while walking a slot's chain."""

    item: IndexItem
    time_ms: int
    hash_matches: bool
    key_matches: bool | None  # None: message unreadable
    in_time_range: bool


@dataclass(frozen=True)
class ChainWalk:
    """The walk of one index file for one key."""

    file: str
    key: str
    key_hash: int
    slot: int
    slot_position: int
    slot_value: int
    steps: tuple[ChainStep, ...]
    stop_reason: str
    skipped_reason: str | None = None  # set when the file was not searched (time window)
    note: str | None = None  # set when the file was walked whole, whatever the time window: its header range is wrong


@dataclass(frozen=True)
class CheckpointInfo:
    file: str
    file_size: int
    physic_msg_timestamp: int
    logics_msg_timestamp: int
    index_msg_timestamp: int
    master_flushed_offset: int
    confirm_phy_offset: int


@dataclass(frozen=True)
class KeyHit:
    message: Message
    index_file: str
    item_number: int
    matched_by: str  # "key" or "unique_key"
    note: str | None = None  # found by scanning the commitlog because the index file could not be trusted


@dataclass(frozen=True)
class IdReading:
    """One reading of a 32/56-hex id."""

    kind: str  # "offset_msg_id" or "unique_key"
    fields: dict = field(default_factory=dict)
    found: bool | None = None  # None when no store was given
    physical_offset: int | None = None
    note: str | None = None  # how it was found when no index file led there ("found by scan: no index covers ...")


def fmt_time(ms: int) -> str:
    """Epoch ms as an ISO string in the output zone (``clock``: local, or UTC under ``--utc``), its offset always
    written (``2026-11-28T02:10:00.123+08:00``, ``...+00:00``): every shown time says its zone. Display only; the
    one formatter (the TUI's ``when`` and the tables' ``when`` cut it, keeping the offset)."""
    if ms <= 0:
        return "-"
    try:
        moment = dt.datetime.fromtimestamp(ms // 1000, dt.UTC) + dt.timedelta(milliseconds=ms % 1000)
        return in_output_zone(moment).isoformat(timespec="milliseconds")
    except (OverflowError, OSError, ValueError):
        return f"invalid({ms})"


_CUT = {"ms": 23, "s": 19, "min": 16}


def short_time(ms: int | None, unit: str = "ms") -> str:
    """A table's compact ``fmt_time``: '2026-11-28 02:10:00.123 +08:00' (``unit`` "s" or "min": cut there), the
    offset kept, so a cell says its zone ('-' for none; 'invalid(...)' as fmt_time)."""
    if ms is None or ms <= 0:
        return "-"
    full = fmt_time(ms)
    if full.startswith("invalid"):
        return full
    return f"{full[:_CUT[unit]].replace('T', ' ')} {full[-6:]}"


def window_text(since: int | None, until: int | None) -> str:
    """A store-time window in words: 'at or after 2025-09-19 13:48:09.632 +00:00 and before ...' (a side None:
    open)."""
    parts = ([] if since is None else [f"at or after {short_time(since)}"]) + (
        [] if until is None else [f"before {short_time(until)}"])
    return " and ".join(parts) or "unbounded"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
