"""The writer's ``aging``: retention by the segments' last write time, the broker's cleanup of consume-queue and
index files, a crash's ``abort`` file and a torn tail, checked against what was written (each record's offset
and store time) and read back through the engine's ``Store`` and ``preflight``."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from inspector.engine import Store, preflight
from inspector.engine.maintain.write.aging import FILE_RESERVED_MS, Aging
from inspector.engine.maintain.write.dledger_log import DLedgerOptions
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.errors import BadInput
from inspector.engine.model.geometry import Geometry
from tests.aged_store import GEOMETRY

BASE_MS = 1_758_272_400_000
MINUTE = 60_000


def _write(root: Path, aging: Aging | None, messages: int = 1500):
    """Records a minute apart (~270 bytes: seven 64 KiB segments); returns the writer and (offset, time) per record."""
    records = []
    with StoreWriter(root, GEOMETRY, aging=aging) as w:
        for i in range(messages):
            got = w.append(MessageSpec(topic=f"T{i % 3}", queue_id=i % 2, body=b"m" * 100, keys=[f"k{i}"],
                                       store_timestamp=BASE_MS + i * MINUTE))
            records.append((got.physical_offset, got.store_timestamp, got.topic, got.queue_id, got.queue_offset))
    return w, records


def _segment_ends(records, segment_size: int) -> dict[int, int]:
    """segment start -> store time of its last record."""
    ends: dict[int, int] = {}
    for phy, ts, *_ in records:
        ends[phy - phy % segment_size] = ts
    return ends


def test_no_aging_changes_nothing(tmp_path: Path) -> None:
    w, _ = _write(tmp_path, None, 300)
    assert w.aged is None and not (tmp_path / "abort").exists()


def test_retention_deletes_the_head_segments_older_than_the_reserved_time(tmp_path: Path) -> None:
    """deleteExpiredFileByTime: a segment whose last write is fileReservedTime (72 h) before "now" goes, oldest
    first; the third segment's last write is one ms too young, so it and everything after it stay."""
    ends = _segment_ends(_write(tmp_path / "probe", None)[1], GEOMETRY.segment_size)
    starts = sorted(ends)
    now = ends[starts[2]] + FILE_RESERVED_MS - 1
    w, records = _write(tmp_path / "s", Aging(retention_now=now))
    aged = w.aged
    assert aged.deleted_segments == [f"{s:020d}" for s in starts[:2]] and aged.first_offset == starts[2]
    assert sorted(p.name for p in (tmp_path / "s" / "commitlog").iterdir()) == [f"{s:020d}" for s in starts[2:]]
    with Store(tmp_path / "s") as store:
        assert store.min_offset == starts[2]
    assert not aged.abort and not (tmp_path / "s" / "abort").exists()


def test_retention_never_deletes_the_last_segment(tmp_path: Path) -> None:
    w, records = _write(tmp_path, Aging(retention_now=BASE_MS + 10**12))
    segments = sorted({phy - phy % GEOMETRY.segment_size for phy, *_ in records})
    assert w.aged.deleted_segments == [f"{s:020d}" for s in segments[:-1]]
    assert [p.name for p in (tmp_path / "commitlog").iterdir()] == [f"{segments[-1]:020d}"]


def test_the_cleanup_deletes_only_the_files_wholly_below_the_first_offset(tmp_path: Path) -> None:
    """CleanConsumeQueueService / IndexService.deleteExpiredFile: a consume-queue file goes when its last unit is
    below the first offset, an index file when its endPhyOffset is; straddling files stay."""
    w, records = _write(tmp_path, Aging(expired_segments=2))
    first = w.aged.first_offset
    units_per_file = GEOMETRY.cq_file_size // 20
    files: dict[str, int] = {}  # consume-queue file -> physical offset of its last unit
    for phy, _, topic, qid, qoff in records:
        files[f"consumequeue/{topic}/{qid}/{qoff // units_per_file * GEOMETRY.cq_file_size:020d}"] = phy
    last_of_queue = {f.rsplit("/", 1)[0]: f for f in sorted(files)}
    expected = sorted(f for f, last in files.items() if last < first and last_of_queue[f.rsplit("/", 1)[0]] != f)
    assert sorted(w.aged.deleted_cq) == expected and expected
    assert all(not (tmp_path / f).exists() for f in expected)
    assert all((tmp_path / f).exists() for f in set(files) - set(expected))
    index_files = {f.name: f for f in w.index.files}
    deleted_index = [f"index/{f.name}" for f in w.index.files[:-1] if f.end_phy_offset < first]
    assert w.aged.deleted_index == deleted_index and deleted_index
    assert sorted(p.name for p in (tmp_path / "index").iterdir()) == sorted(
        n for n in index_files if f"index/{n}" not in deleted_index)


def test_without_the_cleanup_the_queue_and_index_files_stay(tmp_path: Path) -> None:
    w, _ = _write(tmp_path, Aging(expired_segments=2, cleanup=False))
    assert len(w.aged.deleted_segments) == 2 and w.aged.deleted_cq == [] and w.aged.deleted_index == []


