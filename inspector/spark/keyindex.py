"""Key lookups in a table written by ``rmq-inspect spark keyindex`` (the back end of ``rmq-inspect key --keyindex``).

Reads the Parquet files with pyarrow when it is installed (a filter on topic and key, pushed down to the
row groups of the sorted table); without pyarrow it falls back to Spark (a local session, or the active one).
Importing this module imports neither.
"""

from __future__ import annotations

from pathlib import Path

FIELDS = ("store", "topic", "key", "kind", "physical_offset", "store_timestamp", "queue_id", "queue_offset", "msg_id")


def lookup(keyindex_dir: str | Path, topic: str, key: str, begin: int | None = None, end: int | None = None, *,
           engine: str | None = None) -> list[dict]:
    """Messages indexed under ``topic`` / ``key``, one dict per message (fields :data:`FIELDS`).

    Like ``Store.lookup_key``: one entry per message even if the key is both its unique key and one of its
    KEYS (``kind`` is then ``unique_key``). ``begin`` / ``end`` bound the store time (epoch ms, inclusive);
    the index files' own check is coarser (their items keep seconds). Sorted by store, then physical offset.
    ``engine``: ``"pyarrow"`` or ``"spark"``; default pyarrow if importable, else Spark.
    """
    path = str(keyindex_dir)
    if not Path(path).is_dir():
        from inspector.engine import BadInput

        raise BadInput("not a key index directory (written by `rmq-inspect spark keyindex`)", path)
    if engine is None:
        try:
            import pyarrow.dataset  # noqa: F401
        except ImportError:
            engine = "spark"
        else:
            engine = "pyarrow"
    rows = _pyarrow(path, topic, key, begin, end) if engine == "pyarrow" else _spark(path, topic, key, begin, end)
    return _one_per_message(rows)


def _one_per_message(rows: list[dict]) -> list[dict]:
    best: dict[tuple[str, int], dict] = {}
    for row in rows:
        k = (row["store"], row["physical_offset"])
        if k not in best or row["kind"] == "unique_key":
            best[k] = {f: row[f] for f in FIELDS}
    return [best[k] for k in sorted(best)]


def _pyarrow(path: str, topic: str, key: str, begin: int | None, end: int | None) -> list[dict]:
    import pyarrow as pa
    import pyarrow.dataset as ds

    condition = (ds.field("topic") == topic) & (ds.field("key") == key)
    if begin is not None:
        condition = condition & (ds.field("store_timestamp") >= begin)
    if end is not None:
        condition = condition & (ds.field("store_timestamp") <= end)
    _only_regular_files(path)
    try:  # a folder of other files (a store, a README), or Parquet without our columns: bad input, not a traceback
        return ds.dataset(path, format="parquet").to_table(columns=list(FIELDS), filter=condition).to_pylist()
    except (pa.ArrowException, OSError) as e:
        raise _not_a_key_table(path, e) from None


def _only_regular_files(path: str) -> None:
    """BadInput naming the first entry of the key table that pyarrow would open and that is no regular file or
    folder (a FIFO would block the read for ever, /dev/zero never end), before anything is opened."""
    import os
    import stat

    from inspector.engine import BadInput

    for folder, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]  # pyarrow's discovery skips these too
        for name in files:
            if name.startswith((".", "_")):
                continue
            full = os.path.join(folder, name)
            try:
                mode = os.stat(full).st_mode
            except OSError:
                continue  # a dangling link: pyarrow's own error names it
            if not stat.S_ISREG(mode):
                raise BadInput(f"not a key table: {os.path.relpath(full, path)} is no regular file", path)


def _not_a_key_table(path: str, error: Exception) -> Exception:
    from inspector.engine import BadInput

    why = str(error).splitlines()[0] if str(error) else type(error).__name__
    return BadInput(f"not a key table written by `rmq-inspect spark keyindex`: {why[:300]}", path)


def _spark(path: str, topic: str, key: str, begin: int | None, end: int | None) -> list[dict]:
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    from inspector.spark.schemas import KEYINDEX
    from inspector.spark.session import build_session

    active = SparkSession.getActiveSession()
    spark = active or build_session("local[1]", app_name="rmq-inspect key", progress=False, ship=False,
                                    conf={"spark.ui.enabled": "false"})
    from pyspark.errors import PySparkException

    try:
        df = spark.read.schema(KEYINDEX).parquet(path).where((F.col("topic") == topic) & (F.col("key") == key))
        if begin is not None:
            df = df.where(F.col("store_timestamp") >= begin)
        if end is not None:
            df = df.where(F.col("store_timestamp") <= end)
        return [row.asDict() for row in df.select(*FIELDS).collect()]
    except PySparkException as e:
        raise _not_a_key_table(path, e) from None
    finally:
        if active is None:
            spark.stop()
