"""``stats``: per topic and queue, per hour, and per segment figures; printed as tables, written as Parquet.

Tables under ``--out`` (optional; without it the job only prints):

* ``queues/`` (:data:`~inspector.spark.schemas.QUEUE_STATS`): messages, bytes, first/last store time,
  born-to-store latency percentiles, distinct tags and keys, top keys, compressed share;
* ``hourly/`` (:data:`~inspector.spark.schemas.HOURLY`): messages per queue and UTC hour;
* ``segments/`` (:data:`~inspector.spark.schemas.SEGMENT`): records, BLANK tail, damage found.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from rich.table import Table
from rich.text import Text

from inspector.engine import short_time
from inspector.spark import plan
from inspector.spark.jobs import common
from inspector.spark.tasks import StoreRef

QUEUE = ["store", "topic", "queue_id"]
# the MESSAGE columns queue_stats and hourly read (the stage builds only these)
COLUMNS = (*QUEUE, "physical_offset", "total_size", "sys_flag_parts", "body_length", "born_timestamp",
           "store_timestamp", "tags", "keys", "compression")
TABLES = ("queues", "hourly", "segments")
TOP_KEYS = 5
PERCENTILES = (0.5, 0.9, 0.99)
PERCENTILE_ACCURACY = 10_000
HOUR_MS = 3_600_000


# --- pure transforms (MESSAGE rows in; bodies are not needed) ----------------------------------------------------


def queue_stats(messages: DataFrame, top_keys: int = TOP_KEYS) -> DataFrame:
    """One QUEUE_STATS row per (store, topic, queue_id). An inner-batch record's messages are rows of their own
    (``messages`` counts each) sharing the record's physical offset and total size: ``bytes`` counts the
    record once (the commitlog bytes the queue takes)."""
    latency = F.col("store_timestamp") - F.col("born_timestamp")
    inner = F.col("sys_flag_parts.inner_batch")
    inner_bytes = (messages.where(inner).dropDuplicates([*QUEUE, "physical_offset"]).groupBy(*QUEUE)
                   .agg(F.sum(F.col("total_size").cast("long")).alias("_inner_bytes")))
    base = messages.groupBy(*QUEUE).agg(
        F.count(F.lit(1)).alias("messages"),
        F.sum(F.when(~inner, F.col("total_size").cast("long"))).alias("_plain_bytes"),
        F.sum(F.col("body_length").cast("long")).alias("body_bytes"),
        F.min("store_timestamp").alias("first_store_timestamp"),
        F.max("store_timestamp").alias("last_store_timestamp"),
        F.percentile_approx(latency, list(PERCENTILES), PERCENTILE_ACCURACY).alias("_lat"),
        F.max(latency).alias("latency_max_ms"),
        F.countDistinct("tags").alias("distinct_tags"),
        F.sum(F.col("compression").isNotNull().cast("long")).alias("compressed"),
    )
    keys = messages.select(*QUEUE, F.explode("keys").alias("key"))
    counted = keys.groupBy(*QUEUE, "key").count()
    rank = F.row_number().over(Window.partitionBy(*QUEUE).orderBy(F.desc("count"), F.asc("key")))
    per_queue = counted.withColumn("_rank", rank).groupBy(*QUEUE).agg(
        F.count(F.lit(1)).alias("distinct_keys"),
        F.sort_array(F.collect_list(F.when(F.col("_rank") <= top_keys,
                                           F.struct("_rank", "key", "count")))).alias("_top"),
    )
    joined = base.join(per_queue, QUEUE, "left").join(inner_bytes, QUEUE, "left")
    record_bytes = F.coalesce("_plain_bytes", F.lit(0)) + F.coalesce("_inner_bytes", F.lit(0))
    return joined.select(
        *QUEUE, "messages", record_bytes.cast("long").alias("bytes"), "body_bytes", "first_store_timestamp", "last_store_timestamp",
        *(F.col("_lat")[i].alias(f"latency_p{round(p * 100)}_ms") for i, p in enumerate(PERCENTILES)),
        "latency_max_ms", "distinct_tags",
        F.coalesce("distinct_keys", F.lit(0)).cast("long").alias("distinct_keys"),
        F.coalesce(F.transform("_top", lambda s: F.struct(s["key"].alias("key"), s["count"].alias("count"))),
                   F.array()).alias("top_keys"),
        "compressed",
        (F.col("compressed") / F.col("messages")).alias("compressed_share"),
    ).orderBy(*QUEUE)


def hourly(messages: DataFrame) -> DataFrame:
    """HOURLY rows: messages per (store, topic, queue_id, UTC hour of the store time)."""
    hour_ms = F.floor(F.col("store_timestamp") / HOUR_MS) * HOUR_MS
    return (messages.groupBy(*QUEUE, F.timestamp_millis(hour_ms.cast("long")).alias("hour"))
            .agg(F.count(F.lit(1)).alias("messages")).orderBy(*QUEUE, "hour"))


# --- job -------------------------------------------------------------------------------------------------------


def parser():
    p = common.job_parser("stats", "Per topic/queue, per hour and per segment statistics.", out_required=False)
    p.add_argument("--top-keys", type=int, default=TOP_KEYS, help=f"keys listed per queue (default {TOP_KEYS})")
    return p


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return str(n)


def _where(store: str, stores: int) -> list[str]:
    return [common.plain(store)] if stores > 1 else []


def print_tables(queues: list, segments: list, stores: int) -> None:
    """Queues, top keys and segments as terminal tables (the Parquet tables hold everything)."""
    first = ["store"] if stores > 1 else []
    t = Table(title="Topics and queues")
    for name in (*first, "topic", "queue", "messages", "bytes", "stored (UTC)", "latency p50/p90/p99 ms", "tags",
                 "keys", "compressed"):
        t.add_column(name, overflow="fold")
    k = Table(title=f"Top keys per queue (of {TOP_KEYS} at most)")
    for name in (*first, "topic", "queue", "keys (messages)"):
        k.add_column(name, overflow="fold")
    for q in queues:
        lat = "/".join("-" if v is None else str(v) for v in (q.latency_p50_ms, q.latency_p90_ms, q.latency_p99_ms))
        t.add_row(*_where(q.store, stores), common.plain(q.topic), str(q.queue_id), str(q.messages), _size(q.bytes),
                  f"{short_time(q.first_store_timestamp, 's')} .. {short_time(q.last_store_timestamp, 's')}", lat, str(q.distinct_tags),
                  str(q.distinct_keys), f"{q.compressed_share:.0%}")
        if q.top_keys:
            k.add_row(*_where(q.store, stores), common.plain(q.topic), str(q.queue_id),
                      common.plain(", ".join(f"{x['key']} ({x['count']})" for x in q.top_keys)))
    common.console.print(t)
    if k.row_count:
        common.console.print(k)
    s = Table(title="Commitlog segments")
    for name in (*first, "segment", "records", "data end", "BLANK tail", "free tail", "problems", "error"):
        s.add_column(name, overflow="fold")
    for r in segments:
        codes = sorted({p.code for p in r.problems})
        s.add_row(*_where(r.store, stores), common.plain(r.segment), str(r.messages), str(r.data_end),
                  "-" if r.blank_size is None else _size(r.blank_size), _size(r.free_tail_bytes),
                  Text(f"{r.problem_count}: {common.plain(', '.join(codes))}", style="red") if r.problem_count else "0",
                  Text(common.plain(r.error), style="red") if r.error else "")
    common.console.print(s)


def run(spark: SparkSession, args, refs: list[StoreRef]) -> int:
    stage = common.SegmentStage(spark, plan.plan_segments(refs))
    messages = stage.messages(columns=COLUMNS).persist()
    try:
        queues = queue_stats(messages, args.top_keys)
        hours = hourly(messages)
        mode = common.write_mode(args)
        if args.out:
            queues.write.mode(mode).parquet(common.table_path(args.out, "queues"))
            hours.write.mode(mode).parquet(common.table_path(args.out, "hourly"))
            queue_rows = _read_table(spark, args.out, "queues").orderBy(*QUEUE).collect()
        else:
            queue_rows = queues.collect()
        segments = stage.segments_frame()
        if args.out:
            segments.coalesce(1).write.mode(mode).parquet(common.table_path(args.out, "segments"))
        segment_rows = segments.orderBy("store", "segment_index").collect()
    finally:
        messages.unpersist()
    reports = stage.reports()
    print_tables(queue_rows, segment_rows, len(refs))
    if args.out:
        common.console.print(f"tables queues, hourly, segments -> {common.plain(args.out)}")
    return common.report_damage(reports, quiet=True)


def _read_table(spark: SparkSession, out: str, name: str) -> DataFrame:
    return spark.read.parquet(common.table_path(out, name))


def main(argv: Sequence[str], spark: SparkSession | None = None) -> int:
    return common.job_main(parser(), argv, spark, "stats", run,
                           lambda args, refs: common.check_out(args.out, TABLES, args.overwrite))
