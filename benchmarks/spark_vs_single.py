#!/usr/bin/env python3
"""The Spark targets of issue 8, measured: start-up, per-segment cost against a plain pool, Spark against the
single-process command, and the break-even store size.

Usage::

    python benchmarks/spark_vs_single.py            # 24 x 256 MiB store (generated once, ~6 GB), a long run
    python benchmarks/spark_vs_single.py --quick    # 8 x 64 MiB, a few minutes
    options: --segments N --segment-mib M --small N --repeat R --master local[2] --data DIR --json FILE

What it measures (every figure: median of ``--repeat`` runs, with min and max):

* **Spark start-up**: a fresh process that builds the session and runs a one-segment export stage, measured
  from the process start to the moment the first task runs (the task reports its own clock), and the
  ``SparkSession`` creation alone. Goal < 8 s.
* **Per-segment cost**: each job's message stage, run over the same segments by a plain
  ``ProcessPoolExecutor`` of 2 processes and by Spark ``local[2]`` (the same function in ``mapInArrow``),
  warm, pool and Spark runs interleaved. Goal: Spark within 1.2x of the pool. ``export``: every message into
  export's Parquet files (``parts.export_segment``: engine bulk decode into Arrow batches, all 31 MESSAGE
  columns, written with pyarrow), the pool's workers and Spark's tasks alike; Spark also sends one row per
  file to the driver, which commits the table. ``stats`` and ``keyindex``: the Arrow batches of the 10
  columns each reads (``arrow.message_batches``), counted and dropped by the pool, turned into rows by
  Spark's JVM (a ``noop`` write), as those jobs need rows to aggregate and sort. For reference (no goal):
  export through Spark's own writer, all 31 columns into JVM rows; the JVM's CPU seconds per segment; and a
  pool whose workers hand those batches to the parent process.
* **Spark vs the single-process command**, same output (every message as JSON Lines): ``rmq-inspect messages
  --json --limit <all>`` into a file, against ``rmq-inspect spark export --format jsonl --master local[2]``,
  both as fresh commands (start-up included), on the big store and on a ``--small``-segment store of the same
  segments. Goal: Spark faster on the 24 x 256 MiB store.
* **Break-even**: both commands are ``fixed + N x per-segment``; the two stores give each line, and the
  break-even segment count is where they cross.

The stores come from ``benchmarks/datagen.py`` (records of broker shape, clean) and are cached under
``--data`` (default ``benchmarks/data/spark/``).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for path in (str(REPO), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from datagen import cached_store  # noqa: E402
from run import Row, machine, table  # noqa: E402

from inspector.spark import plan  # noqa: E402
from inspector.spark.jobs import keyindex as keyindex_job  # noqa: E402
from inspector.spark.jobs import stats as stats_job  # noqa: E402
from inspector.spark.tasks import SegmentTask  # noqa: E402

MiB = 1 << 20

# the start-up probe: command start -> session -> first task running (the task sends its own clock back)
_STARTUP_CHILD = r"""
import sys, time
t_start = float(sys.argv[3])
sys.path[:0] = [sys.argv[1]]
from inspector.spark import plan
from inspector.spark.session import build_session
t0 = time.time()
spark = build_session(sys.argv[4], app_name="rmq-inspect startup probe", progress=False,
                      conf={"spark.ui.enabled": "false"})
