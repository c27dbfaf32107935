"""CommitLog corruption scenarios, LevelDB ``log_test.cc`` style: build a log, do byte surgery, assert the exact
Problem (file, offset, code) and what the walk yields after it.

Logs are built with ``parsers.commitlog`` schemas (conftest), never with the engine. Every test opens the
store through ``open_log``, which also checks that the engine changed no byte or mtime and opened nothing
for writing.
"""

from __future__ import annotations

import builtins
import hashlib
import io
import os
import shutil
import struct
from pathlib import Path

import pytest

from inspector.engine.model.errors import NotFound, StoreError
from inspector.engine.model.records import Blank, Message, Problem
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.commitlog.mapped import MappedFile
from inspector.engine.read.store.store import Store
from parsers import commitlog as cl

SEG = 4096
SEG0, SEG1, SEG2, SEG3 = (f"commitlog/{i * SEG:020d}" for i in range(4))
N = 50  # 50 records of 182 bytes: 22 per 4096-byte segment, three segments
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def spec(i: int) -> dict:
    return dict(
        topic="TopicTest",
        body=f"message {i:03d} ".encode() * 5 + b"xyz",  # 63 bytes: the record is 182
        properties={"KEYS": f"k{i:02d}", "TAGS": "TagA"},
        queue_offset=i,
        store_timestamp=1_700_000_000_000 + i * 1000,
    )


@pytest.fixture
def log_root(tmp_path: Path, write_commitlog) -> tuple[Path, list[int]]:
    offsets = write_commitlog(tmp_path, [spec(i) for i in range(N)], SEG)
    return tmp_path, offsets


def _snapshot(root: Path) -> dict[str, tuple[str, int]]:
    state = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        state[str(path.relative_to(root))] = (digest, st.st_mtime_ns)
    return state


@pytest.fixture
def open_log(monkeypatch):
    """``open_log(root, **kw)`` -> CommitLog; on teardown: no file under root changed, appeared or vanished, and
    no file under root was opened for writing (os.open flags / open() modes are watched while the test runs)."""
    opened: list[tuple[Path, dict]] = []
    logs: list[CommitLog] = []
    real_os_open, real_io_open = os.open, io.open

    def under_a_root(path) -> bool:
        try:
            p = Path(os.fspath(path)).resolve()
        except TypeError:
            return False
        return any(p == r or r in p.parents for r, _ in opened)

    def guarded_os_open(path, flags, *args, **kwargs):
        if under_a_root(path):
            assert flags & WRITE_FLAGS == 0, f"engine opened {path} with write flags {flags:#o}"
        return real_os_open(path, flags, *args, **kwargs)

    def guarded_open(file, mode="r", *args, **kwargs):
        if not isinstance(file, int) and under_a_root(file):
            assert not set(mode) & set("wax+"), f"engine opened {file} with mode {mode!r}"
        return real_io_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded_os_open)
    monkeypatch.setattr(io, "open", guarded_open)
    monkeypatch.setattr(builtins, "open", guarded_open)

    def _open(root: Path, **kwargs) -> CommitLog:
        opened.append((root.resolve(), _snapshot(root)))
        log = CommitLog(root, **kwargs)
        logs.append(log)
        return log

    yield _open
    for log in logs:
        log.close()
    monkeypatch.undo()
    for root, before in opened:
        assert _snapshot(root) == before, "the engine changed the store"


def walk(log: CommitLog, *args, **kwargs) -> tuple[list[Message], list[Blank], list[Problem], list]:
    entries = list(log.entries(*args, **kwargs))
    return (
        [e for e in entries if isinstance(e, Message)],
        [e for e in entries if isinstance(e, Blank)],
        [e for e in entries if isinstance(e, Problem)],
        entries,
    )


def where(problem: Problem) -> tuple[str, int, str]:
    return problem.file, problem.offset, problem.code


def patch(root: Path, file: str, position: int, data: bytes) -> None:
    with open(root / file, "r+b") as f:
        f.seek(position)
        f.write(data)


def seg_of(offset: int) -> tuple[str, int]:
    return f"commitlog/{offset // SEG * SEG:020d}", offset % SEG


