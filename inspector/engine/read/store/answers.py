"""Questions over a whole opened ``Store``: each takes the Store, picks the parts the question reads (its CommitLog,
queues, index files, root, settings) and hands them to the format's helper, which never sees the Store.

These are the face's store-level verbs (``recover(store)``, ``store_geometry(store)``, ...): the one place, beside
``store.py``, where a module of ``read/`` takes a Store (``tests/inspector/engine/read/test_store_owns.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from inspector.engine.model.budget import Budget
from inspector.engine.model.errors import BadInput, NotFound, StoreError
from inspector.engine.model.geometry import Geometry, parse_delay_levels
from inspector.engine.model.records import ChainWalk, IndexItem, Message, Problem
from inspector.engine.model.systopics import OP_TOPIC, SYSTEM_TOPICS
from inspector.engine.read.config.checkpoint import future_note
from inspector.engine.read.dledger.dledger import member_of, member_view
from inspector.engine.read.index.collisions import MAX_ITEMS, MAX_MESSAGES, Collision, index_collisions
from inspector.engine.read.index.keys import indexed_key_text
from inspector.engine.read.queues.collector import few_collections
from inspector.engine.read.search.pattern import FIELDS, SearchPattern
from inspector.engine.read.store.recovery import Recovery, recover_log, recovery_start_of
from inspector.engine.read.store.retention import id_expired_reason, key_expired_reason
from inspector.engine.read.store.store import Store
from parsers.msgid import MsgIdError, decode_offset_msg_id

# The questions of one command each (groups, story, trace, grep, the timer store) import their room inside the
# function: verify, preflight, rebuild and info take store_geometry, recover or store_load_problems from here and
# need not load them (~40 ms of every command's start).
if TYPE_CHECKING:
    from inspector.engine.read.commitlog.trace import TraceTimeline
    from inspector.engine.read.diff.result import StoreDiff
    from inspector.engine.read.groups.groups import GroupSources, GroupSummary, GroupView, QueueAccess
    from inspector.engine.read.groups.reset import OffsetPlan
    from inspector.engine.read.search.grep import GrepEnd, GrepHit
    from inspector.engine.read.search.timestep import TimeStep, TimeStop
    from inspector.engine.read.search.window import LogWindow
    from inspector.engine.read.stats.stats import StoreStats
    from inspector.engine.read.story.story import Story
    from inspector.engine.read.timer.timerlinks import TimerStore

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


def checkpoint_future_note(store: Store, now_ms: int | None = None) -> str | None:
    """"checkpoint in the future: ..." when checkpoint times are more than a day after ``now_ms`` (default: this
    machine's clock), with what an abnormal start does with them; None otherwise, and when it cannot be read
    (its own finding says why)."""
    try:
        cp = store.checkpoint()
    except StoreError:
        return None
    return future_note(cp, now_ms)


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
    from inspector.engine.read.timer.timerlinks import read_timer, timer_files

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
    from inspector.engine.read.commitlog.trace import configured_trace_topic

    return configured_trace_topic(store.broker_config, override)


UNINDEXED_SCAN_BYTES = 64 << 20  # log no index covers that trace_of scans beside the index, and the web's story
# page in one request


def trace_of(store: Store, ref: str, trace_topic: str | None = None) -> TraceTimeline:
    """One message's trace timeline: every trace record mentioning ``ref`` (what ``show`` takes: a UNIQ_KEY or an
    offset msgId, the message's other id too when the store holds it; or a physical offset, its message's ids),
    found through the index by the traced id, else by reading the trace topics' queues (the answer's ``source``
    says which). BadInput when ``ref`` is neither; NotFound for an offset that names no message (an id that names
    none still searches: trace records outlive or precede their message)."""
    from inspector.engine.read.commitlog.trace import is_trace_topic

    ref = ref.strip()
    override = bool(trace_topic)
    trace_topic = trace_topic_of(store, trace_topic)
    is_id = len(ref) in (32, 56)
    ids = [ref.upper()] if is_id else []
    first_notes: list[str] = []
    try:
        msg: Message | None = store.locate(ref)[0]  # show's REF parser: the id's readings, else an offset
    except BadInput:
        raise  # neither an offset nor a hex id: show's own answer (exit 2)
    except StoreError as e:
        if not is_id:
            raise  # nothing (or damage) at the offset: show's own answer and exit code
        msg = None  # the id still searches (trace records outlive their message); its other id is what is lost
        first_notes.append(f"{e.reason if isinstance(e, NotFound) else e}: only the trace records can answer")
    if msg is not None and is_trace_topic(msg.topic, trace_topic):
        first_notes.append(f"the record at physical offset {msg.physical_offset} is itself a trace message "
                           f"(topic {msg.topic}): show decodes the records it holds")
    elif msg is not None:
        ids += [i.upper() for i in (msg.unique_key, msg.msg_id) if i and i.upper() not in ids]
    if is_id:
        ref = ref.upper()
    timeline = _trace_lookup(store, trace_topic, override=override)(tuple(ids), ref)
    if first_notes:
        timeline = replace(timeline, notes=(*first_notes, *timeline.notes))
    return timeline


def _trace_lookup(store: Store, trace_topic: str | None, fallback: bool = True, *,
                  override: bool = False, budget: Budget | None = None) -> Callable[..., TraceTimeline]:
    """``timeline(ids, ref)``: the trace records mentioning any of ``ids`` (``trace_of`` and ``story_of``).
    ``fallback`` False: the trace topics' queues are read only when the index is not used (a story asks for every
    message, most of them never traced: a found-nothing index is the answer). ``override``: ``trace_topic`` came
    from the user (``--trace-topic``), not the broker config (named so in a note when no topic has that name)."""
    from inspector.engine.read.commitlog.trace import is_trace_topic, trace_timeline

    notes: list[str] = []
    known = store.topics()
    topics = tuple(t for t in known if is_trace_topic(t, trace_topic))
    if trace_topic and trace_topic not in known:  # a name mistyped, or a broker.conf of another broker
        asked = "asked for" if override else f"msgTraceTopicName of {store.broker_config.file}"
        notes.append(f"trace topic {trace_topic} ({asked}) is no topic of this store; read only "
                     + (", ".join(topics) if topics else "the default trace topics (none here either)"))

    # Where part of the log has no index, the index answers only for the rest: a little such log (a full index
    # file's last record, a broker stopped before dispatching its tail) is scanned beside the index, as key
    # lookups do, and the answer says so; more than UNINDEXED_SCAN_BYTES of it, or no index at all, and the
    # trace topics' own queues (every trace record is in one) are read instead, and the answer says "scan".
    spans, gaps = store.index_coverage()
    gap_bytes = sum(g.stop - g.start for g in gaps)
    use_index = any(s.first is not None for s in spans) and gap_bytes <= UNINDEXED_SCAN_BYTES
    if use_index and gaps:
        notes.append(f"no index covers {', '.join(g.text for g in gaps)}: scanned for trace records")

    def lookup(topic: str, key: str) -> list[Message]:
        if not use_index:
            return []
        return [hit.message for hit in store.lookup_key(topic, key, scan=bool(gaps))]

    def scan(topic: str) -> Iterator[Message | Problem]:
        if use_index and not fallback:
            return
        read = 0
        for info in store.queue_infos():
            if info.topic == topic:
                for _, item in store.queue_messages(topic, info.queue_id, info.min_offset):
                    read += 1
                    if budget is not None and read % 256 == 0 and budget.expired():
                        return  # the story that asked says it was cut
                    yield item

    def timeline(ids: tuple[str, ...], ref: str | None = None) -> TraceTimeline:
        found = trace_timeline(ref or ids[0], ids, topics, lookup, scan, trace_topic)
        return replace(found, notes=(*notes, *found.notes)) if notes else found

    return timeline


def _start_by_id(store: Store, ref: str, scan: bool, hits: dict[str, tuple]) -> tuple[Message, str | None]:
    """The message a 32/56-hex REF names, as ``Store.locate`` reads it (the offset msgId first), except that a
    UNIQ_KEY answers with the message that has it (an inner message of a batch, not its batch record) and its
    hits are kept in ``hits`` for the copies lookup (one index walk, not two)."""
    try:
        offset = decode_offset_msg_id(ref).offset
        msg = store.message_at(offset)
        if msg.msg_id == ref:
            return msg, None
    except (MsgIdError, StoreError):
        pass  # not this store's offset msgId: read as a UNIQ_KEY
    unreadable: list[tuple[str, int]] = []
    found = store.lookup_unique_key(ref, scan=scan, unreadable=unreadable)
    if found:
        hits[ref] = (found, unreadable)
        return found[0].message, found[0].note
    if store.commitlog.retention_floor:  # a UNIQ_KEY whose every record retention removed: expired, not unknown
        for topic in sorted(set(store.topics()) | set(SYSTEM_TOPICS)):
            reason = expired_key_reason(store, topic, ref)
            if reason:
                raise NotFound(f"message id {ref}: {reason}")
    return store.locate(ref, scan)  # neither: its not-found answer (expired, not searched ...)


def story_of(store: Store, ref: str, key: str | None = None, *, scan: bool = True,
             trace_topic: str | None = None, budget: Budget | None = None) -> Story:
    """The story of one message (``read/story/story.py``): ``ref`` an offset msgId, a UNIQ_KEY or a physical
    offset (``Store.locate``, as ``show`` reads it), or with ``key`` a topic: the first message indexed under
    topic#key. ``scan``: also read the log no index file covers (the answer's ``searched`` says which ranges).
    ``budget`` (a deadline, or a cancel callable: the web request's, the TUI's escape) is checked between the
    steps and between the scans' batches: once it runs out the story told so far is the answer, its ``cut`` (and
    a note) saying what was not read. NotFound (exit 1: an expired id says so; with the budget run out before
    the message was found, the note says the search was cut), BadInput (exit 2), StoreError (exit 3) as
    ``show``'s."""
    if budget is None:
        return _story_of(store, ref, key, scan, trace_topic, None)
    with store.scan_limits(budget) as limits:  # this thread's lookups scan under it (keeping what they found)
        try:
            story = _story_of(store, ref, key, scan, trace_topic, budget)
        except NotFound as e:
            if limits.stopped is None:
                raise
            raise NotFound(f"{e.reason} (the search was cut: {limits.stopped})", e.file, e.offset) from None
    if limits.stopped is None:
        return story
    note = (f"the scan of the log no index file covers was cut ({limits.stopped}): copies and trace records "
            "past that point were not searched")
    return replace(story, notes=(*story.notes, note), cut=story.cut or note)


