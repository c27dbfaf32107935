"""Many queues' ends in one pass (``cq_bulk.queue_ends``) against each queue's own ``ConsumeQueue.info``.

Queue folders are laid out with the units of ``test_cq_probe`` (sparse broker-sized files): the plain shapes a
broker leaves (answered in bulk, the same answer), and the shapes the bulk pass leaves to the queue (several
files, a zero unit among the units, bytes after the zero tail, a file off its grid or of another length, no
regular file), each checked to be left out rather than answered differently. Then random queues, many at a
time, in one call: every answer equal to the queue's own.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from inspector.engine.read.queues.consumequeue import ConsumeQueue
from inspector.engine.read.queues.cq_bulk import queue_ends
from parsers.consumequeue import CQ_DEFAULT_FILE_SIZE, CQ_UNIT_SIZE, PRE_BLANK_SIZE
from tests.inspector.engine.read.queues.test_cq_probe import write_sparse

SMALL = 2000 * CQ_UNIT_SIZE  # a small file size, so that the random queues can fill files


def _file(root: Path, topic: str, queue_id: int, start: int = 0) -> Path:
    return root / "consumequeue" / topic / str(queue_id) / f"{start:020d}"


def _own(root: Path, key: tuple[str, int], file_size: int | None = None, log_min: int = 0):
    return ConsumeQueue(root, *key, file_size, log_min_offset=log_min).info()


def _check(root: Path, keys: list[tuple[str, int]], *, file_size: int | None = None, log_min: int = 0):
    """The bulk answers, each held equal to the queue's own; returns the answered keys."""
    ends = queue_ends(root, keys, file_size=file_size, log_min_offset=log_min)
    for key, info in ends.infos.items():
        assert info == _own(root, key, file_size, log_min), key
    return set(ends.infos)


def test_plain_queues_are_answered_in_bulk_as_the_queue_answers(tmp_path: Path) -> None:
    write_sparse(_file(tmp_path, "T", 0), [(100 * i, 100, 7) for i in range(5)])
    write_sparse(_file(tmp_path, "T", 1), [])  # an empty queue: its file all hole
    write_sparse(_file(tmp_path, "T", 2), [(0, PRE_BLANK_SIZE, 0)] * 3 + [(500, 90, 1), (590, 90, 1)])
    write_sparse(_file(tmp_path, "T", 3), [(0, 100, 0), (100, 0, 0)])  # offset 0 and tagsCode 0; a torn unit
    # a queue re-created past offset 0: its one file named by its first unit's byte
    write_sparse(_file(tmp_path, "T", 4, CQ_DEFAULT_FILE_SIZE), [(7000, 50, 2), (7050, 50, 2)])
    keys = [("T", q) for q in range(5)]
    assert _check(tmp_path, keys) == set(keys)
    ends = queue_ends(tmp_path, keys)
    assert (ends.infos[("T", 0)].min_offset, ends.infos[("T", 0)].max_offset) == (0, 5)
    assert ends.infos[("T", 0)].max_physical_end == 500
    assert (ends.infos[("T", 1)].min_offset, ends.infos[("T", 1)].max_offset) == (0, 0)
    assert (ends.infos[("T", 2)].min_offset, ends.infos[("T", 2)].max_offset) == (3, 5)
    assert (ends.infos[("T", 3)].min_offset, ends.infos[("T", 3)].max_offset) == (0, 1)
    assert (ends.infos[("T", 4)].min_offset, ends.infos[("T", 4)].max_offset) == (300_000, 300_002)


def test_expired_units_are_skipped_as_correct_min_offset_does(tmp_path: Path) -> None:
    write_sparse(_file(tmp_path, "T", 0), [(100 * i, 100, 7) for i in range(10)])
    write_sparse(_file(tmp_path, "T", 1), [(100 * i, 100, 7) for i in range(3)])  # every message expired
    keys = [("T", 0), ("T", 1)]
    assert _check(tmp_path, keys, log_min=450) == set(keys)
    infos = queue_ends(tmp_path, keys, log_min_offset=450).infos
    assert (infos[("T", 0)].min_offset, infos[("T", 0)].max_offset) == (5, 10)
    assert (infos[("T", 1)].min_offset, infos[("T", 1)].max_offset) == (3, 3)
    assert infos[("T", 1)].max_physical_end == 0


@pytest.mark.parametrize("shape", ["two files", "zero among units", "bytes after the tail", "another length",
                                   "off its grid", "configured size differs", "a directory", "expired after live",
                                   "no folder"])
