"""Segment layout (read/segment_files.py): the inferred segment size is one a broker can have; a file renamed off
the segment grid is one finding, not a wrong size and a gap (issue 35)."""

from __future__ import annotations

from inspector.engine.model.arguments import SEGMENT_SIZE
from inspector.engine.model.records import Segment
from inspector.engine.read.commitlog.segment_files import infer_segment_size, layout_problems

TIB = 1 << 40
SIZE = 65536


def test_files_sparse_extended_past_a_java_int_make_no_segment_size():
    starts = [0, 4096, 8192, 12288]
    assert infer_segment_size([TIB] * 4, starts) == 4096  # the names still say 4096
    assert infer_segment_size([TIB], [0]) is None
    assert infer_segment_size([4096, TIB, 4096], [0, 4096, 8192]) == 4096
    assert infer_segment_size([SEGMENT_SIZE.high, SEGMENT_SIZE.high + 1], [0]) == SEGMENT_SIZE.high


def test_a_file_past_any_segment_size_is_named():
    segments = [Segment(f"{0:020d}", f"commitlog/{0:020d}", 0, TIB)]
    found = layout_problems([], segments, 0)
    assert [(p.file, p.offset, p.code, p.severity) for p in found] == [
        ("commitlog/00000000000000000000", 0, "wrong-segment-size", "error")]
    assert str(SEGMENT_SIZE.high) in found[0].reason
    assert layout_problems([], [Segment(f"{0:020d}", f"commitlog/{0:020d}", 0, 1 << 30)], 0) == []


def _segments(*starts: int) -> list[Segment]:
    return [Segment(f"{s:020d}", f"data/{s:020d}", s, SIZE) for s in starts]


def test_a_renamed_file_does_not_change_the_size() -> None:
    starts = [0, 65536, 131000, 196608]
    assert infer_segment_size([SIZE] * 4, starts) == SIZE


def test_a_renamed_file_is_misaligned_and_its_gap_is_not_said_again() -> None:
    found = [(p.file, p.code) for p in layout_problems([], _segments(0, 65536, 131000, 196608), SIZE)]
    assert ("data/00000000000000131000", "misaligned-segment") in found
    assert ("data/00000000000000131000", "overlap") in found  # it does overlap the one before
    assert not any(code in ("missing-segment", "wrong-segment-size") for _, code in found)


def test_a_log_on_its_grid_has_no_misaligned_file() -> None:
    assert layout_problems([], _segments(0, 65536, 131072), SIZE) == []
    # a missing middle segment is still said
    assert [p.code for p in layout_problems([], _segments(0, 131072), SIZE)] == ["missing-segment"]
