"""Segment layout: a file renamed off the segment grid is one finding, not a wrong size and a gap (issue 35)."""

from __future__ import annotations

from inspector.engine.model.records import Segment
from inspector.engine.read.segment_files import infer_segment_size, layout_problems

SIZE = 65536


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
