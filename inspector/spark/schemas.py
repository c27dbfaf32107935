"""Every Spark schema of the pipeline, in one place.

Column names are the JSON field names of :func:`inspector.engine.present.views.message_view` (what ``rmq-inspect
messages --json`` and the web API print) wherever a column is one of those fields; ``body`` holds the raw
bytes (JSON Lines output carries ``body_base64`` instead, as the views do). Columns added by the pipeline:
``store`` (the store root as the executors opened it) and ``segment`` (the commitlog file name).

Rows built on the executors are plain tuples in schema order (see :mod:`inspector.spark.tasks`), so
``createDataFrame(..., verifySchema=False)`` can skip the per-row type check.
"""

from __future__ import annotations

from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DateType,
    DoubleType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from inspector.engine import MESSAGE_FIELDS, SYS_FLAG_PART_KINDS, TRACE_ROW_FIELDS


def _fields(*spec: tuple[str, object, bool]) -> StructType:
    return StructType([StructField(name, kind, nullable) for name, kind, nullable in spec])


S, INT, L, B = StringType(), IntegerType(), LongType(), BooleanType()

# the engine's one declaration of a message's outward shape (MESSAGE_FIELDS), its kinds as Spark types
SYS_FLAG_PARTS = _fields(*((name, {"string": S, "int32": INT, "bool": B}[kind], nullable)
                           for name, kind, nullable in SYS_FLAG_PART_KINDS))
_KINDS = {"string": S, "int32": INT, "int64": L, "bool": B, "string_map": MapType(S, S, True),
          "string_list": ArrayType(S, False), "sys_flag_parts": SYS_FLAG_PARTS}

# One row per commitlog message (inspector.spark.tasks.message_row builds it): the declared fields between
# where the row comes from and what Spark keeps beside them (the DLedger entry flat, the body as bytes)
MESSAGE = _fields(
    ("store", S, False),
    ("segment", S, False),
    *((f.name, _KINDS[f.kind], f.nullable) for f in MESSAGE_FIELDS),
    ("raft_index", L, True),  # a DLedger store: the Raft index and term of the entry holding the record; else None
    ("raft_term", L, True),
    ("body", BinaryType(), True),  # None when a job asked for rows without bodies (stats, keyindex)
)
MESSAGE_COLUMNS = tuple(MESSAGE.fieldNames())

# export: MESSAGE plus the UTC calendar day of the store time (a partition column with ``topic``)
EXPORT = StructType([*MESSAGE.fields, StructField("store_date", DateType(), False)])
EXPORT_PARTITIONS = ("topic", "store_date")
DAY_MS = 86_400_000  # store_date = the UTC day of store_timestamp (epoch ms); the Spark and the pyarrow writer agree

# one file a task wrote itself (inspector.spark.parts: export's Parquet files without Spark's writer)
PART_FILE = _fields(
    ("task", INT, False),
    ("attempt", S, False),  # the attempt's directory, relative to the staging directory
    ("file", S, False),  # relative to the attempt directory (and, once committed, to the table)
    ("rows", L, False),
    ("bytes", L, False),
)

# inspector.engine.present.views.problem_view plus the store
PROBLEM = _fields(("file", S, False), ("offset", L, False), ("code", S, False), ("severity", S, False),
                  ("reason", S, False))

# One row per commitlog segment walked (inspector.spark.tasks.SegmentReport.row)
SEGMENT = _fields(
    ("store", S, False),
    ("segment_index", INT, False),
    ("segment", S, False),
    ("start_offset", L, False),
    ("file_size", L, False),
    ("messages", L, False),
    ("data_end", L, False),  # position after the last good record
    ("blank_position", L, True),  # where the BLANK end-of-segment record is (None: no BLANK)
    ("blank_size", L, True),
    ("free_tail_bytes", L, False),  # file size - data_end: BLANK tail or the zero tail of the active segment
    ("first_store_timestamp", L, False),
    ("last_store_timestamp", L, False),
    ("problem_count", INT, False),
    ("problems", ArrayType(PROBLEM, False), False),
    ("error", S, True),  # the task itself failed on this segment (the job went on without it)
)

# verify: one finding; (phase, task, seq) is the order the single-process verify reports it in
FINDING = _fields(
    ("store", S, False),
    ("phase", INT, False),  # 0 commitlog layout, 1 records, 2 consume queues, 3 index files, 4 the rest
    ("task", INT, False),  # segment / queue / index file number within the phase
    ("seq", L, False),
    ("file", S, False),
    ("offset", L, False),
    ("code", S, False),
    ("severity", S, False),
    ("reason", S, False),
)

# keyindex: one row per (message, key) the broker's IndexService would index
KEYINDEX = _fields(
    ("topic", S, False),
    ("key", S, False),
    ("kind", S, False),  # "key" or "unique_key" (KeyHit.matched_by)
    ("physical_offset", L, False),
    ("store_timestamp", L, False),
    ("store", S, False),
    ("queue_id", INT, False),
    ("queue_offset", L, False),
    ("msg_id", S, False),
)
KEYINDEX_COLUMNS = tuple(KEYINDEX.fieldNames())

# rebuild-cq: what the dispatcher needs of one record (CommitLogDispatcherBuildConsumeQueue)
DISPATCH = _fields(
    ("store", S, False),
    ("topic", S, False),
    ("queue_id", INT, False),
    ("read_offset", L, False),  # where the record is: the commitlog order the builder must see
    ("physical_offset", L, False),  # the PHYSICALOFFSET field: what the unit stores
    ("total_size", INT, False),
    ("tags_code", L, False),
    ("store_timestamp", L, False),
    ("queue_offset", L, False),
    ("sys_flag", INT, False),
    ("prepared_transaction_offset", L, False),
)

# stats
TOP_KEY = _fields(("key", S, False), ("count", L, False))
QUEUE_STATS = _fields(
    ("store", S, False),
    ("topic", S, False),
    ("queue_id", INT, False),
    ("messages", L, False),
    ("bytes", L, False),  # sum of TOTALSIZE
    ("body_bytes", L, False),
    ("first_store_timestamp", L, False),
    ("last_store_timestamp", L, False),
    ("latency_p50_ms", L, True),  # born -> store
    ("latency_p90_ms", L, True),
    ("latency_p99_ms", L, True),
    ("latency_max_ms", L, True),
    ("distinct_tags", L, False),
    ("distinct_keys", L, False),
    ("top_keys", ArrayType(TOP_KEY, False), False),
    ("compressed", L, False),
    ("compressed_share", DoubleType(), False),
)
HOURLY = _fields(
    ("store", S, False),
    ("topic", S, False),
    ("queue_id", INT, False),
    ("hour", TimestampType(), False),  # start of the hour (UTC)
    ("messages", L, False),
)

# export --traces: one row per trace record of a trace topic's message (inspector.spark.jobs.export.trace_table):
# where its message is, then the engine's TRACE_ROW_FIELDS (``topic`` there is the traced message's topic)
_TRACE_KINDS = {"index": INT, "timestamp": L, "body_length": INT, "cost_time": INT, "success": B,
                "retry_times": INT, "context_code": INT, "from_transaction_check": B}
TRACE = _fields(
    ("store", S, False),
    ("segment", S, False),
    ("trace_physical_offset", L, False),
    ("trace_topic", S, False),
    ("trace_store_timestamp", L, False),
    *((name, _TRACE_KINDS.get(name, S), name != "index") for name in TRACE_ROW_FIELDS),
)
