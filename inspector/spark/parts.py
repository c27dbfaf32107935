"""Partitioned Parquet tables written by the tasks themselves (pyarrow), Spark only scheduling them.

Why: a table written through Spark's own writer costs the JVM a copy of every value of every row out of the
Python workers' Arrow batches into its row format, on the same cores as the workers; for ``export`` (all 31
MESSAGE columns, bodies included) that copy made a Spark run 1.6x the time of a plain process pool doing the
same decoding. Here each segment task writes its own Parquet files with pyarrow and returns one small row
per file; the JVM sees only those.

What a reader sees is what Spark's ``df.write.partitionBy(...).parquet(path)`` leaves:

* ``name=value`` directories with the value escaped as Spark escapes it (:func:`escape_path_name`,
  ``ExternalCatalogUtils.escapePathName``) and ``__HIVE_DEFAULT_PARTITION__`` for a null or empty value;
* ``part-<task, 5 digits>-<job uuid>.c<file, 3 digits>.snappy.parquet`` files holding the data columns (the
  partition columns are in the paths only), with the Spark schema in the footer under
  ``org.apache.spark.sql.parquet.row.metadata`` as Spark writes it, so Spark reads the declared types back;
* an empty ``_SUCCESS`` file once the job has committed.

Commit protocol (the driver's side is :class:`Staging`): every task attempt writes under its own directory in
``<out>/_temporary-<table>-<job uuid>/``; the driver moves the files of the attempts Spark accepted (one per
task: what ``collect()`` returns) into the new table, writes ``_SUCCESS`` and only then puts the table in
place (replacing an existing one with ``overwrite``), so a failed job leaves the previous table untouched.
Files of a failed or speculative attempt stay in the staging directory, which is removed in every case.

Plain Python + pyarrow (pyspark only for its types): tested without a session, and against Spark's own writer
in the Spark tests.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql.pandas.types import to_arrow_schema

from inspector.engine import BadInput
from inspector.spark.schemas import DAY_MS, EXPORT_PARTITIONS, PART_FILE

DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
SPARK_SCHEMA_KEY = b"org.apache.spark.sql.parquet.row.metadata"
SUCCESS = "_SUCCESS"
# what a task keeps in memory before it writes row groups: bounded whatever the segment size (Spark's own
# row groups are 128 MB; a 1 GiB segment of one topic and day gives several of these)
BUFFER_BYTES = 128 << 20
# open files per task; a segment touching more partitions closes the oldest and starts a new file later
MAX_OPEN_FILES = 64

# Spark escapes these (ASCII only; everything from 0x80 up stays as it is), as %XX in upper-case hex
_ESCAPED = frozenset([*range(0x01, 0x20), *map(ord, "\"#%'*/:=?\\{[]^"), 0x7F])
_ESCAPE_TABLE = {c: f"%{c:02X}" for c in _ESCAPED}

# one row per file a task wrote (what the JVM sees of a table written here): schemas.PART_FILE in Arrow
MANIFEST = to_arrow_schema(PART_FILE)


def escape_path_name(value: str) -> str:
    """A partition value as Spark writes it in a directory name (``ExternalCatalogUtils.escapePathName``)."""
    return value.translate(_ESCAPE_TABLE)


def partition_dir(name: str, value: str | None) -> str:
    """``name=value`` as Spark names a partition directory (null or empty: the default partition)."""
    return f"{escape_path_name(name)}={DEFAULT_PARTITION if not value else escape_path_name(value)}"


def day_text(day: int) -> str | None:
    """A ``DateType`` partition value (days since 1970-01-01) as Spark prints it; None beyond years 1-9999."""
    try:
        return (dt.date(1970, 1, 1) + dt.timedelta(days=day)).isoformat()
    except OverflowError:
        return None


def spark_json(schema) -> str:
    """A ``StructType`` as the JVM prints it (``StructType.json()`` in Python sorts the keys and adds spaces)."""
    return json.dumps(schema.jsonValue(), separators=(",", ":"), ensure_ascii=False)


def spark_metadata(schema: pa.Schema, spark_schema_json: str) -> pa.Schema:
    """``schema`` with a Spark schema (:func:`spark_json`) in its metadata, where Spark's writer puts it."""
    return schema.with_metadata({**(schema.metadata or {}), SPARK_SCHEMA_KEY: spark_schema_json.encode()})


@dataclass
class _Open:
    writer: pq.ParquetWriter
    path: str  # relative to the attempt directory
    rows: int = 0


