"""The census of a store root: every §20 kind counted with its sizes, strays listed by strays.py's rules, and
what the broker would not start with (an empty or odd-sized commitlog file) an error."""

from __future__ import annotations

import shutil
from pathlib import Path

from inspector.engine.read.store.census import census, census_summary, census_view
from inspector.engine.read.store.strays import unknown_entries

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store"
SEG = "0" * 20


def kinds(root: Path) -> dict[str, tuple[int, int]]:
    return {k.kind: (k.files, k.folders) for k in census(root).kinds}


def test_sample_store_every_kind_right() -> None:
    c = census(SAMPLE)
    by_kind = {k.kind: k for k in c.kinds}
    assert list(by_kind) == ["commitlog", "consumequeue", "index", "checkpoint", "lock", "config", "unknown"]
    assert (by_kind["commitlog"].files, by_kind["commitlog"].apparent_bytes) == (3, 3 * 65536)
    queue_dirs = [q for t in (SAMPLE / "consumequeue").iterdir() for q in t.iterdir()]
    cq_files = [f for q in queue_dirs for f in q.iterdir()]
    assert by_kind["consumequeue"].files == len(cq_files)
    assert by_kind["consumequeue"].folders == 1 + len(list((SAMPLE / "consumequeue").iterdir())) + len(queue_dirs)
    assert by_kind["consumequeue"].apparent_bytes == sum(f.stat().st_size for f in cq_files)
    assert by_kind["index"].files == 3 and by_kind["checkpoint"].apparent_bytes == 4096
    assert by_kind["config"].files == len(list((SAMPLE / "config").iterdir()))
    assert [(p.file, p.code, p.severity) for p in c.problems] == [("README.md", "unknown-file", "warning")]
    assert c.errors == [] and c.unlisted == 0
    assert c.total.files == sum(1 for p in SAMPLE.rglob("*") if p.is_file())
    assert c.total.folders == sum(1 for p in SAMPLE.rglob("*") if p.is_dir())


def _every_kind(root: Path) -> None:
    """One entry of every kind of STORE_FORMAT_PART2.md §20 (empty files and folders: the census reads names)."""
    for folder in ("consumequeue/T/0", "consumequeue_ext/T/0", "batchconsumequeue/T/0", "consumequeue_rocksdb",
                   "index", "config/topics", "config/subscriptionGroups", "config/consumerOffsets", "config/rdb",
                   "timerlog", "dledger-n0/data", "compaction/compactionLog/T/0", "tiered_index_file",
                   "RocksDBMessageStore", "kvStore", "transaction", ".rmq-inspect-backup-1"):
        (root / folder).mkdir(parents=True)
    (root / "commitlog").mkdir()
    (root / "commitlog" / SEG).write_bytes(b"x" * 64)
    for f in ("consumequeue/T/0/" + SEG, "consumequeue_ext/T/0/" + SEG, "batchconsumequeue/T/0/" + SEG,
              "index/20250919090000196", "checkpoint", "abort", "abort.bak", "lock", "config/topics.json",
              "config/topics.json.bak", "config/timercheck", "config/timermetrics", "config/transactionMetrics",
              "config/rdb/CURRENT", "timerlog/" + SEG, "timerwheel", "dledger-n0/data/" + SEG,
              "compaction/position-checkpoint", "tiered_index_file/1700000000000", "epochFileCheckpoint",
              "epochFileCheckpoint.bak", "brokerIdentity", "brokerIdentity-temp", "transaction/statetable",
              "transaction/redolog", ".rmq-inspect-journal"):
        # a queue file of one unit: an empty one is a file the broker's load refuses (model/verdicts.py)
        (root / f).write_bytes(bytes(46) if f.startswith("batchconsumequeue/") else
                               bytes(20) if f.startswith("consumequeue/") else b"")