t1 = time.time()
tasks = plan.plan_segments(plan.store_refs([sys.argv[2]]))
first = spark.sparkContext.parallelize([0], 1).map(lambda _: __import__("time").time()).collect()[0]
print(t1 - t0, first - t_start)
"""


def segment_rows(task: SegmentTask, columns: tuple[str, ...] | None = None) -> int:
    """A message stage's per-segment task function, as a plain pool runs it: the Arrow batches of one segment
    (of ``columns``; None: all of MESSAGE, what export reads), counted and dropped in the worker."""
    from inspector.spark.arrow import message_batches
    from inspector.spark.schemas import MESSAGE_COLUMNS

    return sum(b.num_rows for b in message_batches([task], [].append, columns=columns or MESSAGE_COLUMNS))


def segment_parts(job: tuple[SegmentTask, int, str]) -> int:
    """Export's per-segment task function as a plain pool runs it: the segment's messages into export's Parquet
    files (``parts.export_segment``) under one attempt directory; the rows written."""
    from inspector.spark import parts

    task, index, directory = job
    return sum(parts.export_segment(task, index, directory, "bench", [].append).column("rows").to_pylist())


def segment_batches(task: SegmentTask) -> list:
    """The same function, the batches handed back to the parent process (pickled), as one consumer gets them."""
    from inspector.spark.arrow import message_batches

    return list(message_batches([task], [].append))


def timed(fn, repeat: int, warm: bool = True) -> tuple[list[float], object]:
    result = fn() if warm else None
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        out.append(time.perf_counter() - t)
    return out, result


def startup(root: Path, master: str, repeat: int) -> tuple[list[float], list[float]]:
    session, first_task = [], []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", _STARTUP_CHILD, str(REPO), str(root), repr(time.time()), master],
                             capture_output=True, text=True, check=True, cwd=REPO).stdout.split()
        session.append(float(out[-2]))
        first_task.append(float(out[-1]))
    return session, first_task


# the message stages of the jobs: export's tasks write its Parquet files themselves (all 31 MESSAGE columns);
# stats and keyindex hand the JVM rows of the 10 columns each reads; "export, rows into the JVM" is export
# through Spark's own writer (--parquet-writer spark, or an --out Spark's writer must reach), shown for reference
STAGES = (("export", "files", None), ("stats", "rows", stats_job.COLUMNS),
          ("keyindex", "rows", keyindex_job.COLUMNS), ("export, rows into the JVM", "rows", None))
GOAL_STAGES = ("export", "stats", "keyindex")


@dataclass
class StageTimes:
    name: str
    kind: str  # "files": the tasks write Parquet files; "rows": the JVM turns the Arrow batches into rows
    columns: int
    rows: int
    pool: list[float]  # seconds for all segments, one per run
    spark: list[float]
    jvm_cpu: list[float]  # CPU seconds the Spark JVM used in each run (empty: not measurable here)


def jvm_cpu_clock(spark) -> Callable[[], float] | None:
    """CPU seconds used so far by the driver JVM (in local mode the executors are in it too); None off Linux."""
    try:
        pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
        tick = os.sysconf("SC_CLK_TCK")
        stat = Path(f"/proc/{pid}/stat")
        stat.read_text()
    except (OSError, ValueError, AttributeError):
        return None

    def clock() -> float:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick  # utime + stime of every thread

    return clock


def pool_vs_spark(spark, root: Path, repeat: int, scratch: Path) -> tuple[list[StageTimes], list[float]]:
    """Each message stage by a 2-process pool and by Spark, warm, the runs interleaved (pool, Spark, pool, ...)
    so that both meet the same machine; then a pool that hands the export batches to its parent. Files of the
    export stage go under ``scratch`` (emptied after each run)."""
    from inspector.spark.jobs.common import SegmentStage
    from inspector.spark.jobs.export import write_parquet_directly
    from inspector.spark.schemas import MESSAGE_COLUMNS

    tasks = plan.plan_segments(plan.store_refs([root]))
    clock = jvm_cpu_clock(spark)
    out = []
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        for name, kind, columns in STAGES:
            fn = functools.partial(segment_rows, columns=columns)

            def on_pool(fn=fn, kind=kind) -> int:
                if kind == "rows":
                    return sum(pool.map(fn, tasks))
                try:
                    return sum(pool.map(segment_parts, [(t, i, str(scratch / f"pool/{i:05d}"))
                                                        for i, t in enumerate(tasks)]))
                finally:
                    shutil.rmtree(scratch / "pool", ignore_errors=True)

            def on_spark(columns=columns, kind=kind) -> None:
                stage = SegmentStage(spark, tasks)
                if kind == "rows":
                    stage.messages(columns=columns).write.format("noop").mode("overwrite").save()
                    return
                try:  # what `spark export` runs for its Parquet table
                    write_parquet_directly(stage, scratch / "spark" / "messages", overwrite=True)
                finally:
                    shutil.rmtree(scratch / "spark", ignore_errors=True)

            rows = on_pool()
            on_spark()
            times = StageTimes(name, kind, len(columns or MESSAGE_COLUMNS), rows, [], [], [])
            for _ in range(repeat):
                times.pool.append(timed(on_pool, 1, warm=False)[0][0])
                before = clock() if clock else 0.0
                times.spark.append(timed(on_spark, 1, warm=False)[0][0])
                if clock:
                    times.jvm_cpu.append(clock() - before)
            out.append(times)
            print(f"  {name}: pool {statistics.median(times.pool):.1f} s, Spark {statistics.median(times.spark):.1f} s",
                  file=sys.stderr, flush=True)
        handed, _ = timed(lambda: sum(b.num_rows for bs in pool.map(segment_batches, tasks) for b in bs), repeat)
    return out, handed


def single_command(root: Path, out: Path) -> None:
    with open(out / "messages.jsonl", "wb") as f:
        subprocess.run([sys.executable, "-m", "inspector.cli.main", "messages", "--json", "--limit", str(1 << 62),
                        str(root)], stdout=f, check=True, cwd=REPO)


def spark_command(root: Path, out: Path, master: str) -> None:
    subprocess.run([sys.executable, "-m", "inspector.cli.main", "spark", "export", str(root), "--out",
                    str(out / "spark"), "--format", "jsonl", "--master", master, "--no-progress", "--overwrite",
                    "--conf", "spark.ui.enabled=false"], check=True, cwd=REPO, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def line(n1: int, t1: float, n2: int, t2: float) -> tuple[float, float]:
    """(fixed, per segment) of the line through (n1, t1) and (n2, t2)."""
    slope = (t2 - t1) / (n2 - n1)
    return t1 - slope * n1, slope


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="8 x 64 MiB segments, fewer runs")
    p.add_argument("--segments", type=int, help="segments of the big store (default 24, quick 8)")
    p.add_argument("--segment-mib", type=int, help="segment size (default 256, quick 64)")
    p.add_argument("--small", type=int, default=2, help="segments of the small store (default 2)")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--repeat", type=int, help="timed runs per figure (default 3, quick 2; commands: 1)")
    p.add_argument("--data", type=Path, default=HERE / "data" / "spark")
    p.add_argument("--json", type=Path, help="also write the results here")
    p.add_argument("--no-commands", action="store_true",
                   help="only start-up and Spark vs the pool (the single command on the big store takes ~20 min)")
    args = p.parse_args(argv)
    n_big = args.segments or (8 if args.quick else 24)
    mib = args.segment_mib or (64 if args.quick else 256)
    repeat = args.repeat or (2 if args.quick else 3)
    info = machine()
    t_all = time.perf_counter()
    stores = {}
    for n in (args.small, n_big):
        root = args.data / f"store-{mib}mib-{n}"
        t = time.perf_counter()
        facts = cached_store(root, segments=n, segment_size=mib * MiB, index_slots=500_000, index_items=2_000_000,
                             workdir=args.data.parent)
        stores[n] = (root, facts)
        print(f"store {n} x {mib} MiB: {facts['records']:,} records ({time.perf_counter() - t:.0f} s to make or "
              "find)", file=sys.stderr, flush=True)
    big, big_facts = stores[n_big]
    small, small_facts = stores[args.small]
    rows: list[Row] = []

    session, first_task = startup(small, args.master, repeat)
    rows.append(Row("Spark start-up: command start to first task running", "s", first_task, "< 8",
                    statistics.median(first_task) < 8, f"{args.master}; fresh process each run"))
    rows.append(Row("  ... SparkSession creation alone", "s", session, note="build_session()"))
    print(f"start-up done ({statistics.median(first_task):.1f} s)", file=sys.stderr, flush=True)

    from inspector.spark.session import build_session

    spark = build_session(args.master, app_name="rmq-inspect benchmark", progress=False,
                          conf={"spark.ui.enabled": "false"})
    scratch = Path(tempfile.mkdtemp(prefix="rmq-spark-parts-", dir=args.data))
    try:
        stages, handed = pool_vs_spark(spark, big, repeat, scratch)
    finally:
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    ratios = {}
    for st in stages:
        assert st.rows == big_facts["records"], (st.name, st.rows, big_facts["records"])
        ratio = statistics.median(st.spark) / statistics.median(st.pool)
        ratios[st.name] = ratio
        files = st.kind == "files"
        rows.append(Row(f"{st.name} stage ({st.columns} columns), per {mib} MiB segment: plain pool of 2", "s/segment",
                        [s / n_big for s in st.pool],
                        note=f"{n_big} segments, {st.rows:,} rows; "
                             + ("parts.export_segment: Parquet files" if files else "arrow.message_batches")))
        rows.append(Row(f"  ... Spark {args.master}", "s/segment", [s / n_big for s in st.spark],
                        note="same function in mapInArrow, one row per file to the JVM, driver commits" if files
                        else "same function in mapInArrow, every column turned into rows by a noop write"))
        goal = st.name in GOAL_STAGES
        rows.append(Row("  ... Spark / pool", "x", [s / p for s, p in zip(st.spark, st.pool, strict=True)],
                        "<= 1.2" if goal else "", (ratio <= 1.2) if goal else None,
                        "medians; runs interleaved" if goal else "reference: what Spark's own writer path costs"))
        if st.jvm_cpu:
            rows.append(Row("  ... Spark JVM CPU", "s/segment", [c / n_big for c in st.jvm_cpu],
                            note="scheduling, one row per file (on the cores the Python workers use)" if files
                            else "Arrow batches -> rows, on the cores the Python workers use"))
    export = next(st for st in stages if st.name == "export, rows into the JVM")
    rows.append(Row(f"export rows, per {mib} MiB segment: pool handing its batches to the parent", "s/segment",
                    [s / n_big for s in handed],
                    note=f"pickled to one consumer; Spark rows into the JVM / this: "
                         f"{statistics.median(export.spark) / statistics.median(handed):.2f}x"))
    print("pool vs Spark done (" + ", ".join(f"{k} {v:.2f}x" for k, v in ratios.items()) + ")", file=sys.stderr,
          flush=True)

    if args.no_commands:
        return report(args, info, rows, n_big, mib, repeat, "commands not run (--no-commands)", t_all)
    out = Path(tempfile.mkdtemp(prefix="rmq-spark-bench-", dir=args.data))
    commands = {}
    try:
        for n, (root, _facts) in sorted(stores.items()):
            single, _ = timed(lambda root=root: single_command(root, out), 1, warm=n == args.small)
            on_spark, _ = timed(lambda root=root: spark_command(root, out, args.master), 1, warm=False)
            commands[n] = (single, on_spark)
            print(f"commands on {n} segments: single {single[0]:.1f} s, Spark {on_spark[0]:.1f} s", file=sys.stderr,
                  flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    gib = n_big * mib / 1024
    single_big, spark_big = commands[n_big]
    rows.append(Row(f"`rmq-inspect messages --json`, {n_big} x {mib} MiB ({gib:.3g} GiB)", "s", single_big,
                    note=f"{big_facts['records']:,} messages to one JSON Lines file"))
    rows.append(Row(f"`rmq-inspect spark export --format jsonl`, {args.master}, same store", "s", spark_big,
                    "< single", statistics.median(spark_big) < statistics.median(single_big),
                    f"speed-up {statistics.median(single_big) / statistics.median(spark_big):.2f}x, start-up included"))
    s_fixed, s_slope = line(args.small, commands[args.small][0][0], n_big, single_big[0])
    k_fixed, k_slope = line(args.small, commands[args.small][1][0], n_big, spark_big[0])
    if s_slope > k_slope:
        even = max(0.0, (k_fixed - s_fixed) / (s_slope - k_slope))
        verdict = f"Spark is faster from about {even:.1f} segments of {mib} MiB ({even * mib / 1024:.2f} GiB) up"
        value = [even]
    else:
        verdict = "no break-even: Spark's per-segment cost is not lower here"
        value = []
    rows.append(Row("break-even store size (Spark command faster)", "segments", value,
                    note=f"single {s_fixed:.1f} s + {s_slope:.2f} s/segment; Spark {k_fixed:.1f} s + "
                         f"{k_slope:.2f} s/segment"))

    return report(args, info, rows, n_big, mib, repeat, verdict, t_all)


def report(args, info: dict, rows: list[Row], n_big: int, mib: int, repeat: int, verdict: str, t_all: float) -> int:
    """Print the machine and the table (and write --json); exit 1 when a target is missed."""
    print(f"rmq-inspect Spark benchmarks ({n_big} x {mib} MiB, {args.master}, {repeat} runs each, commands once)")
    for key, value in info.items():
        print(f"  {key}: {value}")
    print()
    print(table(rows))
    print(f"\n{verdict}")
    print(f"{time.perf_counter() - t_all:.0f} s in all")
    if args.json:
        args.json.write_text(json.dumps(dict(machine=info, verdict=verdict, rows=[r.__dict__ for r in rows]),
                                        indent=1))
    return 0 if all(r.met is not False for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