@dataclass
class PartWriter:
    """One task attempt's files of a table partitioned by a string column and the UTC day of an epoch-ms column
    (``export``: ``topic`` and ``store_date`` from ``store_timestamp``).

    ``write(batch)`` takes record batches holding the data columns (``schema``), the string partition column
    and the time column; rows keep their order within a partition. ``close()`` returns the files written
    (MANIFEST rows). Memory stays under ``buffer_bytes`` of buffered rows plus one batch.
    """

    directory: str  # the attempt's directory (created on the first file)
    task: int
    job: str
    schema: pa.Schema  # of the files: the data columns, with the Spark schema in the metadata
    by: str = EXPORT_PARTITIONS[0]
    day_name: str = EXPORT_PARTITIONS[1]
    day_of: str = "store_timestamp"
    buffer_bytes: int = BUFFER_BYTES
    max_open: int = MAX_OPEN_FILES
    plain: tuple[str, ...] = ()  # columns written without dictionary encoding (values unique per row)
    _buffers: dict[tuple[str | None, int], list[pa.RecordBatch]] = field(default_factory=dict, init=False)
    _buffered: int = field(default=0, init=False)
    _open: dict[tuple[str | None, int], _Open] = field(default_factory=dict, init=False)
    _files: list[tuple[str, int]] = field(default_factory=list, init=False)
    _counter: dict[tuple[str | None, int], int] = field(default_factory=dict, init=False)

    def write(self, batch: pa.RecordBatch) -> None:
        if not batch.num_rows:
            return
        for key, part in _split(batch, self.by, self.day_of):
            data = pa.RecordBatch.from_arrays([part.column(n) for n in self.schema.names], schema=self.schema)
            self._buffers.setdefault(key, []).append(data)
            self._buffered += data.nbytes
        while self._buffered > self.buffer_bytes:
            self._flush(max(self._buffers, key=lambda k: sum(b.nbytes for b in self._buffers[k])))

    def close(self) -> pa.RecordBatch:
        """Write what is buffered, close every file; the MANIFEST rows of this attempt."""
        for key in list(self._buffers):
            self._flush(key)
        for key in list(self._open):
            self._close(key)
        attempt = os.path.basename(self.directory.rstrip("/"))
        paths = [p for p, _ in self._files]
        sizes = [os.path.getsize(os.path.join(self.directory, p)) for p in paths]
        return pa.RecordBatch.from_arrays(
            [pa.array([self.task] * len(paths), pa.int32()), pa.array([attempt] * len(paths), pa.string()),
             pa.array(paths, pa.string()), pa.array([r for _, r in self._files], pa.int64()),
             pa.array(sizes, pa.int64())], schema=MANIFEST)

    def abort(self) -> None:
        """Close the open files without writing what is buffered (the attempt's directory is the driver's)."""
        for key in list(self._open):
            self._open.pop(key).writer.close()
        self._buffers.clear()

    def _flush(self, key: tuple[str | None, int]) -> None:
        batches = self._buffers.pop(key)
        self._buffered -= sum(b.nbytes for b in batches)
        out = self._open.pop(key, None) or self._new_file(key)
        self._open[key] = out  # most recently used last
        table = pa.Table.from_batches(batches, schema=self.schema)
        out.writer.write_table(table, row_group_size=max(1, table.num_rows))
        out.rows += table.num_rows

    def _new_file(self, key: tuple[str | None, int]) -> _Open:
        if len(self._open) >= self.max_open:
            self._close(next(iter(self._open)))
        n = self._counter.get(key, 0)
        self._counter[key] = n + 1
        topic, day = key
        rel = "/".join((partition_dir(self.by, topic), partition_dir(self.day_name, day_text(day)),
                        f"part-{self.task:05d}-{self.job}.c{n:03d}.snappy.parquet"))
        path = os.path.join(self.directory, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        dictionary = [n for n in self.schema.names if n not in self.plain] if self.plain else True
        return _Open(pq.ParquetWriter(path, self.schema, compression="snappy", use_dictionary=dictionary), rel)

    def _close(self, key: tuple[str | None, int]) -> None:
        out = self._open.pop(key)
        out.writer.close()
        self._files.append((out.path, out.rows))


def _split(batch: pa.RecordBatch, by: str, day_of: str) -> Iterable[tuple[tuple[str | None, int], pa.RecordBatch]]:
    """The rows of ``batch`` per (value of ``by``, UTC day of ``day_of``), each group in batch order."""
    encoded = pc.dictionary_encode(batch.column(by))
    names = encoded.dictionary.to_pylist()
    codes = encoded.indices.fill_null(len(names)).to_numpy(zero_copy_only=False).astype(np.int64)
    names.append(None)
    days = np.floor_divide(batch.column(day_of).to_numpy(zero_copy_only=False), DAY_MS)
    first, last = int(days.min()), int(days.max())
    key = codes * (last - first + 1) + (days - first)
    if key.min() == key.max():
        yield (names[int(codes[0])], int(days[0])), batch
        return
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    starts = [0, *(np.flatnonzero(np.diff(sorted_key)) + 1).tolist()]
    ends = [*starts[1:], len(order)]
    for start, end in zip(starts, ends, strict=True):
        i = int(order[start])
        # a copy per group, not a slice of one sorted copy: a buffered slice would keep its whole batch alive
        yield (names[int(codes[i])], int(days[i])), batch.take(pa.array(order[start:end]))


# --- the driver's side -----------------------------------------------------------------------------------------


def new_job_id() -> str:
    return str(uuid.uuid4())


@dataclass
class Staging:
    """Where the tasks of one job write a table, and the commit that makes it the table."""

    table: Path  # the final table directory (local)
    job: str

    @property
    def root(self) -> Path:
        return self.table.parent / f"_temporary-{self.table.name}-{self.job}"

    def attempt_dir(self, task: int) -> str:
        """A new directory name for one attempt of ``task`` (created by the task on its first file)."""
        return str(self.root / f"{task:05d}-{uuid.uuid4().hex[:12]}")

    def _taken(self) -> bool:
        """Something is where the table goes (an empty directory is not: replacing it loses nothing)."""
        return self.table.is_symlink() or (self.table.exists() and (not self.table.is_dir()
                                                                     or any(self.table.iterdir())))

    def begin(self, overwrite: bool) -> None:
        if not overwrite and self._taken():
            raise BadInput(f"output table {self.table} exists (use --overwrite)")
        self.root.mkdir(parents=True)

    def commit(self, manifests: Sequence[dict], overwrite: bool) -> int:
        """Move the accepted attempts' files into place, write _SUCCESS, put the table where it belongs;
        returns the rows committed. One accepted attempt per task (a second is refused, as it would duplicate
        rows)."""
        built = self.root / "_table"
        built.mkdir()
        attempts: dict[int, str] = {}
        rows = 0
        for m in manifests:
            if attempts.setdefault(m["task"], m["attempt"]) != m["attempt"]:
                raise RuntimeError(f"task {m['task']} reported two attempts ({attempts[m['task']]}, {m['attempt']})")
            target = built / m["file"]
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.root / m["attempt"] / m["file"], target)
            rows += m["rows"]
        (built / SUCCESS).touch()
        if not overwrite and self._taken():
            raise BadInput(f"output table {self.table} appeared while the job ran (use --overwrite)")
        if self.table.exists() or self.table.is_symlink():
            os.replace(self.table, self.root / "_replaced")
        os.replace(built, self.table)
        return rows

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