def only_missing(messages: list[Message], offsets: list[int], missing: set[int]) -> None:
    assert [m.physical_offset for m in messages] == [o for i, o in enumerate(offsets) if i not in missing]
    assert [m.queue_offset for m in messages] == [i for i in range(N) if i not in missing]


# --- real files -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["apache", "shaoxubao"])
def test_real_commitlog_47_messages_then_blank_at_8084(real_commitlog_stores, real_store_hosts, open_log, tmp_path,
                                                      name: str) -> None:
    root = tmp_path / name
    shutil.copytree(real_commitlog_stores[name] / "commitlog", root / "commitlog")
    log = open_log(root)
    messages, blanks, problems, entries = walk(log)
    assert problems == [] and log.problems == []
    assert len(messages) == 47 and entries[-1] == blanks[0]
    assert blanks == [Blank(SEG0, 8084, 8084, 108)]
    assert {m.topic for m in messages} == {"abc"}
    assert {str(m.store_host) for m in messages} == {real_store_hosts[name]}
    assert [m.queue_offset for m in messages] == list(range(47))
    assert all(m.body_crc_ok and m.stored_physical_offset == m.physical_offset for m in messages)
    assert messages[-1].end_offset == 8084
    assert log.segment_size == 8192
    scan = log.scan_segment(log.segments[0])
    assert (scan.messages, scan.data_end, scan.blank_position, scan.blank_size) == (47, 8084, 8084, 108)
    assert scan.problems == () and not scan.preallocated


def test_real_commitlog_opened_in_place_is_not_changed(real_commitlog_stores, open_log) -> None:
    log = open_log(real_commitlog_stores["apache"])
    assert sum(isinstance(e, Message) for e in log.entries()) == 47


# --- a clean multi-segment log -------------------------------------------------------------------------------------


def test_multi_segment_log_iterates_across_segments(log_root, open_log) -> None:
    root, offsets = log_root
    log = open_log(root)
    assert [s.name for s in log.segments] == [f"{i * SEG:020d}" for i in range(3)]
    assert log.segment_size == SEG and log.problems == []
    messages, blanks, problems, entries = walk(log)
    assert problems == []
    only_missing(messages, offsets, set())
    assert [m.file for m in messages] == [seg_of(o)[0] for o in offsets]
    assert [m.position for m in messages] == [seg_of(o)[1] for o in offsets]
    # each sealed segment ends with a BLANK that reaches the end of the file
    last_in_seg0 = max(o for o in offsets if o < SEG)
    end0 = last_in_seg0 + messages[0].total_size
    assert blanks[0] == Blank(SEG0, end0, end0, SEG - end0)
    assert [b.file for b in blanks] == [SEG0, SEG1]
    assert all(b.position + b.total_size == SEG for b in blanks)
    assert entries.index(blanks[0]) == sum(o < SEG for o in offsets)
    assert all(m.body_crc_ok for m in messages)


def test_entries_from_an_offset_in_the_middle(log_root, open_log) -> None:
    root, offsets = log_root
    log = open_log(root)
    messages, blanks, problems, _ = walk(log, offsets[30])
    assert problems == []
    assert [m.physical_offset for m in messages] == offsets[30:]
    assert [b.file for b in blanks] == [f for f in (SEG0, SEG1) if f >= seg_of(offsets[30])[0]]


def test_entries_from_a_segment_start_and_from_before_the_log(log_root, open_log) -> None:
    root, offsets = log_root
    (root / SEG0).unlink()  # the oldest segment was deleted: the log now starts at 4096
    log = open_log(root)
    assert log.min_offset == SEG
    from_start = [m.physical_offset for m in walk(log, SEG)[0]]
    assert from_start == [o for o in offsets if o >= SEG]
    assert [m.physical_offset for m in walk(log, 0)[0]] == from_start
    assert walk(log, 10 * SEG)[3] == []


def test_entries_from_the_middle_of_a_record_reports_it_and_resyncs(log_root, open_log) -> None:
    root, offsets = log_root
    log = open_log(root)
    messages, _, problems, _ = walk(log, offsets[5] + 10)
    assert [where(p) for p in problems] == [(SEG0, offsets[5] + 10, "bad-magic")]
    assert messages[0].physical_offset == offsets[6]

