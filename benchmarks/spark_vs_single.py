#!/usr/bin/env python3
"""Spark vs single process on N generated commitlog segments (N = 1, 2, 4, 8), with the crossover point.

Usage::

    python benchmarks/spark_vs_single.py [--segment-mib 32] [--counts 1,2,4,8] [--master local[*]]
                                         [--workloads scan,verify] [--workdir DIR]

Two workloads, each done both ways on the same store:

* ``scan``: every message decoded into an export row (the work of ``rmq-inspect spark export`` before the
  Parquet writer). Single process: the engine's segment walk + ``message_row`` in a loop. Spark: the
  export job's segment stage (one task per segment) counted.
* ``verify``: ``inspector.engine.verify.verify(store)`` (the engine's own fast path, its threads included)
  vs ``rmq-inspect spark verify``'s findings collected on the driver.

The stores come from ``benchmarks/datagen.py`` (records of broker shape replicated with numpy; clean, so
both ways do all the work and find nothing) and are cached in ``--workdir``. Spark's session start is
measured once and reported apart: it is paid once per job run, whatever the data size. Each figure is the
best of ``--repeat`` runs. Throughput is commitlog bytes per second of wall time.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for path in (str(REPO), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from datagen import cached_store  # noqa: E402

from inspector.engine import Message, Store  # noqa: E402
from inspector.engine.verify import verify  # noqa: E402
from inspector.spark import plan  # noqa: E402
from inspector.spark.tasks import message_row, segment_entries  # noqa: E402


def single_scan(root: Path) -> int:
    rows = 0
    with Store(root) as store:
        path = str(root)
        for i, seg in enumerate(store.segments):
            for entry in segment_entries(store, i):
                if isinstance(entry, Message):
                    message_row(entry, path, seg.name)
                    rows += 1
    return rows


def single_verify(root: Path) -> int:
    with Store(root) as store:
        return verify(store).messages


def spark_scan(spark, root: Path) -> int:
    from inspector.spark.jobs.common import SegmentStage
    from inspector.spark.schemas import MESSAGE
    from inspector.spark.tasks import message_rows

    stage = SegmentStage(spark, plan.plan_segments(plan.store_refs([root])))
    return stage.frame(message_rows, MESSAGE).count()


def spark_verify(spark, root: Path) -> int:
    from inspector.spark.jobs import verify as job

    args = job.parser().parse_args([str(root)])
    found = job.find(spark, job.common.refs_from_args(args), args)
    found.findings.collect()
    found.release()
    return found.counts[str(root.resolve())]["messages"]


def best(fn, repeat: int) -> tuple[float, int]:
    times, result = [], 0
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--segment-mib", type=int, default=32, help="segment size in MiB (default 32; a broker uses 1024)")
    p.add_argument("--counts", default="1,2,4,8", help="segment counts N (default 1,2,4,8)")
    p.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    p.add_argument("--workloads", default="scan,verify")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "rmq-inspect-spark-bench"))
    args = p.parse_args(argv)
    counts = [int(x) for x in args.counts.split(",")]
    workloads = args.workloads.split(",")
    work = Path(args.workdir)
    seg_size = args.segment_mib << 20

    print(f"machine: {os.cpu_count()} CPU(s); segments of {args.segment_mib} MiB; N = {counts}; master {args.master}")
    stores = {}
    for n in counts:
        t = time.perf_counter()
        facts = cached_store(work / f"store-{args.segment_mib}mib-{n}", segments=n, segment_size=seg_size,
                             index_slots=500_000, index_items=2_000_000, workdir=work)
        stores[n] = (work / f"store-{args.segment_mib}mib-{n}", facts)
        print(f"  store N={n}: {facts['records']} records, {facts['bytes'] / 2**20:.0f} MiB "
              f"({time.perf_counter() - t:.1f} s to make or find)", flush=True)

    from inspector.spark.session import build_session

    t = time.perf_counter()
    spark = build_session(args.master, app_name="rmq-inspect benchmark", progress=False,
                          conf={"spark.ui.enabled": "false"})
    startup = time.perf_counter() - t
    cores = spark.sparkContext.defaultParallelism
    print(f"Spark session start: {startup:.1f} s ({cores} task slot(s)); warming up the Python workers ...",
          flush=True)
    spark_scan(spark, stores[counts[0]][0])  # worker processes, numba caches, zip shipped

    singles = {"scan": single_scan, "verify": single_verify}
    sparks = {"scan": spark_scan, "verify": spark_verify}
    results: dict[str, list[tuple]] = {}
    for w in workloads:
        rows = []
        for n in counts:
            root, facts = stores[n]
            mib = facts["bytes"] / 2**20
            t1, r1 = best(lambda root=root, w=w: singles[w](root), args.repeat)
            t2, r2 = best(lambda root=root, w=w: sparks[w](spark, root), args.repeat)
            assert r1 == r2 == facts["records"], (w, n, r1, r2, facts["records"])
            rows.append((n, mib, facts["records"], t1, t2))
            print(f"  {w} N={n}: single {t1:.2f} s, Spark {t2:.2f} s", flush=True)
        results[w] = rows
    spark.stop()

    for w, rows in results.items():
        print(f"\n{w}: single process vs Spark ({args.master}, {cores} slots); MiB/s of commitlog")
        print(f"{'N':>3} {'MiB':>6} {'records':>9} | {'single s':>9} {'MiB/s':>7} | {'spark s':>8} {'MiB/s':>7} |"
              f" {'speed-up':>8} {'with start':>10}")
        for n, mib, recs, t1, t2 in rows:
            print(f"{n:>3} {mib:>6.0f} {recs:>9} | {t1:>9.2f} {mib / t1:>7.1f} | {t2:>8.2f} {mib / t2:>7.1f} |"
                  f" {t1 / t2:>7.2f}x {t1 / (t2 + startup):>9.2f}x")
        print(f"crossover (Spark faster, session already running): {crossover(rows, 0.0)}")
        print(f"crossover (Spark faster, counting its {startup:.0f} s session start): {crossover(rows, startup)}")
    return 0


def crossover(rows: list[tuple], startup: float) -> str:
    """The smallest N from which Spark stays faster, or where the trend says it would be."""
    for i, (n, *_rest) in enumerate(rows):
        if all(r[4] + startup < r[3] for r in rows[i:]):
            return f"N = {n} segment(s)"
    # extrapolate linearly in data size from the last two points
    if len(rows) >= 2:
        (_, m1, _, a1, b1), (_, m2, _, a2, b2) = rows[-2], rows[-1]
        single_rate = (a2 - a1) / (m2 - m1) if m2 != m1 else 0.0
        spark_rate = (b2 - b1) / (m2 - m1) if m2 != m1 else 0.0
        if spark_rate < single_rate:
            mib = m2 + ((b2 + startup) - a2) / (single_rate - spark_rate)
            return f"not reached up to N = {rows[-1][0]}; extrapolated at about {mib:.0f} MiB of commitlog"
    return f"not reached up to N = {rows[-1][0]} (Spark's marginal cost per MiB is not lower here)"


if __name__ == "__main__":
    raise SystemExit(main())