# --- export's files ----------------------------------------------------------------------------------------------


# export's columns whose values are (nearly) unique per message: a dictionary only adds its indices to them
# (pyarrow keeps dictionary pages until the dictionary is 1 MiB; parquet-mr, Spark's writer, gives up on the
# first page); written plain the table is smaller than Spark's and quicker to write
EXPORT_PLAIN = ("position", "physical_offset", "stored_physical_offset", "born_timestamp", "store_timestamp",
                "msg_id", "unique_key", "keys")


def export_schema() -> pa.Schema:
    """The schema of export's files: the EXPORT columns but the partition ones, Spark's schema in the footer."""
    from pyspark.sql.types import StructType

    from inspector.spark.arrow import arrow_schema
    from inspector.spark.schemas import EXPORT, EXPORT_PARTITIONS, MESSAGE_COLUMNS

    data = [c for c in MESSAGE_COLUMNS if c not in EXPORT_PARTITIONS]
    return spark_metadata(arrow_schema(data), spark_json(StructType([EXPORT[c] for c in data])))


def export_segment(task, index: int, directory: str, job: str, sink) -> pa.RecordBatch:
    """One segment's messages (``arrow.message_batches``) into export's files under ``directory`` (one task
    attempt); the MANIFEST rows of the files. The segment's report goes to ``sink``."""
    from inspector.spark.arrow import message_batches

    writer = PartWriter(directory, index, job, export_schema(), plain=EXPORT_PLAIN)
    try:
        for batch in message_batches([task], sink):
            writer.write(batch)
    except BaseException:
        writer.abort()
        raise
    return writer.close()
