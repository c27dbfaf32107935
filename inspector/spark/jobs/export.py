"""``export``: every message of one or more stores into Parquet (and JSON Lines), one row per message.

Tables under ``--out``:

* ``messages/``: Parquet, partitioned by ``topic`` and ``store_date`` (UTC day of the store time); the
  columns are :data:`inspector.spark.schemas.EXPORT` (``store`` and ``segment``, then the ``message_view``
  fields as ``rmq-inspect messages --json`` prints them, body as ``body_base64``, a trace topic's record with
  its ``trace`` struct). Read it back with
  ``spark.read.parquet(...)`` or :func:`read_messages`.
* ``messages-jsonl/`` (``--format jsonl`` or ``both``): the same rows as JSON Lines.
* ``traces/`` (``--traces``): one row per trace record of the trace topics' messages, decoded
  (:data:`inspector.spark.schemas.TRACE`).
* ``segments/``: one row per commitlog segment: records, BLANK tail, problems found, task failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from inspector.commandline import kind_arg
from inspector.engine import (
    STORE_TIME,
    TRACE_ROW_FIELDS,
    TRACE_TOPIC,
    TRACE_TOPIC_PREFIX,
    BadInput,
    check_window,
    trace_rows,
    window_text,
)
from inspector.spark import plan
from inspector.spark.jobs import common
from inspector.spark.schemas import DAY_MS, EXPORT, EXPORT_PARTITIONS, TRACE
from inspector.spark.tasks import StoreRef

WRITERS = ("auto", "pyarrow", "spark")
TABLES = {"parquet": ("messages", "segments"), "jsonl": ("messages-jsonl", "segments"),
          "both": ("messages", "messages-jsonl", "segments")}


# --- pure transforms -------------------------------------------------------------------------------------------


def store_date(ts_ms: Column | str) -> Column:
    """The UTC calendar day of an epoch-ms column (independent of the session time zone)."""
    days = F.floor(F.col(ts_ms) / DAY_MS) if isinstance(ts_ms, str) else F.floor(ts_ms / DAY_MS)
    return F.date_add(F.lit("1970-01-01").cast("date"), days.cast("int"))


def with_store_date(messages: DataFrame) -> DataFrame:
    """MESSAGE rows -> EXPORT rows (adds ``store_date``)."""
    return messages.withColumn("store_date", store_date("store_timestamp"))


def trace_table(spark: SparkSession, messages: DataFrame, trace_topic: str | None = None) -> DataFrame:
    """MESSAGE rows -> TRACE rows: each trace record of the trace topics' messages (``RMQ_SYS_TRACE_TOPIC``, the
    regions' ``rmq_sys_TRACE_DATA_*`` and ``trace_topic``, the broker config's custom one), decoded on the
    executors by the engine. A compressed body is not decompressed here: its row says so (``other_shape``);
    ``rmq-inspect show`` and the message rows' ``trace`` decode it."""
    traced = F.col("topic") == TRACE_TOPIC
    traced |= F.col("topic").startswith(TRACE_TOPIC_PREFIX)
    if trace_topic:
        traced |= F.col("topic") == trace_topic
    traced = messages.where(traced)
    picked = traced.select("store", "segment", "physical_offset", "topic", "store_timestamp", "compression",
                           F.unbase64("body_base64").alias("body"))
    return spark.createDataFrame(picked.rdd.flatMap(_trace_rows), TRACE, verifySchema=False)


def _trace_rows(row) -> list[tuple]:
    head = (row.store, row.segment, row.physical_offset, row.topic, row.store_timestamp)
    if row.compression is not None:
        blank = (None,) * (len(TRACE_ROW_FIELDS) - 3)
        return [(*head, 0, *blank, f"the body is {row.compression}-compressed: not decoded in the export", None)]
    return [(*head, *values) for values in trace_rows(bytes(row.body or b""))]


def read_messages(spark: SparkSession, path: str) -> DataFrame:
    """The ``messages`` table with its declared types (partition columns included)."""
    return spark.read.schema(EXPORT).parquet(path)


# --- job -------------------------------------------------------------------------------------------------------


