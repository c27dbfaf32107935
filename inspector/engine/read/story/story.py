"""The story of one message (issue 30 item 1): every record the store holds for it, in store-time order, each
with its role and the broker rule that wrote it, and each consumer group's progress over the queues involved.

Copies are found by the message's UNIQ_KEY: every copy the broker makes keeps the producer's properties, so the
key (indexed under each copy's own topic) finds the scheduled, delivered, retry, dead-letter, half, commit and
timer copies alike; ``ORIGIN_MESSAGE_ID`` (an offset msgId) is followed to the record a retry copy came from; a
half message's op record (no UNIQ_KEY: ``TransactionalMessageBridge`` writes a bare ``d`` message) is found by
its body, the half's queue offset, in the op queue. Like ``trace_timeline``, this module never sees the Store:
``StoryParts`` hands it the lookups (``answers.story_of`` builds them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from inspector.engine.model.bounds import java_long_wrap
from inspector.engine.model.budget import Budget
from inspector.engine.model.errors import StoreError
from inspector.engine.model.meaning import transaction_name
from inspector.engine.model.multidispatch import MultiDispatchError, lmq_targets
from inspector.engine.model.records import InnerMessage, KeyHit, Message, Problem, fmt_time
from inspector.engine.model.systopics import (
    DLQ_PREFIX,
    HALF_TOPIC,
    OP_TOPIC,
    RETRY_PREFIX,
    SCHEDULE_TOPIC,
    TIMER_TOPIC,
)
from inspector.engine.read.commitlog.trace import TraceEntry, TraceTimeline
from inspector.engine.read.store.retention import expired_reason, is_expired
from parsers.msgid import MsgIdError, decode_offset_msg_id

__all__ = ["OP_SCAN_CAP", "STORY_ROLES", "GroupProgress", "Story", "StoryParts", "StoryRecord", "role_of", "tell_story"]

# Each role, and the broker rule that writes such a record (RocketMQ 4.9.8 / 5.3.1 class and method).
STORY_ROLES: dict[str, str] = {
    "original": "the producer's send: SendMessageProcessor.sendMessage -> CommitLog.putMessage",
    "scheduled": "a DELAY level parks the message in SCHEDULE_TOPIC_XXXX queue level-1: CommitLog.putMessage "
                 "(4.9.8), HookUtils.transformDelayLevelMessage (5.3.1)",
    "delivered": "the delayed copy delivered into REAL_TOPIC/REAL_QID: ScheduleMessageService."
                 "DeliverDelayedMessageTimerTask.messageTimeUp",
    "retry-scheduled": "a consumer's send-back parked with delay level 3 + reconsume times, REAL_TOPIC %RETRY%group: "
                       "SendMessageProcessor.consumerSendMsgBack (4.9.8), AbstractSendMessageProcessor / "
                       "ConsumerSendMsgBackProcessor (5.3.1)",
    "retry": "the sent-back copy delivered into %RETRY%group (reconsume times + 1, ORIGIN_MESSAGE_ID, RETRY_TOPIC): "
             "consumerSendMsgBack, then messageTimeUp",
    "dead-letter": "reconsume times reached maxReconsumeTimes: consumerSendMsgBack writes %DLQ%group queue 0",
    "half": "a transactional half message: TransactionalMessageBridge.parseHalfMessageInner "
            "(RMQ_SYS_TRANS_HALF_TOPIC queue 0, REAL_TOPIC/REAL_QID)",
    "op": "the half's end, a 'd' message whose body is the half's queue offset: TransactionalMessageBridge."
          "addRemoveTagInTransactionOp (EndTransactionProcessor, commit and rollback alike)",
    "commit": "the COMMIT record in REAL_TOPIC, preparedTransactionOffset = the half's offset: "
              "EndTransactionProcessor.endMessageTransaction",
    "rollback": "a ROLLBACK-typed record (an old broker's); 4.3+ rolls back with the op record only",
    "timer": "a 5.x timer message parked in rmq_sys_wheel_timer queue 0 until TIMER_OUT_MS: "
             "HookUtils.transformTimerMessage",
    "timer-roll": "a timer re-put for another round of the wheel (TIMER_ROLL_TIMES): TimerMessageStore."
                  "convertMessage",
    "timer-delivered": "the timer copy delivered into REAL_TOPIC (TIMER_DEQUEUE_MS): TimerMessageStore."
                       "convertMessage / TimerDequeuePutMessageService",
    "inner": "an inner message of a batch record of a BatchCQ topic: MessageDecoder.decodeMessages, "
             "BatchConsumeQueue",
    "lmq": "a unit of an LMQ queue pointing at the record (INNER_MULTI_DISPATCH / INNER_MULTI_QUEUE_OFFSET): "
           "MultiDispatch.wrapMultiDispatch, ConsumeQueue.multiDispatchLmqQueue",
    "trace": "a trace record mentioning the message: the client's AsyncTraceDispatcher / TraceDataEncoder",
    "copy": "a record with the message's UNIQ_KEY that no rule above names",
}

OP_SCAN_CAP = 100_000  # op-queue units read at most per half message (the answer says when it stopped there)


@dataclass(frozen=True)
class StoryRecord:
    """One record of the message's story. ``time``: its store time (a trace record: the record's own time);
    ``facts``: the role's own values by name (raw store text: views escape); ``found_by``: how it was found
    (``index``, a scan's note, ``ORIGIN_MESSAGE_ID of @N``, ...); ``expired``: the record was removed by
    retention (its offset is below the log's first offset) and only what pointed at it is known."""

    role: str
    time: int | None
    physical_offset: int | None
    topic: str
    queue_id: int | None
    queue_offset: int | None
    found_by: str
    facts: tuple[tuple[str, str], ...] = ()
    expired: str | None = None
    inner_index: int | None = None
    trace: TraceEntry | None = None
    msg_id: str | None = None

    @property
    def rule(self) -> str:
        return STORY_ROLES[self.role]


@dataclass(frozen=True)
class GroupProgress:
    """One consumer group on one queue a record of the story is in: ``committed`` its offset from ``source``
    (None: known only from trace records), ``consumed`` whether it is past the record's queue offset; from the
    trace records (SubBefore/SubAfter of that group), the client, the time the consume took and its result."""

    group: str
    topic: str | None
    queue_id: int | None
    queue_offset: int | None
    committed: int | None
    consumed: bool | None
    source: str
    client: str | None = None
    cost_ms: int | None = None
    success: bool | None = None


@dataclass(frozen=True)
class Story:
    """The answer of ``story_of``: the ``ref`` asked, the message's ``unique_key`` (None: an old client's message
    without one: only the record itself and what it names are found), its records in time order, each group's
    progress, what was searched (``searched``) and what a partial answer left out (``notes``)."""

    ref: str
    unique_key: str | None
    records: tuple[StoryRecord, ...]
    groups: tuple[GroupProgress, ...]
    searched: tuple[str, ...]
    notes: tuple[str, ...]
    offsets_source: str | None
    cut: str | None = None  # the budget ran out: what was not read (also among ``notes``); None: the whole story


@dataclass(frozen=True)
class StoryParts:
    """What the story reads, as lookups over one open store (``answers.story_of`` builds them): the starting
    message and how it was found, every record with a UNIQ_KEY, a record by offset, an op queue's records from
    a time (with the notes of index items whose record cannot be read), the trace timeline of some ids, the consumer offsets, the delay table and the retention floor."""

    start: Message
    start_note: str | None
    copies: Callable[[str], tuple[list[KeyHit], list[str]]]
    message_at: Callable[[int], Message]
    op_records: Callable[[int, int], Iterable[Message | Problem]]
    trace: Callable[[tuple[str, ...]], TraceTimeline]
    offsets: dict[tuple[str, str], dict[int, int]]
    offsets_source: str | None
    offsets_notes: tuple[str, ...] = ()
    delays_ms: tuple[int, ...] = ()
    floor: int = 0
    coverage_note: str | None = None
    ref: str = ""
    extra_notes: tuple[str, ...] = field(default_factory=tuple)
    budget: Budget | None = None  # checked between the steps (and every OP_CHECK_EVERY op units): a cut story


OP_CHECK_EVERY = 256  # op-queue units read between two looks at the budget


def role_of(msg: Message) -> str:
    """The role of one record of a message's story, by topic, then transaction type, then properties (the
    rules of ``STORY_ROLES``, in the order that tells them apart: a COMMIT record keeps the half's REAL_TOPIC, a
    delivered retry copy keeps REAL_TOPIC too)."""
    topic, props = msg.topic, msg.properties
    if isinstance(msg, InnerMessage):
        return "inner"
    if topic == SCHEDULE_TOPIC:
        real = props.get("REAL_TOPIC", "")
        return "retry-scheduled" if real.startswith(RETRY_PREFIX) or "ORIGIN_MESSAGE_ID" in props else "scheduled"
    if topic == TIMER_TOPIC:
        return "timer-roll" if "TIMER_ROLL_TIMES" in props else "timer"
    if topic == HALF_TOPIC:
        return "half"
    if topic.startswith(DLQ_PREFIX):
        return "dead-letter"
    if topic.startswith(RETRY_PREFIX):
        return "retry"
    kind = transaction_name(msg.sys_flag)
    if kind == "COMMIT":
        return "commit"
    if kind == "ROLLBACK":
        return "rollback"
    if kind == "PREPARED":
        return "half"
    if "TIMER_DEQUEUE_MS" in props:
        return "timer-delivered"
    if "REAL_TOPIC" in props:
        return "delivered"
    if "ORIGIN_MESSAGE_ID" in props:
        return "copy"
    return "original"


def _facts(msg: Message, role: str, delays_ms: tuple[int, ...]) -> list[tuple[str, str]]:
    """The values that say what this copy is: delay level and deliver time, real topic, reconsume times ..."""
    p = msg.properties
    facts: list[tuple[str, str]] = []

    def add(name: str, value: object) -> None:
        if value is not None and value != "":
            facts.append((name, str(value)))

    if role in ("scheduled", "retry-scheduled"):
        level = p.get("DELAY")
        level_n = int(level) if level is not None and level.isdigit() else msg.queue_id + 1
        add("delay level", level_n)
        # ScheduleMessageService.computeDeliverTimestamp: store time + the level's delay
        if 0 < level_n <= len(delays_ms):
            deliver = java_long_wrap(msg.store_timestamp + delays_ms[level_n - 1])  # a long sum
            add("deliver time", f"{deliver} ({fmt_time(deliver)})")
    if role in ("timer", "timer-roll", "timer-delivered"):
        out = p.get("TIMER_OUT_MS")
        add("deliver time (TIMER_OUT_MS)", out)
        for name in ("TIMER_ROLL_TIMES", "TIMER_ENQUEUE_MS", "TIMER_DEQUEUE_MS"):
            add(name, p.get(name))
    if role in ("retry", "retry-scheduled", "dead-letter", "copy") or "ORIGIN_MESSAGE_ID" in p:
        add("reconsume times", msg.reconsume_times)
        for name in ("RECONSUME_TIME", "MAX_RECONSUME_TIMES", "ORIGIN_MESSAGE_ID", "RETRY_TOPIC"):
            add(name, p.get(name))
    if role in ("retry", "dead-letter"):
        add("group", msg.topic.split("%", 2)[-1])
    if "REAL_TOPIC" in p and role != "commit":
        add("REAL_TOPIC", p.get("REAL_TOPIC"))
        add("REAL_QID", p.get("REAL_QID"))
    if role == "half":
        add("transaction id", p.get("__transactionId__"))
        add("producer group", p.get("PGROUP"))
    if role in ("commit", "rollback"):
        add("half at (preparedTransactionOffset)", msg.prepared_transaction_offset)
    if role == "inner":
        add("batch record at", msg.physical_offset)
        add("inner index", getattr(msg, "inner_index", None))
    return facts


def _records(msg: Message, found_by: str, delays_ms: tuple[int, ...], notes: list[str]) -> list[StoryRecord]:
    """The record of ``msg``, then a unit for each LMQ queue it was multi-dispatched to (one record, many queues:
    its INNER_MULTI_DISPATCH names and INNER_MULTI_QUEUE_OFFSET offsets)."""
    role = role_of(msg)
    inner = msg.inner_index if isinstance(msg, InnerMessage) else None
    found = [StoryRecord(role, msg.store_timestamp, msg.physical_offset, msg.topic, msg.queue_id, msg.queue_offset,
                         found_by, tuple(_facts(msg, role, delays_ms)), inner_index=inner,
                         msg_id=None if inner is not None else msg.msg_id)]
    if inner is None:
        try:
            targets = lmq_targets(msg.topic, msg.queue_id, msg.properties)
        except MultiDispatchError as e:
            notes.append(f"the record @{msg.physical_offset}: {e}")
            targets = []
        found += [StoryRecord("lmq", msg.store_timestamp, msg.physical_offset, t.queue, t.queue_id, t.queue_offset,
                              f"INNER_MULTI_DISPATCH of @{msg.physical_offset}",
                              (("LMQ queue", t.queue), ("queue offset", str(t.queue_offset))))
                  for t in targets]
    return found


def _origin_offset(text: str) -> int | None:
    """The physical offset an ORIGIN_MESSAGE_ID names (an offset msgId: consumerSendMsgBack stores the
    looked-up record's getMsgId()); None for text that is no offset msgId."""
    try:
        return decode_offset_msg_id(text.strip().upper()).offset
    except MsgIdError:
        return None


def tell_story(parts: StoryParts) -> Story:
    """The story of ``parts.start``: its copies by UNIQ_KEY, the records ORIGIN_MESSAGE_ID names, the op records
    of its half messages, the LMQ units of its records, its trace records, and each group's progress."""
    start = parts.start
    delays = parts.delays_ms
    notes: list[str] = [*parts.extra_notes]
    searched: list[str] = []
    key = start.unique_key or None
    seen: dict[tuple[int, int | None, str], StoryRecord] = {}

    def keep(rec: StoryRecord) -> None:
        where = rec.physical_offset if rec.physical_offset is not None else -1
        seen.setdefault((where, rec.inner_index, rec.topic if rec.expired is None else ""), rec)

    def offsets() -> set[int]:
        return {r.physical_offset for r in seen.values() if r.role not in ("trace", "op")}

    cut: list[str] = []

    def stop(after: str, left: str) -> bool:
        """Whether the budget ran out (said once: after what, and what was not read)."""
        if parts.budget is None or not parts.budget.expired():
            return False
        if not cut:
            cut.append(f"{parts.budget.note(after)}: {left} not read; the story may lack records")
        return True

    for rec in _records(start, parts.start_note or "the REF", delays, notes):
        keep(rec)
    if stop("reading the REF's record", "its copies by UNIQ_KEY, the records ORIGIN_MESSAGE_ID names, op and "
            "trace records"):
        pass
    elif key:
        hits, damage = parts.copies(key)
        notes += damage
        for hit in hits:
            for rec in _records(hit.message, hit.note or f"index ({hit.index_file})", delays, notes):
                keep(rec)
        searched.append(f"every topic's index for UNIQ_KEY {key}" + (f"; {parts.coverage_note}"
                                                                     if parts.coverage_note else ""))
    else:
        notes.append("the message has no UNIQ_KEY (an old client's): only the record itself and the records its "
                     "ORIGIN_MESSAGE_ID names are found")

    # ORIGIN_MESSAGE_ID: the record a retry or dead-letter copy was made from (consumerSendMsgBack keeps the
    # first one's id through every later send-back)
    following = not cut and not stop("the copies by UNIQ_KEY", "the records ORIGIN_MESSAGE_ID names, op and trace "
                                     "records")
    for rec in list(seen.values()) if following else []:
        origin = dict(rec.facts).get("ORIGIN_MESSAGE_ID")
        offset = _origin_offset(origin) if origin else None
        if offset is None or offset in offsets():
            continue
        if is_expired(parts.floor, offset):
            keep(StoryRecord("original", None, offset, "", None, None, f"ORIGIN_MESSAGE_ID of @{rec.physical_offset}",
                             expired=expired_reason(offset, parts.floor)))
            continue
        try:
            msg = parts.message_at(offset)
        except StoreError as e:
            notes.append(f"ORIGIN_MESSAGE_ID {origin} of @{rec.physical_offset}: the record at {offset} cannot be "
                         f"read: {e}")
            continue
        if msg.msg_id != origin.strip().upper():
            notes.append(f"ORIGIN_MESSAGE_ID {origin} of @{rec.physical_offset} names offset {offset}, but the record "
                         f"there has id {msg.msg_id}: another store host's id, not followed")
            continue
        for found in _records(msg, f"ORIGIN_MESSAGE_ID of @{rec.physical_offset}", delays, notes):
            keep(found)

    if not cut and not stop("the copies", "op and trace records"):
        _op_records(parts, seen, keep, notes, searched)
        stop("reading the op records", "trace records")  # said when it ran out among the op units

    trace_groups: dict[tuple[str, int], dict[str, object]] = {}
    requests: dict[str, int] = {}
    ids = tuple(dict.fromkeys(i for i in (key, *(r.msg_id for r in seen.values() if r.role != "lmq")) if i))
    timeline = parts.trace(ids) if ids and not cut else None
    if timeline is not None:
        stop("reading the trace records", "the rest of the trace records")
    if timeline is not None:
        for entry in timeline.entries:
            keep(_trace_record(entry))
            _note_trace_group(trace_groups, requests, entry)
            expired = _pub_expired(entry, parts.floor, offsets())
            if expired is not None:
                keep(expired)
        how = ("through the index" if timeline.source == "index" or not timeline.messages_read else
               f"by a scan of {timeline.messages_read:,} trace message(s)")
        searched.append(f"trace topics {', '.join(timeline.topics)} {how}" if timeline.topics
                        else "no trace topic in this store")
        notes += timeline.notes

    records = sorted(seen.values(), key=lambda r: (r.time if r.time is not None else -1,
                                                   r.physical_offset if r.physical_offset is not None else -1,
                                                   r.inner_index or 0))
    groups = _groups(records, parts, trace_groups)
    notes += parts.offsets_notes
    notes += cut
    return Story(parts.ref, key, tuple(records), tuple(groups), tuple(searched), tuple(notes), parts.offsets_source,
                 cut[0] if cut else None)


def _op_records(parts: StoryParts, seen: dict, keep: Callable[[StoryRecord], None], notes: list[str],
                searched: list[str]) -> None:
    """The op record of each half message of the story: RMQ_SYS_TRANS_OP_HALF_TOPIC, the half's queue id, body
    the half's queue offset followed by ',' (5.x's TransactionalOpBatchService joins several: '3,7,'); read
    from the op queue's first unit stored at or after the half. The op record has no UNIQ_KEY to index."""
    halves = [r for r in seen.values() if r.role == "half" and r.queue_offset is not None and r.expired is None]
    commits = {dict(r.facts).get("half at (preparedTransactionOffset)") for r in seen.values() if r.role == "commit"}
    for half in halves:
        want = str(half.queue_offset)
        read = 0
        found = False
        skipped: list[str] = []
        for item in parts.op_records(half.queue_id or 0, half.time or 0):
            if read % OP_CHECK_EVERY == 0 and read and parts.budget is not None and parts.budget.expired():
                break  # tell_story says it was cut
            if read >= OP_SCAN_CAP:
                notes.append(f"the op queue {OP_TOPIC} {half.queue_id} was read for {OP_SCAN_CAP:,} units after the "
                             f"half @{half.physical_offset} without its op record; later ones were not read")
                break
            read += 1
            if isinstance(item, Problem):
                skipped.append(item.reason)
                continue
            try:
                body = item.body.decode("ascii")
            except UnicodeDecodeError:
                continue
            if want in [part.strip() for part in body.split(",")]:
                end = "commit" if str(half.physical_offset) in commits else "rollback (no COMMIT record)"
                keep(StoryRecord("op", item.store_timestamp, item.physical_offset, item.topic, item.queue_id,
                                 item.queue_offset, f"body names the half's queue offset {want}",
                                 (("half queue offset", want), ("ends the half as", end),
                                  ("TAGS", item.properties.get("TAGS", "")))))
                found = True
                break
        searched.append(f"{OP_TOPIC} queue {half.queue_id} from the half's store time ({read:,} unit(s))")
        if skipped:
            notes.append(f"{len(skipped):,} unit(s) of the op queue could not be read (first: {skipped[0]}): the "
                         "half's op record may be among them")
        if not found and not skipped:
            notes.append(f"no op record for the half @{half.physical_offset}: the transaction is not ended "
                         "(the broker's check will ask the producer)")


def _trace_record(entry: TraceEntry) -> StoryRecord:
    r = entry.record
    facts = [(name, str(value)) for name, value in (
        ("type", r.type), ("group", r.group), ("client host", r.client_host), ("store host", r.store_host),
        ("cost ms", r.cost_time), ("success", r.success), ("request id", r.request_id),
        ("retry times", r.retry_times), ("offset msgId", r.offset_msg_id), ("transaction state", r.transaction_state),
        ) if value is not None]
    return StoryRecord("trace", entry.when, entry.physical_offset, entry.topic, None, None,
                       f"trace record #{r.index} of the trace message @{entry.physical_offset}", tuple(facts),
                       inner_index=r.index, trace=entry)


def _note_trace_group(groups: dict[tuple[str, int], dict[str, object]], requests: dict[str, int],
                      entry: TraceEntry) -> None:
    """What a group's SubBefore/SubAfter records say about one delivery (``retry_times``: the consumed copy's
    reconsume times, ConsumeMessageTraceHookImpl; a SubAfter names its SubBefore by request id): the client, the
    time the consume took, whether it succeeded."""
    r = entry.record
    if r.type not in ("SubBefore", "SubAfter") or not r.group:
        return
    if r.type == "SubBefore":
        retry = r.retry_times or 0
        if r.request_id:
            requests[r.request_id] = retry
    else:
        retry = requests.get(r.request_id or "", 0)
    g = groups.setdefault((r.group, retry), {})
    if r.client_host:
        g["client"] = r.client_host
    if r.type == "SubAfter":
        g["cost_ms"], g["success"] = r.cost_time, r.success


def _pub_expired(entry: TraceEntry, floor: int, known: set[int]) -> StoryRecord | None:
    """A Pub record names the original's offset msgId: when retention removed that record, it is listed as
    expired rather than silently absent."""
    r = entry.record
    offset = _origin_offset(r.offset_msg_id) if r.type == "Pub" and r.offset_msg_id else None
    if offset is None or not is_expired(floor, offset) or offset in known:
        return None
    return StoryRecord("original", r.timestamp, offset, r.topic or "", None, None,
                       f"offset msgId of the Pub trace record @{entry.physical_offset}",
                       expired=expired_reason(offset, floor))


def _groups(records: list[StoryRecord], parts: StoryParts, traced: dict[tuple[str, int], dict[str, object]]
            ) -> list[GroupProgress]:
    """Each (group, queue) of the offsets whose queue holds a record of the story: consumed when the committed
    offset is past the record's queue offset (the committed offset is the next one to consume:
    ``ConsumerOffsetManager.commitOffset``, and a pull starts there)."""
    rows: list[GroupProgress] = []
    listed: set[str] = set()
    source = parts.offsets_source or "no consumer offsets"
    queued = [r for r in records if r.queue_offset is not None and r.expired is None
              and r.role not in ("trace", "rollback")]
    for rec in queued:
        for (topic, group), queues in sorted(parts.offsets.items()):
            if topic != rec.topic or rec.queue_id not in queues:
                continue
            committed = queues[rec.queue_id]
            reconsumed = dict(rec.facts).get("reconsume times", "0")
            t = traced.get((group, int(reconsumed) if reconsumed.isdigit() else 0), {})
            rows.append(GroupProgress(group, topic, rec.queue_id, rec.queue_offset, committed,
                                      committed > rec.queue_offset, source, t.get("client"), t.get("cost_ms"),
                                      t.get("success")))
            listed.add(group)
    for (group, _), t in sorted(traced.items()):
        if group not in listed:  # the trace says the group consumed it, the offsets hold nothing for it
            rows.append(GroupProgress(group, None, None, None, None, None, "trace records only", t.get("client"),
                                      t.get("cost_ms"), t.get("success")))
    return rows
