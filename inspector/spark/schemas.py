"""Every Spark schema of the pipeline, in one place.

A message row is :func:`inspector.engine.present.views.message_view` (what ``rmq-inspect messages --json`` and
the web API print) field for field: the same names, nesting and values, the body as ``body_base64`` (base64,
as in JSON: a Parquet reader gets the bytes back with ``unbase64``), the ``dledger``, ``inner_batch`` and
``trace`` objects as structs (null where JSON leaves the object out; a trace record's struct has every field,
null where JSON leaves its key out). Columns added by the pipeline: ``store`` (the
store root as the executors opened it) and ``segment`` (the commitlog file name).

Rows built on the executors are plain tuples in schema order (see :mod:`inspector.spark.tasks`), so
``createDataFrame(..., verifySchema=False)`` can skip the per-row type check.
"""

from __future__ import annotations

from pyspark.sql.types import (
    ArrayType,
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

from inspector.engine import (
    BODY_FIELDS,
    DLEDGER_ENTRY_KINDS,
    INNER_BATCH_KINDS,
    MESSAGE_FIELDS,
    SYS_FLAG_PART_KINDS,
    TRACE_OBJECT_KINDS,
    TRACE_ROW_KINDS,
)


def _fields(*spec: tuple[str, object, bool]) -> StructType:
    return StructType([StructField(name, kind, nullable) for name, kind, nullable in spec])


S, INT, L, B = StringType(), IntegerType(), LongType(), BooleanType()

# the engine's one declaration of a message's outward shape (MESSAGE_FIELDS and what follows them), its kinds
# as Spark types
_SCALARS = {"string": S, "int32": INT, "int64": L, "bool": B}


def _struct(kinds: tuple[tuple[str, str, bool], ...], *, may_be_null: bool = False) -> StructType:
    """``may_be_null``: the struct column holds null for some rows; its fields are then nullable too (Arrow
    and Parquet keep a null struct's fields as nulls, which a non-nullable field refuses)."""
    return _fields(*((name, _SCALARS[kind], nullable or may_be_null) for name, kind, nullable in kinds))


SYS_FLAG_PARTS = _struct(SYS_FLAG_PART_KINDS)
DLEDGER_ENTRY = _struct(DLEDGER_ENTRY_KINDS, may_be_null=True)
INNER_BATCH = _struct(INNER_BATCH_KINDS, may_be_null=True)
TRACE_RECORD = _struct(TRACE_ROW_KINDS)  # one trace record: the engine's TRACE_ROW_FIELDS and their kinds
# a trace topic's record: message_view's ``trace`` object (null for any other record)
TRACE_OBJECT = _fields(*((name, ArrayType(TRACE_RECORD, False) if kind == "trace_records" else _SCALARS[kind], True)
                         for name, kind, _ in TRACE_OBJECT_KINDS))
_KINDS = {**_SCALARS, "string_map": MapType(S, S, True), "string_list": ArrayType(S, False),
          "sys_flag_parts": SYS_FLAG_PARTS}

# One row per commitlog message (inspector.spark.tasks.message_row builds it): where the row comes from, then
# message_view's fields in its order
MESSAGE = _fields(
    ("store", S, False),
    ("segment", S, False),
    *((f.name, _KINDS[f.kind], f.nullable) for f in MESSAGE_FIELDS),
    *((name, _SCALARS[kind], nullable) for name, kind, nullable in BODY_FIELDS),  # null: a job without bodies
    ("dledger", DLEDGER_ENTRY, True),  # a DLedger store's record: its entry; else null
    ("inner_batch", INNER_BATCH, True),  # one message of a 5.x inner-batch record; else null
    ("trace", TRACE_OBJECT, True),  # a trace topic's record: its body's trace records decoded; else null
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
    ("entry", S, True),  # Problem.entry: which entry of a config file (its findings all stand at offset 0)
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
TRACE = _fields(
    ("store", S, False),
    ("segment", S, False),
    ("trace_physical_offset", L, False),
    ("trace_topic", S, False),
    ("trace_store_timestamp", L, False),
    *((f.name, f.dataType, f.nullable) for f in TRACE_RECORD.fields),
)