def _story_of(store: Store, ref: str, key: str | None, scan: bool, trace_topic: str | None,
              budget: Budget | None) -> Story:
    from inspector.engine.read.story.story import StoryParts, tell_story

    extra: list[str] = []
    first_hits: dict[str, tuple] = {}
    if key is None and len(ref.strip()) in (32, 56):
        start, note = _start_by_id(store, ref.strip().upper(), scan, first_hits)
        shown = ref.strip()
    elif key is not None:
        hits = store.lookup_key(ref, key, scan=scan)
        if not hits:
            raise NotFound(key_missing_reason(store, ref, key))
        start, note = hits[0].message, hits[0].note
        others = {h.message.unique_key for h in hits[1:]} - {start.unique_key}
        if others:
            extra.append(f"{len(hits)} messages are indexed under {ref}#{key}: this is the story of the first "
                         f"(@{start.physical_offset}); give another's id for its own")
        shown = f"{ref} {key}"
    else:
        start, note = store.locate(ref, scan)
        shown = ref.strip()

    def copies(unique_key: str) -> tuple[list, list[str]]:
        """The records with the key, and what the index points at that cannot be read (damage among them)."""
        found, unreadable = first_hits.get(unique_key) or (None, [])
        if found is None:
            found = store.lookup_unique_key(unique_key, scan=scan, unreadable=unreadable)
        notes = []
        for file, offset in sorted(set(unreadable), key=lambda u: u[1]):
            try:
                store.message_at(offset)
            except StoreError as e:
                notes.append(f"{file} points at {offset} under this key's hash, but the record there cannot be "
                             f"read ({e}): a copy may be lost there")
        return found, notes

    offsets = store.consumer_offsets()
    offsets_notes = tuple(p.reason for p in offsets.problems)
    try:
        delays = tuple(parse_delay_levels(store.delay_table().text))
    except (ValueError, StoreError):
        delays = ()  # no deliver time is computed: the delay level is still said

    def op_records(queue_id: int, since: int) -> Iterator[Message | Problem]:
        try:
            first = store.queue_offset_by_time(OP_TOPIC, queue_id, since)
        except NotFound:
            return  # no op queue: no half was ended
        except StoreError as e:  # the search by time read a damaged unit or record: said, not "not ended"
            yield Problem(e.file or OP_TOPIC, e.offset or 0, f"the op queue cannot be searched: {e.reason}",
                          "unreadable-op-queue")
            return
        for _, item in store.queue_messages(OP_TOPIC, queue_id, first):
            yield item

    parts = StoryParts(
        start=start, start_note=note, copies=copies,
        message_at=store.message_at, op_records=op_records,
        trace=_trace_lookup(store, trace_topic_of(store, trace_topic), fallback=False, override=bool(trace_topic),
                            budget=budget),
        offsets=offsets.table if offsets.error is None else {},
        offsets_source=offsets.source if offsets.error is None else None,
        offsets_notes=offsets_notes, delays_ms=delays, floor=store.commitlog.retention_floor,
        coverage_note=store.index_coverage_note(scan), ref=shown, extra_notes=tuple(extra), budget=budget)
    return tell_story(parts)


