"""Where a consume queue ends, and what is damage around that end (spec §4.1).

A broker writes units in order and leaves zeros after the last one (a preallocated file, mostly a hole). The
walk ends at the last real unit before those zeros; a unit that is no unit (phyOffset < 0 or size <= 0) but
not zero either is a ``cq-bad-unit`` finding wherever it lies: stepped over when real units follow, said
before the end when none do. Only with ``abort`` present is the first part of a unit with zeros after it
(a unit being written, or cut by a crash) the end without a word.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from inspector.engine.model.records import Problem
from inspector.engine.read.queues.consumequeue import ConsumeQueue
from parsers.consumequeue import CQ_DEFAULT_FILE_SIZE, CQ_UNIT_SIZE

_UNIT = struct.Struct(">qiq")
REAL = [(100 * k, 50, 7) for k in range(5)]


def _queue(root: Path, units: list[tuple[int, int, int]], *, live: bool = False) -> ConsumeQueue:
    path = root / "consumequeue" / "T" / "0" / f"{0:020d}"
    path.parent.mkdir(parents=True)
    with open(path, "wb") as f:
        f.truncate(CQ_DEFAULT_FILE_SIZE)  # a broker's preallocated file: a hole after the units
        f.write(b"".join(_UNIT.pack(*u) for u in units))
    return ConsumeQueue(root, "T", 0, live=live)


def _walk(cq: ConsumeQueue) -> tuple[list[int], list[tuple[int, str]]]:
    """(queue offsets of the units read, (position, code) of the findings)."""
    read, found = [], []
    for item in cq.units(0):
        if isinstance(item, Problem):
            found.append((item.offset, item.code))
        else:
            read.append(item.queue_offset)
    return read, found


@pytest.mark.parametrize("bad", [(500, 0, 7), (500, 0, 0), (-1, 50, 7), (500, -3, 7), (0, 0, 9)])
def test_a_last_unit_that_is_no_unit_is_a_finding(tmp_path: Path, bad: tuple[int, int, int]) -> None:
    cq = _queue(tmp_path, [*REAL, bad])
    assert _walk(cq) == ([0, 1, 2, 3, 4], [(5 * CQ_UNIT_SIZE, "cq-bad-unit")])
    assert cq.info().max_offset == 5  # the broker's end all the same


def test_a_bad_unit_followed_by_real_ones_is_stepped_over(tmp_path: Path) -> None:
    cq = _queue(tmp_path, [*REAL[:2], (300, 0, 7), *REAL[3:]])
    assert _walk(cq) == ([0, 1, 3, 4], [(2 * CQ_UNIT_SIZE, "cq-bad-unit")])
    assert cq.info().max_offset == 5


def test_the_zero_tail_is_the_end_and_garbage_after_a_gap_is_named(tmp_path: Path) -> None:
    assert _walk(_queue(tmp_path / "clean", REAL)) == ([0, 1, 2, 3, 4], [])
    gap = _queue(tmp_path / "gap", [*REAL, (0, 0, 0), (0, 0, 0), (-5, 0, 3)])
    assert _walk(gap) == ([0, 1, 2, 3, 4], [(7 * CQ_UNIT_SIZE, "cq-bad-unit")])


def test_a_torn_last_unit_is_the_end_only_while_a_broker_may_be_writing(tmp_path: Path) -> None:
    torn = (500, 0, 0)  # the offset written, size and tagsCode not yet
    assert _walk(_queue(tmp_path / "live", [*REAL, torn], live=True)) == ([0, 1, 2, 3, 4], [])
    assert _walk(_queue(tmp_path / "down", [*REAL, torn]))[1] == [(5 * CQ_UNIT_SIZE, "cq-bad-unit")]
    # the tagsCode's store seen before the size's (a live-broker test met it): still the unit in flight
    for seen in [(500, 0, 7), (0, 0, 7)]:
        assert _walk(_queue(tmp_path / f"live{seen}", [*REAL, seen], live=True)) == ([0, 1, 2, 3, 4], []), seen
        assert _walk(_queue(tmp_path / f"down{seen}", [*REAL, seen]))[1] == [(100, "cq-bad-unit")], seen
    # with abort present, damage that is no torn unit is still said
    assert _walk(_queue(tmp_path / "bad", [*REAL, (-1, 50, 7)], live=True))[1] == [(100, "cq-bad-unit")]


def test_many_trailing_bad_units_are_said_in_a_bounded_number_of_lines(tmp_path: Path) -> None:
    cq = _queue(tmp_path, [*REAL, *[(-1, 0, 1)] * 250])
    read, found = _walk(cq)
    assert read == [0, 1, 2, 3, 4] and len(found) == 101
    assert found[-1] == ((5 + 100) * CQ_UNIT_SIZE, "cq-bad-units-more")


def test_a_queue_file_named_off_the_grid_is_said(tmp_path) -> None:
    """Issue 35: a name that does not align with the queue's file size (the broker would look for its units in
    another file) is one finding, not a gap as well."""
    import shutil

    from inspector.engine.read.store.store import Store

    root = tmp_path / "s"
    shutil.copytree(Path(__file__).resolve().parents[5] / "sample_store", root)
    folder = root / "consumequeue" / "OrderEvents" / "0"
    (folder / f"{0:020d}").rename(folder / f"{400:020d}")
    with Store(root) as s:
        found = [(p.file, p.code) for p in s.queue("OrderEvents", 0).units(0) if isinstance(p, Problem)]
    assert found[0] == (f"consumequeue/OrderEvents/0/{400:020d}", "misaligned-cq-file")
    assert "missing-cq-file" not in {code for _, code in found}


def test_file_units_are_the_units_as_they_lie_up_to_the_last_written_one(tmp_path: Path) -> None:
    # a bad unit in the middle is kept (ConsumeQueue.recover decides what it means); the zero tail is not read
    cq = _queue(tmp_path, [*REAL[:2], (-1, 50, 7), *REAL[3:], (0, 0, 0)])
    units = cq.file_units(0)
    assert [tuple(int(x) for x in u) for u in units] == [*REAL[:2], (-1, 50, 7), *REAL[3:]]
    cq.close()  # a copy: usable after the mapping is gone
    assert int(units["physical_offset"][-1]) == REAL[-1][0]
    empty = _queue(tmp_path / "empty", [])
    assert len(empty.file_units(0)) == 0
