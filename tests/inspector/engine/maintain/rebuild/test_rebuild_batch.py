"""Rebuild of a store with a BatchCQ topic: batchconsumequeue/ byte-identical to what the writer (as a 5.x broker)
wrote, no consumequeue/ for the batch topic (spec §4.3, §7.2)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from inspector.engine.maintain.rebuild.rebuild import rebuild, rebuild_in_place
from inspector.engine.maintain.verify.verify import verify
from inspector.engine.read.store.store import Store

sys.path.insert(0, str(Path(__file__).parents[4]))
from batch_store import BATCH_TOPIC, write_batch_store  # noqa: E402


def _files(root: Path, sub: str) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / sub).rglob("*")) if p.is_file()}


def test_rebuild_writes_batch_queues_byte_identical(tmp_path) -> None:
    root = tmp_path / "s"
    write_batch_store(root)
    with Store(root) as store:
        result = rebuild(store, tmp_path / "out")
    out = tmp_path / "out"
    assert _files(out, "batchconsumequeue") == _files(root, "batchconsumequeue")
    assert _files(out, "consumequeue") == _files(root, "consumequeue")
    assert not (out / "consumequeue" / BATCH_TOPIC).exists()
    assert result.cq_units == 5 and f"batchconsumequeue/{BATCH_TOPIC}/0/00000000000000000000" in result.cq_files


def test_topics_json_alone_makes_a_topic_batch(tmp_path) -> None:
    """The batch queue deleted: topics.json's queue.type=BatchCQ still sends the topic to batchconsumequeue/."""
    root = tmp_path / "s"
    write_batch_store(root)
    expected = _files(root, "batchconsumequeue")
    shutil.rmtree(root / "batchconsumequeue")
    with Store(root) as store:
        assert store.batch_topics() == {BATCH_TOPIC}
        rebuild(store, tmp_path / "out")
    assert _files(tmp_path / "out", "batchconsumequeue") == expected


def test_an_existing_batch_queue_alone_makes_a_topic_batch(tmp_path) -> None:
    root = tmp_path / "s"
    write_batch_store(root)
    topics = root / "config" / "topics.json"
    doc = json.loads(topics.read_text())
    doc["topicConfigTable"][BATCH_TOPIC]["attributes"] = {}
    topics.write_text(json.dumps(doc))
    with Store(root) as store:
        assert store.batch_topics() == {BATCH_TOPIC}
        rebuild(store, tmp_path / "out")
    assert _files(tmp_path / "out", "batchconsumequeue") == _files(root, "batchconsumequeue")


def test_in_place_rebuild_restores_a_damaged_batch_queue(tmp_path) -> None:
    root = tmp_path / "s"
    write_batch_store(root)
    expected = _files(root, "batchconsumequeue")
    bcq = root / "batchconsumequeue" / BATCH_TOPIC / "0" / "00000000000000000000"
    with open(bcq, "r+b") as f:
        f.seek(46 + 36)
        f.write(b"\0\0")
    with Store(root) as store:
        assert verify(store).errors
        rebuild_in_place(store)
    assert _files(root, "batchconsumequeue") == expected
    with Store(root) as store:
        assert verify(store).problems == ()


def test_rebuild_keeps_the_batch_queue_file_size_of_the_store(tmp_path) -> None:
    """A broker with a small batch consume-queue file size (368 bytes: 8 units): the rebuilt file is the store's
    size, not the default 13,800,000 bytes (inferred from the files, as the plain queue's size is)."""
    root = tmp_path / "s"
    write_batch_store(root)
    expected = _files(root, "batchconsumequeue")
    rel = f"batchconsumequeue/{BATCH_TOPIC}/0/00000000000000000000"
    os.truncate(root / rel, 368)  # its 5 units (230 bytes) fit in 368
    expected[rel] = expected[rel][:368]
    with Store(root) as store:
        rebuild(store, tmp_path / "out")
    assert (tmp_path / "out" / rel).stat().st_size == 368
    assert _files(tmp_path / "out", "batchconsumequeue") == expected