def grep(store: Store, pattern: SearchPattern, *, fields: Iterable[str] = FIELDS, topic: str | None = None,
         tag: str | None = None, limit: int | None = None, budget: Budget | None = None,
         progress: Callable[[int, int], None] | None = None,
         workers: int | None = None, since: int | None = None,
         until: int | None = None) -> Iterator[GrepHit | Problem | GrepEnd]:
    """The store's log searched for ``pattern`` (``search.grep.grep_log``), after what its walk cannot see (a
    missing or cut segment, commitlog/ entries no reader reads), as ``log_order`` gives them. ``since``/``until``:
    only the records stored in [since, until), the segments to walk found by binary search (``log_window``)."""
    from inspector.engine.read.search.grep import grep_log

    ahead = [*store.commitlog.problems, *(p for p in store.unknown_files() if p.file.startswith("commitlog/"))]
    window = log_window(store, since, until) if since is not None or until is not None else None
    yield from grep_log(store.commitlog, pattern, fields=fields, topic=topic, tag=tag, limit=limit, budget=budget,
                        progress=progress, workers=workers, ahead=ahead, window=window)


def _group_parts(store: Store) -> tuple[GroupSources, QueueAccess]:
    """The offsets (every source), subscription groups and queue reads a group's view takes from the store."""
    from inspector.engine.read.config.offsets import OffsetPlaces
    from inspector.engine.read.groups.groups import QueueAccess, load_sources, units_at

    sources = load_sources(OffsetPlaces(store.root, store.config, store.broker_config), store.consumer_offsets())
    access = QueueAccess(store.queue_info, store.message_by_queue_offset,
                         lambda: [*store.queue_ids(), *store.batch_queue_ids()],
                         lambda topic, queue_id, offsets: units_at(store.queue(topic, queue_id), offsets),
                         store.store_timestamp_at, store.prefetch_infos, store.store_timestamps_at)
    return sources, access