def test_a_crash_leaves_the_abort_file_and_the_next_start_is_abnormal(tmp_path: Path) -> None:
    """The checkpoint keeps the end of the last full index file (IndexService.flush): an abnormal start destroys
    the newest index file (IndexService.load(false))."""
    w, _ = _write(tmp_path, Aging(crashed=True))
    assert w.aged.abort and (tmp_path / "abort").read_bytes() == b""
    with Store(tmp_path) as store:
        plan = preflight(store)
    assert plan.mode == "abnormal"
    assert [c.file for c in plan.index_cuts] == [f"index/{w.index.files[-1].name}"]


def test_a_torn_tail_zeroes_the_end_of_the_last_record(tmp_path: Path) -> None:
    w, records = _write(tmp_path, Aging(torn_tail=40))
    last = records[-1][0]
    assert w.aged.torn_record == last and w.aged.abort
    seg = sorted((tmp_path / "commitlog").iterdir())[-1]
    data = seg.read_bytes()
    pos = last - int(seg.name)
    size = struct.unpack_from(">i", data, pos)[0]
    assert data[pos + size - 40:pos + size] == bytes(40) and data[pos:pos + 4] != bytes(4)
    with Store(tmp_path) as store:
        plan = preflight(store)
    assert plan.mode == "abnormal" and plan.recovery.end_offset == last and plan.loses_data


@pytest.mark.parametrize("kwargs", [
    {"retention_now": 1, "expired_segments": 1},
    {"expired_segments": -1},
    {"torn_tail": -1},
    {"file_reserved_ms": -5},
])
def test_contradictory_or_negative_aging_is_refused(kwargs) -> None:
    with pytest.raises(BadInput):
        Aging(**kwargs)


def test_retention_of_every_segment_is_refused_and_dledger_is_not_aged(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="never deletes the last one"):
        _write(tmp_path / "a", Aging(expired_segments=7))
    with pytest.raises(BadInput, match="DLedger"):
        StoreWriter(tmp_path / "b", GEOMETRY, dledger=DLedgerOptions(), aging=Aging(crashed=True))
    assert not (tmp_path / "b").exists()


def test_a_torn_tail_longer_than_the_record_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="longer than the last record"):
        _write(tmp_path, Aging(torn_tail=10_000), 10)


# index files of exactly 400 items (indexCount starts at 1, < indexNum = 401): two keys a record, 200 records a file
SPACED = Geometry(segment_size=64 * 1024, cq_file_size=40 * 20, index_slots=100, index_items=401)


def _write_spaced(root: Path, aging: Aging | None, messages: int = 1500):
    """Records a second apart (so the checkpoint's bound falls inside the log); what each record's keys are."""
    keys = {}
    with StoreWriter(root, SPACED, aging=aging) as w:
        for i in range(messages):
            got = w.append(MessageSpec(topic=f"T{i % 3}", queue_id=i % 2, body=b"m" * 100, keys=[f"k{i}"],
                                       store_timestamp=BASE_MS + i * 1000))
            keys[got.physical_offset] = (got.topic, got.unique_key, f"k{i}")
    return w, keys


def _indexed(root: Path) -> set[int]:
    """Physical offsets of every item in the store's index files."""
    with Store(root, index_slots=100, index_items=401) as store:
        return {item.phy_offset for r in store.index_files() for item in r.items()}


def test_an_abnormal_restart_loses_what_preflight_said_it_would(tmp_path):
    """apache/rocketmq#8007 modelled twice: preflight's prediction on the crashed store (IndexService.load(false),
    the recovery's re-dispatch) against the writer's restart applied to the same store; the keys preflight calls
    unfindable are exactly the records no index file holds afterwards."""
    _, keys = _write_spaced(tmp_path / "crashed", Aging(crashed=True))
    with Store(tmp_path / "crashed", index_slots=100, index_items=401) as store:
        plan = preflight(store)
    w, _ = _write_spaced(tmp_path / "restarted", Aging(restarted_at=BASE_MS + 10**7))
    aged, root = w.aged, tmp_path / "restarted"
    assert aged.destroyed_index == [c.file for c in plan.index_cuts] and aged.destroyed_index
    assert not (root / "abort").exists() and all(not (root / f).exists() for f in aged.destroyed_index)
    assert aged.new_index and all((root / f).exists() for f in aged.new_index)
    assert aged.reindexed_from == int(plan.recovery.start_segment.rsplit("/", 1)[1])
    missing = sorted(set(keys) - _indexed(root))
    assert missing and all(phy < aged.reindexed_from for phy in missing)
    assert 2 * len(missing) == sum(c.lost_keys for c in plan.index_cuts)  # two keys a record: its id and k<i>
    with Store(root, index_slots=100, index_items=401) as store:
        lost_topic, _, lost_key = keys[missing[0]]
        kept_topic, _, kept_key = keys[max(keys)]
        assert store.lookup_key(kept_topic, kept_key, 0, 2**62)  # re-indexed by the restart
        items = [s for walk in store.chain(lost_topic, lost_key) for s in walk.steps if s.key_matches]
        assert items == []  # no index item leads to it any more
