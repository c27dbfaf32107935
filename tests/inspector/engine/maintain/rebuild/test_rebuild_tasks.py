"""rebuild's queues as tasks (maintain/rebuild/tasks.py): each record dispatched on its own, then each queue
written from its units in commitlog order, give the bytes the single-process rebuild writes."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from inspector.engine import Message, QueueWrite, Store, dispatch_record, rebuild
from inspector.engine.model.errors import BadInput
from inspector.engine.model.systopics import SCHEDULE_TOPIC
from inspector.engine.read.store.answers import recover

REPO = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(REPO / "tests"))
from batch_store import write_batch_store  # noqa: E402


def _files(root: Path, sub: str) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / sub).rglob("*")) if p.is_file()}


def _write_by_tasks(root: Path, out: Path) -> list:
    """Dispatch record by record, then write queue by queue (in the order a sort by queue gives)."""
    with Store(root) as store:
        geometry = store.geometry()
        end = recover(store).end_offset
        units, notes = [], []
        for m in store.entries():
            if isinstance(m, Message) and m.physical_offset < end:
                u, n = dispatch_record(m, geometry)
                units += u
                notes += n
        batch = store.batch_topics()
        by_queue: dict[tuple[str, int], list] = {}
        for u in units:
            by_queue.setdefault((u.topic, u.queue_id), []).append(u)
        for (topic, queue_id), mine in sorted(by_queue.items()):
            writer = QueueWrite(out, topic, queue_id, geometry, store if topic in batch else None)
            for u in sorted(mine, key=lambda u: u.read_offset):
                writer.put(u)
            writer.close()
    return notes


@pytest.mark.parametrize("which", ["sample", "batch"])
def test_queues_written_by_tasks_equal_rebuild(which: str, tmp_path: Path) -> None:
    root = REPO / "sample_store"
    if which == "batch":
        root = tmp_path / "s"
        write_batch_store(root)
    with Store(root) as store:
        rebuild(store, tmp_path / "whole")
    assert _write_by_tasks(root, tmp_path / "tasks") == []
    for sub in ("consumequeue", "batchconsumequeue"):
        assert _files(tmp_path / "tasks", sub) == _files(tmp_path / "whole", sub)
    assert _files(tmp_path / "tasks", "consumequeue")


def test_a_record_rebuild_cannot_dispatch_is_a_note() -> None:
    with Store(REPO / "sample_store") as store:
        msg = store.message_at(0)
        geometry = store.geometry()
    # a delayed record whose DELAY Integer.parseInt rejects: the broker drops it as unreadable
    bad = replace(msg, topic=SCHEDULE_TOPIC, properties_entries=(*msg.properties.items(), ("DELAY", "soon")))
    units, notes = dispatch_record(bad, geometry)
    assert units == [] and [(n.code, n.offset) for n in notes] == [("undispatchable", msg.position)]


def test_a_topic_that_is_no_path_component_is_refused(tmp_path: Path) -> None:
    with Store(REPO / "sample_store") as store, pytest.raises(BadInput):
        QueueWrite(tmp_path, "../escape", 0, store.geometry())
    assert not (tmp_path / "escape").exists()
