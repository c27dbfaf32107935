"""``--since`` / ``--until`` seek measured (issue 31 item 2): ``python benchmarks/window_bench.py [--quick | --smoke]``.

Stores: run.py's ``segment`` store (datagen.py: one segment of ~776-byte records stored 1 ms apart; 1 GiB,
``--quick`` 128 MiB, ``--smoke`` 4 MiB, shared with grep_bench.py) and the many-queue store (16,000 queues of two
messages in one sparse 1 GiB segment). Each row is wall time after an untimed warm-up (pages cached): finding the
window (``log_window``: a binary search over the segments' first records, then over the segment's bytes) and the
first message in it, ``stats`` of a one-second window there (the same seek, then the window counted), against the
walk the seek avoids (every record from the segment's start by the bulk kernel,
``segment_batches``, up to the first one stored at or after --since). Goal: a seek under 50 ms on 1 GiB.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

import datagen  # noqa: E402
import numpy as np  # noqa: E402
from figures import mode_arguments, spread, verdict  # noqa: E402

from inspector.engine import (  # noqa: E402
    Message,
    MessageBatch,
    Store,
    in_window,
    log_order,
    log_window,
    queue_window,
    segment_batches,
    store_stats,
)

MiB = 1 << 20
SIZES = {"full": 1024 * MiB, "quick": 128 * MiB, "smoke": 4 * MiB}
INDEX = {"full": {}, "quick": dict(index_slots=625_000, index_items=2_500_000),
         "smoke": dict(index_slots=4096, index_items=32_768)}  # run.py's geometry: the same cached store
GOAL_S = 0.05


def timed(call, repeat: int) -> tuple[list[float], object]:
    call()  # warm-up
    walls, got = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        got = call()
        walls.append(time.perf_counter() - t)
    return walls, got


def seek(store: Store, since: int, until: int) -> tuple[int, int]:
    """(the window's walk start, the first message's physical offset) by the binary search."""
    window = log_window(store, since, until)
    first = next(m for m in in_window(log_order(store, window.start), window) if isinstance(m, Message))
    return window.start, first.physical_offset


def scan(store: Store, since: int) -> int:
    """The first message stored at or after ``since`` by walking from the log's start (bulk kernel)."""
    for seg in store.segments:
        for item in segment_batches(store, seg, check_crc=False):
            if isinstance(item, MessageBatch) and len(item):
                hit = np.flatnonzero(item.column("store_timestamp") >= since)
                if len(hit):
                    return int(item.physical_offsets[hit[0]])
    raise LookupError(since)


def row(name: str, walls: list[float], goal: bool, note: str) -> list[str]:
    met = verdict(statistics.median(walls) <= GOAL_S, goal)
    return [name, *spread(walls, 1000), "ms",
            f"<= {GOAL_S * 1000:.0f}" if goal else "", met, note]


def main() -> int:
    args, mode, repeat = mode_arguments(__doc__, {"full": 7, "quick": 5, "smoke": 1})
    root = args.data / mode / "segment"
    facts = datagen.cached_store(root, workdir=args.data, segments=1, segment_size=SIZES[mode], **INDEX[mode])
    rows = []
    with Store(root) as store:
        records = facts["records"]
        since = datagen.T0 + (records * 3 // 4) * datagen.MS_PER_RECORD  # three quarters into the segment
        until = since + 60_000
        walls, (start, first) = timed(lambda: seek(store, since, until), repeat)
        rows.append(row(f"seek to --since (3/4 into a {SIZES[mode] // MiB} MiB segment) and its first message",
                        walls, True, f"walked {first - start:,} bytes before it (the search stops at 64 KiB)"))
        alone, _ = timed(lambda: log_window(store, since, until), repeat)
        rows.append(row("  the binary search alone (log_window)", alone, True,
                        "the segments' first records, then the segment's bytes down to 64 KiB"))
        small = since + 1000  # one second: ~1,000 records
        walls, stats = timed(lambda: store_stats(store, "topic", since=since, until=small), repeat)
        rows.append(row("  stats --since/--until of one second there (seek, then count the window)", walls, True,
                        f"{stats.total.messages:,} records counted of {records:,}"))
        scans, found = timed(lambda: scan(store, since), max(1, repeat // 2))
        assert found == first, (found, first)
        rows.append(row("  the walk it avoids: every record up to it (bulk kernel)", scans, False,
                        f"{statistics.median(scans) / statistics.median(walls):,.0f}x the seek"))
    # run.py's many-queue store, where run.py keeps it (the same cached files)
    many_root = args.data / "smoke" / "many_queues" if mode == "smoke" else args.data / "many_queues"
    many = datagen.cached_many_queue_store(many_root, topics=40 if mode == "smoke" else 2000)
    with Store(many_root) as store:
        middle = datagen.T0 + many["messages"] // 2
        walls, _ = timed(lambda: seek(store, middle, middle + 1000), repeat)
        rows.append(row(f"seek in the many-queue store ({many['topics'] * many['queues']:,} queues, a sparse "
                        "1 GiB segment)", walls, True, "the binary search, then the first batch of records decoded (32k: the walk's batch)"))
        walls, _ = timed(lambda: queue_window(store, "Topic00007", 3, middle, middle + 1000), repeat)
        rows.append(row("  one queue's window (messages --topic T --queue N --since/--until)", walls, True,
                        "binary search over its units"))
    head = ["target", "median", "min", "max", "unit", "goal", "met", "notes"]
    print("| " + " | ".join(head) + " |\n|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0 if all(r[6] != "NO" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
