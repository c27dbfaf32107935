"""``verify``: the checks of ``rmq-inspect verify`` in parallel, with the same findings (file, offset, code,
severity, reason) in the same order.

Stages: (1) one task per commitlog segment runs the record-level checks and reports what the segment
holds; the driver derives the end of the log and the newest store time from the reports; (2) one task per
consume queue and one per index file run the cross-file checks; (3) the driver adds the checks that read
no data (layout, index headers, checkpoint, consumer offsets, config). The three sets are unioned and
de-duplicated exactly as the single-process command does (first finding per file, offset and code).

``--out DIR`` writes the findings as Parquet (``findings/``, :data:`~inspector.spark.schemas.FINDING`) and
the segment table (``segments/``). Exit code 4 when an error was found, as ``rmq-inspect verify``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from rich.table import Table
from rich.text import Text

from inspector.engine import verify_after_queues, verify_dledger, verify_layout, verify_rest
from inspector.spark import plan
from inspector.spark.jobs import common
from inspector.spark.schemas import FINDING
from inspector.spark.tasks import (
    PHASE_LAYOUT,
    PHASE_QUEUES,
    PHASE_RECORDS,
    PHASE_REST,
    StoreRef,
    finding_row,
    verify_index_files,
    verify_queues,
    verify_segments,
)

ORDER = ["store", "phase", "task", "seq"]
TABLES = ("findings", "segments")


# --- pure transforms -------------------------------------------------------------------------------------------


def first_findings(findings: DataFrame) -> DataFrame:
    """Keep the first finding of each fact in report order, a fact as ``verify.finding_key`` names it: file,
    offset and code, and at offset 0 (a config file) the entry, or when there is none the reason."""
    which = (F.when(F.col("entry").isNotNull(), F.col("entry"))
             .when(F.col("offset") == 0, F.col("reason")).otherwise(F.lit("")))
    first = Window.partitionBy("store", "file", "offset", "code", which).orderBy(*ORDER)
    return (findings.withColumn("_n", F.row_number().over(first)).where(F.col("_n") == 1).drop("_n")
            .orderBy(*ORDER))


def summary(findings: DataFrame) -> DataFrame:
    """Errors and warnings per store."""
    return findings.groupBy("store").agg(
        F.sum((F.col("severity") == "error").cast("long")).alias("errors"),
        F.sum((F.col("severity") != "error").cast("long")).alias("warnings"),
    )


# --- driver-side checks (no data read) ------------------------------------------------------------------------------


def layout_findings(ref: StoreRef, store) -> list[tuple]:
    return [finding_row(ref.path, PHASE_LAYOUT, 0, i, p) for i, p in enumerate(verify_layout(store))]


def timer_findings(ref: StoreRef, store, after: int, log_end: int, reports: list) -> list[tuple]:
    """The records no queue covers (every segment task's share of ``QueueCoverage``, merged) and the 5.x timer
    store's checks: ``verify`` runs them after the queues, before the index files; here on the driver, after
    the store's ``after`` queue tasks, so the report keeps verify's order."""
    found = verify_after_queues(store, log_end, [r.uncovered for r in reports])
    return [finding_row(ref.path, PHASE_QUEUES, after, i, p) for i, p in enumerate(found)]


def dledger_findings(ref: StoreRef, store, reports: list) -> tuple[list[tuple], str] | None:
    """A DLedger store's checks (``check_dledger``: index units against the entries, Raft indexes and terms,
    checkpoint and currterm) and its recovery preview, from the entry headers the segment tasks tabled; the
    findings come after every segment's record findings and before the LMQ ones, as in ``verify``."""
    walk = [p for r in reports for p in r.problems]
    heads = [r.entry_heads for r in reports if r.entry_heads is not None]
    found = verify_dledger(store, walk, heads)
    if found is None:
        return None
    after = len(store.segments)  # a task number past every segment's: PHASE_RECORDS, after their findings
    return [finding_row(ref.path, PHASE_RECORDS, after, i, p) for i, p in enumerate(found.problems)], found.recovery


def rest_findings(ref: StoreRef, store, last_ts: int) -> list[tuple]:
    found = verify_rest(store, last_ts)
    return [finding_row(ref.path, PHASE_REST, 0, i, p) for i, p in enumerate(found)]


# --- job -------------------------------------------------------------------------------------------------------


def parser():
    p = common.job_parser("verify", "The checks of `rmq-inspect verify`, run in parallel.", out_required=False)
    p.add_argument("--delay-levels", help="messageDelayLevel, e.g. '1s 5s 10s ...'")
    p.add_argument("--json", action="store_true", help="one JSON document per store, as `rmq-inspect verify --json`")
    return p


@dataclass
class Found:
    """What :func:`find` found: the findings frame (de-duplicated, in report order), per-store counts
    (messages, cq_units, index_items), and the segment stage (its reports). ``release()`` frees the cache."""

    findings: DataFrame
    counts: dict[str, dict]
    stage: common.SegmentStage
    cached: list[DataFrame]

    def release(self) -> None:
        for df in self.cached:
            df.unpersist()


