"""verify's index-gap (maintain/verify/index_gaps.py): the log no index file covers, named with its reason, a
warning (verify exits 0), on writer-made stores."""

from __future__ import annotations

import struct

from inspector.engine import Store, verify
from inspector.engine.maintain.verify.index_gaps import index_gap_problems
from inspector.engine.model.broker_config import parse_broker_config
from tests.aged_store import write_store
from tests.unindexed_store import drop_newest_index, empty_newest_index, index_files


def _gaps(root, **kw) -> list:
    with Store(root, **kw) as s:
        return [p for p in verify(s).problems if p.code == "index-gap"]


def test_a_whole_index_has_no_gap(tmp_path) -> None:
    root = tmp_path / "s"
    write_store(root)
    assert _gaps(root) == []


def test_the_newest_file_deleted_by_an_abnormal_start(tmp_path) -> None:
    root = tmp_path / "s"
    written = write_store(root)
    begin = struct.unpack_from(">q", index_files(root)[-1].read_bytes(), 16)[0]
    drop_newest_index(root)
    (gap,) = _gaps(root)
    assert gap.severity == "warning"
    assert f"no index file covers {begin:,}.." in gap.reason and "abort file" in gap.reason
    assert "apache/rocketmq#8007" in gap.reason
    with Store(root) as s:
        seg = s.commitlog.segment_for(begin)
        assert (gap.file, gap.offset) == (seg.file, begin - seg.start_offset)
        assert verify(s).problems and not [p for p in verify(s).problems if p.severity == "error"]
    assert written  # the records are all there: only their index is gone


def test_without_the_abort_file_the_checkpoint_tells(tmp_path) -> None:
    """No abort file (a later clean stop): the checkpoint's index time past the gap's first record says the
    records had been indexed, so their file was deleted."""
    root = tmp_path / "s"
    write_store(root)
    drop_newest_index(root, abort=False)
    cp = bytearray((root / "checkpoint").read_bytes())
    cp[16:24] = struct.pack(">q", 1 << 50)  # indexMsgTimestamp far past every record
    (root / "checkpoint").write_bytes(bytes(cp))
    (gap,) = _gaps(root)
    assert "they were indexed and the file is gone" in gap.reason


def test_a_missing_middle_file_and_an_empty_one(tmp_path) -> None:
    root = tmp_path / "s"
    write_store(root)
    middle = index_files(root)[3]
    middle.unlink()
    (gap,) = _gaps(root)
    assert f"index file between index/{index_files(root)[2].name} and index/{index_files(root)[3].name} is missing" \
        in gap.reason
    root2 = tmp_path / "t"
    write_store(root2)
    empty_newest_index(root2)
    (gap,) = _gaps(root2)
    assert "after the newest index file" in gap.reason


def test_index_disabled_in_the_broker_config(tmp_path) -> None:
    root = tmp_path / "s"
    write_store(root)
    for f in index_files(root):
        f.unlink()
    config = parse_broker_config("messageIndexEnable=false\n", "broker.conf")
    with Store(root, broker_config=config) as s:
        (gap,) = index_gap_problems(s)
        assert gap.reason.startswith("no index file covers 0..") and "messageIndexEnable=false" in gap.reason
    with Store(root) as s:
        (gap,) = index_gap_problems(s)
        assert "the store has no index file" in gap.reason
