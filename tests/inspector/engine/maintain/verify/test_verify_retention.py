"""Retention is normal: a store our writer makes, aged as the broker's cleanup leaves it (tests/aged_store.py,
each rule cited there), verifies with no error; its expired units and items are counted, each queue's and index
file's in one info finding; a segment missing in the middle, and units into it, stay errors."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from inspector.engine import Store
from inspector.engine.maintain.verify.verify import verify
from inspector.engine.model.errors import NotFound
from tests.aged_store import Written, age_store, write_store


def _expired_units(written: list[Written], first: int, deleted_cq: list[str]) -> Counter[str]:
    """Per queue (topic/qid): units below ``first`` in the files the cleanup kept (40 units a file)."""
    dropped = Counter("/".join(f.split("/")[1:3]) for f in deleted_cq)
    return Counter(f"{w.topic}/{w.queue_id}" for w in written
                   if w.physical_offset < first and w.queue_offset >= dropped[f"{w.topic}/{w.queue_id}"] * 40)


def _infos(report, code: str) -> dict[str, int]:
    """file -> the count an info finding names (its reason starts with it)."""
    return {p.file: int(p.reason.split()[0]) for p in report.problems if p.code == code and p.severity == "info"}


@pytest.mark.parametrize("cleanup", [True, False], ids=["cleaned", "segments-only"])
def test_an_aged_store_verifies_clean_with_its_expired_counts(tmp_path: Path, cleanup: bool) -> None:
    written = write_store(tmp_path / "s")
    aged = age_store(tmp_path / "s", 2, cleanup=cleanup)
    assert aged.first_offset == 2 * 64 * 1024
    assert bool(aged.deleted_cq) == cleanup and bool(aged.deleted_index) == cleanup  # the model did clean
    with Store(tmp_path / "s") as store:
        report = verify(store)
    assert report.errors == [] and {p.severity for p in report.problems} == {"info"}
    units = _infos(report, "cq-expired")
    want = _expired_units(written, aged.first_offset, aged.deleted_cq)
    assert Counter({"/".join(f.split("/")[1:3]): n for f, n in units.items()}) == want
    below = sum(w.physical_offset < aged.first_offset for w in written)
    items = _infos(report, "index-expired")
    # two items a record (unique key and key); cleaned: only the file straddling the first offset is left
    if cleanup:
        assert len(items) == 1 and sum(items.values()) == 2 * below - 2 * 399
    else:
        assert sum(items.values()) == 2 * below
    reason = next(p.reason for p in report.problems if p.code == "cq-expired")
    assert f"below the log's first offset {aged.first_offset}" in reason and "correctMinOffset" in reason


def test_a_segment_missing_in_the_middle_is_an_error_and_so_are_units_into_it(tmp_path: Path) -> None:
    written = write_store(tmp_path / "s")
    segs = sorted((tmp_path / "s" / "commitlog").iterdir())
    hole = segs[3]
    start, end = int(hole.name), int(segs[4].name)
    hole.unlink()  # retention never does this: deleteExpiredFileByTime deletes from the oldest
    with Store(tmp_path / "s") as store:
        report = verify(store)
    assert not [p for p in report.problems if p.severity == "info"]  # nothing is expired
    dangling = [p for p in report.errors if p.code == "cq-dangling"]
    assert len(dangling) == sum(start <= w.physical_offset < end for w in written)
    assert all("in no commitlog segment" in p.reason for p in dangling)
    assert [p for p in report.errors if p.file.startswith("index/")]  # items into the hole too


def test_lookups_tell_expired_from_absent(tmp_path: Path) -> None:
    written = write_store(tmp_path / "s")
    aged = age_store(tmp_path / "s", 2)
    gone = next(w for w in written if w.physical_offset < aged.first_offset)
    with Store(tmp_path / "s") as store:
        kept = store.message_at(aged.first_offset)
        with pytest.raises(NotFound, match=f"expired: physical offset {gone.physical_offset} is below the log's "
                                           f"first offset {aged.first_offset}"):
            store.find(str(gone.physical_offset))
        with pytest.raises(NotFound, match="in no commitlog segment"):
            store.find(str(10**9))
        gone_id = kept.msg_id[:16] + f"{gone.physical_offset:016X}"  # the same broker's offset msgId
        with pytest.raises(NotFound, match=f"message id {gone_id}: expired"):
            store.find(gone_id)
        absent_id = kept.msg_id[:16] + f"{10**9:016X}"
        with pytest.raises(NotFound, match="no message with id"):
            store.find(absent_id)


def test_a_consumer_offset_below_the_queue_min_is_corrected_by_the_broker(tmp_path: Path) -> None:
    written = write_store(tmp_path / "s")
    aged = age_store(tmp_path / "s", 2)
    (tmp_path / "s" / "config").mkdir(exist_ok=True)
    (tmp_path / "s" / "config" / "consumerOffset.json").write_text(
        '{"offsetTable": {"T0@g": {"0": 5, "1": 200}}}')
    # the effective min (ConsumeQueue.correctMinOffset): the first unit whose record is still in the log
    want_min = min(w.queue_offset for w in written
                   if (w.topic, w.queue_id) == ("T0", 0) and w.physical_offset >= aged.first_offset)
    with Store(tmp_path / "s") as store:
        report = verify(store)
        rows = {r["queue_id"]: r for r in store.consumer_lag()}
    assert report.errors == []
    said = [p for p in report.problems if p.code == "consumer-offset-expired"]
    assert len(said) == 1 and said[0].severity == "info"
    assert f"offset 5 is below the queue's min offset {want_min}" in said[0].reason
    assert "will be corrected by the broker" in said[0].reason
    assert rows[0]["lag"] == 250 - want_min and rows[1]["lag"] == 250 - 200  # 250 units a queue


def test_batch_queue_units_below_the_first_offset_are_expired(tmp_path: Path) -> None:
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter
    from tests.aged_store import GEOMETRY

    root = tmp_path / "s"
    offsets = []
    with StoreWriter(root, GEOMETRY, topic_attributes={"B": {"queue.type": "BatchCQ"}}) as w:
        for i in range(600):
            offsets.append(w.append(MessageSpec("B", b"b" * 200, keys=[f"k{i}"],
                                                store_timestamp=1_758_272_400_000 + i)).physical_offset)
    aged = age_store(root, 1, cleanup=False)
    with Store(root) as store:
        report = verify(store)
    assert report.errors == []
    said = [p for p in report.problems if p.code == "bcq-expired"]
    assert len(said) == 1 and said[0].severity == "info"
    assert int(said[0].reason.split()[0]) == sum(o < aged.first_offset for o in offsets) > 0


def test_a_queue_offset_below_the_effective_min_is_expired(tmp_path: Path) -> None:
    write_store(tmp_path / "s")
    age_store(tmp_path / "s", 2)
    with Store(tmp_path / "s") as store:
        low = store.queue("T0", 0).info().min_offset
        assert low > 80  # the two deleted files held 0..79; the kept one's first units point below too
        assert store.message_by_queue_offset("T0", 0, low).queue_offset == low
        with pytest.raises(NotFound, match=f"queue offset 5: expired: below the queue's min offset {low}"):
            store.message_by_queue_offset("T0", 0, 5)
        with pytest.raises(NotFound, match="is outside"):
            store.message_by_queue_offset("T0", 0, 10_000)