def find(spark: SparkSession, refs: list[StoreRef], args) -> Found:
    """Run the three stages of verify over ``refs``."""
    sc = spark.sparkContext
    stage = common.SegmentStage(spark, plan.plan_segments(refs))
    records = stage.frame(verify_segments, FINDING).persist()
    records.count()  # runs the segment stage: the reports give the end of each log
    reports = stage.reports()
    driver_rows: list[tuple] = []
    queue_tasks, index_tasks = [], []
    counts: dict[str, dict] = {}
    for ref in refs:
        with ref.open() as store:
            rs = reports.get(ref.path, [])
            end = plan.log_end(store, rs, strict=False)  # a failed segment is a finding already
            store_queues = plan.plan_queues(ref, store, common.geometry_for(store, args), end)
            queue_tasks += store_queues
            driver_rows += timer_findings(ref, store, len(store_queues), end, rs)
            index_tasks += plan.plan_index_files(ref, store)
            driver_rows += layout_findings(ref, store)
            driver_rows += rest_findings(ref, store, plan.last_store_timestamp(rs))
            counts[ref.path] = {"messages": sum(r.messages for r in rs)}
            dledger = dledger_findings(ref, store, rs)
            if dledger is not None:
                driver_rows += dledger[0]
                counts[ref.path]["dledger_recovery"] = dledger[1]
    collector = common.Collector(spark)
    sink = collector.sink
    parallel = max(1, sc.defaultParallelism * 2)
    queues = sc.parallelize(queue_tasks, max(1, min(len(queue_tasks), parallel))).mapPartitions(
        lambda part: verify_queues(part, sink))
    index = sc.parallelize(index_tasks, max(1, min(len(index_tasks), parallel))).mapPartitions(
        lambda part: verify_index_files(part, sink))
    cross = spark.createDataFrame(queues.union(index), FINDING, verifySchema=False).persist()
    cross.count()
    for name in ("cq_units", "index_items"):
        for store, n in collector.counters(name).items():
            counts[store][name] = n
    for c in counts.values():
        c.setdefault("cq_units", 0)
        c.setdefault("index_items", 0)
    findings = first_findings(records.unionByName(cross).unionByName(spark.createDataFrame(driver_rows, FINDING)))
    return Found(findings, counts, stage, [records, cross])


def run(spark: SparkSession, args, refs: list[StoreRef]) -> int:
    found = find(spark, refs, args)
    try:
        rows = found.findings.collect()
    finally:
        found.release()
    counts = found.counts
    if args.out:
        mode = common.write_mode(args)
        spark.createDataFrame(rows, FINDING).coalesce(1).write.mode(mode).parquet(
            common.table_path(args.out, "findings"))
        found.stage.segments_frame().coalesce(1).write.mode(mode).parquet(common.table_path(args.out, "segments"))
    any_error = False
    for ref in refs:
        mine = [r for r in rows if r.store == ref.path]
        errors = [r for r in mine if r.severity == "error"]
        infos = sum(r.severity == "info" for r in mine)  # retention's expired leftovers: neither errors nor warnings
        warnings = len(mine) - len(errors) - infos
        any_error = any_error or bool(errors)
        c = counts[ref.path]
        if args.json:
            sys.stdout.write(json.dumps({
                "store": ref.path, "ok": not errors, **c, "errors": len(errors), "warnings": warnings,
                "info": infos,
                "problems": [{"file": r.file, "offset": r.offset, "code": r.code, "severity": r.severity,
                              "reason": r.reason} for r in mine]}) + "\n")
            continue
        if mine:
            t = Table(title=f"Problems in {common.plain(ref.path)}")
            for name in ("file", "offset", "code", "reason"):
                t.add_column(name, overflow="fold")
            for r in mine:
                style = {"error": "red", "info": "cyan"}.get(r.severity, "yellow")
                t.add_row(common.plain(r.file), str(r.offset), Text(common.plain(r.code), style=style),
                          common.plain(r.reason))
            common.console.print(t)
        if c.get("dledger_recovery"):
            common.console.print(f"recovery preview: {common.plain(c['dledger_recovery'])}")
        common.console.print(
            f"{common.esc(ref.path)}: checked {c['messages']} message(s), {c['cq_units']} consume-queue unit(s), "
            f"{c['index_items']} index item(s): "
            + ("[green]no problems[/]" if len(mine) == infos else f"{len(errors)} error(s), {warnings} warning(s)")
            + (f", {infos} info finding(s)" if infos else ""),
            markup=True)
    return common.EXIT_PROBLEMS if any_error else common.EXIT_OK


def main(argv: Sequence[str], spark: SparkSession | None = None) -> int:
    return common.job_main(parser(), argv, spark, "verify", run,
                           lambda args, refs: common.check_out(args.out, TABLES, args.overwrite))