def test_entries_from_an_offset_inside_a_missing_segment_starts_at_the_next_segment(log_root, open_log) -> None:
    root, offsets = log_root
    (root / SEG1).unlink()
    log = open_log(root)
    messages = walk(log, SEG + 100)[0]
    assert [m.physical_offset for m in messages] == [o for o in offsets if o >= 2 * SEG]


def test_message_at_every_record_offset(log_root, open_log) -> None:
    root, offsets = log_root
    log = open_log(root)
    walked = walk(log)[0]
    for offset, expected in zip(offsets, walked, strict=True):
        assert log.message_at(offset) == expected


@pytest.mark.parametrize(
    ("where_", "error"),
    [("inside-record", StoreError), ("at-blank", StoreError), ("zero-tail", StoreError),
     ("past-end", NotFound), ("negative", NotFound)],
)
def test_message_at_an_offset_that_is_not_a_record_raises_store_error(log_root, open_log, where_, error) -> None:
    root, offsets = log_root
    log = open_log(root)
    blank = walk(log)[1][0]
    offset = {
        "inside-record": offsets[3] + 17,
        "at-blank": blank.physical_offset,
        "zero-tail": 3 * SEG - 100,
        "past-end": 3 * SEG,
        "negative": -1,
    }[where_]
    with pytest.raises(error) as info:
        log.message_at(offset)
    assert type(info.value) is error
    if error is StoreError:
        assert (info.value.file, info.value.offset) == seg_of(offset)


# --- damage at the end of the log -----------------------------------------------------------------------------------


def test_torn_final_record_in_the_last_segment(log_root, open_log) -> None:
    """The broker died while writing the last record: its header made it to disk, the rest is still zero."""
    root, offsets = log_root
    file, pos = seg_of(offsets[-1])
    patch(root, file, pos + 100, bytes(82))
    log = open_log(root)
    messages, _, problems, entries = walk(log)
    assert [where(p) for p in problems] == [(SEG2, pos, "length-mismatch")]
    assert "torn tail" in problems[0].reason
    assert entries[-1] == problems[0]  # the walk ends there
    only_missing(messages, offsets, {N - 1})


def test_final_record_longer_than_the_segment(log_root, open_log) -> None:
    root, offsets = log_root
    end = offsets[-1] + 182
    file, pos = seg_of(end)
    patch(root, file, pos, struct.pack(">ii", 5000, cl.MAGIC_V1))
    log = open_log(root)
    messages, _, problems, entries = walk(log)
    assert [where(p) for p in problems] == [(SEG2, pos, "torn-record")]
    assert "torn tail" in problems[0].reason and entries[-1] == problems[0]
    only_missing(messages, offsets, set())


def test_stale_bytes_after_the_end_of_the_last_segment(log_root, open_log) -> None:
    root, offsets = log_root
    end = seg_of(offsets[-1] + 182)[1]
    patch(root, SEG2, end + 100, b"\xab" * 10)
    log = open_log(root)
    messages, _, problems, _ = walk(log)
    assert [where(p) for p in problems] == [(SEG2, end, "garbage-after-end")]
    only_missing(messages, offsets, set())

def test_short_record_with_ipv6_flags_at_the_end_of_the_last_segment(tmp_path, open_log, build_record) -> None:
    (tmp_path / "commitlog").mkdir()
    first = build_record(0, body=bytes(SEG - 91 - 91 - 9), topic="TopicTest")  # ends at SEG - 91
    tail = bytearray(91)
    struct.pack_into(">ii", tail, 0, 91, cl.MAGIC_V1)
    struct.pack_into(">q", tail, 28, SEG - 91)
    struct.pack_into(">i", tail, 36, 0x30)
    (tmp_path / SEG0).write_bytes(first + bytes(tail))
    log = open_log(tmp_path)
    messages, _, problems, _ = walk(log)
    assert len(messages) == 1
    assert [(p.file, p.offset) for p in problems] == [(SEG0, SEG - 91)]
    assert "torn tail" in problems[0].reason


# --- damage in the middle: report, resync, keep going --------------------------------------------------------------


def test_zeroed_region_from_a_record_start_to_inside_a_later_record(log_root, open_log) -> None:
    root, offsets = log_root
    file, start = seg_of(offsets[3])
    _, stop = seg_of(offsets[8] + 50)
    patch(root, file, start, bytes(stop - start))
    log = open_log(root)
    messages, _, problems, _ = walk(log)
    assert [where(p) for p in problems] == [(SEG0, start, "zeroed-region")]
    assert f"next record at {seg_of(offsets[9])[1]}" in problems[0].reason
    only_missing(messages, offsets, {3, 4, 5, 6, 7, 8})