def parser():
    p = common.job_parser("export", "Every message into Parquet (partitioned by topic and store date) and/or "
                          "JSON Lines.", out_required=True)
    p.add_argument("--format", choices=sorted(TABLES), default="parquet",
                   help="parquet (default), jsonl, or both")
    p.add_argument("--parquet-writer", choices=WRITERS, default="auto",
                   help="who writes the Parquet files: pyarrow (each segment task writes its own, the messages "
                        "never enter the JVM; --out must be a filesystem every executor and the driver see at "
                        "the same path), spark (Spark's writer: any Hadoop URL), or auto (default: pyarrow when "
                        "--out resolves to a local path, else spark)")
    p.add_argument("--traces", action="store_true",
                   help="also write traces/: one row per trace record of the trace topics' messages, decoded")
    for name, side in (("--since", "at or after"), ("--until", "before")):
        p.add_argument(name, type=kind_arg(STORE_TIME), metavar="TIME",
                       help=f"only messages stored {side} TIME (as `rmq-inspect messages {name}`: ISO 8601, local "
                            "or with a zone, epoch ms, -2h); pushed into the segment tasks, only the segments the "
                            "window overlaps are read")
    return p


def _not_local(out: str) -> BadInput:
    return BadInput(f"--parquet-writer pyarrow needs --out on a local (or shared, mounted) filesystem, not {out}")


def parquet_directly(spark: SparkSession, args, path: str) -> Path | None:
    """The local table directory when the segment tasks write the Parquet files themselves, else None."""
    if args.parquet_writer == "spark":
        return None
    local = common.local_table(spark, path)
    if local is None and args.parquet_writer == "pyarrow":
        raise _not_local(path)
    return local


def write_parquet_directly(stage: common.SegmentStage, table: Path, overwrite: bool) -> int:
    """Export's Parquet table written by the segment tasks (``inspector.spark.parts``); the rows committed."""
    from inspector.spark import parts

    staging = parts.Staging(table, parts.new_job_id())
    staging.begin(overwrite)
    try:
        manifests = [row.asDict() for row in stage.export_parts(staging).collect()]
        return staging.commit(manifests, overwrite)
    finally:
        staging.cleanup()


def run(spark: SparkSession, args, refs: list[StoreRef]) -> int:
    tables = TABLES[args.format]
    written = None  # rows the segment tasks committed (the pyarrow writer's count)
    stage = common.SegmentStage(spark, plan.plan_segments(refs, args.since, args.until))
    messages = with_store_date(stage.messages())
    mode = common.write_mode(args)
    parquet_path = common.table_path(args.out, "messages")
    if "messages" in tables:
        direct = parquet_directly(spark, args, parquet_path)
        if direct is not None:
            written = write_parquet_directly(stage, direct, args.overwrite)
        else:
            messages.write.mode(mode).partitionBy(*EXPORT_PARTITIONS).parquet(parquet_path)
        source = read_messages(spark, parquet_path) if "messages-jsonl" in tables else None
    else:
        source = messages
    if source is not None:
        source.write.mode(mode).option("ignoreNullFields", False).json(
            common.table_path(args.out, "messages-jsonl"))
    if args.traces:  # its own pass over the segments: the Parquet writer above may not have kept the bodies
        trace_topic = refs[0].trace_topic if refs else None  # one --broker-config for every store
        trace_table(spark, stage.messages(), trace_topic).write.mode(mode).parquet(
            common.table_path(args.out, "traces"))
    reports = stage.reports()
    stage.segments_frame().coalesce(1).write.mode(mode).parquet(common.table_path(args.out, "segments"))
    count = sum(r.messages for rs in reports.values() for r in rs)
    segments = sum(len(rs) for rs in reports.values())
    if args.since is not None or args.until is not None:  # a partial export says so, and what it holds
        held = "" if written is None else f"{written} message(s) stored in it "
        common.console.print(f"window {window_text(args.since, args.until)}: {held}exported from {segments} "
                             f"segment(s) of {len(reports)} store(s) (the segments it overlaps; {count} record(s) "
                             f"walked) -> {common.plain(args.out)} ({', '.join(tables)})")
        return common.report_damage(reports)
    common.console.print(f"exported {count} message(s) from {segments} segment(s) of {len(reports)} store(s) "
                         f"-> {common.plain(args.out)} ({', '.join(tables)})")
    return common.report_damage(reports)


def _check(args, refs) -> None:
    check_window(args.since, args.until)
    if args.parquet_writer == "pyarrow" and "messages" in TABLES[args.format] and not common.is_local_path(args.out):
        raise _not_local(args.out)  # before Spark starts (a path without a scheme is resolved later, in the session)
    common.check_out(args.out, TABLES[args.format], args.overwrite)


def main(argv: Sequence[str], spark: SparkSession | None = None) -> int:
    return common.job_main(parser(), argv, spark, "export", run, _check)
