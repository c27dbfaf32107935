"""A queue's ends read with pread (``UnitProbe``), never through a mapping, on broker-sized sparse files.

Files are laid out here with ``ConsumeQueueUnit`` (the schema) and made sparse with ``truncate``, like a
broker's preallocated 6,000,000-byte file. The answers are held against the linear reading of the same files
through the mappings (``unit_runs``), and against themselves with the file system's hole information hidden.
"""

from __future__ import annotations

import os
import random
import struct
from pathlib import Path

import pytest

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Problem
from inspector.engine.read.queues import cq_probe
from inspector.engine.read.queues.consumequeue import ConsumeQueue
from inspector.engine.read.queues.cq_probe import UnitProbe
from parsers.consumequeue import CQ_DEFAULT_FILE_SIZE, CQ_UNIT_SIZE, PRE_BLANK_SIZE, ConsumeQueueUnit

_UNIT = struct.Struct(">qiq")  # the schema is slow for 300,000 units: held equal to it below


def unit_bytes(phy: int, size: int, tags: int = 7) -> bytes:
    return _UNIT.pack(phy, size, tags)


def test_the_packer_is_the_schema() -> None:
    for u in [(0, PRE_BLANK_SIZE, 0), (1 << 40, 123, -5), (-1, 0, 1 << 62)]:
        assert unit_bytes(*u) == ConsumeQueueUnit.build(dict(physical_offset=u[0], size=u[1], tags_code=u[2]))