def test_zeroed_page_between_records_keeps_the_next_record(log_root, open_log) -> None:
    root, offsets = log_root
    file, start = seg_of(offsets[3])
    _, stop = seg_of(offsets[8])
    patch(root, file, start, bytes(stop - start))
    log = open_log(root)
    messages, _, problems, _ = walk(log)
    assert [where(p) for p in problems] == [(SEG0, start, "zeroed-region")]
    only_missing(messages, offsets, {3, 4, 5, 6, 7})


def test_zeroed_page_cutting_records_in_the_middle_of_a_segment(tmp_path, write_commitlog, open_log) -> None:
    """A 4 KiB page [4096, 8192) of a 16 KiB segment reads back as zeros (lost page)."""
    offsets = write_commitlog(tmp_path, [spec(i) for i in range(N)], 4 * SEG)
    patch(tmp_path, SEG0, SEG, bytes(SEG))
    cut_first = max(i for i, o in enumerate(offsets) if o < SEG)
    # the record at 8190 survives: the two zeroed bytes were its TOTALSIZE's high bytes, zero anyway
    resumed = min(i for i, o in enumerate(offsets) if o >= 2 * SEG - 2)
    assert offsets[resumed] == 8190
    log = open_log(tmp_path)
    messages, _, problems, _ = walk(log)
    assert [where(p) for p in problems] == [(SEG0, offsets[cut_first], "length-mismatch")]
    assert f"next record at {offsets[resumed]}" in problems[0].reason
    only_missing(messages, offsets, set(range(cut_first, resumed)))


@pytest.mark.parametrize(
    ("field_offset", "fmt", "value", "code"),
    [
        (4, ">I", 0xDEADBEEF, "bad-magic"),
        (0, ">i", 0, "bad-size"),
        (0, ">i", -182, "bad-size"),
        (0, ">i", 1 << 20, "torn-record"),
        (0, ">i", 2**31 - 1, "torn-record"),
        (0, ">i", 182 + 20, "length-mismatch"),
        (0, ">i", 182 - 20, "length-mismatch"),
        (84, ">i", 4000, "bad-body-length"),
        (151, ">B", 0x80, "bad-topic-length"),  # 88 + 63: the topic length byte
        (151, ">B", 0xFF, "bad-topic-length"),
    ],
    ids=["bad-magic", "size-0", "size-negative", "size-huge", "size-int-max", "size-too-big", "size-too-small",
         "body-length-too-big", "topic-length-0x80", "topic-length-0xff"],
)
def test_damaged_record_in_the_middle_is_reported_and_skipped(log_root, open_log, field_offset, fmt, value,
                                                               code) -> None:
    root, offsets = log_root
    file, pos = seg_of(offsets[10])
    patch(root, file, pos + field_offset, struct.pack(fmt, value))
    log = open_log(root)
    messages, blanks, problems, _ = walk(log)
    assert [where(p) for p in problems] == [(SEG0, pos, code)]
    assert f"next record at {seg_of(offsets[11])[1]}" in problems[0].reason
    only_missing(messages, offsets, {10})
    assert [b.file for b in blanks] == [SEG0, SEG1]


def test_flipped_body_crc_byte_is_reported_and_the_message_still_yielded(log_root, open_log) -> None:
    root, offsets = log_root
    file, pos = seg_of(offsets[25])
    patch(root, file, pos + 11, b"\x00" if (root / file).read_bytes()[pos + 11] else b"\x01")
    log = open_log(root)
    messages, _, problems, entries = walk(log)
    assert [where(p) for p in problems] == [(SEG1, pos, "crc-mismatch")]
    only_missing(messages, offsets, set())
    bad = messages[25]
    assert not bad.body_crc_ok
    assert entries.index(problems[0]) == entries.index(bad) - 1
    assert walk(log, check_crc=False)[2] == []


