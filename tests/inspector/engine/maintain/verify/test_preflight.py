"""``preflight``: what the next broker start does, on stores our writer makes and then damages as a crash, an
operator or retention would. Each expectation comes from how the store was made (the writer's record list, the
bytes we changed), and each names the broker rule (rocketmq-all-4.9.8 / 5.3.1) it checks."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from inspector.engine import Geometry, Store, preflight
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from tests.aged_store import Written, age_store, write_store
from tests.store_digest import tree_digest

BASE_MS = 1_758_272_400_000
# index files of exactly 400 items (IndexFile.putKey: indexCount starts at 1, < indexNum = 401): 200 records each,
# two keys a record (its unique key and k<i>), so a record's keys never straddle two files
SPACED = Geometry(segment_size=64 * 1024, cq_file_size=40 * 20, index_slots=100, index_items=401)


def _plan(root: Path, **geometry):
    before = tree_digest(root)
    with Store(root, **geometry) as store:
        plan = preflight(store)
    assert tree_digest(root) == before  # read-only: nothing written, nothing deleted
    return plan


def _segment_of(root: Path, phy: int) -> tuple[Path, int]:
    seg = [p for p in sorted((root / "commitlog").iterdir()) if int(p.name) <= phy][-1]
    return seg, phy - int(seg.name)


def _patch(path: Path, at: int, data: bytes) -> None:
    with open(path, "r+b") as f:
        f.seek(at)
        f.write(data)


def _spaced_store(root: Path, messages: int = 1500) -> list[Written]:
    """A second apart, so the checkpoint's time bound falls between segments (CommitLog.isMappedFileMatchedRecover)."""
    out, seen = [], {}
    with StoreWriter(root, SPACED) as w:
        for i in range(messages):
            topic, qid = f"T{i % 3}", i % 2
            got = w.append(MessageSpec(topic=topic, queue_id=qid, body=b"m" * 100, keys=[f"k{i}"],
                                       store_timestamp=BASE_MS + i * 1000))
            q = seen.get((topic, qid), 0)
            seen[(topic, qid)] = q + 1
            out.append(Written(topic, qid, q, got.physical_offset))
    return out


def test_a_clean_store_starts_normally_and_loses_nothing(tmp_path: Path) -> None:
    written = write_store(tmp_path)
    plan = _plan(tmp_path)
    # no abort file: DefaultMessageStore.load's lastExitOK; recoverNormally from the third-last segment
    assert plan.mode == "normal" and not plan.refusals and not plan.loses_data and plan.exit_code == 0
    segs = sorted((tmp_path / "commitlog").iterdir())
    assert plan.recovery.start_segment == f"commitlog/{segs[-3].name}"
    last = written[-1].physical_offset
    assert plan.recovery.last_record_offset == last
    assert plan.discarded.count == 0 and plan.queue_cuts == [] and plan.index_cuts == []


def test_an_abnormal_start_cuts_the_records_after_a_bad_crc(tmp_path: Path) -> None:
    """A body byte of record 1497 flipped, abort present: recoverAbnormally (checkCRCOnRecover) ends the log at
    that record; records 1497..1499 are cut (truncateDirtyFiles), their queue units too (truncateDirtyLogicFiles),
    and their index items are not rebuilt."""
    written = write_store(tmp_path)
    seg, pos = _segment_of(tmp_path, written[1497].physical_offset)
    raw = seg.read_bytes()[pos + 120]  # inside the 100-byte body
    _patch(seg, pos + 120, bytes([raw ^ 0xFF]))
    (tmp_path / "abort").write_bytes(b"")
    plan = _plan(tmp_path)
    assert plan.mode == "abnormal" and plan.loses_data and plan.exit_code == 4 and not plan.refusals
    assert plan.recovery.end_offset == written[1497].physical_offset
    d = plan.discarded
    assert (d.count, d.first_offset, d.last_offset) == (3, written[1497].physical_offset, written[1499].physical_offset)
    assert dict(d.topics) == {"T0": 1, "T1": 1, "T2": 1}
    assert {"T0#k1497", "T1#k1498", "T2#k1499"} <= set(d.keys) and d.keys_total == 6
    assert plan.deleted_segments == []  # the end is inside the last segment: truncateDirtyFiles deletes none
    cut = {(c.file, c.action, c.units, c.first_queue_offset) for c in plan.queue_cuts}
    assert cut == {(f"consumequeue/{w.topic}/{w.queue_id}/{w.queue_offset // 40 * 800:020d}", "truncated", 1,
                    w.queue_offset) for w in written[1497:]}


