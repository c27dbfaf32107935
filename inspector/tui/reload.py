"""What changed between two openings of a live store, in one line (the TUI's reload key says it).

Engine calls only (no Textual): a worker thread takes the shape of the old store and of the one just re-opened.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.engine import Message, StoreError

COUNT_LIMIT = 100_000  # records counted in the new part of the log; past it the line says "at least"


@dataclass(frozen=True)
class StoreShape:
    """The facts of one opening a reload compares: the log's ends, each queue's end, the index files."""

    min_offset: int
    max_offset: int
    segments: int
    queues: dict[tuple[str, int], int]  # (topic, queue id) -> max queue offset (exclusive)
    index_files: int


def shape_of(store) -> StoreShape:
    """The store's shape now (reads every queue's last unit and the log's end: a worker's job on a big store)."""
    try:
        queues = {(q.topic, q.queue_id): q.max_offset for q in store.queue_infos()}
    except StoreError:  # a store without readable queues still reloads: its log is what follow and hex read
        queues = {}
    try:
        index_files = len(store.index_files())
    except StoreError:
        index_files = 0
    return StoreShape(store.min_offset, store.max_offset(), len(store.segments), queues, index_files)


def new_records(store, start: int, end: int, limit: int = COUNT_LIMIT) -> tuple[int, bool]:
    """Messages of the log between ``start`` and ``end`` (physical offsets), and whether the count stopped at
    ``limit``; a torn tail being written ends the count, it is no error."""
    count = 0
    if end <= start:
        return 0, False
    try:
        for entry in store.entries(start, check_crc=False):
            if getattr(entry, "physical_offset", end) >= end:
                break
            if isinstance(entry, Message):
                count += 1
                if count >= limit:
                    return count, True
    except StoreError:
        pass  # what was counted before the damage stands
    return count, False


def changes(old: StoreShape, new: StoreShape, added: tuple[int, bool]) -> str:
    """One line: what the reload found changed, e.g. ``commitlog +2 records (+238 bytes), 2 queues grew``."""
    parts: list[str] = []
    count, capped = added
    if new.max_offset > old.max_offset:
        parts.append(f"commitlog +{'≥' if capped else ''}{count:,} records (+{new.max_offset - old.max_offset:,} bytes)")
    elif new.max_offset < old.max_offset:
        parts.append(f"commitlog end moved back {old.max_offset - new.max_offset:,} bytes (truncated or recovered)")
    if new.min_offset > old.min_offset:
        parts.append(f"first {new.min_offset - old.min_offset:,} bytes removed (retention)")
    if new.segments != old.segments:
        parts.append(f"segments {old.segments} → {new.segments}")
    grew = sum(1 for q, end in new.queues.items() if q in old.queues and end > old.queues[q])
    shrank = sum(1 for q, end in new.queues.items() if q in old.queues and end < old.queues[q])
    appeared = sum(1 for q in new.queues if q not in old.queues)
    gone = sum(1 for q in old.queues if q not in new.queues)
    for n, what in ((grew, "grew"), (appeared, "new"), (shrank, "shrank"), (gone, "gone")):
        if n:
            parts.append(f"{n} {'queue' if n == 1 else 'queues'} {what}")
    if new.index_files != old.index_files:
        parts.append(f"index files {old.index_files} → {new.index_files}")
    return "reloaded: " + (", ".join(parts) if parts else "nothing changed")