def test_flipped_body_byte_is_a_crc_mismatch(log_root, open_log) -> None:
    root, offsets = log_root
    file, pos = seg_of(offsets[25])
    patch(root, file, pos + 88, b"M")  # body starts at 88: 'm' -> 'M'
    log = open_log(root)
    messages, _, problems, _ = walk(log)
    assert [where(p) for p in problems] == [(SEG1, pos, "crc-mismatch")]
    assert messages[25].body.startswith(b"Message 025")


def test_physical_offset_field_not_matching_the_position(log_root, open_log) -> None:
    root, offsets = log_root
    file, pos = seg_of(offsets[25])
    patch(root, file, pos + 28, struct.pack(">q", offsets[25] + 1))
    log = open_log(root)
    messages, _, problems, _ = walk(log)
    assert [where(p) for p in problems] == [(SEG1, pos, "offset-mismatch")]
    only_missing(messages, offsets, set())
    assert (messages[25].physical_offset, messages[25].stored_physical_offset) == (offsets[25], offsets[25] + 1)


def test_segment_ends_without_a_blank(log_root, open_log) -> None:
    root, offsets = log_root
    blank_pos = offsets[21] + 182
    assert offsets[22] == SEG  # record 22 opens segment 1
    patch(root, SEG0, blank_pos, bytes(8))
    log = open_log(root)
    messages, blanks, problems, _ = walk(log)
    assert [where(p) for p in problems] == [(SEG0, blank_pos, "no-blank")]
    assert [b.file for b in blanks] == [SEG1]
    only_missing(messages, offsets, set())


def test_blank_with_the_wrong_size_is_a_warning(log_root, open_log) -> None:
    root, offsets = log_root
    blank_pos = offsets[21] + 182
    patch(root, SEG0, blank_pos, struct.pack(">i", 8))
    log = open_log(root)
    messages, blanks, problems, _ = walk(log)
    assert [(*where(p), p.severity) for p in problems] == [(SEG0, blank_pos, "blank-size", "warning")]
    assert blanks[0] == Blank(SEG0, blank_pos, blank_pos, 8)
    only_missing(messages, offsets, set())


# --- segment files -----------------------------------------------------------------------------------------------


def test_segment_of_the_wrong_size(log_root, open_log) -> None:
    root, offsets = log_root
    with open(root / SEG1, "ab") as f:
        f.write(bytes(904))  # 5000 bytes
    log = open_log(root)
    assert log.segment_size == SEG
    assert [(*where(p), p.severity) for p in log.problems] == [(SEG1, 0, "wrong-segment-size", "error")]
    assert "5000" in log.problems[0].reason
    messages, _, problems, _ = walk(log)
    assert problems == []
    only_missing(messages, offsets, set())


def test_empty_last_segment_is_an_error_as_in_the_census(log_root, open_log) -> None:
    """apache/rocketmq#3257: 4.9.8's MappedFileQueue.load refuses it and the broker does not start (5.1.3+ deletes
    it): one verdict with the census's (issue 29 item 3; it was a warning here, an error there)."""
    root, _ = log_root
    (root / SEG3).write_bytes(b"")
    log = open_log(root)
    assert [(*where(p), p.severity) for p in log.problems] == [(SEG3, 0, "empty-segment", "error")]


def test_two_segments_the_last_one_grown(log_root, open_log) -> None:
    root, _ = log_root
    (root / SEG2).unlink()
    with open(root / SEG1, "ab") as f:
        f.write(bytes(904))
    log = open_log(root)
    assert log.segment_size == SEG
    assert [where(p) for p in log.problems] == [(SEG1, 0, "wrong-segment-size")]


def test_missing_segment_in_the_middle(log_root, open_log) -> None:
    root, offsets = log_root
    (root / SEG1).unlink()
    log = open_log(root)
    assert [where(p) for p in log.problems] == [(SEG2, 0, "missing-segment")]
    assert f"{SEG:020d}" in log.problems[0].reason
    messages, blanks, problems, _ = walk(log)
    assert problems == []
    assert [m.physical_offset for m in messages] == [o for o in offsets if not SEG <= o < 2 * SEG]
    assert [b.file for b in blanks] == [SEG0]


