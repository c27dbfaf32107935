"""A consumer group's view: where it stands on each queue it has an offset for.

The offsets are the ones the broker uses (``read/config/offsets.py`` chooses the source as ``BrokerController``
does); every other source present is read too, and a queue whose offset differs there names both. Each queue's
min offset is the effective one (``ConsumeQueue.correctMinOffset``: units below the log's first offset skipped,
``QueueInfo.min_offset``), so the lag is ``max - max(committed, min)``: a committed offset below the min is moved
to it by the broker (``DefaultMessageStore.getMessage`` answers ``OFFSET_TOO_SMALL`` with ``nextBeginOffset`` =
the min, ``nextOffsetCorrection``, 4.9.8 and 5.3.1), which the answer says rather than counting expired messages.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from inspector.engine.model.errors import NotFound, StoreError
from inspector.engine.model.files import refusal
from inspector.engine.model.records import Message, Problem, QueueInfo
from inspector.engine.model.systopics import DLQ_PREFIX, RETRY_PREFIX
from inspector.engine.read.config.offsets import ConsumerOffsets, OffsetPlaces, read_source, sources_present
from inspector.engine.read.config.rocksdb_config import Offsets
from inspector.engine.read.groups.subscriptions import SubscriptionGroups, load_subscription_groups
from inspector.engine.read.queues.collector import built as _built  # 16,000 GroupQueues, 32,000 QueueMessages
from inspector.engine.read.queues.consumequeue import ConsumeQueue
from inspector.engine.read.queues.cq_bulk import QueueEnds
from parsers.consumequeue import CQ_UNIT_SIZE

_UNIT = struct.Struct(">qiq")  # a consume-queue unit: phyOffset, size, tagsCode (spec §4)
DEFAULT_PENDING = 20  # messages after the committed offsets listed when no limit is given
_new, _set = object.__new__, object.__setattr__
_ASK = object()  # group_queue's info not given: asked of the queue access
CORRECTED = ("below the queue's min offset {min}: will be corrected by the broker to {min} (DefaultMessageStore."
             "getMessage: OFFSET_TOO_SMALL, nextOffsetCorrection; 4.9.8 and 5.3.1)")


@dataclass(frozen=True)
class SourceOffset:
    """One source's committed offset for a queue (``source``: a path under the store root)."""

    source: str
    offset: int


@dataclass(frozen=True)
class QueueMessage:
    """The message at ``queue_offset`` of a queue: where its unit points (``physical_offset``) and its store time,
    the decoded ``message`` when it was read whole (pending messages; the per-queue sides are read light: their
    unit and store time, ``rmq-inspect show OFFSET`` gives the rest), or why it could not be read (``problem``)."""

    topic: str
    queue_id: int
    queue_offset: int
    physical_offset: int | None = None
    store_timestamp: int | None = None
    message: Message | None = None
    problem: str | None = None


@dataclass(frozen=True)
class GroupQueue:
    """One queue of a group: its committed offset (from ``source``), the queue's effective min and max (None: no
    such queue in the store), the lag, and the messages either side of the committed offset."""

    topic: str
    queue_id: int
    committed: int
    source: str
    others: tuple[SourceOffset, ...] = ()  # other sources holding a different offset for this queue
    min_offset: int | None = None
    max_offset: int | None = None
    lag: int | None = None
    note: str | None = None  # below the min (corrected), past the max, no such queue
    last_consumed: QueueMessage | None = None
    first_unconsumed: QueueMessage | None = None

    @property
    def corrected(self) -> bool:
        """The committed offset is below the queue's effective min: the broker will move it to the min."""
        return self.min_offset is not None and 0 <= self.committed < self.min_offset


@dataclass(frozen=True)
class TopicCount:
    """A group's retry or DLQ topic: its queues and the messages they hold (effective min to max)."""

    topic: str
    queues: int
    messages: int


@dataclass(frozen=True)
class GroupSummary:
    """One line of ``groups``: a group, its topics, queues, total lag and retry/DLQ counts."""

    group: str
    topics: tuple[str, ...]
    queues: int
    lag: int
    retry: TopicCount | None
    dlq: TopicCount | None
    configured: bool  # the subscription-group config names it
    sources: tuple[str, ...]  # the offset sources that name it
    corrected: int = 0  # queues whose committed offset the broker will correct


