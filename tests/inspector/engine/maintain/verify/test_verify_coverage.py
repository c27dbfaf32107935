"""verify's record-side queue check (maintain/verify/coverage.py): records the broker dispatches whose queue is
gone or ends before them, on copies of sample_store; the same findings from the fast walk, the one-by-one walk
and without the compiled kernels."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest

from inspector.engine import Message, Store
from inspector.engine.maintain.verify.verify import verify
from inspector.engine.scan.kernels import python_only

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    return root


def _records(root: Path, topic: str, qid: int) -> list[Message]:
    with Store(root) as store:
        return [m for m in store.entries() if isinstance(m, Message) and (m.topic, m.queue_id) == (topic, qid)]


def _coverage(root: Path, **kw) -> list[tuple]:
    with Store(root) as store:
        report = verify(store, **kw)
    return [(p.file, p.offset, p.code, p.severity, p.reason) for p in report.problems
            if p.code in ("cq-missing", "cq-behind")]


def test_a_deleted_queue_folder_is_an_error_at_its_first_record(tmp_path) -> None:
    root = _copy(tmp_path)
    shutil.rmtree(root / "consumequeue" / "OrderEvents" / "3")
    first = _records(root, "OrderEvents", 3)[0]
    ((file, offset, code, severity, reason),) = _coverage(root)
    assert (file, offset, code, severity) == (first.file, first.position, "cq-missing", "error")
    assert "50 record(s) of OrderEvents queue 3 (queue offsets 0..49)" in reason


def test_a_topic_the_config_no_longer_lists_is_a_warning(tmp_path) -> None:
    """mqadmin deleteTopic removes the topic's config and its consume queues, not its records."""
    root = _copy(tmp_path)
    shutil.rmtree(root / "consumequeue" / "PaymentEvents")
    topics = root / "config" / "topics.json"
    config = json.loads(topics.read_text())
    del config["topicConfigTable"]["PaymentEvents"]
    topics.write_text(json.dumps(config))
    found = _coverage(root)
    assert found and {(c, s) for _, _, c, s, _ in found} == {("cq-missing", "warning")}
    assert all("topics.json does not list the topic" in r for *_, r in found)


@pytest.mark.parametrize("flushed", [True, False])
def test_records_past_the_queue_end(tmp_path, flushed) -> None:
    """The last 6 units of a queue zeroed: its records 44..49 are past its end, an error when the checkpoint
    says the broker flushed its queues past them, a warning (not dispatched yet) when it does not."""
    root = _copy(tmp_path)
    last_file = root / "consumequeue" / "OrderEvents" / "3" / f"{800:020d}"
    raw = bytearray(last_file.read_bytes())
    raw[4 * 20 : 10 * 20] = bytes(6 * 20)
    last_file.write_bytes(bytes(raw))
    records = _records(root, "OrderEvents", 3)
    assert [m.queue_offset for m in records][-6:] == list(range(44, 50))
    if not flushed:  # logicsMsgTimestamp: before the first of those records
        cp = root / "checkpoint"
        data = bytearray(cp.read_bytes())
        struct.pack_into(">q", data, 8, records[-6].store_timestamp - 1)
        cp.write_bytes(bytes(data))
    found = [f for f in _coverage(root) if f[2] == "cq-behind"]
    ((file, offset, _, severity, reason),) = found
    assert (file, offset) == (records[-6].file, records[-6].position)
    assert severity == ("error" if flushed else "warning")
    assert "6 record(s) of OrderEvents queue 3 (queue offsets 44..49) are at or past the queue's end (44)" in reason


def test_a_bare_commitlog_gets_one_warning(tmp_path) -> None:
    root = _copy(tmp_path)
    shutil.rmtree(root / "consumequeue")
    ((_, _, code, severity, reason),) = _coverage(root)
    assert (code, severity) == ("cq-missing", "warning")
    assert reason.startswith("no consume queue in this store: the units of ")


def test_valid_stores_have_nothing_to_say() -> None:
    for name in ("sample_store", "sample_store_dledger"):
        assert _coverage(SAMPLE.parent / name) == []


def test_the_same_findings_on_every_path(tmp_path) -> None:
    """The fast walk (tables and the careful step's records), the one-by-one walk, and no compiled kernels."""
    root = _copy(tmp_path)
    shutil.rmtree(root / "consumequeue" / "OrderEvents" / "3")
    shutil.rmtree(root / "consumequeue" / "InventoryEvents")
    fast = _coverage(root)
    assert len(fast) == 1 + len({q for t, q in _queues(SAMPLE) if t == "InventoryEvents"})
    assert _coverage(root, fast=False) == fast
    with python_only():
        assert _coverage(root) == fast


def _queues(root: Path) -> list[tuple[str, int]]:
    with Store(root) as store:
        return store.queue_ids()
