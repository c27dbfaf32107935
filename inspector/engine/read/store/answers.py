"""Questions over a whole opened ``Store``: each takes the Store, picks the parts the question reads (its CommitLog,
queues, index files, root, settings) and hands them to the format's helper, which never sees the Store.

These are the face's store-level verbs (``recover(store)``, ``store_geometry(store)``, ...): the one place, beside
``store.py``, where a module of ``read/`` takes a Store (``tests/inspector/engine/read/test_store_owns.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from inspector.engine.model.budget import Budget
from inspector.engine.model.errors import StoreError
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.records import ChainWalk, IndexItem, Message, Problem
from inspector.engine.read.commitlog.trace import TraceTimeline, is_trace_topic, trace_timeline
from inspector.engine.read.config.offsets import OffsetPlaces
from inspector.engine.read.dledger.dledger import member_view
from inspector.engine.read.groups.groups import (
    DEFAULT_PENDING,
    GroupSources,
    GroupSummary,
    GroupView,
    QueueAccess,
    groups_summary,
    load_sources,
    make_group_view,
    units_at,
)
from inspector.engine.read.index.collisions import MAX_ITEMS, MAX_MESSAGES, Collision, index_collisions
from inspector.engine.read.index.keys import indexed_key_text
from inspector.engine.read.store.recovery import Recovery, recover_log, recovery_start_of
from inspector.engine.read.store.retention import id_expired_reason, key_expired_reason
from inspector.engine.read.store.store import Store
from inspector.engine.read.timer.timerlinks import TimerStore, read_timer, timer_files


def store_geometry(store: Store, base: Geometry | None = None, **overrides: int | str | None) -> Geometry:
    """Geometry from the store's own files first, then options, then the broker defaults. Without ``base``, the
    delay levels are the store's own (``Store.delay_table``: a flag, its broker.conf, or inferred)."""
    return store.geometry(base, **overrides)


def recover(store: Store, mode: str | None = None, *, budget: Budget | None = None,
            progress: Callable[[int], None] | None = None) -> Recovery:
    """Where the store's log ends, as the broker's recovery finds it (``recovery.recover_log``)."""
    return recover_log(store.commitlog, store.root, mode, budget=budget, progress=progress)


def recovery_start(store: Store, mode: str | None = None) -> tuple[str, int | None]:
    """(mode, index of the segment recovery starts in); the mode defaults to what the abort file says."""
    return recovery_start_of(store.commitlog, store.root, mode)


def first_offset(store: Store) -> int:
    """The log's first offset: below it every record was removed by retention (0: nothing was)."""
    return store.commitlog.retention_floor


def expired_id_reason(store: Store, text: str) -> str | None:
    """"expired: ..." for an offset msgId whose offset retention removed; None otherwise."""
    return id_expired_reason(store.commitlog.retention_floor, text)


def expired_key_reason(store: Store, topic: str, key: str) -> str | None:
    """"expired: ..." when items of topic#key's hash point below the log's first offset; None otherwise."""
    floor = store.commitlog.retention_floor
    return key_expired_reason(floor, store.chain(topic, key) if floor else (), topic, key)


def key_missing_reason(store: Store, topic: str, key: str, walks: Iterable[ChainWalk] | None = None) -> str:
    """The one answer for a key no message answers, as ``rmq-inspect key``, the web chain page and the TUI's index
    chain give it: "expired: ..." when items of its hash point below the log's first offset (retention removed
    their records), else "no message indexed under topic#key". ``walks``: the chain already walked, if any."""
    log = store.commitlog
    floor = log.retention_floor
    first = log.segments[0] if log.segments else None
    # a first segment named off the grid (misaligned-segment) is no retention: items below it are named as such
    off_grid = first is not None and not floor and first.start_offset > 0
    if (floor or off_grid) and walks is None:
        walks = list(store.chain(topic, key))
    if off_grid:
        below = sorted({s.item.phy_offset for w in walks or () for s in w.steps
                        if s.hash_matches and 0 <= s.item.phy_offset < first.start_offset})
        if below:
            return (f"{len(below)} index item(s) of {topic}#{key}'s hash point below the first segment "
                    f"{first.file} (at {below[0]}): that file is named {first.start_offset}, off the segment grid "
                    "(misaligned-segment: renamed or copied, not retention; verify names it)")
    return key_expired_reason(floor, walks or (), topic, key) or f"no message indexed under {topic}#{key}"


def expired_start_note(store: Store, start: int | None, topic: str | None = None,
                       queue_id: int | None = None) -> str | None:
    """What a listing asked to start below what is left says (``messages --from N``): in commitlog order below the
    log's first offset (retention deleted the head: the walk starts at the first segment), in queue order below the
    queue's effective min offset (``ConsumeQueue.correctMinOffset``: the listing starts at its first unit); None
    when the start is at or above it. A listing that starts elsewhere than asked says so (STYLE: partial answers)."""
    if start is None:
        return None
    floor = store.commitlog.retention_floor
    if topic is None or queue_id is None:
        if not floor or start >= floor:
            return None
        return f"--from {start}: expired: below the log's first offset {floor} (removed by retention); starting there"
    try:
        low = store.queue(topic, queue_id).info().min_offset
    except StoreError:
        return None  # no such queue: the listing itself says it
    if start >= low:
        return None
    why = (f"expired: below the queue's min offset {low} (the log's first offset is {floor}: removed by retention)"
           if floor else f"below the queue's min offset {low}")
    return f"--from {start}: {why}; starting there"


def item_key_text(store: Store, item: IndexItem) -> str:
    """Which key string of the message at the item's offset has the item's hash (what was indexed)."""
    return indexed_key_text(store.commitlog, item)