def test_segments_past_the_end_are_deleted(tmp_path: Path) -> None:
    """The first record of segment 5 of 7 damaged (its magic code zeroed), a normal start: recoverNormally starts
    at the third-last segment (5) and stops at once; truncateDirtyFiles keeps segment 5 (it starts at the end) and
    destroys 6 and 7, cutting every record from there."""
    written = write_store(tmp_path)
    segs = sorted((tmp_path / "commitlog").iterdir())
    assert len(segs) == 7
    _patch(segs[4], 4, bytes(4))
    plan = _plan(tmp_path)
    start = int(segs[4].name)
    assert plan.recovery.end_offset == start
    assert plan.deleted_segments == [f"commitlog/{s.name}" for s in segs[5:]]
    after = [w for w in written if w.physical_offset > start]  # the damaged first record is no readable record
    assert plan.discarded.count == len(after) and plan.discarded.unreadable >= 1
    assert sum(c.units for c in plan.queue_cuts) == len(after) + 1 and plan.exit_code == 4


def test_a_torn_tail_is_cut_with_its_queue_unit(tmp_path: Path) -> None:
    """The last record half written (its second half zeros, as a crash leaves it): the log ends before it."""
    written = write_store(tmp_path)
    seg, pos = _segment_of(tmp_path, written[-1].physical_offset)
    size = struct.unpack_from(">i", seg.read_bytes(), pos)[0]
    _patch(seg, pos + size // 2, bytes(size - size // 2))
    (tmp_path / "abort").write_bytes(b"")
    plan = _plan(tmp_path)
    assert plan.recovery.end_offset == written[-1].physical_offset
    assert plan.discarded.count == 0 and plan.discarded.unreadable >= 1 and plan.loses_data
    w = written[-1]
    assert [(c.file, c.units, c.first_queue_offset) for c in plan.queue_cuts] == [
        (f"consumequeue/{w.topic}/{w.queue_id}/{w.queue_offset // 40 * 800:020d}", 1, w.queue_offset)]
    assert plan.exit_code == 4


def test_a_stray_empty_file_in_commitlog_stops_the_start(tmp_path: Path) -> None:
    """MappedFileQueue.doLoad: a file of another length than the segment size, load returns false (#3257)."""
    write_store(tmp_path, 300)
    (tmp_path / "commitlog" / "00000000000000000001").write_bytes(b"")
    plan = _plan(tmp_path)
    assert [(p.file, p.code) for p in plan.refusals] == [("commitlog/00000000000000000001", "empty-segment")]
    assert plan.exit_code == 4 and plan.as_dict()["starts"] is False
    # DefaultMessageStore.load returns false before recover(): nothing is truncated, no index file destroyed
    assert plan.recovery is None and plan.queue_cuts == [] and plan.index_cuts == [] and not plan.loses_data


def test_a_queue_whose_last_file_lost_its_units_stops_a_5_3_1_start(tmp_path: Path) -> None:
    """apache/rocketmq#10108: T0/0's last file zeroed (its units never flushed) and the newest record's unit lost,
    so no queue reaches the log's end and truncateDirtyLogicFiles does not run: 5.3.1's correctMinOffset reads
    at position -20 of the empty last file and the load fails."""
    written = write_store(tmp_path)
    q = tmp_path / "consumequeue" / "T0" / "0"
    last = sorted(q.iterdir())[-1]
    assert int(last.name) > 0  # the queue has earlier files: minLogicOffset 0 < getMaxOffset
    _patch(last, 0, bytes(last.stat().st_size))
    w = written[-1]
    unit_file = tmp_path / "consumequeue" / w.topic / str(w.queue_id) / f"{w.queue_offset // 40 * 800:020d}"
    _patch(unit_file, w.queue_offset % 40 * 20, bytes(20))
    plan = _plan(tmp_path)
    assert [(p.file, p.code) for p in plan.refusals] == [(f"consumequeue/T0/0/{last.name}", "cq-empty-last-file")]
    assert plan.exit_code == 4


def test_the_same_empty_last_file_is_harmless_when_truncation_runs(tmp_path: Path) -> None:
    """Control: the newest record's unit kept, a queue reaches the log's end, truncateDirtyLogicFiles runs and
    keeps position 20 of the empty file: correctMinOffset reads a unit, no refusal."""
    write_store(tmp_path)
    last = sorted((tmp_path / "consumequeue" / "T0" / "0").iterdir())[-1]
    _patch(last, 0, bytes(last.stat().st_size))
    plan = _plan(tmp_path)
    assert not [p for p in plan.refusals if p.code == "cq-empty-last-file"]


def test_an_abnormal_start_destroys_index_files_past_the_checkpoint(tmp_path: Path) -> None:
    """IndexService.load(lastExitOK=false): index files whose endTimestamp is past the checkpoint's
    indexMsgTimestamp are destroyed. The recovery (from the newest segment whose first record is older than the
    checkpoint's bound, CommitLog.isMappedFileMatchedRecover) re-indexes only from there: the keys of records
    1000 up to that segment become unfindable."""
    written = _spaced_store(tmp_path)
    _patch(tmp_path / "checkpoint", 16, struct.pack(">q", BASE_MS + 999 * 1000))  # StoreCheckpoint.indexMsgTimestamp
    (tmp_path / "abort").write_bytes(b"")
    index = sorted((tmp_path / "index").iterdir())
    assert len(index) == 8  # 1,500 records, 200 a file
    last_seg = sorted((tmp_path / "commitlog").iterdir())[-1]
    first_in_last = next(i for i, w in enumerate(written) if w.physical_offset >= int(last_seg.name))
    plan = _plan(tmp_path, index_slots=100, index_items=401)
    assert plan.recovery.start_segment == f"commitlog/{last_seg.name}"
    assert [c.file for c in plan.index_cuts] == [f"index/{p.name}" for p in index[5:]]  # records 1000.. of 1500
    assert sum(c.lost_keys for c in plan.index_cuts) == 2 * (first_in_last - 1000)
    assert sum(c.items for c in plan.index_cuts) == 2 * 500
    assert "T1#k1000" in plan.index_cuts[0].sample and len(plan.index_cuts[0].sample) == 20  # bounded: first 20
    assert plan.discarded.count == 0 and plan.queue_cuts == []
    assert plan.loses_data and plan.exit_code == 4


def test_a_normal_start_destroys_no_index_file(tmp_path: Path) -> None:
    """The same checkpoint without abort: IndexService.load(true) keeps every file."""
    _spaced_store(tmp_path, 600)
    _patch(tmp_path / "checkpoint", 16, struct.pack(">q", BASE_MS))
    plan = _plan(tmp_path)
    assert plan.index_cuts == [] and plan.exit_code == 0


@pytest.mark.parametrize("segments", [1, 3])
def test_an_aged_store_starts_without_loss(tmp_path: Path, segments: int) -> None:
    """Retention (tests/aged_store.py's model of CleanCommitLogService / CleanConsumeQueueService) is no loss."""
    write_store(tmp_path)
    age_store(tmp_path, segments)
    plan = _plan(tmp_path)
    assert not plan.refusals and not plan.loses_data and plan.exit_code == 0


def test_a_queue_file_of_another_size_stops_the_start(tmp_path: Path) -> None:
    """MappedFileQueue.doLoad for the consume queues (ConsumeQueueStore.load): 'length not matched'."""
    write_store(tmp_path, 300)
    first = sorted((tmp_path / "consumequeue" / "T0" / "0").iterdir())[0]
    with open(first, "ab") as f:
        f.write(bytes(20))
    plan = _plan(tmp_path)
    assert ("wrong-cq-file-size", f"consumequeue/T0/0/{first.name}") in {(p.code, p.file) for p in plan.refusals}
    assert plan.exit_code == 4


def test_the_banner_says_the_verdict_in_one_line(tmp_path: Path) -> None:
    """The overviews' one line (TUI, web): the engine's, not recomputed in a view."""
    written = write_store(tmp_path, 300)
    assert _plan(tmp_path).banner == "next start: normal, nothing lost"
    seg, pos = _segment_of(tmp_path, written[-1].physical_offset)
    _patch(seg, pos + 120, bytes([seg.read_bytes()[pos + 120] ^ 0xFF]))
    banner = _plan(tmp_path).banner
    assert banner == f"next start: normal, loses 1 record(s) past {written[-1].physical_offset:,}; 1 queue unit(s)"
    (tmp_path / "commitlog" / "00000000000000000001").write_bytes(b"")
    assert _plan(tmp_path).banner == "next start: refused (commitlog/00000000000000000001: empty-segment)"


def test_no_segment_left_destroys_every_consume_queue(tmp_path: Path) -> None:
    """CommitLog.recoverNormally with no mapped file: 'The commitlog files are deleted, and delete the consume queue
    files' (getQueueStore().destroy()): every queue file and unit the writer made is cut."""
    written = write_store(tmp_path, 300)
    for seg in (tmp_path / "commitlog").iterdir():
        seg.unlink()
    plan = _plan(tmp_path)
    files = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "consumequeue").rglob("*") if p.is_file())
    assert sorted(c.file for c in plan.queue_cuts) == files and {c.action for c in plan.queue_cuts} == {"deleted"}
    assert sum(c.units for c in plan.queue_cuts) == len(written) and plan.exit_code == 4