def groups_of(store: Store) -> list[GroupSummary]:
    """Every consumer group the store knows (any offsets source, the subscription-group config), each with its
    queues, total lag and retry/DLQ counts (``groups.groups_summary``); StoreError when the broker's offsets
    source cannot be read."""
    from inspector.engine.read.groups.groups import groups_summary

    with few_collections():  # thousands of queues' records at once (read/queues/collector.py)
        return groups_summary(*_group_parts(store))


def group_of(store: Store, group: str, limit: int | None = None) -> GroupView:
    """One consumer group's view (``groups.make_group_view``): NotFound naming the groups that exist when none is
    ``group``; at most ``limit`` pending messages (None: groups.DEFAULT_PENDING)."""
    from inspector.engine.read.groups.groups import DEFAULT_PENDING, make_group_view

    with few_collections():  # 16,000 queues: ~100,000 records at once (read/queues/collector.py)
        sources, access = _group_parts(store)
        return make_group_view(sources, access, group, DEFAULT_PENDING if limit is None else limit)


def committed_offsets(store: Store, topic: str, queue_id: int) -> list[tuple[str, int]]:
    """(group, committed offset) of every group with an offset on this queue, from the source the broker uses
    (the queue listings' marker lines), by offset then group; [] when that source cannot be read (``info`` and
    ``group`` say why)."""
    offsets = store.consumer_offsets()
    if offsets.error is not None:
        return []
    return sorted(((g, queues[queue_id]) for (t, g), queues in offsets.table.items()
                   if t == topic and queue_id in queues), key=lambda pair: (pair[1], pair[0]))