@dataclass
class GroupView:
    """Everything ``group STORE GROUP`` answers. ``pending``: the messages after the committed offsets, queue by
    queue, at most ``limit``; ``pending_total`` how many there are (the lag), so a cut list says how many more."""

    group: str
    source: str
    reason: str
    config: dict | None
    config_source: str
    topics: tuple[str, ...]
    queues: list[GroupQueue]
    retry: TopicCount | None
    dlq: TopicCount | None
    pending: list[QueueMessage]
    limit: int
    pending_total: int
    problems: list[Problem] = field(default_factory=list)

    @property
    def lag(self) -> int:
        return sum(q.lag or 0 for q in self.queues)

    @property
    def more_pending(self) -> int:
        """Pending messages not listed because of the limit (0: the list is whole)."""
        return max(0, self.pending_total - len(self.pending))


@dataclass(frozen=True)
class QueueAccess:
    """What the view reads of the queues (the Store hands its own): a queue's info (NotFound: no such queue), the
    message at a queue offset, the (topic, queue id) pairs present, the units at some queue offsets of a queue
    (queue offset -> physical offset, or the StoreError that offset met), a record's store time, many queues'
    infos found at once (kept for ``info``; with the units at the offsets ``peek`` names for each) and many
    records' store times at once (offset -> time, or the StoreError ``stored_at`` raises there)."""

    info: Callable[[str, int], QueueInfo]
    message: Callable[[str, int, int], Message]
    queue_ids: Callable[[], list[tuple[str, int]]]
    units: Callable[[str, int, list[int]], dict[int, int | StoreError]]
    stored_at: Callable[[int], int]
    prefetch: Callable[[list[tuple[str, int]], Callable[[QueueInfo], Sequence[int]] | None], QueueEnds] = \
        lambda ids, peek=None: QueueEnds()
    stored_at_many: Callable[[Sequence[int]], dict[int, int | StoreError]] = lambda offsets: {}


@dataclass
class GroupSources:
    """Every group's offsets: the source the broker uses and each other source present (a table, or why it could
    not be read), with the subscription groups."""

    chosen: ConsumerOffsets
    others: dict[str, Offsets]
    subscriptions: SubscriptionGroups
    problems: list[Problem] = field(default_factory=list)

    def groups(self) -> list[str]:
        names = {g for _, g in self.chosen.table} | set(self.subscriptions.table)
        for table in self.others.values():
            names |= {g for _, g in table}
        return sorted(names)

    def entries(self, group: str) -> list[tuple[str, int, int]]:
        """(topic, queue id, offset) of ``group`` in the chosen source, in topic and queue order."""
        return [(t, q, o) for (t, g), queues in sorted(self.chosen.table.items()) if g == group
                for q, o in sorted(queues.items())]

    def named_by(self, group: str) -> tuple[str, ...]:
        found = [self.chosen.source] if any(g == group for _, g in self.chosen.table) else []
        return (*found, *(s for s, table in self.others.items() if any(g == group for _, g in table)))


