"""Index coverage (engine/read/index/coverage.py): each index file's span of the log, the ranges none covers, and
lookups that scan those ranges, on writer-made stores whose newest index file an abnormal start deleted
(apache/rocketmq#8007) or which covers nothing."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from inspector.engine import Store, expired_key_reason
from inspector.engine.read.index.coverage import item_span, scan_range
from tests.aged_store import age_store, write_store
from tests.unindexed_store import drop_newest_index, empty_newest_index, index_files


def _header(path) -> tuple[int, int]:
    """(beginPhyOffset, endPhyOffset) of an index file."""
    return struct.unpack_from(">qq", path.read_bytes(), 16)


@pytest.fixture
def dropped(tmp_path):
    """A 1,500-record store whose newest index file is gone: (root, written, the range that file covered)."""
    root = tmp_path / "s"
    written = write_store(root)
    begin, _ = _header(index_files(root)[-1])
    drop_newest_index(root)
    log_end = written[-1].physical_offset + Store(root).message_at(written[-1].physical_offset).total_size
    return root, written, (begin, log_end)


def test_a_whole_index_covers_the_whole_log(tmp_path) -> None:
    root = tmp_path / "s"
    write_store(root)
    with Store(root) as s:
        spans, gaps = s.index_coverage()
        assert gaps == [] and s.index_coverage_note() is None
        assert len(spans) == len(index_files(root)) and all(sp.how == "header" for sp in spans)
        assert spans[0].first == 0
        # the spans follow one another along the log (a record whose two keys straddle two files is in both)
        assert all(a.last is not None and b.first is not None and a.last <= b.first for a, b in zip(spans, spans[1:], strict=False))


def test_the_dropped_newest_file_is_the_gap(dropped) -> None:
    root, written, (begin, log_end) = dropped
    with Store(root) as s:
        _, gaps = s.index_coverage()
        assert [(g.start, g.stop) for g in gaps] == [(begin, log_end)]
        assert gaps[0].after == f"index/{index_files(root)[-1].name}" and gaps[0].before is None
        assert gaps[0].text == f"{begin:,}..{log_end - 1:,}"


def test_lookups_over_the_gap_are_found_by_scan_and_marked(dropped) -> None:
    root, written, (begin, log_end) = dropped
    inside = [i for i, w in enumerate(written) if w.physical_offset >= begin]
    assert len(inside) > 50
    i = inside[len(inside) // 2]
    w = written[i]
    with Store(root) as s:
        hits = s.lookup_key(w.topic, f"k{i}")
        assert [h.message.physical_offset for h in hits] == [w.physical_offset]
        assert hits[0].note == f"found by scan: no index covers {begin:,}..{log_end - 1:,}"
        assert s.lookup_key(w.topic, f"k{i}", scan=False) == []
        assert "not searched" in (s.index_coverage_note(scan=False) or "")
        # the unique key: the resolver and show find it the same way, with the same mark
        uniq = s.message_at(w.physical_offset).unique_key
        msg, note = s.locate(uniq)
        assert msg.physical_offset == w.physical_offset and note == hits[0].note
        readings = s.resolve_id(uniq)
        assert readings[1].found and readings[1].note == hits[0].note
        assert not s.resolve_id(uniq, scan=False)[1].found
        # a record an index file covers is found through it, unmarked
        before = written[inside[0] - 1]
        covered = s.lookup_key(before.topic, f"k{inside[0] - 1}")
        assert [(h.message.physical_offset, h.note) for h in covered] == [(before.physical_offset, None)]


def test_the_bulk_scan_equals_a_record_walk(dropped) -> None:
    """scan_range (batches, one byte search per batch) finds what reading every record finds."""
    root, written, (begin, log_end) = dropped
    with Store(root) as s:
        for key in ("k1499", "k14", "k1", "m"):  # a whole key, and pieces of many keys and of every body
            walked = [m.physical_offset for m in s.commitlog.entries(0, check_crc=False)
                      if hasattr(m, "keys") and m.physical_offset >= begin and key in m.keys]
            assert [m.physical_offset for m in scan_range(s.commitlog, None, key, 0, 1 << 62, begin, log_end)] == walked
        assert [m.physical_offset for m in scan_range(s.commitlog, "T0", "k1499", 0, 1 << 62, begin, log_end)] == []


def test_an_index_file_covering_nothing(tmp_path) -> None:
    root = tmp_path / "s"
    written = write_store(root)
    begin, _ = _header(index_files(root)[-1])
    empty = empty_newest_index(root)
    with Store(root) as s:
        spans, gaps = s.index_coverage()
        assert (spans[-1].file, spans[-1].first, spans[-1].last) == (f"index/{empty.name}", None, None)
        assert [g.start for g in gaps] == [begin] and gaps[0].after == spans[-2].file
        hits = s.lookup_key(written[-1].topic, "k1499")
        assert [h.message.physical_offset for h in hits] == [written[-1].physical_offset]
        assert item_span(s.index_files()[-1]) is None


def test_items_give_the_span_when_the_header_range_is_wrong(tmp_path) -> None:
    root = tmp_path / "s"
    write_store(root)
    first = index_files(root)[0]
    begin, end = _header(first)
    with first.open("r+b") as f:  # a header whose phy range says nothing of its items
        f.seek(16)
        f.write(struct.pack(">qq", 7, 7))
    with Store(root) as s:
        span = s.index_coverage()[0][0]
        assert (span.first, span.last, span.how) == (begin, end, "items")
        assert s.index_coverage()[1] == []


def test_expired_unindexed_and_absent_each_answer_their_own(tmp_path) -> None:
    """Retention took the head, an abnormal start the newest index file: three different answers."""
    root = tmp_path / "s"
    written = write_store(root)
    aged = age_store(root, 2, cleanup=False)
    drop_newest_index(root)
    with Store(root) as s:
        gone = next(i for i, w in enumerate(written) if w.physical_offset < aged.first_offset and i % 3 == 1)
        assert s.lookup_key("T1", f"k{gone}") == []
        assert (expired_key_reason(s, "T1", f"k{gone}") or "").startswith("expired")
        last = s.lookup_key("T0", "k1497")
        assert last and (last[0].note or "").startswith("found by scan: no index covers")
        assert s.lookup_key("T0", "no-such-key") == [] and expired_key_reason(s, "T0", "no-such-key") is None


def test_a_dledger_store_without_index_files_is_scanned(tmp_path) -> None:
    """DLedger entries (a 48-byte header before each record): the scan finds what the index found."""
    src = Path(__file__).resolve().parents[5] / "sample_store_dledger"
    with Store(src) as s:
        assert s.index_coverage()[1] == []
        indexed = sorted(h.message.physical_offset for h in s.lookup_key("InventoryEvents", "order-1194"))
    root = tmp_path / "s"
    shutil.copytree(src, root)
    for f in index_files(root):
        f.unlink()
    with Store(root) as s:
        (gap,) = s.index_coverage()[1]
        hits = s.lookup_key("InventoryEvents", "order-1194")
        assert indexed and sorted(h.message.physical_offset for h in hits) == indexed
        assert all(h.note == f"found by scan: no index covers {gap.text}" for h in hits)
