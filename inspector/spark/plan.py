"""Driver-side planning: which stores, which tasks, and what the segment reports add up to.

The driver only lists files (segments, queues, index files) and reads a few headers; every byte of data is
read by the executors (:mod:`inspector.spark.tasks`). Segment reports come back to the driver through an
accumulator; :func:`log_end` and :func:`recovery` turn them into what ``Store.max_offset()`` and
``recover()`` would compute by walking the log in one process.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from inspector.engine import (
    BadInput,
    BrokerConfig,
    Geometry,
    Recovery,
    Store,
    StoreError,
    log_window,
    recovery_start,
    segment_at,
    segment_size,
    store_input_problem,
)
from inspector.spark.tasks import IndexTask, QueueTask, SegmentReport, SegmentTask, StoreRef


def store_refs(paths: Sequence[str | Path], *, segment_size: int | None = None, cq_file_size: int | None = None,
               index_slots: int | None = None, index_items: int | None = None,
               broker_config: BrokerConfig | None = None, dledger_member: str | None = None) -> list[StoreRef]:
    """Absolute, de-duplicated store roots (every executor must see them at the same path); each one must open.
    ``broker_config`` (parsed once here, pickled to the executors) applies to every store."""
    refs: list[StoreRef] = []
    seen: set[str] = set()
    for p in paths:
        path = str(Path(p).resolve())
        if path in seen:
            continue
        seen.add(path)
        # the answer every command gives (where the store is), and why no job can run
        reason = store_input_problem(p, broker_config)
        if reason is not None:
            raise BadInput(f"{reason}; no commitlog segment to run a job on", str(p))
        ref = StoreRef(path, segment_size, cq_file_size, index_slots, index_items, broker_config, dledger_member)
        with ref.open() as store:
            if not store.segments:
                raise BadInput("no commitlog segment in this store", str(p))
        refs.append(ref)
    if not refs:
        raise BadInput("give at least one store")
    return refs


def plan_segments(refs: Iterable[StoreRef], since: int | None = None, until: int | None = None) -> list[SegmentTask]:
    """One task per commitlog segment of every store (a message never crosses a segment). ``since``/``until``: a
    store-time window, pushed into the tasks (each keeps only the records stored in it); only the segments it
    overlaps are planned, found on the driver by binary search (``log_window``: a few records read a segment)."""
    tasks = []
    windowed = since is not None or until is not None
    for ref in refs:
        with ref.open() as store:
            window = log_window(store, since, until) if windowed else None
            for i, seg in enumerate(store.segments):
                if window is None or window.overlaps(seg):
                    tasks.append(SegmentTask(ref, i, seg.name, seg.file, seg.start_offset, seg.file_size, since,
                                             until))
    return tasks


def plan_queues(ref: StoreRef, store: Store, geometry: Geometry, log_end: int) -> list[QueueTask]:
    """One task per consume queue, then one per batch consume queue (``verify``'s order)."""
    plain = [QueueTask(ref, i, topic, qid, geometry, log_end) for i, (topic, qid) in enumerate(store.queue_ids())]
    return plain + [QueueTask(ref, len(plain) + i, topic, qid, geometry, log_end, "batchconsumequeue")
                    for i, (topic, qid) in enumerate(store.batch_queue_ids())]


def plan_index_files(ref: StoreRef, store: Store) -> list[IndexTask]:
    return [IndexTask(ref, i, reader.rel) for i, reader in enumerate(store.index_files())]


def latest_reports(reports: Iterable[SegmentReport]) -> dict[str, list[SegmentReport]]:
    """Per store, one report per segment in segment order (a retried task reports twice: the last one wins)."""
    by_key: dict[tuple[str, int], SegmentReport] = {}
    for r in reports:
        by_key[r.key] = r
    out: dict[str, list[SegmentReport]] = {}
    for key in sorted(by_key):
        out.setdefault(key[0], []).append(by_key[key])
    return out


def _complete(store: Store, reports: Sequence[SegmentReport], what: str, strict: bool = True) -> list[SegmentReport]:
    by_index = {r.index: r for r in reports}
    if not strict:
        return [by_index[i] for i in range(len(store.segments)) if i in by_index and not by_index[i].error]
    missing = [s.file for i, s in enumerate(store.segments) if i not in by_index]
    failed = [f"{r.file}: {r.error}" for r in reports if r.error]
    if missing or failed:
        raise StoreError(f"cannot find {what}: " + "; ".join([*(f"{m}: not walked" for m in missing), *failed]),
                         "commitlog")
    return [by_index[i] for i in range(len(store.segments))]


def log_end(store: Store, reports: Sequence[SegmentReport], *, strict: bool = True) -> int:
    """``Store.max_offset()``: the end of the last good record of the last segment holding data.

    ``strict``: every segment must have been walked (else StoreError); otherwise the failed ones are skipped.
    """
    last = 0
    for r in _complete(store, reports, "the end of the log", strict):
        if r.has_data:
            last = r.valid_end_offset
    return last or store.min_offset


def last_store_timestamp(reports: Iterable[SegmentReport]) -> int:
    """The newest store time of any message (``verify``'s checkpoint check)."""
    return max((r.max_store_timestamp for r in reports), default=0)


def recovery(store: Store, reports: Sequence[SegmentReport], mode: str | None = None) -> Recovery:
    """``recover(store, mode)`` from the segment reports: where the broker's recovery would end the log.

    The start segment is chosen as ``recover`` chooses it (a few headers read here); the walk from there
    is replaced by the reports, each of which says what its segment held before its first fatal problem.
    """
    mode, start_index = recovery_start(store, mode)
    if start_index is None:
        return Recovery(mode, None, 0, None, "the commitlog directory holds no segment", None)
    start = store.segments[start_index]
    ordered = _complete(store, reports, "where recovery ends the log")
    end = start.start_offset
    last = None
    for r in ordered[start_index:]:
        if r.last_record_offset is not None:
            last, end = r.last_record_offset, r.last_record_end
        if r.blank_offset is not None:
            nxt = segment_at(store, r.start_offset + (segment_size(store) or 1))
            end = nxt.start_offset if nxt is not None else r.blank_offset
        if r.fatal is not None:
            p = r.fatal
            return Recovery(mode, start.file, end, last, f"{p.reason} ({p.file} @ {p.offset})", p)
    return Recovery(mode, start.file, end, last, "end of data (zero bytes follow)", None)
