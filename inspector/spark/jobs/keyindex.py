"""``keyindex``: a Parquet key index over one or more stores, for lookups that read no index file.

One row per (message, key) that the broker's ``IndexService`` indexes: the UNIQ_KEY (kind ``unique_key``)
and every distinct piece of KEYS (kind ``key``) of every record except ROLLBACK ones, under the record's own
topic. Columns: :data:`~inspector.spark.schemas.KEYINDEX`. The table is the directory ``--out DIR``
itself (nothing else is written there), sorted by topic and key, so Parquet row-group statistics let a
reader skip everything but the key's neighbourhood; ``rmq-inspect key --keyindex DIR``
(:func:`inspector.spark.keyindex.lookup`), Spark SQL, DuckDB or pandas query it the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from inspector.engine import BadInput
from inspector.spark import plan
from inspector.spark.jobs import common
from inspector.spark.schemas import KEYINDEX_COLUMNS
from inspector.spark.tasks import StoreRef

SORT = ["topic", "key", "store", "physical_offset"]
# the MESSAGE columns keyindex_rows reads (the stage builds only these)
COLUMNS = ("store", "physical_offset", "queue_id", "queue_offset", "store_timestamp", "topic", "keys", "unique_key",
           "msg_id", "transaction")


# --- pure transform --------------------------------------------------------------------------------------------


def keyindex_rows(messages: DataFrame) -> DataFrame:
    """MESSAGE rows -> KEYINDEX rows (a key equal to the message's unique key is listed once, as ``unique_key``)."""
    indexed = messages.where(F.col("transaction") != "ROLLBACK")
    rest = ["physical_offset", "store_timestamp", "store", "queue_id", "queue_offset", "msg_id"]
    unique = indexed.where(F.col("unique_key").isNotNull()).select(
        "topic", F.col("unique_key").alias("key"), F.lit("unique_key").alias("kind"), *rest)
    keys = (indexed.select("topic", F.explode(F.array_distinct("keys")).alias("key"), "unique_key", *rest)
            .where(F.col("unique_key").isNull() | (F.col("key") != F.col("unique_key")))
            .select("topic", "key", F.lit("key").alias("kind"), *rest))
    return unique.unionByName(keys).select(*KEYINDEX_COLUMNS)


# --- job -------------------------------------------------------------------------------------------------------


def parser():
    return common.job_parser("keyindex", "A Parquet table (topic, key, kind, physical_offset, store_timestamp, "
                             "store, ...) for key lookups over many stores.", out_required=True)


def run(spark: SparkSession, args, refs: list[StoreRef]) -> int:
    stage = common.SegmentStage(spark, plan.plan_segments(refs))
    # persisted: the global sort samples its input before it sorts, which would decode every segment twice
    rows = keyindex_rows(stage.messages(columns=COLUMNS)).persist()
    try:
        rows.orderBy(*SORT).write.mode(common.write_mode(args)).parquet(args.out.rstrip("/"))
    finally:
        rows.unpersist()
    reports = stage.reports()
    written = spark.read.parquet(args.out.rstrip("/")).count()
    common.console.print(f"indexed {written} key(s) of {sum(r.messages for rs in reports.values() for r in rs)} "
                         f"message(s) from {len(reports)} store(s) -> {common.plain(args.out)}")
    return common.report_damage(reports)


def _check(args, refs) -> None:
    if not args.overwrite and common.is_local_path(args.out):
        out = Path(args.out.removeprefix("file:"))
        if out.exists() and any(out.iterdir()):
            raise BadInput(f"{args.out} exists and is not empty (use --overwrite)")


def main(argv: Sequence[str], spark: SparkSession | None = None) -> int:
    return common.job_main(parser(), argv, spark, "keyindex", run, _check)
