"""The story of one message as a JSON-ready view: what ``rmq-inspect story --json``, the web page and the TUI
screen share (field names here, once)."""

from __future__ import annotations

from inspector.engine.present.traceviews import trace_record_view
from inspector.engine.read.story.story import GroupProgress, Story, StoryRecord


def story_record_view(record: StoryRecord) -> dict:
    """One record: its role and the rule that writes it, where it is (offsets as numbers; a web page sends them
    as strings itself), its facts by name, how it was found, and ``expired`` when retention removed it."""
    view = {"role": record.role, "rule": record.rule, "time": record.time, "physical_offset": record.physical_offset,
            "msg_id": record.msg_id, "topic": record.topic, "queue_id": record.queue_id,
            "queue_offset": record.queue_offset, "inner_index": record.inner_index, "found_by": record.found_by,
            "facts": dict(record.facts), "expired": record.expired}
    if record.trace is not None:
        view["trace_record"] = trace_record_view(record.trace.record)
    return view


def group_progress_view(group: GroupProgress) -> dict:
    """A group on one queue of the story (``topic`` None: known only from trace records)."""
    return {"group": group.group, "topic": group.topic, "queue_id": group.queue_id,
            "queue_offset": group.queue_offset, "committed": group.committed,
            "consumed": group.consumed, "source": group.source, "client": group.client, "cost_ms": group.cost_ms,
            "success": group.success}


def story_view(story: Story) -> dict:
    """The whole story: the REF, the UNIQ_KEY, its records by time, each group's progress, what was searched and
    what a partial answer left out (``notes``; empty: nothing was)."""
    return {"ref": story.ref, "unique_key": story.unique_key, "offsets_source": story.offsets_source,
            "records": [story_record_view(r) for r in story.records],
            "groups": [group_progress_view(g) for g in story.groups],
            "searched": list(story.searched), "notes": list(story.notes)}
