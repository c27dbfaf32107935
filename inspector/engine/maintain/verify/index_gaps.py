"""verify's ``index-gap``: the log no index file covers, with why when the store can tell; and
``index-covers-nothing``: an index file before the newest that holds no item.

A key query (``IndexService.queryOffset``) answers only from the index files, so a record no file covers is not
found by its key however sound it is. The reasons a store shows:

* never built: ``messageIndexEnable=false`` in the broker config (``DefaultMessageStore.CommitLogDispatcherBuildIndex``
  dispatches to the index only when it is true);
* deleted by an abnormal start: ``IndexService.load(lastExitOK=false)`` destroys each index file whose end
  timestamp is past the checkpoint's ``indexMsgTimestamp`` (apache/rocketmq#8007, #3868); the records are not
  indexed again. The ``abort`` file says the next start is abnormal; a gap whose first record was stored at or
  before the checkpoint's index time had been indexed (the checkpoint is written after the index is flushed);
* a file missing between two present ones: deleted by hand (the broker deletes only the oldest, by retention);
* the log's tail past the newest file otherwise: not indexed yet (the broker indexes after dispatch) or deleted.

A warning (lookups by key miss these records; the tool's own lookups scan them): never an error, the records are
sound. ``rmq-inspect key`` and ``show`` say the same range.
"""

from __future__ import annotations

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Problem
from inspector.engine.read.index.coverage import Uncovered
from inspector.engine.read.index.indexfile import IndexFileReader

__all__ = ["index_gap_problems"]

ABNORMAL = ("an abnormal start deletes the index files whose end timestamp is past the checkpoint's index time "
            "(IndexService.load; apache/rocketmq#8007)")


def index_gap_problems(store) -> list[Problem]:
    """One ``index-gap`` warning per range of the log no index file covers (``Store.index_coverage``), at the
    segment and position where it starts, with the reason when the store tells it."""
    try:
        gaps = store.index_coverage()[1]
    except StoreError as e:  # an unreadable edge: the walks' own findings name it
        return [Problem(e.file or "index", e.offset or 0, f"index coverage not known: {e.reason}", "index-gap",
                        "warning")]
    found = _covering_nothing(store.index_files())
    for gap in gaps:
        seg = store.commitlog.segment_for(gap.start)
        file, pos = (seg.file, gap.start - seg.start_offset) if seg is not None else ("commitlog", gap.start)
        found.append(Problem(file, pos, f"no index file covers {gap.text} of the log: {_why(store, gap)}; a key "
                             "query of the broker does not find these records (rmq-inspect key and show scan them)",
                             "index-gap", "warning"))
    return found


def _covering_nothing(readers: list[IndexFileReader]) -> list[Problem]:
    """An ``index-covers-nothing`` warning for each index file without items that is not the newest: the broker
    makes a new file only when the newest is full (``IndexService.getAndCreateLastIndexFile``), so the newest may
    be one just made (normal, nothing said), an earlier one never is. Its header's range covers no record; a key
    query passes it by (``IndexService.queryOffset`` picks files by their time range). A file whose counters
    promise items it lacks, or cannot be trusted, has its own finding (``index-truncated``, ``index-header``)."""
    return [Problem(r.rel, 36, "indexCount 1: no items, before the newest index file: it covers no record of "
                    "the log (the broker makes a new file only when the newest is full: "
                    "IndexService.getAndCreateLastIndexFile); key queries pass it by", "index-covers-nothing")
            for r in readers[:-1] if r.written_items <= 0 and r.trusted and r.header.index_count <= 1]


def _why(store, gap: Uncovered) -> str:
    enabled = store.broker_config.properties.get("messageIndexEnable") if store.broker_config else None
    if enabled is not None and enabled.strip().lower() == "false":
        return "never built: messageIndexEnable=false in the broker config"
    if gap.after is None and gap.before is None:
        return "the store has no index file (never built: messageIndexEnable=false, or the files were deleted)"
    if gap.before is not None:
        between = f"between {gap.after} and {gap.before}" if gap.after else f"before {gap.before}"
        return f"an index file {between} is missing (the broker deletes only the oldest ones, by retention)"
    if (store.root / "abort").exists():
        return f"after the newest index file {gap.after}; the abort file is there: {ABNORMAL}"
    cp = store.checkpoint()
    stored = store.key_index.stored_at(gap.start)
    if cp is not None and stored is not None and 0 < stored <= cp.index_msg_timestamp:
        return (f"after the newest index file {gap.after}, yet the checkpoint's index time {cp.index_msg_timestamp} "
                f"is past its first record (stored {stored}): they were indexed and the file is gone; {ABNORMAL}")
    return (f"after the newest index file {gap.after}: not indexed yet (the broker indexes after dispatch), or "
            f"the file is gone; {ABNORMAL}")