def plan_offsets(store: Store, group: str, *, at: int | None = None, offset: int | None = None,
                 topic: str | None = None, queue_id: int | None = None, force: bool = True,
                 nearest: bool = False) -> OffsetPlan:
    """A consumer-offset reset of ``group`` planned as the broker would do it (``reset.plan_reset``): NotFound for
    an unknown group, BadInput for a reset the broker refuses or a time before every queue's first message."""
    from inspector.engine.read.groups.reset import QueueTimes, plan_reset

    times = QueueTimes(store.queue, store.queue_offset_by_time, store.store_timestamp_at)
    return plan_reset(times, group_of(store, group, 0), at=at, offset=offset, topic=topic, queue_id=queue_id,
                      force=force, nearest=nearest)


def log_window(store: Store, since: int | None, until: int | None) -> LogWindow:
    """The part of the store's log holding the records stored in [since, until) (None: unbounded on that side),
    found by binary search (``search.window.log_range``)."""
    from inspector.engine.read.search.window import log_range

    return log_range(store.commitlog, since, until)


def queue_window(store: Store, topic: str, queue_id: int, since: int | None, until: int | None) -> tuple[int, int]:
    """Queue offsets [lo, hi) of the units stored in [since, until) (binary searches over the units)."""
    info = store.queue(topic, queue_id).info()
    lo = info.min_offset if since is None else store.queue_offset_by_time(topic, queue_id, since)
    hi = info.max_offset if until is None else store.queue_offset_by_time(topic, queue_id, until)
    return lo, max(lo, hi)


def store_stats(store: Store, by: str = "topic", *, progress: Callable[[int, int], None] | None = None,
                since: int | None = None, until: int | None = None) -> StoreStats:
    """The log of ``store`` counted by ``by`` (``stats.log_stats``; ``since``/``until``: a store-time window), with
    its timer backlog (as ``timer --summary`` counts it) and its groups' committed offsets for the retention
    steps."""
    from inspector.engine.read.stats.stats import log_stats

    def timer_backlog() -> tuple[int | None, int | None]:
        timer = open_timer(store)
        if not timer.present:
            return None, None
        pending = timer.pending_mask()
        return len(timer.units()), None if pending is None else int(pending.sum())

    return log_stats(store.commitlog, by, progress=progress, timer_backlog=timer_backlog,
                     committed=lambda topic, queue_id: committed_offsets(store, topic, queue_id),
                     since=since, until=until)