def write_sparse(path: Path, units: list[tuple[int, int, int]], *, at: int = 0,
                 file_size: int = CQ_DEFAULT_FILE_SIZE) -> None:
    """``units`` written from byte ``at`` of a file preallocated as a hole of ``file_size`` bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(file_size)
        f.seek(at)
        f.write(b"".join(unit_bytes(*u) for u in units))


def linear_max(cq: ConsumeQueue) -> int:
    """The exclusive max offset read front to back through the mappings (the reference)."""
    end = 0
    for run in cq.unit_runs(0):
        if not isinstance(run, Problem):
            end = run.queue_offset + len(run)
    return end


def queue_of(root: Path, counts: list[int], pre_blank: int = 0) -> ConsumeQueue:
    """A queue of len(counts) broker-sized files, file i holding counts[i] units (the first ``pre_blank`` of
    file 0 being pre-blank units)."""
    per_file = CQ_DEFAULT_FILE_SIZE // CQ_UNIT_SIZE
    q = 0
    for i, n in enumerate(counts):
        units = []
        for k in range(n):
            blank = i == 0 and k < pre_blank
            units.append((0, PRE_BLANK_SIZE, 0) if blank else (1000 + 100 * (q + k), 90 + k % 7, k))
        write_sparse(root / "consumequeue" / "T" / "0" / f"{i * CQ_DEFAULT_FILE_SIZE:020d}", units)
        q += per_file
    return ConsumeQueue(root, "T", 0)


@pytest.mark.parametrize("count", [1, 2, 203, 204, 205, 410, 5000])
def test_last_unit_found_in_a_sparse_broker_sized_file(tmp_path: Path, count: int) -> None:
    # 204 and 205: the last unit straddles the first page boundary (byte 4080..4100)
    cq = queue_of(tmp_path, [count])
    info = cq.info()
    assert info.max_offset == count == linear_max(cq)
    assert info.min_offset == 0
    last = cq.unit(count - 1)
    assert info.max_physical_end == last.physical_offset + last.size
    cq.close()


def test_info_maps_no_file_and_keeps_no_descriptor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cq = queue_of(tmp_path, [300_000, 12])
    opened: list[UnitProbe] = []
    original = UnitProbe.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(UnitProbe, "__init__", spy)
    info = cq.info()
    assert not cq._maps  # noqa: SLF001 - the listing mapped nothing
    assert len(opened) == 2 and all(p._fd == -1 for p in opened)  # noqa: SLF001 - every descriptor closed
    assert info.max_offset == 300_000 + 12 == linear_max(cq)
    cq.close()


def test_an_empty_last_file_falls_back_to_the_one_before(tmp_path: Path) -> None:
    cq = queue_of(tmp_path, [300_000, 0])
    assert cq.info().max_offset == 300_000 == linear_max(cq)


def test_pre_blank_units_and_the_log_min_offset(tmp_path: Path) -> None:
    queue_of(tmp_path, [40], pre_blank=10)
    info = ConsumeQueue(tmp_path, "T", 0).info()
    assert (info.min_offset, info.max_offset) == (10, 40)
    # units 10.. point at 1000 + 100 * q: those below 2500 are expired (correctMinOffset)
    info = ConsumeQueue(tmp_path, "T", 0, log_min_offset=2500).info()
    assert (info.min_offset, info.max_offset) == (15, 40)


def test_without_hole_information_the_answers_are_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(20)
    counts = [rng.choice([1, 77, 204, 205, 4096, 80_000]) for _ in range(11)] + [299_999]
    want = []
    for i, n in enumerate(counts):
        queue_of(tmp_path / str(i), [n], pre_blank=i % 3)
        want.append(ConsumeQueue(tmp_path / str(i), "T", 0, log_min_offset=1000 + 100 * (i % 5)).info())
    monkeypatch.setattr(cq_probe, "allocated_end_fd", lambda fd: None)
    got = [ConsumeQueue(tmp_path / str(i), "T", 0, log_min_offset=1000 + 100 * (i % 5)).info()
           for i in range(len(counts))]
    assert got == want
    assert [w.max_offset for w in want] == counts


def test_a_file_cut_mid_unit_and_a_small_file(tmp_path: Path) -> None:
    directory = tmp_path / "consumequeue" / "T" / "0"
    directory.mkdir(parents=True)
    (directory / f"{0:020d}").write_bytes(b"".join(unit_bytes(100 * k + 1, 50) for k in range(9)) + b"\1" * 7)
    cq = ConsumeQueue(tmp_path, "T", 0)
    info = cq.info()
    assert info.max_offset == 9
    assert info.max_physical_end == 100 * 8 + 1 + 50


def test_a_probe_of_no_regular_file_says_so_and_keeps_no_descriptor(tmp_path: Path) -> None:
    fifo = tmp_path / f"{0:020d}"
    os.mkfifo(fifo)
    with pytest.raises(StoreError, match="not a regular file"):
        UnitProbe(fifo, "consumequeue/T/0/00000000000000000000")


def test_the_end_is_the_last_real_unit_before_the_zero_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Damaged units (negative offset, zero size, but not all zero) before the zero tail: the queue ends after
    the last real unit, however many bad ones follow it (more than one look-back chunk of 4096 too)."""
    rng = random.Random(22)
    cases = []
    for i in range(24):
        n = rng.choice([1, 3, 204, 205, 5000, 9000])
        units = [(100 * k, 50, 1) for k in range(n)]
        bad = rng.choice([0, 1, 2, 4097, n])  # trailing damaged units
        for k in range(max(0, n - bad), n):
            units[k] = rng.choice([(-1, 50, 1), (100 * k, 0, 1), (0, 0, 9)])
        for _ in range(rng.choice([0, 3])):  # damage in the middle must not hide what follows
            k = rng.randrange(n)
            units[k] = (-5, 0, 3)
        real = [k for k, (phy, size, _) in enumerate(units) if phy >= 0 and size > 0]
        path = tmp_path / str(i) / "consumequeue" / "T" / "0" / f"{0:020d}"
        write_sparse(path, units)
        cases.append((tmp_path / str(i), real[-1] + 1 if real else 0))
    got = [ConsumeQueue(root, "T", 0).info().max_offset for root, _ in cases]
    assert got == [want for _, want in cases]
    monkeypatch.setattr(cq_probe, "allocated_end_fd", lambda fd: None)
    assert [ConsumeQueue(root, "T", 0).info().max_offset for root, _ in cases] == got
