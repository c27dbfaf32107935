"""Consumer groups as JSON-ready views: what ``groups --json`` and ``group --json`` print and the TUI and web show.

A message is given in a short shape (its place, ids, times, tags, keys and a one-line body preview), not the
whole ``message_view``: a group's view lists a message per queue side and the pending ones, and
``rmq-inspect show OFFSET`` has the rest."""

from __future__ import annotations

from inspector.engine.present.views import problem_view
from inspector.engine.read.commitlog.body import body_line
from inspector.engine.read.groups.groups import GroupQueue, GroupSummary, GroupView, QueueMessage, TopicCount
from inspector.engine.read.groups.reset import OffsetPlan
from inspector.engine.read.queues.collector import few_collections


def _count(count: TopicCount | None) -> dict | None:
    return None if count is None else {"topic": count.topic, "queues": count.queues, "messages": count.messages}


def group_summary_view(s: GroupSummary) -> dict:
    return {"group": s.group, "topics": list(s.topics), "queues": s.queues, "lag": s.lag,
            "corrected_queues": s.corrected, "retry": _count(s.retry), "dlq": _count(s.dlq),
            "configured": s.configured, "offset_sources": list(s.sources)}


def groups_view(summaries: list[GroupSummary], source: str, reason: str) -> dict:
    """``groups --json``: the offsets source the lags are from, and one entry per group."""
    with few_collections():  # a view dict per group (read/queues/collector.py)
        return {"offsets_source": source, "reason": reason, "groups": [group_summary_view(s) for s in summaries]}


def queue_message_view(qm: QueueMessage | None) -> dict | None:
    """A message read through a queue: its place and store time; read whole (a pending one) also its ids, tags,
    keys and a one-line body preview; ``problem``: why it could not be read."""
    if qm is None:
        return None
    view: dict = {"topic": qm.topic, "queue_id": qm.queue_id, "queue_offset": qm.queue_offset,
                  "physical_offset": qm.physical_offset, "store_timestamp": qm.store_timestamp}
    if qm.problem is not None:
        view["problem"] = qm.problem
    m = qm.message
    if m is None:
        return view
    return {**view, "msg_id": m.msg_id, "unique_key": m.unique_key, "born_timestamp": m.born_timestamp,
            "reconsume_times": m.reconsume_times, "tags": m.tags, "keys": list(m.keys),
            "body_preview": body_line(m, 60)}


def group_queue_view(q: GroupQueue) -> dict:
    return {"topic": q.topic, "queue_id": q.queue_id, "committed_offset": q.committed, "source": q.source,
            "other_sources": [{"source": o.source, "offset": o.offset} for o in q.others] if q.others else [],
            "min_offset": q.min_offset, "max_offset": q.max_offset, "lag": q.lag, "corrected": q.corrected,
            "note": q.note, "last_consumed": queue_message_view(q.last_consumed),
            "first_unconsumed": queue_message_view(q.first_unconsumed)}


def group_view(v: GroupView) -> dict:
    """``group --json``: the group, where its offsets come from, its config, queues, retry/DLQ counts, the
    pending messages (``pending_limit`` and ``more_pending``: how many were not listed) and the findings."""
    with few_collections():  # three view dicts a queue, 16,000 queues (read/queues/collector.py)
        return _group_view(v)


def _group_view(v: GroupView) -> dict:
    return {"group": v.group, "offsets_source": v.source, "reason": v.reason, "config_source": v.config_source,
            "config": v.config, "topics": list(v.topics), "lag": v.lag,
            "queues": [group_queue_view(q) for q in v.queues], "retry": _count(v.retry), "dlq": _count(v.dlq),
            "pending": [queue_message_view(m) for m in v.pending], "pending_total": v.pending_total,
            "pending_limit": v.limit, "more_pending": v.more_pending,
            "problems": [problem_view(p) for p in v.problems]}


def offset_plan_view(plan: OffsetPlan) -> dict:
    """``offsets plan --json``: the reset (mode, time or offset, force), the offsets source, each queue (committed,
    min, max, picked, new, replay, skip) with totals, notes and findings."""
    return {"group": plan.group, "mode": plan.mode, "at": plan.at, "nearest": plan.nearest,
            "to_offset": plan.offset, "force": plan.force,
            "offsets_source": plan.source, "reason": plan.reason, "replay": plan.replay, "skip": plan.skip,
            "queues": [{"topic": q.topic, "queue_id": q.queue_id, "committed_offset": q.committed,
                        "consumed_from": q.consumed_from, "min_offset": q.min_offset, "max_offset": q.max_offset,
                        "picked_offset": q.picked, "picked_store_timestamp": q.picked_time, "new_offset": q.new,
                        "replay": q.replay, "skip": q.skip, "note": q.note} for q in plan.queues],
            "notes": list(plan.notes), "problems": [problem_view(p) for p in plan.problems]}
