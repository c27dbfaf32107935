"""``verify`` cut into tasks a parallel runner (the Spark job) schedules: one per commitlog segment, one per queue,
one per index file, and the checks that read no data, each giving the findings ``verify`` gives for that part.

The runner plans the tasks (which segments, queues and index files: the store lists them), runs them where it
likes, and merges: the segments' shares of queue coverage, their DLedger entry heads, the newest store time.
It never calls verify's steps itself; this module is the only place that does, so the order and the checks
stay verify's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from inspector.engine.maintain.verify.batch_queues import check_batch_queue
from inspector.engine.maintain.verify.coverage import QueueCoverage, queue_ends
from inspector.engine.maintain.verify.dledger import check_dledger, dledger_segment_heads
from inspector.engine.maintain.verify.index import check_index
from inspector.engine.maintain.verify.index_gaps import index_gap_problems
from inspector.engine.maintain.verify.lmq import segment_lmq_problems
from inspector.engine.maintain.verify.queues import check_queue
from inspector.engine.maintain.verify.timer import check_timer
from inspector.engine.maintain.verify.verify import check_checkpoint, check_consumer_offsets, record_problems
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.records import Problem, Segment
from inspector.engine.read.commitlog.commitlog import SegmentScan
from inspector.engine.read.store.answers import store_load_problems


@dataclass(frozen=True)
class SegmentVerdict:
    """What verify found in one segment: its scan figures, the record findings and the LMQ ones (reported after
    every segment's records), the newest store time, and the shares the driver merges (coverage, entry heads)."""

    scan: SegmentScan
    problems: tuple[Problem, ...]
    lmq_problems: tuple[Problem, ...]
    max_store_timestamp: int
    uncovered: object  # this segment's share of QueueCoverage, for :func:`verify_after_queues`
    entry_heads: object  # a DLedger data file's entry heads, for :func:`verify_dledger` (None otherwise)


def verify_segment(store, segment: Segment, ends: dict[tuple[str, int], int] | None = None) -> SegmentVerdict:
    """The record-level checks of ``verify`` over one segment (clean runs in bulk, every other record one by
    one). ``ends``: the queues' ends (:func:`queue_ends`), read once per store by a caller running many tasks."""
    coverage = QueueCoverage(store, queue_ends(store) if ends is None else ends)  # records past their queue's end
    heads: list[np.ndarray] = []
    # a DLedger data file: its entries' headers as verify tables them (without numba there are no tables, and
    # check_dledger reads the headers itself)
    on_table = functools.partial(_keep_heads, heads) if segment.entry_header else None
    summary = coverage.add_segment(store, segment, lambda m: record_problems(store, m), on_table)
    lmq = segment_lmq_problems(store, segment, coverage)  # verify's record-side LMQ check, after every record
    entry_heads = dledger_segment_heads(store, heads)  # each entry against its index unit, here
    return SegmentVerdict(summary.scan, tuple(summary.problems), tuple(lmq), summary.max_store_timestamp,
                          coverage.uncovered, entry_heads)


def _keep_heads(heads: list[np.ndarray], table) -> None:
    """(record offset, size, Raft index, term) of a verify table's DLedger entries (``verify``'s ``heads``)."""
    if table.dledger:
        heads.append(table.table[[0, 1, 10, 11]])


def verify_queue(store, topic: str, queue_id: int, geometry: Geometry, log_end: int,
                 kind: str = "consumequeue") -> tuple[list[Problem], int]:
    """(problems, units checked) of one consume queue (or ``batchconsumequeue``), every unit against its record:
    the same report as verify's bulk path, whose tables come from one walk of the whole log."""
    if kind == "batchconsumequeue":
        return check_batch_queue(store, topic, queue_id, geometry, log_end)
    return check_queue(store, topic, queue_id, geometry, log_end, None)


def verify_index_file(store, reader) -> tuple[list[Problem], int]:
    """(problems, items checked) of one index file (a reader of ``store.index_files()``), as verify reports them."""
    return check_index(store, reader, None)


def verify_layout(store) -> list[Problem]:
    """The commitlog's layout findings (missing, cut or misnamed segments): first in verify's report."""
    return list(store.commitlog.problems)


def verify_after_queues(store, log_end: int, uncovered: list) -> list[Problem]:
    """The records no queue covers (the segments' shares merged) and the 5.x timer store's checks: what verify
    reports after the queues, before the index files."""
    coverage = QueueCoverage(store)
    for share in uncovered:
        if share:
            coverage.merge(share)
    return [*coverage.problems(), *check_timer(store, log_end)[0]]


def verify_dledger(store, walk_problems: list[Problem], entry_heads: list):
    """A DLedger store's checks and recovery preview (None for a plain store) from the segments' walk findings and
    entry heads; verify reports them after every segment's records, before the LMQ ones."""
    return check_dledger(store, walk_problems, entry_heads)


def verify_rest(store, last_store_timestamp: int) -> list[Problem]:
    """The checks that read no record: stray files, load checks, DLedger members, index headers, checkpoint,
    consumer offsets, config; last in verify's report."""
    return [*store.unknown_files(), *store_load_problems(store), *store.dledger_member_problems(),
            *store.index_problems(), *index_gap_problems(store), *store.checkpoint_problems(), *check_checkpoint(store, last_store_timestamp),
            *check_consumer_offsets(store), *store.config.findings()]
