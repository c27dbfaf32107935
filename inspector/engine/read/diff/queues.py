"""Per queue of either store: min/max and the first differing unit, compared as whole unit arrays."""

from __future__ import annotations

import numpy as np

from inspector.engine.model.records import Problem
from inspector.engine.read.diff.result import QueueDiff
from inspector.engine.read.queues.store_queues import StoreQueues

COLUMNS = ("physical_offset", "size", "tags_code")


def _units(queues: StoreQueues, topic: str, queue_id: int) -> tuple[int, np.ndarray]:
    """(first queue offset, N x 3 int64 units) of one queue; empty when the store has none."""
    q = queues.queue(topic, queue_id)
    runs = [r for r in q.unit_runs() if not isinstance(r, Problem)]
    if not runs:
        return 0, np.zeros((0, 3), np.int64)
    first = runs[0].queue_offset
    arr = np.concatenate([np.stack([r.column(c) for c in COLUMNS], axis=1) for r in runs])
    return first, arr


def diff_queues(a: StoreQueues, b: StoreQueues) -> list[QueueDiff]:
    ids_a, ids_b = set(a.queue_ids()), set(b.queue_ids())
    out: list[QueueDiff] = []
    for topic, qid in sorted(ids_a | ids_b):
        fa, ua = _units(a, topic, qid) if (topic, qid) in ids_a else (None, None)
        fb, ub = _units(b, topic, qid) if (topic, qid) in ids_b else (None, None)
        if ua is None or ub is None:
            have = ua if ua is not None else ub
            first = fa if fa is not None else fb
            out.append(QueueDiff(topic, qid, fa, None if ua is None else fa + len(ua),
                                 fb, None if ub is None else fb + len(ub), first if len(have) else None))
            continue
        lo, hi = max(fa, fb), min(fa + len(ua), fb + len(ub))
        first_diff = None
        if hi > lo:
            ne = np.flatnonzero(np.any(ua[lo - fa:hi - fa] != ub[lo - fb:hi - fb], axis=1))
            if len(ne):
                first_diff = lo + int(ne[0])
        if first_diff is None and (fa, len(ua)) != (fb, len(ub)):
            first_diff = hi if hi >= lo else lo  # one queue runs on (or starts earlier) where the other has none
        if first_diff is not None:
            out.append(QueueDiff(topic, qid, fa, fa + len(ua), fb, fb + len(ub), first_diff))
    return out