def units_at(queue, offsets: list[int]) -> dict[int, int | StoreError]:
    """Queue offset -> the physical offset its unit points at (or the StoreError met there). A file-backed
    consume queue is read with one ``pread`` a file (no mapping: a mapped page per queue file of 16,000 stays
    resident, and mapping costs more than the read); the other kinds (RocksDB, batch) through ``unit``."""
    found: dict[int, int | StoreError] = {}
    if not isinstance(queue, ConsumeQueue):
        for offset in offsets:
            try:
                found[offset] = queue.unit(offset).physical_offset
            except StoreError as e:
                found[offset] = e
        return found
    by_file: dict[int, list[int]] = {}
    for offset in offsets:
        byte = offset * CQ_UNIT_SIZE
        by_file.setdefault(byte // queue.file_size * queue.file_size, []).append(offset)
    base = os.path.join(queue.root, queue.rel_dir)
    for start, wanted in by_file.items():
        rel = f"{queue.rel_dir}/{start:020d}"
        first = wanted[0] * CQ_UNIT_SIZE - start
        try:
            data = _pread_regular(os.path.join(base, f"{start:020d}"), first,
                                  (wanted[-1] - wanted[0] + 1) * CQ_UNIT_SIZE)
        except OSError as e:
            found.update({offset: StoreError(f"cannot read: {e.strerror or e}", rel) for offset in wanted})
            continue
        for offset in wanted:
            at = (offset - wanted[0]) * CQ_UNIT_SIZE
            unit = _UNIT.unpack_from(data, at) if at + CQ_UNIT_SIZE <= len(data) else (0, 0, 0)
            found[offset] = _unit_answer(offset, unit, rel, start)
    return found


def _unit_answer(offset: int, unit: tuple[int, int, int], rel: str, start: int) -> int | StoreError:
    """What :func:`units_at` answers for the unit at queue ``offset`` of the file ``rel`` named ``start``."""
    phy, size, _ = unit
    return phy if phy >= 0 and size > 0 else StoreError(f"no unit at queue offset {offset}", rel,
                                                         offset * CQ_UNIT_SIZE - start)


def peeked_units(ends: QueueEnds) -> dict[tuple[str, int], dict[int, int | StoreError]]:
    """The units a prefetch handed back, as :func:`units_at` answers them (:func:`_unit_answer`'s test inline:
    32,000 units of a 16,000-queue group)."""
    found = {}
    files = ends.files
    for key, units in ends.units.items():
        found[key] = answers = {}
        for offset, unit in units.items():
            answers[offset] = unit[0] if unit[0] >= 0 and unit[1] > 0 else _unit_answer(offset, unit, *files[key])
    return found


def _pread_regular(path: str, position: int, length: int) -> bytes:
    """``length`` bytes at ``position`` of a regular file: one open (NONBLOCK: a FIFO put there must not hang
    us), a stat, one ``pread``. OSError for anything else (its ``strerror`` says why)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        why = refusal(os.fstat(fd))
        if why is not None:
            raise OSError(0, why)
        return os.pread(fd, length, position)
    finally:
        os.close(fd)


def load_sources(places: OffsetPlaces, chosen: ConsumerOffsets) -> GroupSources:
    """The chosen offsets (StoreError when that source cannot be read: exit 3), every other source present and
    the subscription groups."""
    if chosen.error is not None:
        raise chosen.error
    others: dict[str, Offsets] = {}
    problems = list(chosen.problems)  # disagreements, a source named but missing, damaged entries
    for source in sources_present(places):
        if source == chosen.source:
            continue
        try:
            others[source] = read_source(places, source)[0]
        except StoreError:
            continue  # chosen.problems already names it (unreadable-offsets, not the source used)
    subscriptions = load_subscription_groups(places)
    problems += subscriptions.problems
    problems += [p for p in places.config.findings() if p.file is not None
                 and p.file.startswith(("config/subscriptionGroup.json", "config/consumerOffset.json",
                                        "config/lmqConsumerOffset.json"))
                 and p not in problems]
    return GroupSources(chosen, others, subscriptions, problems)


def _info(access: QueueAccess, topic: str, queue_id: int) -> QueueInfo | None:
    try:
        return access.info(topic, queue_id)
    except NotFound:
        return None


def _lag(committed: int, info: QueueInfo | None) -> int | None:
    # from the effective min: below it the broker moves the consumer to the min (see the module docstring)
    return None if info is None else max(0, info.max_offset - max(committed, info.min_offset))


def _message(access: QueueAccess, topic: str, queue_id: int, offset: int) -> QueueMessage:
    """The message at ``offset`` read whole (a pending one)."""
    try:
        m = access.message(topic, queue_id, offset)
    except StoreError as e:
        return QueueMessage(topic, queue_id, offset, problem=str(e))
    return QueueMessage(topic, queue_id, offset, m.physical_offset, m.store_timestamp, m)


def _sides(access: QueueAccess, topic: str, queue_id: int, offsets: list[int],
           known: dict[int, int | StoreError] | None = None,
           times: dict[int, int | StoreError] | None = None) -> dict[int, QueueMessage]:
    """The messages at ``offsets`` read light: the unit's physical offset and the record's store time, two small
    reads each (the units from ``known``, the times from ``times``, when a bulk read found them). A group on
    16,000 queues has 32,000 of them; read whole they cost ~2 s (issue 30: < 1 s)."""
    found = {}
    if known is not None and times is not None:  # the usual case: every unit and time found by the bulk reads
        for offset in offsets:
            phy = known.get(offset)
            stamp = times.get(phy) if type(phy) is int else None
            if type(stamp) is not int:
                found = {}
                break  # the general way below
            found[offset] = made = _new(QueueMessage)  # collector.built, inline: 32,000 of them
            _set(made, "__dict__", {"topic": topic, "queue_id": queue_id, "queue_offset": offset,
                                    "physical_offset": phy, "store_timestamp": stamp, "message": None,
                                    "problem": None})
        else:
            return found
    try:
        units = {o: known[o] for o in offsets} if known is not None else None
    except KeyError:
        units = None  # an offset the bulk read did not find: the queue's own read
    if units is None:
        units = access.units(topic, queue_id, offsets)
    for offset, phy in units.items():
        stamp = times.get(phy) if times is not None and type(phy) is int else None
        if type(stamp) is int:  # the usual case first: the unit and its record's time found by the bulk reads
            found[offset] = made = _new(QueueMessage)  # collector.built, inline: 32,000 of them
            _set(made, "__dict__", {"topic": topic, "queue_id": queue_id, "queue_offset": offset,
                                    "physical_offset": phy, "store_timestamp": stamp, "message": None,
                                    "problem": None})
            continue
        if isinstance(phy, StoreError):
            found[offset] = QueueMessage(topic, queue_id, offset, problem=str(phy))
            continue
        if stamp is None:
            try:
                stamp = access.stored_at(phy)
            except StoreError as e:
                stamp = e
        found[offset] = (QueueMessage(topic, queue_id, offset, phy, problem=str(stamp))
                         if isinstance(stamp, StoreError) else
                         _built(QueueMessage, topic=topic, queue_id=queue_id, queue_offset=offset, physical_offset=phy,
                                store_timestamp=stamp, message=None, problem=None))
    return found


def _note(committed: int, info: QueueInfo | None) -> str | None:
    if info is None:
        return "no such queue in the store: no lag"
    if 0 <= committed < info.min_offset:
        return CORRECTED.format(min=info.min_offset)
    if committed > info.max_offset:
        return f"past the queue's max offset {info.max_offset}: ahead of every message stored"
    if committed < 0:
        return "negative: not an offset the broker commits"
    return None


def _side_offsets(committed: int, info: QueueInfo) -> list[int]:
    """The queue offsets of the last consumed and first unconsumed message that the queue holds, ascending."""
    low, high = info.min_offset, info.max_offset
    start = committed if committed > low else low
    before = committed - 1
    if before == start or not low <= before < high:
        return [start] if low <= start < high else []
    return [before, start] if low <= start < high else [before]


def group_queue(sources: GroupSources, access: QueueAccess, group: str, topic: str, queue_id: int,
                committed: int, *, messages: bool = True, known: dict[int, int | StoreError] | None = None,
                times: dict[int, int | StoreError] | None = None, info: QueueInfo | None | object = _ASK
                ) -> GroupQueue:
    """One queue of ``group``; ``messages``: also read the last consumed and first unconsumed message (their
    units from ``known``, their store times from ``times`` when a bulk read found them); ``info``: the queue's
    info when a bulk read found it (else asked of ``access``)."""
    if info is _ASK:
        info = _info(access, topic, queue_id)
    others = tuple(SourceOffset(s, table[(topic, group)][queue_id]) for s, table in sources.others.items()
                   if queue_id in table.get((topic, group), {}) and table[(topic, group)][queue_id] != committed
                   ) if sources.others else ()
    last = first = None
    if info is not None and messages:
        wanted = _side_offsets(committed, info)
        sides = _sides(access, topic, queue_id, wanted, known, times) if wanted else {}
        last, first = sides.get(committed - 1), sides.get(max(committed, info.min_offset))
    made = _new(GroupQueue)  # collector.built, inline: 16,000 of them
    _set(made, "__dict__", {"topic": topic, "queue_id": queue_id, "committed": committed,
                            "source": sources.chosen.source, "others": others,
                            "min_offset": None if info is None else info.min_offset,
                            "max_offset": None if info is None else info.max_offset, "lag": _lag(committed, info),
                            "note": _note(committed, info), "last_consumed": last, "first_unconsumed": first})
    return made


def _topic_count(access: QueueAccess, topic: str, ids: dict[str, list[int]]) -> TopicCount | None:
    queues = ids.get(topic)
    if not queues:
        return None
    infos = [i for i in (_info(access, topic, q) for q in queues) if i is not None]
    return TopicCount(topic, len(infos), sum(i.message_count for i in infos))


def _queue_ids_by_topic(access: QueueAccess) -> dict[str, list[int]]:
    ids: dict[str, list[int]] = {}
    for topic, queue_id in access.queue_ids():
        if topic.startswith((RETRY_PREFIX, DLQ_PREFIX)):
            ids.setdefault(topic, []).append(queue_id)
    return ids


def groups_summary(sources: GroupSources, access: QueueAccess) -> list[GroupSummary]:
    """Every group the store knows, by name: from any offsets source or the subscription-group config."""
    ids = _queue_ids_by_topic(access)
    by_group: dict[str, list[tuple[str, int, int]]] = {}
    for (topic, group), queues in sources.chosen.table.items():
        by_group.setdefault(group, []).extend((topic, q, o) for q, o in queues.items())
    # every queue this reads the ends of, found in one pass (thousands of queues: issue 30)
    access.prefetch(sorted({(t, q) for entries in by_group.values() for t, q, _ in entries}
                           | {(t, q) for t, queues in ids.items() for q in queues}), None)
    found = []
    for group in sources.groups():
        entries = by_group.get(group, [])
        lag = corrected = 0
        for topic, queue_id, committed in entries:
            info = _info(access, topic, queue_id)
            lag += _lag(committed, info) or 0
            corrected += info is not None and 0 <= committed < info.min_offset
        found.append(GroupSummary(group, tuple(sorted({t for t, _, _ in entries})), len(entries), lag,
                                  _topic_count(access, RETRY_PREFIX + group, ids),
                                  _topic_count(access, DLQ_PREFIX + group, ids),
                                  group in sources.subscriptions.table, sources.named_by(group), corrected))
    return found


def unknown_group(sources: GroupSources, group: str) -> NotFound:
    """NotFound for a group no source names, listing (some of) the groups that exist."""
    known = sources.groups()
    shown = ", ".join(known[:20]) + (f" and {len(known) - 20} more" if len(known) > 20 else "")
    where = f"{sources.chosen.source}, {sources.subscriptions.source}" + "".join(f", {s}" for s in sources.others)
    return NotFound(f"no consumer group {group!r} in {where}; groups here: {shown or 'none'}")


def make_group_view(sources: GroupSources, access: QueueAccess, group: str, limit: int = DEFAULT_PENDING) -> GroupView:
    """The view of one group (NotFound when no source names it). Pending messages are read queue by queue from
    each one's first unconsumed offset, at most ``limit`` in all."""
    if group not in sources.groups():
        raise unknown_group(sources, group)
    ids = _queue_ids_by_topic(access)
    entries = sources.entries(group)
    committed = {(t, q): o for t, q, o in entries}
    # the group's queues' ends and the units either side of its offsets, found in one pass (issue 30); the
    # retry and DLQ queues' ends with them
    def sides(info: QueueInfo) -> list[int] | tuple[()]:
        offset = committed.get((info.topic, info.queue_id))  # None: a retry or DLQ queue, no sides
        return () if offset is None else _side_offsets(offset, info)

    ends = access.prefetch([*committed, *((t, q) for t in (RETRY_PREFIX + group, DLQ_PREFIX + group)
                                          for q in ids.get(t, ()))], sides)
    known = peeked_units(ends)
    times = access.stored_at_many([p for units in known.values() for p in units.values() if isinstance(p, int)])
    infos = ends.infos
    queues = [group_queue(sources, access, group, t, q, o, known=known.get((t, q)), times=times,
                          info=infos.get((t, q), _ASK)) for t, q, o in entries]
    pending: list[QueueMessage] = []
    for gq in queues:
        if gq.lag is None or not gq.lag or gq.max_offset is None or gq.min_offset is None:
            continue
        start = max(gq.committed, gq.min_offset)
        for offset in range(start, min(gq.max_offset, start + limit - len(pending))):
            pending.append(_message(access, gq.topic, gq.queue_id, offset))
        if len(pending) >= limit:
            break
    problems = list(sources.problems)  # every finding about the files this view reads (load_sources picks them)
    only_elsewhere = _only_elsewhere(sources, group)
    if only_elsewhere:
        problems.append(only_elsewhere)
    topics = sorted({gq.topic for gq in queues})
    return GroupView(group, sources.chosen.source, sources.chosen.reason, sources.subscriptions.table.get(group),
                     sources.subscriptions.source, tuple(topics), queues,
                     _topic_count(access, RETRY_PREFIX + group, ids), _topic_count(access, DLQ_PREFIX + group, ids),
                     pending, limit, sum(q.lag or 0 for q in queues), problems)


def _only_elsewhere(sources: GroupSources, group: str) -> Problem | None:
    """Queues of ``group`` that another source has and the chosen one lacks: the broker does not read them."""
    if not any(g == group for table in sources.others.values() for _, g in table):
        return None  # no other source names the group (the usual case): its 16,000 queues not sorted again
    chosen = {(t, q) for t, q, _ in sources.entries(group)}
    extra = sorted((s, t, q, o) for s, table in sources.others.items() for (t, g), queues in table.items()
                   if g == group for q, o in queues.items() if (t, q) not in chosen)
    if not extra:
        return None
    source, topic, queue_id, offset = extra[0]
    return Problem(source, 0, f"{len(extra)} offset(s) of {group} only in sources the broker does not read, e.g. "
                   f"{topic} queue {queue_id}: {offset} in {source}; {sources.chosen.source} (the source used) has "
                   "none for them", "offsets-disagree", "warning")
