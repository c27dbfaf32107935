"""``rebuild-cq``: consume queues rebuilt from the commitlog in parallel, byte-identical to ``rmq-inspect rebuild``.

Stages: (1) one task per commitlog segment turns every record into its queue units (the engine's
``dispatch_record``, as :data:`~inspector.spark.schemas.DISPATCH` rows) and reports what recovery needs; the
driver finds where the broker's recovery would end each log (``recover()``) from the reports; (2) the records
before that end are partitioned by (store, topic, queue) and sorted by commitlog position, and one
``QueueWrite`` per queue writes its files: a unit's position follows from its queue offset, so queues are
independent.

Output: ``--out DIR/consumequeue/<topic>/<queue>/<file>`` for one store (as ``rmq-inspect rebuild --out
DIR``), ``DIR/<store name>/consumequeue/...`` for several. The files are written by the executors, so with a
cluster ``DIR`` must be on a filesystem every worker shares (and is seen at the same path). Index files
are not rebuilt here (``rmq-inspect rebuild`` does both, in one process).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from inspector.engine import BadInput, Geometry, StoreError
from inspector.spark import plan
from inspector.spark.jobs import common
from inspector.spark.schemas import DISPATCH
from inspector.spark.tasks import StoreRef, dispatch_rows, write_queues

QUEUE = ["store", "topic", "queue_id"]


# --- pure transform --------------------------------------------------------------------------------------------


def before_end(records: DataFrame, ends: DataFrame) -> DataFrame:
    """DISPATCH rows of records that start before their store's recovered end (``ends``: store, end_offset),
    grouped by queue and in commitlog order within each queue's partition."""
    return (records.join(F.broadcast(ends), "store").where(F.col("read_offset") < F.col("end_offset"))
            .drop("end_offset").repartition(*QUEUE).sortWithinPartitions(*QUEUE, "read_offset"))


# --- job -------------------------------------------------------------------------------------------------------


def parser():
    p = common.job_parser("rebuild-cq", "Rebuild consume queues from the commitlog in parallel.", out_required=True)
    p.add_argument("--delay-levels", help="messageDelayLevel, e.g. '1s 5s 10s ...'")
    p.add_argument("--mode", choices=("normal", "abnormal"),
                   help="recovery mode (default: what the abort file says, as the broker decides)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p


def output_dirs(refs: list[StoreRef], out: str) -> dict[str, str]:
    """One store: OUT itself; several: OUT/<store directory name> (numbered when names repeat)."""
    base = Path(out).resolve()
    if len(refs) == 1:
        return {refs[0].path: str(base)}
    dirs: dict[str, str] = {}
    used: set[str] = set()
    for ref in refs:
        name = Path(ref.path).name or "store"
        candidate, n = name, 1
        while candidate in used:
            n += 1
            candidate = f"{name}-{n}"
        used.add(candidate)
        dirs[ref.path] = str(base / candidate)
    return dirs


def check_out_dirs(refs: list[StoreRef], out: str) -> None:
    """As ``rmq-inspect rebuild --out``: a new (or empty) directory outside every store."""
    target = Path(out).resolve()
    for ref in refs:
        root = Path(ref.path)
        if target == root or root in target.parents or target in root.parents:
            raise BadInput("the output directory must be outside the store", out)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise BadInput("the output directory exists and is not empty", out)


def run(spark: SparkSession, args, refs: list[StoreRef]) -> int:
    geometries: dict[str, Geometry] = {}
    batch_topics: dict[str, tuple[StoreRef, set[str]]] = {}  # queue.type=BatchCQ: batchconsumequeue/, as rebuild
    for ref in refs:
        with ref.open() as store:
            geometries[ref.path] = common.geometry_for(store, args)
            batch_topics[ref.path] = (ref, store.batch_topics())
    targets = {path: (out_dir, geometries[path]) for path, out_dir in output_dirs(refs, args.out).items()}
    stage = common.SegmentStage(spark, plan.plan_segments(refs))
    records = stage.frame(dispatch_rows, DISPATCH, geometries=geometries).persist()
    try:
        records.count()  # runs the segment stage: the reports say where each log ends
        reports = stage.reports()
        recoveries = {}
        for ref in refs:
            with ref.open() as store:
                try:
                    recoveries[ref.path] = plan.recovery(store, reports.get(ref.path, []), args.mode)
                except StoreError as e:
                    raise StoreError(f"{ref.path}: {e}") from None
        ends = spark.createDataFrame([(p, r.end_offset) for p, r in recoveries.items()], "store string, end_offset long")
        for out_dir, _ in targets.values():
            Path(out_dir).mkdir(parents=True, exist_ok=True)
        written = (before_end(records, ends).rdd.mapPartitions(lambda rows: write_queues(rows, targets, batch_topics)).collect())
    finally:
        records.unpersist()
    return summarize(refs, targets, recoveries, reports, written, args.json)


def summarize(refs, targets, recoveries, reports, written, as_json: bool) -> int:
    failed = [w for w in written if w.error]
    for ref in refs:
        mine = [w for w in written if w.store == ref.path]
        rec = recoveries[ref.path]
        # what `rebuild` lists as skipped: error entries up to the end (CRC is not checked there), and records
        # before the end that could not be dispatched
        skipped = [p for r in reports.get(ref.path, []) for p in r.problems
                   if p.severity == "error" and p.code != "crc-mismatch" and r.start_offset + p.offset <= rec.end_offset]
        skipped += [p for r in reports.get(ref.path, []) for p in r.notes if r.start_offset + p.offset < rec.end_offset]
        data = {"store": ref.path, "out": targets[ref.path][0], "recovery": rec.as_dict(),
                "messages": sum(w.records for w in mine), "cq_units": sum(w.units for w in mine),
                "cq_files": sorted(f for w in mine for f in w.files),
                "skipped": [{"file": p.file, "offset": p.offset, "reason": p.reason} for p in skipped],
                "warnings": [x for w in mine for x in w.warnings],
                "errors": [{"topic": w.topic, "queue_id": w.queue_id, "error": w.error} for w in mine if w.error]}
        if as_json:
            sys.stdout.write(json.dumps(data) + "\n")
            continue
        plain, esc = common.plain, common.esc
        common.console.print(f"{plain(ref.path)}: recovery ({rec.mode}) ends the log at {rec.end_offset}: "
                             f"{plain(rec.reason)}")
        common.console.print(f"dispatched {data['messages']} record(s): {data['cq_units']} consume-queue unit(s) in "
                             f"{len(data['cq_files'])} file(s) -> {plain(data['out'])}")
        for p in skipped:
            common.err.print(f"[yellow]skipped[/] {esc(p.file)} @ {p.offset}: {esc(p.reason)}", markup=True)
        for e in data["errors"]:
            common.err.print(f"[red]queue not written[/] {esc(e['topic'])}/{e['queue_id']}: {esc(e['error'])}",
                             markup=True)
    return common.EXIT_STORE_ERROR if failed else common.EXIT_OK


def _check(args, refs) -> None:
    if not common.is_local_path(args.out) or args.out.startswith("file:"):
        raise BadInput("rebuild-cq writes files on the workers: --out must be a plain (shared) directory path")
    check_out_dirs(refs, args.out)


def main(argv: Sequence[str], spark: SparkSession | None = None) -> int:
    return common.job_main(parser(), argv, spark, "rebuild-cq", run, _check)
