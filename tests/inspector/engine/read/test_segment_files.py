"""The segment size inferred from a commitlog's files is one a broker can have (read/segment_files.py)."""

from __future__ import annotations

from inspector.engine.model.arguments import SEGMENT_SIZE
from inspector.engine.model.records import Segment
from inspector.engine.read.segment_files import infer_segment_size, layout_problems

TIB = 1 << 40


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