def test_every_kind_of_part2_section_20(tmp_path: Path) -> None:
    _every_kind(tmp_path)
    c = census(tmp_path)
    assert c.problems == ()
    found = kinds(tmp_path)
    assert found == {
        "commitlog": (1, 1), "consumequeue": (1, 3), "consumequeue_ext": (1, 3), "batchconsumequeue": (1, 3),
        "consumequeue_rocksdb": (0, 1), "index": (1, 1), "checkpoint": (1, 0), "abort": (2, 0), "lock": (1, 0),
        "config": (5, 1), "timerlog": (1, 1), "timerwheel": (1, 0), "compaction": (1, 4),
        "tiered_index_file": (1, 1), "RocksDBMessageStore": (0, 1), "kvStore": (0, 1),
        "epochFileCheckpoint": (2, 0), "brokerIdentity": (2, 0), "transaction": (2, 1),
        "config-rocksdb": (1, 4), "dledger": (1, 2), "rmq-inspect": (1, 1)}
    assert census_summary(c).endswith("nothing unknown")


def test_rocksdb_consumequeue_is_counted_whole(tmp_path: Path) -> None:
    (tmp_path / "consumequeue").mkdir()
    for name in ("CURRENT", "MANIFEST-000005", "000012.sst", "OPTIONS-000007", "LOG"):
        (tmp_path / "consumequeue" / name).write_bytes(b"r" * 10)
    c = census(tmp_path)
    assert c.problems == () and [(k.kind, k.files, k.apparent_bytes) for k in c.kinds] == [("consumequeue", 5, 50)]
    assert "RocksDB" in c.kinds[0].what


def test_strays_follow_the_rules_of_strays_py(tmp_path: Path) -> None:
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    (root / "README.md").unlink()
    (root / "commitlog" / ("9" * 20)).write_bytes(b"x" * 65536)
    (root / "commitlog" / "abc").write_bytes(b"x" * 65536)
    (root / "index" / "notatime").write_bytes(b"x")
    (root / "consumequeue" / "OrderEvents" / "abc").mkdir()
    (root / "consumequeue" / "OrderEvents" / "3" / "junk").write_bytes(b"x")
    (root / "consumequeue" / "stray.txt").write_bytes(b"x")
    found = {(p.file, p.code, p.severity) for p in census(root).problems}
    assert found == {(p.file, p.code, p.severity) for p in unknown_entries(root)}  # one place says what a stray is


def test_misplaced_and_unknown_entries(tmp_path: Path) -> None:
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    (root / "README.md").unlink()
    (root / "notes.txt").write_bytes(b"hello")
    (root / "backup").mkdir()
    (root / "backup" / "old").write_bytes(b"x" * 10)
    (root / "config" / "topics.json.tmp").write_bytes(b"{}")
    (root / "config" / "junk").mkdir()
    (root / "checkpoint").unlink()
    (root / "checkpoint").mkdir()  # a folder where a file belongs
    (root / "index" / "20250101000000000").mkdir()
    c = census(root)
    found = {(p.file, p.code, p.severity) for p in c.problems}
    assert found == {("backup", "unknown-file", "warning"), ("notes.txt", "unknown-file", "warning"),
                     ("checkpoint", "wrong-type", "warning"), ("config/junk", "unknown-file", "warning"),
                     ("config/topics.json.tmp", "config-tmp", "warning"),
                     ("index/20250101000000000", "wrong-type", "warning")}
    unknown = c.kind("unknown")
    assert (unknown.files, unknown.folders, unknown.apparent_bytes) == (3, 4, 5 + 10 + 2)
    assert c.errors == [] and c.kind("checkpoint") is None


def test_an_empty_stray_in_commitlog_is_an_error(tmp_path: Path) -> None:
    """apache/rocketmq#3257: an empty file in commitlog/ (whatever its name) and the broker does not start."""
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    (root / "commitlog" / ("0" * 19 + "1")).write_bytes(b"")
    (root / "commitlog" / ".DS_Store").write_bytes(b"")
    c = census(root)
    errors = {(p.file, p.code) for p in c.errors}
    assert errors == {("commitlog/" + "0" * 19 + "1", "empty-segment"), ("commitlog/.DS_Store", "empty-segment")}
    assert all("3257" in p.reason for p in c.errors)
    assert c.kind("commitlog").files == 3
    assert "2 the broker would not start with" in census_summary(c)
    assert census_view(c)["errors"] == 2


def test_a_segment_of_another_size_is_an_error(tmp_path: Path) -> None:
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    last = sorted((root / "commitlog").iterdir())[-1]
    with last.open("r+b") as f:
        f.truncate(4096)
    c = census(root)
    assert [(p.file, p.code, p.severity) for p in c.errors] == [(f"commitlog/{last.name}", "segment-size", "error")]
    assert "4096 bytes where the other segments have 65536" in c.errors[0].reason