@pytest.mark.parametrize("kind", ["directory", "dangling link", "symlink loop"])
def test_a_segment_name_that_is_no_file_is_reported(log_root, open_log, kind: str) -> None:
    """Not a silent gap: the entry is named, then the gap it leaves is the usual missing segment."""
    root, offsets = log_root
    seg = root / SEG1
    seg.unlink()
    if kind == "directory":
        seg.mkdir()
    elif kind == "dangling link":
        seg.symlink_to(root / "nowhere")
    else:
        seg.symlink_to(seg)
    log = open_log(root)
    assert [where(p) for p in log.problems] == [(SEG1, 0, "not-a-segment-file"), (SEG2, 0, "missing-segment")]
    said = {"directory": "a directory", "dangling link": "a dangling symbolic link", "symlink loop": "a dangling"}
    assert log.problems[0].reason.startswith(said[kind])
    messages, _, problems, _ = walk(log)
    assert problems == []
    assert [m.physical_offset for m in messages] == [o for o in offsets if not SEG <= o < 2 * SEG]


def test_extra_all_zero_preallocated_segment(tmp_path, write_commitlog, open_log) -> None:
    offsets = write_commitlog(tmp_path, [spec(i) for i in range(N)], SEG, extra_zero_segments=1)
    log = open_log(tmp_path)
    assert len(log.segments) == 4 and log.problems == []
    messages, _, problems, _ = walk(log)
    assert problems == []
    only_missing(messages, offsets, set())
    scans = [log.scan_segment(s) for s in log.segments]
    assert [s.preallocated for s in scans] == [False, False, False, True]
    assert scans[3].messages == 0 and scans[3].problems == ()
    assert scans[2].valid_end_offset == offsets[-1] + 182
    with Store(tmp_path) as store:
        assert store.max_offset() == offsets[-1] + 182


@pytest.mark.parametrize("make_dir", [True, False])
def test_empty_or_absent_commitlog_directory(tmp_path, open_log, make_dir: bool) -> None:
    if make_dir:
        (tmp_path / "commitlog").mkdir()
    log = open_log(tmp_path)
    assert log.segments == [] and log.problems == [] and log.min_offset == 0
    assert list(log.entries()) == [] and list(log.entries(123)) == []
    with pytest.raises(NotFound):
        log.message_at(0)
    with Store(tmp_path) as store:
        assert store.max_offset() == 0 and store.problems() == []


def test_files_not_named_by_offset_are_ignored(log_root, open_log) -> None:
    root, offsets = log_root
    (root / "commitlog" / "README").write_text("not a segment")
    (root / "commitlog" / "0000000000000000000").write_bytes(bytes(SEG))  # 19 digits
    log = open_log(root)
    assert len(log.segments) == 3 and log.problems == []


def test_scan_summarises_a_damaged_segment(log_root, open_log) -> None:
    root, offsets = log_root
    file, pos = seg_of(offsets[10])
    patch(root, file, pos + 4, b"\xde\xad\xbe\xef")
    log = open_log(root)
    scan = log.scan_segment(log.segments[0])
    assert scan.messages == 21
    assert [where(p) for p in scan.problems] == [(SEG0, pos, "bad-magic")]
    assert scan.data_end == scan.blank_position == offsets[21] + 182
    assert scan.first_store_timestamp == 1_700_000_000_000
    assert scan.last_store_timestamp == 1_700_000_021_000


# --- read-only --------------------------------------------------------------------------------------------------


def test_mapped_file_cannot_be_written(log_root) -> None:
    root, _ = log_root
    with MappedFile(root / SEG0, SEG0) as mf:
        with pytest.raises(TypeError):
            mf.buf[0:4] = b"XXXX"
        assert mf.read(0, 4) == struct.pack(">i", 182)
        assert mf.read(-1, 4) == b""


def test_read_only_store_files_stay_unchanged_through_every_lookup(log_root, open_log) -> None:
    """Everything the store offers over a commitlog, with the files and directories made read-only."""
    root, offsets = log_root
    for path in root.rglob("*"):
        path.chmod(0o444 if path.is_file() else 0o555)
    try:
        log = open_log(root)
        walk(log)
        for s in log.segments:
            log.scan_segment(s)
        log.message_at(offsets[7])
        with Store(root) as store:
            store.max_offset()
            store.problems()
            store.find(str(offsets[7]))
    finally:
        for path in root.rglob("*"):
            path.chmod(0o644 if path.is_file() else 0o755)
