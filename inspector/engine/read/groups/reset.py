"""What a consumer-offset reset would do, queue by queue, computed from the store as the broker computes it.

The broker's two admin paths (5.3.1; ``AdminBrokerProcessor.resetOffset``):

- ``useServerSideResetOffset=true`` (the 5.x default): ``AdminBrokerProcessor.resetOffsetInner`` sets every queue
  to the picked offset (``searchOffsetByTimestamp``: a negative time is the queue's max offset, else
  ``DefaultMessageStore.getOffsetInQueueByTime``); an explicit offset is for one queue and must lie in
  [min, max + 1] ("Target offset %d not in consume queue range").
- otherwise (and every 4.x broker): ``Broker2Client.resetOffset(topic, group, timeStamp, isForce)``: with
  ``isForce=false`` a queue whose committed offset is at or below the picked one keeps it (``isForce ||
  timeStampOffset < consumerOffset``): only a move backwards is applied. ``--backward-only`` here.

The picked offset for a time is 5.x's ``ConsumeQueue.getOffsetInQueueByTime(timestamp, BoundaryType.LOWER)``
clamped to [min, max] by ``ConsumeQueueStore.getOffsetInQueueByTime``: the first unit stored at or after the
time; a time after the last unit gives the max offset, one before the first the min (``Store.queue_offset_by_time``,
the same binary search). 4.9.8's ``ConsumeQueue.getOffsetInQueueByTime`` picks the unit *nearest* the time
instead (either side; a time after the last unit gives the last unit, not the max; no clamp): ``nearest=True``
(``--nearest``) follows it, :func:`nearest_4x`.

Replay and skip count from the offset the group really consumes from: its committed offset, moved into
[min, max] as the broker corrects it (``DefaultMessageStore.getMessage``: OFFSET_TOO_SMALL / OFFSET_OVERFLOW).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.engine.model.errors import BadInput, StoreError
from inspector.engine.model.records import Problem, fmt_time
from inspector.engine.read.groups.groups import GroupView

MODES = ("at", "to-offset", "to-end")


@dataclass(frozen=True)
class PlannedQueue:
    """One queue of the plan: its committed offset, the queue's effective min and max, the offset the reset picks
    and the one the group would have after it (``new``: the picked one, or the committed one kept by
    ``--backward-only``); ``picked_time`` the store time of the message at ``picked`` (None past the last)."""

    topic: str
    queue_id: int
    committed: int
    min_offset: int
    max_offset: int
    picked: int
    new: int
    picked_time: int | None = None
    note: str | None = None

    @property
    def consumed_from(self) -> int:
        """Where the group consumes from today: the committed offset as the broker corrects it into [min, max]."""
        return min(max(self.committed, self.min_offset), self.max_offset)

    @property
    def replay(self) -> int:
        """Messages consumed again after the reset (the new offset is behind the one consumed from)."""
        return max(0, self.consumed_from - self.new)

    @property
    def skip(self) -> int:
        """Messages never consumed after the reset (the new offset is ahead of the one consumed from)."""
        return max(0, self.new - self.consumed_from)


@dataclass
class OffsetPlan:
    """A planned reset of ``group``: how (``mode``, ``at`` / ``offset``, ``force``), where its offsets come from
    (``source``, a path under the store root, and why), each queue, and findings (queues left out and why)."""

    group: str
    mode: str
    source: str
    reason: str
    force: bool
    nearest: bool = False
    at: int | None = None
    offset: int | None = None
    queues: list[PlannedQueue] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def replay(self) -> int:
        return sum(q.replay for q in self.queues)

    @property
    def skip(self) -> int:
        return sum(q.skip for q in self.queues)


@dataclass(frozen=True)
class QueueTimes:
    """What a reset plan reads of the store (``answers.plan_offsets`` gives the Store's): a queue by topic and id,
    the first queue offset stored at or after a time (the broker's binary search), a record's store time."""

    queue: Callable[[str, int], Any]
    offset_by_time: Callable[[str, int, int], int]
    store_time: Callable[[int], int]


def plan_reset(times: QueueTimes, view: GroupView, *, at: int | None = None, offset: int | None = None,
               topic: str | None = None, queue_id: int | None = None, force: bool = True,
               nearest: bool = False) -> OffsetPlan:
    """The reset of ``view.group`` (``group_of``'s view: its committed offsets from the broker's source and each
    queue's effective min and max): to store time ``at``, to queue offset ``offset`` (one queue: ``topic`` and
    ``queue_id``), or neither: to the end. Only ``topic`` / ``queue_id`` when given. BadInput: an offset outside
    the queue's [min, max + 1] (the broker's range check), a time before every planned queue's first message
    (each queue would go to its min: most likely a mistaken time), no queue to plan."""
    if at is not None and offset is not None:
        raise BadInput("give one of --at, --to-offset, --to-end")
    mode = "at" if at is not None else "to-offset" if offset is not None else "to-end"
    if nearest and mode != "at":
        raise BadInput("--nearest is how 4.9.8 picks the offset for a time: it goes with --at")
    if mode == "to-offset" and not force:
        raise BadInput("--backward-only is Broker2Client.resetOffset's isForce=false, which takes a time, not an "
                       "offset: give it with --at or --to-end")
    if mode == "to-offset" and (topic is None or queue_id is None):
        raise BadInput("--to-offset is one queue's offset: give --topic and --queue too "
                       "(AdminBrokerProcessor.resetOffsetInner takes an offset only with a queue id)")
    plan = OffsetPlan(view.group, mode, view.source, view.reason, force, nearest, at=at, offset=offset)
    plan.problems = list(view.problems)
    chosen = [q for q in view.queues if (topic is None or q.topic == topic) and (queue_id is None or
                                                                               q.queue_id == queue_id)]
    if not chosen:
        where = f"topic {topic}" + (f" queue {queue_id}" if queue_id is not None else "") if topic else "any queue"
        raise BadInput(f"consumer group {view.group} has no committed offset on {where} in {view.source} (its "
                       f"queues: {', '.join(sorted({f'{q.topic}:{q.queue_id}' for q in view.queues})) or 'none'})")
    for q in chosen:
        if q.min_offset is None or q.max_offset is None:
            plan.notes.append(f"{q.topic} queue {q.queue_id}: no such queue in the store; its offset "
                              f"({q.committed}) is copied unchanged")
            continue
        plan.queues.append(_planned(times, q, mode, at, offset, force, nearest))
    if not plan.queues:
        raise BadInput(f"none of the group's queues ({len(chosen)}) is in the store: nothing to plan")
    if mode == "at":
        _check_time(plan)
        if all(q.picked == q.max_offset for q in plan.queues):
            plan.notes.append("the time is after the last message of every queue planned: the same as --to-end")
    return plan


def _planned(times, q, mode: str, at: int | None, offset: int | None, force: bool, nearest: bool) -> PlannedQueue:
    lo, hi = q.min_offset, q.max_offset
    if mode == "to-offset":
        if offset < lo or offset > hi + 1:  # AdminBrokerProcessor.resetOffsetInner's check, max + 1 included
            raise BadInput(f"--to-offset {offset}: not in {q.topic} queue {q.queue_id}'s range [{lo}-{hi}] "
                           "(the broker refuses: Target offset not in consume queue range)")
        picked = offset
    elif mode == "to-end":
        picked = hi
    elif nearest:
        picked = max(0, nearest_4x(times, q.topic, q.queue_id, lo, hi, at))  # Broker2Client: < 0 -> 0
    else:
        picked = times.offset_by_time(q.topic, q.queue_id, at)
        picked = min(max(picked, lo), hi)  # ConsumeQueueStore.getOffsetInQueueByTime clamps to [min, max]
    new, note = picked, None
    if not force and not picked < q.committed:  # Broker2Client: isForce || picked < committed
        new, note = q.committed, "kept: the committed offset is not ahead of the picked one (--backward-only)"
    return PlannedQueue(q.topic, q.queue_id, q.committed, lo, hi, picked, new, _time_at(times, q, picked), note)


def _time_at(times: QueueTimes, q, offset: int) -> int | None:
    """The store time of the message at queue offset ``offset`` (None: past the last, or unreadable)."""
    if offset >= q.max_offset:
        return None
    try:
        return times.store_time(times.queue(q.topic, q.queue_id).unit(offset).physical_offset)
    except StoreError:
        return None


def _check_time(plan: OffsetPlan) -> None:
    """A time before the first message of every planned queue: refused (each queue would be reset to its min, as
    the broker does; a time that early is most likely a mistake, and --to-offset MIN says it plainly)."""
    firsts = [q.picked_time for q in plan.queues if q.picked == q.min_offset and q.picked_time is not None]
    if len(firsts) == len(plan.queues) and all(plan.at < t for t in firsts):
        first = min(firsts)
        raise BadInput(f"--at {plan.at} ({fmt_time(plan.at)}) is before the first message of every queue planned "
                       f"(the earliest stored {first}, {fmt_time(first)}): each queue would go to its min offset; "
                       "give a time at or after it")


def nearest_4x(times: QueueTimes, topic: str, queue_id: int, lo: int, hi: int, at: int) -> int:
    """4.9.8's ``ConsumeQueue.getOffsetInQueueByTime``, step for step on queue offsets: one consume-queue file
    chosen (``MappedFileQueue.getMappedFileByTime``: the first whose last modification is at or after ``at``, else
    the last; a copied store's mtimes are not the broker's, so the file's last unit's store time stands for it),
    a binary search over its units from the queue's min (``minLogicOffset``); an exact store time ends it (any unit
    with that time, the one the search meets); else the nearer of the units either side (a tie: the earlier), the
    first unit when all are after ``at``, the last when all are before. A unreadable store time returns 0, as the
    broker's ``storeTime < 0`` does. ``lo``/``hi``: the queue's effective min and max offsets."""
    if hi <= lo:
        return 0
    cq = times.queue(topic, queue_id)
    per_file = getattr(cq, "file_size", 0) // 20 or max(hi, 1)  # RocksDB / batch queues: one span

    def when(offset: int) -> int:
        return times.store_time(cq.unit(offset).physical_offset)

    try:
        files = range(lo // per_file, (hi - 1) // per_file + 1)
        start = next((f * per_file for f in files[:-1] if when(min((f + 1) * per_file, hi) - 1) >= at),
                     files[-1] * per_file)
        low, high = max(lo - start, 0), min(per_file, hi - start) - 1
        target = left = right = -1
        left_time = right_time = -1
        while high >= low:
            mid = (low + high) // 2
            t = when(start + mid)
            if t == at:
                target = mid
                break
            if t > at:
                high, right, right_time = mid - 1, mid, t
            else:
                low, left, left_time = mid + 1, mid, t
    except StoreError:
        return 0
    if target != -1:
        return start + target
    if left_time == -1:
        return start + right
    if right_time == -1:
        return start + left
    return start + (right if abs(at - left_time) > abs(at - right_time) else left)