def test_sparse_files_have_a_smaller_allocated_size(tmp_path: Path) -> None:
    (tmp_path / "consumequeue" / "T" / "0").mkdir(parents=True)
    with (tmp_path / "consumequeue" / "T" / "0" / SEG).open("wb") as f:
        f.truncate(6_000_000)
    (k,) = census(tmp_path).kinds
    assert k.apparent_bytes == 6_000_000 and k.allocated_bytes < 6_000_000


def test_sixteen_thousand_queue_folders(tmp_path: Path) -> None:
    """2,000 topics x 8 queues (correctness here; the time is benchmarks/run.py's row)."""
    cq = tmp_path / "consumequeue"
    for t in range(2000):
        for q in range(8):
            folder = cq / f"Topic{t}" / str(q)
            folder.mkdir(parents=True)
            (folder / SEG).write_bytes(bytes(20))  # one unit (an empty file: the load refuses it)
    (cq / "Topic7" / "x").mkdir()
    c = census(tmp_path)
    k = c.kind("consumequeue")
    assert (k.files, k.folders) == (16_000, 1 + 2000 + 16_000)
    assert [(p.file, p.code) for p in c.problems] == [("consumequeue/Topic7/x", "unknown-file")]


def test_a_million_strays_are_counted_past_the_first_10000(tmp_path: Path) -> None:
    for i in range(10_050):
        (tmp_path / f"junk{i}").write_bytes(b"")
    c = census(tmp_path)
    assert len(c.problems) == 10_000 and c.unlisted == 50
    assert c.kind("unknown").files == 10_050
    assert "10,050 unknown or misplaced" in census_summary(c)


def test_a_store_the_writer_makes_is_all_known(tmp_path: Path) -> None:
    """The broker's geometry: a preallocated 1 GiB segment, 6,000,000-byte queue files, a 420 MB index file, all
    sparse: apparent sizes are the broker's, allocated ones what was written."""
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter

    root = tmp_path / "store"
    with StoreWriter(root) as w:
        for i in range(40):
            w.append(MessageSpec(topic=f"T{i % 5}", queue_id=i % 4, body=b"x" * 100, keys=(f"k{i}",),
                                 store_timestamp=1_700_000_000_000))
    c = census(root)
    assert c.problems == () and [k.kind for k in c.kinds] == ["commitlog", "consumequeue", "index", "checkpoint",
                                                              "lock", "config"]
    log, queues = c.kind("commitlog"), c.kind("consumequeue")
    assert (log.files, log.apparent_bytes) == (1, 1 << 30) and (queues.files, queues.apparent_bytes) == (20, 20 * 6_000_000)
    assert log.allocated_bytes < 1 << 20 and queues.allocated_bytes < 1 << 20


def test_a_stray_of_another_size_in_commitlog_is_an_error_one_of_the_segment_size_a_warning(tmp_path: Path) -> None:
    """The broker's load refuses any file of another length than the segments (checked against RocketMQ's
    MappedFileQueue.doLoad); a stray name alone is strays.py's warning."""
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    (root / "commitlog" / "notes.txt").write_bytes(b"hello")
    shutil.copyfile(root / "commitlog" / SEG, root / "commitlog" / "copy-of-first")
    (root / "commitlog" / "sub").mkdir()
    c = census(root)
    assert {(p.file, p.code, p.severity) for p in c.problems if p.file.startswith("commitlog/")} == {
        ("commitlog/notes.txt", "segment-size", "error"), ("commitlog/copy-of-first", "unknown-file", "warning"),
        ("commitlog/sub", "not-a-segment-file", "error")}  # verify's code for it (one fact, one verdict)
    assert c.kind("commitlog").files == 3


def test_data_files_at_the_root_are_misplaced(tmp_path: Path) -> None:
    (tmp_path / "commitlog").mkdir()
    (tmp_path / SEG).write_bytes(b"x")
    (tmp_path / "20250919090000196").write_bytes(b"x")
    assert {(p.file, p.code, p.severity) for p in census(tmp_path).problems} == {
        (SEG, "misplaced", "warning"), ("20250919090000196", "misplaced", "warning")}
