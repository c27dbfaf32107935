"""Walking the clean runs of one large segment with several threads, in log order.

``CommitLog.summarise_segment`` (info, verify) hands a large segment here when the kernels are compiled:
the segment is cut at clean record starts (:func:`~inspector.engine.scan.walk.find_clean`), each piece
is walked by a thread of a shared pool, and the pieces are put back in order as long as each one starts
exactly where the one before it ended. Where that fails (damage) the caller goes on record by record
from the returned position, so the result is the same for any number of threads.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from inspector.engine.read.commitlog.mapped import MappedFile
from inspector.engine.scan.kernels import compiled
from inspector.engine.scan.record_layout import CHECK_COMPRESSED, SYSFLAG_AT
from inspector.engine.scan.verify_kernels import VerifyTable, verify_run
from inspector.engine.scan.walk import Run, check_run, find_clean
from parsers.commitlog import COMPRESSED_FLAG

Vouch = Callable[[int], bool]  # a clean record's position -> True when verify has nothing to say about it
_COMPRESSED_BYTE = SYSFLAG_AT + 3  # COMPRESSED_FLAG is a bit of SYSFLAG's last byte (big-endian)


def vouched_run(arr: np.ndarray, pos: int, limit: int, *, segment_start: int, stop_at: int, flags: int,
                soft_stop: int, vouch: Vouch | None, entry_header: int = 0) -> tuple[Run, VerifyTable | None, bool]:
    """:func:`~inspector.engine.scan.verify_kernels.verify_run` where a compressed body does not end the run
    (``flags`` with CHECK_COMPRESSED and a ``vouch``): the run's compressed records are handed to ``vouch``
    (verify decompresses the body, which releases the GIL), and the run ends before the first one it does
    not vouch for, which the caller then takes the careful way as before. Without numba (no table to find
    them in) compressed records end the run as the flags say."""
    if vouch is None or not flags & CHECK_COMPRESSED or compiled() is None:
        return verify_run(arr, pos, limit, segment_start=segment_start, stop_at=stop_at, flags=flags,
                          soft_stop=soft_stop, entry_header=entry_header)
    lenient = flags & ~CHECK_COMPRESSED
    run, table, cut = verify_run(arr, pos, limit, segment_start=segment_start, stop_at=stop_at, flags=lenient,
                                 soft_stop=soft_stop, entry_header=entry_header)
    if table is None:  # no table to find them in after all: stop at compressed bodies
        return verify_run(arr, pos, limit, segment_start=segment_start, stop_at=stop_at, flags=flags,
                          soft_stop=soft_stop, entry_header=entry_header)
    at = table.column("physical_offset") - segment_start
    for p in at[(arr[at + _COMPRESSED_BYTE] & COMPRESSED_FLAG) != 0].tolist():
        if not vouch(p):
            return verify_run(arr, pos, limit, segment_start=segment_start, stop_at=p, flags=lenient,
                              soft_stop=soft_stop, entry_header=entry_header)[:2] + (False,)
    return run, table, cut


def threaded_runs(mf: MappedFile, limit: int, segment_start: int, flags: int, tables: bool, workers: int,
                  chunk: int, step: int, vouch: Vouch | None = None,
                  entry_header: int = 0) -> Iterator[Run | VerifyTable]:
    """The clean runs (with a VerifyTable after each one when ``tables``) of ``mf`` up to ``limit``, walked by
    ``workers`` threads in pieces of about ``chunk`` bytes, pages released every ``step`` bytes. Returns
    (as the generator's value) the position where the runs left off. ``vouch``: see :func:`vouched_run`."""
    arr = mf.array
    starts = [0]
    pieces = max(workers, -(-limit // chunk))
    for k in range(1, pieces):
        at = k * limit // pieces
        found = find_clean(arr, at, limit, segment_start=segment_start, flags=flags, entry_header=entry_header)
        mf.release(at - EDGE, max(found, at) + EDGE)  # a fault may map a large folio (MBs) around it
        if found > starts[-1]:
            starts.append(found)
    bounds = list(zip(starts, [*starts[1:], limit], strict=True))

    def walk(bound: tuple[int, int]) -> list:
        start, stop = bound
        out: list = []
        pos = start
        while True:
            soft = pos + step
            if tables:
                run, table, cut = vouched_run(arr, pos, limit, segment_start=segment_start, stop_at=stop,
                                              flags=flags, soft_stop=soft, vouch=vouch, entry_header=entry_header)
                out.append(run)
                if table is not None and len(table):
                    out.append(table)
            else:
                run = check_run(arr, pos, limit, segment_start=segment_start, stop_at=stop, flags=flags,
                                soft_stop=soft, entry_header=entry_header)
                cut = soft <= run.end < stop
                out.append(run)
            mf.release(pos, run.end)
            pos = run.end
            if not cut or pos >= stop:
                return out

    pool = _pool(workers)
    pending = [pool.submit(walk, b) for b in bounds[: workers + 1]]
    submitted = len(pending)
    pos = 0
    broken = False
    for start, stop in bounds:
        future = pending.pop(0)
        if submitted < len(bounds):
            pending.append(pool.submit(walk, bounds[submitted]))
            submitted += 1
        items = future.result()
        if broken:
            continue
        if pos != start:
            broken = True
            continue
        for item in items:
            if isinstance(item, Run):
                if item.count:
                    yield item
                pos = item.end
            else:
                yield item
        mf.release(max(0, start - EDGE), pos)  # what faults mapped around the chunk's edges
        if pos != stop:
            broken = True
    return pos


EDGE = 2 << 20  # a page fault can map this much around it (large page-cache folios)
_pools: dict[tuple[int, int], ThreadPoolExecutor] = {}


def _pool(workers: int) -> ThreadPoolExecutor:
    key = (os.getpid(), workers)  # a forked child must not use its parent's threads (they are not there)
    pool = _pools.get(key)
    if pool is None:
        pool = _pools[key] = ThreadPoolExecutor(workers, thread_name_prefix="rmq-scan")
    return pool


def default_workers() -> int:
    """Threads for the fast path: the CPUs this process may use, at most 4."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))