def test_other_shapes_are_left_to_the_queue(tmp_path: Path, shape: str) -> None:
    units = [(100 * i, 100, 7) for i in range(4)]
    path = _file(tmp_path, "T", 0)
    configured = None
    if shape == "two files":
        write_sparse(path, units, file_size=SMALL)
        write_sparse(_file(tmp_path, "T", 0, SMALL), units, file_size=SMALL)
    elif shape == "zero among units":
        write_sparse(path, [*units[:2], (0, 0, 0), *units[2:]])
    elif shape == "bytes after the tail":
        write_sparse(path, units)
        with open(path, "r+b") as f:
            f.seek(4096 + 100)
            f.write(b"\x01")
    elif shape == "another length":
        write_sparse(path, units, file_size=SMALL + 7)
    elif shape == "off its grid":
        write_sparse(_file(tmp_path, "T", 0, 40), units, file_size=SMALL)
    elif shape == "configured size differs":
        write_sparse(path, units, file_size=SMALL)
        configured = CQ_DEFAULT_FILE_SIZE
    elif shape == "a directory":
        path.mkdir(parents=True)
    elif shape == "expired after live":
        write_sparse(path, [(500, 100, 7), (100, 100, 7), (600, 100, 7)])
    else:
        (tmp_path / "consumequeue" / "T").mkdir(parents=True)
    ends = queue_ends(tmp_path, [("T", 0)], file_size=configured, log_min_offset=300)
    assert ends.infos == {}


def test_peek_hands_back_the_units_asked_for(tmp_path: Path) -> None:
    write_sparse(_file(tmp_path, "T", 0), [(100 * i, 100, i) for i in range(6)])
    ends = queue_ends(tmp_path, [("T", 0)], peek=lambda info: [info.min_offset, 3, info.max_offset, 10**9])
    # units it holds, zeros past them inside the file, nothing past the file (another file would hold it)
    assert ends.units[("T", 0)] == {0: (0, 100, 0), 3: (300, 100, 3), 6: (0, 0, 0)}
    assert ends.files[("T", 0)] == ("consumequeue/T/0/00000000000000000000", 0)


def test_random_queues_in_one_call_answer_as_each_queue(tmp_path: Path) -> None:
    rng = random.Random(30)
    keys = []
    for q in range(120):
        n = rng.choice([0, 1, 2, 5, 40, 300, 1990])
        phys = sorted(rng.randrange(0, 1 << 20) for _ in range(n))
        units = [(p, rng.randrange(1, 500), rng.randrange(-2, 1 << 40)) for p in phys]
        blanks = rng.choice([0, 0, 3])
        units = [(0, PRE_BLANK_SIZE, 0)] * blanks + units
        if units and rng.random() < 0.2:  # damage: a unit made bad somewhere
            i = rng.randrange(len(units))
            units[i] = rng.choice([(0, 0, 0), (-5, 10, 0), (10, -1, 3), (7, 0, 0)])
        start = rng.choice([0, 0, 0, SMALL])
        write_sparse(_file(tmp_path, "R", q, start), units, file_size=SMALL)
        keys.append(("R", q))
    for log_min in (0, 1 << 19):
        answered = _check(tmp_path, keys, log_min=log_min)
        assert len(answered) > 60  # the plain ones are answered here, not left to the queues


def test_a_written_part_too_large_for_one_read_is_left_to_the_queue(tmp_path: Path) -> None:
    write_sparse(_file(tmp_path, "T", 0), [(100 * i, 100, 7) for i in range(4000)])  # 80,000 bytes of units
    assert queue_ends(tmp_path, [("T", 0)]).infos == {}



def test_the_written_part_is_bounded_by_one_seek_past_the_allocated_bytes(tmp_path: Path, monkeypatch) -> None:
    """Where no data lies at or past the allocated bytes, they bound the content: one ``lseek``. Where st_blocks
    counts fewer bytes than the data holds (compression), data is found past them and the hole is looked for."""
    import os

    import inspector.engine.read.queues.cq_bulk as cq_bulk

    path = _file(tmp_path, "T", 0)
    write_sparse(path, [(100 * i, 100, 7) for i in range(300)])  # 6,000 bytes: two 4 KiB blocks
    fd = os.open(path, os.O_RDONLY)
    try:
        if os.lseek(fd, 0, os.SEEK_HOLE) >= os.fstat(fd).st_size:
            pytest.skip("this file system keeps no holes")
        allocated = os.fstat(fd).st_blocks * 512
        calls, lseek = [], os.lseek
        monkeypatch.setattr(os, "lseek", lambda *a: calls.append(a) or lseek(*a))
        assert cq_bulk._written_end(fd, SMALL * 3, allocated) == allocated and len(calls) == 1
        assert cq_bulk._written_end(fd, SMALL * 3, 4096) == 8192  # fewer than the data: the hole's place
        assert cq_bulk._written_end(fd, SMALL * 3, 3 * 4096) == 3 * 4096  # more (metadata blocks): still a bound
    finally:
        os.close(fd)
    assert _check(tmp_path, [("T", 0)]) == {("T", 0)}
