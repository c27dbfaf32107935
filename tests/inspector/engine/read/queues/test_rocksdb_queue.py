"""RocksDB consume queue (spec §8): read through rocksdict from a private snapshot, never modifying the store."""

from __future__ import annotations

import os

import pytest
from external_tools import import_or_skip

from inspector.engine import Store
from parsers.java import tags_code
from tests.offsets_support import rocksdb_queue_store

rocksdict = import_or_skip("rocksdict")


def _snapshot(directory):
    return {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in directory.iterdir() if p.is_file()}


@pytest.fixture
def rocks_store(tmp_path, write_commitlog):
    return tmp_path, rocksdb_queue_store(tmp_path, write_commitlog)


def test_queues_and_bounds_come_from_the_offset_column_family(rocks_store):
    root, offsets = rocks_store
    with Store(root) as store:
        assert store.rocksdb_cq is not None
        assert store.queue_ids() == [("TopicTest", 1)]
        info = store.queue("TopicTest", 1).info()
        assert (info.min_offset, info.max_offset) == (0, 5)  # `max` is inclusive: the store adds 1
        assert store.rocksdb_cq.max_dispatched_offset == offsets[-1] + 1


def test_units_and_messages_in_queue_order(rocks_store):
    root, offsets = rocks_store
    with Store(root) as store:
        pairs = list(store.queue_messages("TopicTest", 1, 2))
        assert [u.queue_offset for u, _ in pairs] == [2, 3, 4]
        assert [m.physical_offset for _, m in pairs] == offsets[2:]
        assert all(u.tags_code == tags_code("TagA") for u, _ in pairs)
        assert store.message_by_queue_offset("TopicTest", 1, 3).keys == ["k3"]
        assert store.queue_offset_by_time("TopicTest", 1, 1_700_000_002_500) == 3


def test_opening_never_modifies_the_database_directory(rocks_store):
    root, _ = rocks_store
    before = _snapshot(root / "consumequeue")
    with Store(root) as store:
        list(store.queue_messages("TopicTest", 1))
    assert _snapshot(root / "consumequeue") == before
    assert not (root / "consumequeue" / "rocksdict-config.json").exists()
    assert not any(name.startswith("LOG.old") for name in os.listdir(root / "consumequeue"))


def test_a_separate_consumequeue_rocksdb_folder_is_read_the_same_way(rocks_store):
    """Spec part 2 §19 names consumequeue_rocksdb/ (no tagged release writes it: 5.2.0 to develop open the
    database at consumequeue/ itself); when it is there it is read like consumequeue/ and census counts it."""
    from inspector.engine import census, verify

    root, offsets = rocks_store
    (root / "consumequeue").rename(root / "consumequeue_rocksdb")
    before = _snapshot(root / "consumequeue_rocksdb")
    with Store(root) as store:
        assert store.queue_ids() == [("TopicTest", 1)]
        units = [u for u, _ in store.queue_messages("TopicTest", 1)]
        assert [u.physical_offset for u in units] == offsets and units[0].file == "consumequeue_rocksdb (RocksDB)"
        assert not [p for p in verify(store).problems if p.severity == "error"]
    assert _snapshot(root / "consumequeue_rocksdb") == before
    kind = census(root).kind("consumequeue_rocksdb")
    assert kind is not None and kind.files >= 3 and not census(root).problems


def test_an_unreadable_rocksdb_consume_queue_is_one_line_exit_3(rocks_store):
    import subprocess
    import sys
    from pathlib import Path

    root, _ = rocks_store
    (root / "consumequeue" / "CURRENT").write_text("MANIFEST-424242\n")
    before = _snapshot(root / "consumequeue")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[5])}
    run = subprocess.run([sys.executable, "-m", "inspector.cli.main", "info", str(root)], capture_output=True,
                         text=True, env=env, timeout=120)
    assert run.returncode == 3 and "Traceback" not in run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("rmq-inspect: consumequeue: cannot open the RocksDB consume queue: ")
    assert "consumequeue/MANIFEST-424242" in line and "rmq-inspect-rocksdb" not in line
    assert _snapshot(root / "consumequeue") == before
