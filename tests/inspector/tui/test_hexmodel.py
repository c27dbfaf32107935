"""The hex view's bookkeeping without Textual: folded display lines and region parities."""

from __future__ import annotations

from inspector.engine import Store
from inspector.engine.present.layout import Region, regions
from inspector.tui.hexmodel import FOLD_MIN_ROWS, ROW, RegionMap, SegmentLines, field_at


def test_lines_fold_long_zero_runs_and_map_both_ways():
    lines = SegmentLines(65536, 4096)
    assert lines.line_count == 256
    assert not lines.fold_zero_run(65536 + 100, 65536 + 100 + ROW * FOLD_MIN_ROWS)  # too short once aligned
    assert lines.fold_zero_run(65536 + 1000, 65536 + 4096)  # a zero tail
    (a, b), = lines.folds
    assert a == 65536 + 1008 + ROW and b == 65536 + 4096 - ROW  # first and last zero rows stay visible
    assert lines.line_count == 256 - (b - a) // ROW + 1
    for n in range(lines.line_count):
        line = lines.line(n)
        assert lines.line_of(line.start) == n
        if line.kind == "fold":
            assert (line.start, line.end) == (a, b) and line.hidden_bytes == b - a
            assert lines.line_of(a + 500) == n  # a hidden byte shows on the fold line
    assert lines.visible(a + 37, 1) == b + 37 % ROW  # moving down jumps over the fold, same column
    assert lines.visible(a + 37, -1) == a - ROW + 37 % ROW
    assert not lines.fold_zero_run(65536 + 1000, 65536 + 4096)  # the same run again changes nothing


def _chunk(*bounds: int) -> list[Region]:
    return [Region("message", a, b) for a, b in zip(bounds, bounds[1:], strict=False)]


def test_region_parities_alternate_however_the_windows_arrive():
    rmap = RegionMap()
    rmap.add(_chunk(0, 10, 25, 40))
    rmap.add(_chunk(100, 120, 130))  # not connected yet: starts with parity 0 on its own
    rmap.add(_chunk(40, 55, 70, 100))  # joins both: the later run must be flipped to keep alternating
    parities = [rmap.at(r.start)[1] for r in rmap.regions()]
    assert [r.start for r in rmap.regions()] == [0, 10, 25, 40, 55, 70, 100, 120]
    assert all(p != q for p, q in zip(parities, parities[1:], strict=False))
    assert rmap.covers(0, 130) and not rmap.covers(0, 131)
    assert rmap.first_gap(0, 200) == 130 and rmap.last_gap(0, 200) == 200


def test_region_map_forgets_far_regions_when_full():
    rmap = RegionMap(cap=40)
    bounds = list(range(0, 10 * 100 + 1, 10))
    for i in range(0, 100, 10):
        rmap.add(_chunk(*bounds[i : i + 11]), focus=bounds[i])
    assert len(rmap) <= 40
    assert rmap.at(995) is not None and rmap.at(5) is None  # kept near the focus, forgot the start


def test_real_regions_from_the_sample_store():
    from tui_helpers import SAMPLE

    with Store(SAMPLE) as store:
        found = regions(store.commitlog, 0, 2000)
        rmap = RegionMap()
        rmap.add(found)
        first = found[0]
        assert first.kind == "message" and rmap.at(0)[0] == first
        index, field = field_at(first, 4)
        assert (index, field.name) == (1, "MAGICCODE")
        assert rmap.at(first.end)[1] != rmap.at(0)[1]
