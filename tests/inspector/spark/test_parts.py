"""Parquet tables written by the tasks (inspector.spark.parts): the writer and the commit without Spark, then
the export table against the one Spark's own writer leaves for the same stores."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.errors import BadInput
from inspector.spark import parts
from inspector.spark.jobs import common, export

DAY = parts.DAY_MS
T0 = 1_758_272_400_000  # 2025-09-19 09:00:00 UTC
DATA = parts.spark_metadata(pa.schema([pa.field("store_timestamp", pa.int64(), False), pa.field("n", pa.int32())]),
                            '{"type":"struct","fields":[]}')
ODD_TOPICS = ["x=y", "50%", "q?*", "a:b", "sp ace", "[]{}^#'\"", "ключ", "tab\there", "Order-Events_2"]


def batch(rows: list[tuple[str, int, int]]) -> pa.RecordBatch:
    topics, ts, n = zip(*rows, strict=True) if rows else ((), (), ())
    return pa.RecordBatch.from_arrays([pa.array(topics, pa.string()), pa.array(ts, pa.int64()),
                                       pa.array(n, pa.int32())], names=["topic", "store_timestamp", "n"])


def read_back(attempt: Path, manifest: pa.RecordBatch) -> dict[str, list[tuple[int, int]]]:
    """Per partition directory, the (store_timestamp, n) rows of its files in file order."""
    got: dict[str, list[tuple[int, int]]] = {}
    for rel, rows in zip(manifest.column("file").to_pylist(), manifest.column("rows").to_pylist(), strict=True):
        table = pq.read_table(attempt / rel)
        assert table.num_rows == rows
        got.setdefault(str(Path(rel).parent), []).extend(zip(*table.to_pydict().values(), strict=True))
    return got


def test_escape_path_name_is_sparks(spark):
    utils = spark.sparkContext._jvm.org.apache.spark.sql.catalyst.catalog.ExternalCatalogUtils
    every = "".join(chr(c) for c in range(1, 0x500))
    assert parts.escape_path_name(every) == utils.escapePathName(every)
    for value in ODD_TOPICS:
        assert parts.escape_path_name(value) == utils.escapePathName(value)
    assert parts.DEFAULT_PARTITION == utils.DEFAULT_PARTITION_NAME()


def test_day_text():
    assert parts.day_text(0) == "1970-01-01"
    assert parts.day_text(-1) == "1969-12-31"
    assert parts.day_text(T0 // DAY) == "2025-09-19"
    assert parts.day_text(10**9) is None


def test_writer_groups_rows_by_topic_and_utc_day_in_their_order(tmp_path):
    midnight = (T0 // DAY + 1) * DAY
    rows = [("OrderEvents", midnight - 1, 0), ("x=y", midnight, 1), ("OrderEvents", midnight, 2),
            ("OrderEvents", midnight - 5, 3), ("", 5, 4), ("x=y", -1, 5), ("OrderEvents", midnight - 2, 6)]
    w = parts.PartWriter(str(tmp_path / "a"), 7, "job", DATA)
    w.write(batch(rows[:4]))
    w.write(batch([]))
    w.write(batch(rows[4:]))
    manifest = w.close()
    assert set(manifest.column("task").to_pylist()) == {7}
    assert set(manifest.column("attempt").to_pylist()) == {"a"}
    assert all(Path(f).name == "part-00007-job.c000.snappy.parquet" for f in manifest.column("file").to_pylist())
    assert read_back(tmp_path / "a", manifest) == {
        "topic=OrderEvents/store_date=2025-09-19": [(midnight - 1, 0), (midnight - 5, 3), (midnight - 2, 6)],
        "topic=OrderEvents/store_date=2025-09-20": [(midnight, 2)],
        "topic=x%3Dy/store_date=2025-09-20": [(midnight, 1)],
        "topic=x%3Dy/store_date=1969-12-31": [(-1, 5)],
        "topic=__HIVE_DEFAULT_PARTITION__/store_date=1970-01-01": [(5, 4)],
    }
    assert manifest.column("bytes").to_pylist() == [
        os.path.getsize(tmp_path / "a" / f) for f in manifest.column("file").to_pylist()]
    # the Spark schema sits in every footer
    f = tmp_path / "a" / manifest.column("file")[0].as_py()
    assert pq.read_metadata(f).metadata[parts.SPARK_SCHEMA_KEY] == b'{"type":"struct","fields":[]}'


def test_a_small_buffer_makes_row_groups(tmp_path):
    rows = [("t", T0 + i, i) for i in range(300)]
    w = parts.PartWriter(str(tmp_path / "a"), 0, "job", DATA, buffer_bytes=600)
    for i in range(0, 300, 30):
        w.write(batch(rows[i:i + 30]))
    manifest = w.close()
    assert manifest.num_rows == 1
    assert pq.read_metadata(tmp_path / "a" / manifest.column("file")[0].as_py()).num_row_groups > 3
    assert read_back(tmp_path / "a", manifest) == {"topic=t/store_date=2025-09-19": [(T0 + i, i) for i in range(300)]}


def test_few_open_files_make_more_files(tmp_path):
    rows = [(f"t{i % 3}", T0 + i, i) for i in range(300)]
    w = parts.PartWriter(str(tmp_path / "a"), 0, "job", DATA, buffer_bytes=600, max_open=1)
    for i in range(0, 300, 30):
        w.write(batch(rows[i:i + 30]))
    manifest = w.close()
    files = manifest.column("file").to_pylist()
    assert len(files) > 3  # a partition's file was closed for another and a new one (c001, ...) begun later
    assert any(".c001." in f for f in files)
    got = read_back(tmp_path / "a", manifest)
    assert got == {f"topic=t{k}/store_date=2025-09-19": [(T0 + i, i) for i in range(k, 300, 3)] for k in range(3)}


def test_abort_writes_nothing_buffered(tmp_path):
    w = parts.PartWriter(str(tmp_path / "a"), 0, "job", DATA)
    w.write(batch([("t", T0, 1)]))
    w.abort()
    assert not (tmp_path / "a").exists()


def _attempt(staging: parts.Staging, task: int, rows: list[tuple[str, int, int]]) -> list[dict]:
    d = staging.attempt_dir(task)
    w = parts.PartWriter(d, task, staging.job, DATA)
    w.write(batch(rows))
    return w.close().to_pylist()


def test_commit_takes_only_the_accepted_attempts_and_replaces_only_when_asked(tmp_path):
    table = tmp_path / "out" / "messages"
    staging = parts.Staging(table, "job1")
    staging.begin(overwrite=False)
    accepted = _attempt(staging, 0, [("a", T0, 1), ("b", T0, 2)]) + _attempt(staging, 1, [("a", T0, 3)])
    _attempt(staging, 1, [("a", T0, 99)])  # a failed / speculative attempt of task 1: not reported
    assert staging.commit(accepted, overwrite=False) == 3
    staging.cleanup()
    assert not staging.root.exists()
    assert sorted(p.name for p in table.iterdir()) == ["_SUCCESS", "topic=a", "topic=b"]
    assert sorted(pq.read_table(table / "topic=a").column("n").to_pylist()) == [1, 3]

    again = parts.Staging(table, "job2")
    with pytest.raises(BadInput, match="exists"):
        again.begin(overwrite=False)
    again.begin(overwrite=True)
    assert table.exists()  # the old table stays until the new one is committed
    again.commit(_attempt(again, 0, [("c", T0, 5)]), overwrite=True)
    again.cleanup()
    assert sorted(p.name for p in table.iterdir()) == ["_SUCCESS", "topic=c"]
    assert [p.name for p in table.parent.iterdir()] == ["messages"]


def test_a_job_that_fails_leaves_the_old_table_and_no_staging(tmp_path):
    table = tmp_path / "messages"
    table.mkdir()
    (table / "keep.parquet").write_bytes(b"old")
    staging = parts.Staging(table, "job")
    staging.begin(overwrite=True)
    _attempt(staging, 0, [("a", T0, 1)])
    staging.cleanup()  # what the export job does when collect() raises
    assert [p.name for p in tmp_path.iterdir()] == ["messages"]
    assert (table / "keep.parquet").read_bytes() == b"old"


def test_two_accepted_attempts_of_one_task_are_refused(tmp_path):
    staging = parts.Staging(tmp_path / "t", "job")
    staging.begin(overwrite=False)
    twice = _attempt(staging, 0, [("a", T0, 1)]) + _attempt(staging, 0, [("a", T0, 1)])
    with pytest.raises(RuntimeError, match="two attempts"):
        staging.commit(twice, overwrite=False)


# --- with Spark: the export table against Spark's own writer ------------------------------------------------------


@pytest.fixture(scope="module")
def odd_topics_store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("odd") / "store"
    with StoreWriter(root) as w:
        for i in range(60):
            w.append(MessageSpec(topic=ODD_TOPICS[i % len(ODD_TOPICS)], queue_id=i % 2, tags="t", keys=[f"k{i}"],
                                 body=b"x" * i, store_timestamp=T0 + i * 3_600_000))
    return root


def _layout(table: Path) -> set[str]:
    return {str(p.parent.relative_to(table)) for p in table.rglob("*.parquet")}


def _rows(spark, table: Path) -> list[dict]:
    rows = export.read_messages(spark, str(table)).collect()
    return sorted((r.asDict(recursive=True) for r in rows), key=lambda d: (d["store"], d["physical_offset"]))


def _created_by(table: Path) -> set[str]:
    return {pq.read_metadata(p).created_by.split(" version")[0] for p in table.rglob("*.parquet")}


def test_export_table_equals_sparks_own(spark, sample_store, multi_store, odd_topics_store, tmp_path):
    stores = [str(sample_store), str(multi_store), str(odd_topics_store)]
    assert export.main([*stores, "--out", str(tmp_path / "tasks")], spark) == 0  # auto: a local path
    assert export.main([*stores, "--out", str(tmp_path / "spark"), "--parquet-writer", "spark"], spark) == 0
    ours, theirs = tmp_path / "tasks" / "messages", tmp_path / "spark" / "messages"
    assert _created_by(ours) == {"parquet-cpp-arrow"} and _created_by(theirs) == {"parquet-mr"}
    assert _layout(ours) == _layout(theirs)
    assert any("topic=x%3Dy" in d for d in _layout(ours))
    assert (ours / "_SUCCESS").exists() and not [p for p in (tmp_path / "tasks").iterdir() if "_temporary" in p.name]
    mine, spark_rows = _rows(spark, ours), _rows(spark, theirs)
    assert len(mine) > 4000 and mine == spark_rows
    footer = next(ours.rglob("*.parquet")), next(theirs.rglob("*.parquet"))
    assert len({pq.read_metadata(f).metadata[parts.SPARK_SCHEMA_KEY] for f in footer}) == 1
    # columns unique per message are written plain, the rest with a dictionary
    group = pq.read_metadata(footer[0]).row_group(0)
    encodings = {group.column(j).path_in_schema: group.column(j).encodings for j in range(group.num_columns)}
    assert not any("DICTIONARY" in e for c in ("msg_id", "position", "keys.list.element") for e in encodings[c])
    assert any("DICTIONARY" in e for e in encodings["store"])
    # files named as Spark names them: part-<task>-<job uuid>.c000.snappy.parquet, one job uuid per table
    names = [re.fullmatch(r"part-(\d{5})-([0-9a-f-]{36})\.c000\.snappy\.parquet", p.name)
             for p in ours.rglob("*.parquet")]
    assert all(names) and len({m[2] for m in names}) == 1
    assert {int(m[1]) for m in names} == set(range(12))  # the 12 segments, one task each


def test_export_overwrite_replaces_the_table(spark, sample_store, odd_topics_store, tmp_path):
    out = tmp_path / "out"
    assert export.main([str(odd_topics_store), "--out", str(out)], spark) == 0
    assert export.main([str(sample_store), "--out", str(out)], spark) == common.EXIT_BAD_INPUT
    assert export.main([str(sample_store), "--out", str(out), "--overwrite"], spark) == 0
    assert {r["store"] for r in _rows(spark, out / "messages")} == {str(sample_store.resolve())}
    assert sorted(p.name for p in out.iterdir()) == ["messages", "segments"]


def test_pyarrow_writer_refuses_a_remote_out(spark, sample_store, capsys):
    rc = export.main([str(sample_store), "--out", "hdfs://nowhere:9000/x", "--parquet-writer", "pyarrow"], spark)
    assert rc == common.EXIT_BAD_INPUT
    assert "--parquet-writer pyarrow needs --out on a local" in capsys.readouterr().err


def test_local_table_resolves_as_sparks_writer_does(spark, tmp_path):
    # a relative path is relative to the JVM's working directory (the command's, in the CLI), as Spark writes it
    jvm_cwd = Path(spark.sparkContext._jvm.java.lang.System.getProperty("user.dir"))
    assert common.local_table(spark, "rel/messages") == jvm_cwd / "rel" / "messages"
    assert common.local_table(spark, f"file://{tmp_path}/x") == tmp_path / "x"
    assert common.local_table(spark, "hdfs://nowhere:9000/x") is None