def page_before(store: Store, offset: int, count: int, *, topic: str | None = None,
                max_records: int = 100_000, reach: bool = True) -> int | None:
    """Where the page of ``count`` messages (of ``topic`` when given) that ends just before ``offset`` starts, in
    commitlog order: the same messages a forward walk (``store.entries``) lists. Record starts are walked back
    with ``CommitLog.boundary_before`` (headers only, from its nearest remembered boundary); where the record found
    does not end where the walk stands (a BLANK, damage, a record resynced after it) the span is walked forward.
    None when no message precedes ``offset``. After ``max_records`` records walked back (a topic rare in a big
    store), the earliest start reached: a page from there skips nothing before ``offset``, it only may show fewer
    of ``topic``; with ``reach`` False the earliest message found instead (the newest page: fewer, none older)."""
    log = store.commitlog
    found, cur, n, walked = None, offset, 0, 0
    while cur > store.min_offset and n < count:
        if walked >= max_records:
            return cur if reach else found
        try:
            start = log.boundary_before(cur - 1)
        except StoreError:  # before the first segment on disk, or in a gap between segments
            break
        try:
            message = log.message_at(start)
        except StoreError:
            message = None
        if message is not None and message.end_offset == cur:
            span = [message]  # the sound case: one record, ending where the walk stands
        else:
            span = [e for e in _entries_between(store, start, cur) if isinstance(e, Message)]
        walked += max(1, len(span))
        for m in reversed(span):
            if (topic is None or m.topic == topic) and n < count:
                found, n = m.physical_offset, n + 1
        cur = start
    return found


def _entries_between(store: Store, start: int, stop: int) -> Iterator:
    for entry in store.entries(start):
        if getattr(entry, "physical_offset", getattr(entry, "offset", stop)) >= stop:
            return
        yield entry


def record_at_time(store: Store, t: int, *, before: bool = False, topic: str | None = None,
                   queue: int | None = None) -> TimeStop | None:
    """The first record stored at or after ``t`` (epoch ms), or with ``before`` the last stored at or before it;
    None when there is none. With ``topic`` and ``queue``: among that queue's units (binary search over them),
    else in the whole log (``search.timestep.in_log``: binary search over segments and bytes, then a short walk)."""
    from inspector.engine.read.search.timestep import TimeStop, in_log

    if topic is None or queue is None:
        return in_log(store.commitlog, t, before)
    if before:
        lo, hi = queue_window(store, topic, queue, None, t + 1)  # [min, first unit after t)
        q = hi - 1
        if q < lo:
            return None
    else:
        q, hi = queue_window(store, topic, queue, t, None)  # [first unit at or after t, max)
        if q >= hi:
            return None
    physical = store.queue(topic, queue).unit(q).physical_offset
    return TimeStop(physical, store.store_timestamp_at(physical), q)


def time_step(store: Store, origin: int, step: int, *, topic: str | None = None,
              queue: int | None = None) -> TimeStep:
    """The step from store time ``origin`` by ``step`` ms in the log or one queue (``search.timestep``)."""
    from inspector.engine.read.search.timestep import time_step as step_by

    return step_by(lambda t, before: record_at_time(store, t, before=before, topic=topic, queue=queue), origin, step)


def store_diff(a: Store, b: Store, limit: int = 100) -> StoreDiff:
    """Two stores compared (``rmq-inspect diff``): the log by physical offset, queues, index items, checkpoint and
    config, and two DLedger members' terms."""
    from inspector.engine.read.diff.commitlog import diff_commitlogs
    from inspector.engine.read.diff.config import diff_config
    from inspector.engine.read.diff.dledger import diff_terms
    from inspector.engine.read.diff.index import diff_index
    from inspector.engine.read.diff.queues import diff_queues
    from inspector.engine.read.diff.result import StoreDiff

    out = StoreDiff()
    diff_commitlogs(a.commitlog, b.commitlog, out, limit)
    queues = diff_queues(a.queues, b.queues)
    if len(queues) > limit:
        out.left_out.append(f"{len(queues) - limit} more differing queue(s) past --limit {limit}")
    out.queues = queues[:limit]
    out.files = diff_config(a.root, b.root)
    out.index_items, out.index_only_in_a, out.index_only_in_b = diff_index(
        a.index_files(), b.index_files(), a.commitlog, b.commitlog, limit)
    listed = len(out.index_items)
    if out.index_only_in_a + out.index_only_in_b > listed:
        out.left_out.append(f"{out.index_only_in_a + out.index_only_in_b - listed} more index item(s) present in "
                            f"one store only past --limit {limit}")
    member_a, member_b = member_of(a.root, a.dledger_data), member_of(b.root, b.dledger_data)
    if member_a is not None and member_b is not None:
        out.terms = diff_terms(member_a, member_b)
    return out