def test_a_short_checkpoint_is_said_and_read_as_zeros(tmp_path: Path) -> None:
    """StoreCheckpoint maps a page: a 10-byte file reads as zeros past its end, so indexMsgTimestamp is 0 and an
    abnormal start destroys every index file, then re-indexes from the first segment (nothing unfindable)."""
    write_store(tmp_path, 300)
    (tmp_path / "checkpoint").write_bytes((tmp_path / "checkpoint").read_bytes()[:10])
    (tmp_path / "abort").write_bytes(b"")
    plan = _plan(tmp_path)
    assert any("checkpoint unreadable" in n for n in plan.notes)
    assert len(plan.index_cuts) == len(list((tmp_path / "index").iterdir()))
    assert sum(c.lost_keys for c in plan.index_cuts) == 0 and plan.exit_code == 0


def test_batch_consume_queues_are_truncated_at_the_end_as_the_plain_ones(tmp_path: Path) -> None:
    from tests.batch_store import BATCH_TOPIC, write_batch_store

    results = write_batch_store(tmp_path)
    single = results[3]  # the batch topic's last unit (msgBaseOffset 7, batchSize 1), then "Plain" queue offset 1
    seg, pos = _segment_of(tmp_path, single.physical_offset)
    _patch(seg, pos, bytes(8))  # a zero header (TOTALSIZE, MAGICCODE): the recovery's end of data
    plan = _plan(tmp_path)
    assert plan.recovery.end_offset == single.physical_offset
    cuts = {"/".join(c.file.split("/")[:2]): c for c in plan.queue_cuts}  # by kind and topic
    # BatchConsumeQueue.recover keeps units 0, 4, 7 (valid: offset, size, msgBaseOffset, batchSize); its
    # maxMsgPhyOffsetInCommitLog (7's offset) >= the end, so truncateDirtyLogicFiles drops the unit of offset 7
    batch = cuts[f"batchconsumequeue/{BATCH_TOPIC}"]
    assert (batch.action, batch.units, batch.first_queue_offset) == ("truncated", 1, 7)
    assert "BatchConsumeQueue.truncateDirtyLogicFiles" in batch.reason
    plain = cuts["consumequeue/Plain"]
    assert (plain.action, plain.units, plain.first_queue_offset) == ("truncated", 1, 1)
    assert not any("batch consume queues" in n for n in plan.notes)