def find_collisions(store: Store, limit: int = 1, budget: int = MAX_MESSAGES, *, max_items: int = MAX_ITEMS,
                    time_budget: Budget | None = None) -> list[Collision]:
    """Real hash collisions in the store's index files (``collisions.index_collisions``)."""
    return index_collisions(store.index_files(), store.commitlog, limit, budget, max_items=max_items,
                            time_budget=time_budget)


def dledger_view(store: Store) -> dict | None:
    """A DLedger store's own facts for the overviews; None for a plain store (``dledger.member_view``)."""
    return member_view(store.root, store.dledger_data, store.commitlog.segments, store.commitlog.message_at)


def store_load_problems(store: Store) -> list[Problem]:
    """The two load checks over an open store: every consume-queue (and batch consume-queue) file against the
    store's one file size, every topic folder against its queue type."""
    try:
        topics = store.config.topics or None  # none listed: no config to hold the folders to
    except Exception:  # noqa: BLE001 - an unreadable topics.json is its own finding (ConfigSet.findings)
        topics = None
    return store.queues.load_problems(topics)


def open_timer(store: Store) -> TimerStore:
    """The timer store of ``store``, kept on it while its files stay as they were: a TUI or web session on a
    live broker sees the units, slots and timercheck written since (a few stat calls a request)."""
    signature = timer_files(store.root)
    cached = store.__dict__.get("_timer_store")
    if cached is not None and cached[0] == signature:
        return cached[1]
    timer = read_timer(store.root, store.config, store.broker_config, store.commitlog, store.log_scans.max_offset)
    store.__dict__["_timer_store"] = (signature, timer)
    return timer


def trace_topic_of(store: Store, override: str | None = None) -> str | None:
    """The custom trace topic: ``override`` (``--trace-topic``), else the broker config's ``msgTraceTopicName``
    (None: only the default ``RMQ_SYS_TRACE_TOPIC`` and the regions' trace topics hold trace records)."""
    if override:
        return override
    config = store.broker_config
    return config.properties.get("msgTraceTopicName") if config is not None else None


def trace_of(store: Store, ref: str, trace_topic: str | None = None) -> TraceTimeline:
    """One message's trace timeline: every trace record mentioning ``ref`` (a UNIQ_KEY or an offset msgId; the
    message's other id too when the store holds it), found through the index by the traced id, else by reading
    the trace topics' queues (the answer's ``source`` says which). BadInput when ``ref`` is no message id."""
    ref = ref.strip().upper()
    trace_topic = trace_topic_of(store, trace_topic)
    ids = [ref]
    for reading in store.resolve_id(ref):
        if reading.found and reading.physical_offset is not None:
            try:
                msg = store.message_at(reading.physical_offset)
            except StoreError:
                continue  # the id still searches; the record's other id is what is lost
            if not is_trace_topic(msg.topic, trace_topic):
                ids += [i for i in (msg.unique_key, msg.msg_id) if i and i.upper() not in ids]
    topics = tuple(t for t in store.topics() if is_trace_topic(t, trace_topic))

    # Where part of the log has no index, the index answers only for the rest: then the trace topics' own queues
    # (every trace record is in one) are read instead of the whole uncovered log, and the answer says "scan".
    indexed_everywhere = not store.index_coverage()[1]

    def lookup(topic: str, key: str) -> list[Message]:
        if not indexed_everywhere:
            return []
        return [hit.message for hit in store.lookup_key(topic, key, scan=False)]

    def scan(topic: str) -> Iterator[Message | Problem]:
        for info in store.queue_infos():
            if info.topic == topic:
                for _, item in store.queue_messages(topic, info.queue_id, info.min_offset):
                    yield item

    return trace_timeline(ref, tuple(ids), topics, lookup, scan, trace_topic)


def _group_parts(store: Store) -> tuple[GroupSources, QueueAccess]:
    """The offsets (every source), subscription groups and queue reads a group's view takes from the store."""
    sources = load_sources(OffsetPlaces(store.root, store.config, store.broker_config), store.consumer_offsets())
    access = QueueAccess(lambda topic, queue_id: store.queue(topic, queue_id).info(), store.message_by_queue_offset,
                         lambda: [*store.queue_ids(), *store.batch_queue_ids()],
                         lambda topic, queue_id, offsets: units_at(store.queue(topic, queue_id), offsets),
                         store.store_timestamp_at)
    return sources, access


def groups_of(store: Store) -> list[GroupSummary]:
    """Every consumer group the store knows (any offsets source, the subscription-group config), each with its
    queues, total lag and retry/DLQ counts (``groups.groups_summary``); StoreError when the broker's offsets
    source cannot be read."""
    return groups_summary(*_group_parts(store))


def group_of(store: Store, group: str, limit: int = DEFAULT_PENDING) -> GroupView:
    """One consumer group's view (``groups.make_group_view``): NotFound naming the groups that exist when none is
    ``group``; at most ``limit`` pending messages."""
    sources, access = _group_parts(store)
    return make_group_view(sources, access, group, limit)


def committed_offsets(store: Store, topic: str, queue_id: int) -> list[tuple[str, int]]:
    """(group, committed offset) of every group with an offset on this queue, from the source the broker uses
    (the queue listings' marker lines), by offset then group; [] when that source cannot be read (``info`` and
    ``group`` say why)."""
    offsets = store.consumer_offsets()
    if offsets.error is not None:
        return []
    return sorted(((g, queues[queue_id]) for (t, g), queues in offsets.table.items()
                   if t == topic and queue_id in queues), key=lambda pair: (pair[1], pair[0]))
