"""Zero scans of mapped files (read/mapped.py): the same answers over a hole, over written-out zeros and over plain
bytes; long zero runs remembered per file, and forgotten when the file changes."""

from __future__ import annotations

import os
import random

import pytest

from inspector.engine.read.commitlog import mapped
from inspector.engine.read.commitlog.mapped import MappedFile, data_end, first_nonzero, is_all_zero


def _naive_first(data: bytes, start: int, end: int) -> int:
    end = min(end, len(data))
    return next((i for i in range(start, end) if data[i]), max(start, end))


def _naive_end(data: bytes, start: int, end: int) -> int:
    end = min(end, len(data))
    return next((i + 1 for i in range(end - 1, start - 1, -1) if data[i]), start)


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks, the "scan at once" bound and the remembered-run length at a few hundred bytes, so files of a few KiB
    take every path a 1 GiB tail takes."""
    monkeypatch.setattr(mapped, "ZERO_CHUNK", 256)
    monkeypatch.setattr(mapped, "_TAIL_FIRST", 8)  # backward windows 8, 64, then chunks (as 4 KiB .. 4 MiB)
    monkeypatch.setattr(mapped, "_SMALL", 64)
    monkeypatch.setattr(mapped, "_LEARN", 512)


def _layout(seed: int, size: int) -> bytes:
    rng = random.Random(seed)
    data = bytearray(size)
    for _ in range(rng.randrange(0, 6)):
        at, n = rng.randrange(size), rng.randrange(1, 40)
        piece = bytes(rng.randrange(0, 256) for _ in range(n))[: size - at]
        data[at : at + len(piece)] = piece
    return bytes(data)


def _write(path, data: bytes, *, sparse: bool) -> None:
    """``data`` as a file: with its zero pages left as holes (``sparse``), or every byte written."""
    with open(path, "wb") as f:
        if not sparse:
            f.write(data)
            return
        f.truncate(len(data))
        page = 4096
        for at in range(0, len(data), page):
            piece = data[at : at + page]
            if piece.strip(b"\0"):
                f.seek(at)
                f.write(piece)


@pytest.mark.parametrize("seed", range(12))
def test_the_scans_agree_with_a_byte_by_byte_look(tmp_path, small_chunks, seed):
    size = 3 * 4096 + random.Random(seed).randrange(4096)
    data = _layout(seed, size)
    rng = random.Random(seed + 100)
    bounds = [(0, size), (1, size - 1), (size, size)] + [
        tuple(sorted((rng.randrange(size + 1), rng.randrange(size + 1)))) for _ in range(20)]
    for sparse in (True, False):
        path = tmp_path / f"f{sparse}"
        _write(path, data, sparse=sparse)
        with MappedFile(path, path.name) as mf:
            for _ in range(2):  # the second time from what the first remembered
                for start, end in bounds:
                    assert first_nonzero(mf.buf, start, end) == _naive_first(data, start, end), (sparse, start, end)
                    assert data_end(mf, start, end) == _naive_end(data, start, end), (sparse, start, end)
                    assert is_all_zero(mf.buf, start, end) == (_naive_first(data, start, end) >= min(end, size))
    for start, end in bounds:  # plain buffers: the same numpy scans, no file behind them
        assert first_nonzero(data, start, end) == _naive_first(data, start, end)
        assert data_end(bytearray(data), start, end) == _naive_end(data, start, end)


def test_a_backward_scan_looks_at_the_end_first(monkeypatch):
    """Data ending just before ``end`` (a queue file's last unit) is found in the first small window: no mask of
    the whole chunk before it (a 1.7 MB written queue file was masked and copied whole)."""
    data = bytearray(3 << 20)
    data[100] = data[len(data) - 30] = 1
    looked = []
    real = mapped._any

    def counting(piece):
        looked.append(piece.size)
        return real(piece)

    monkeypatch.setattr(mapped, "_any", counting)
    assert data_end(data, 0, len(data)) == len(data) - 29
    assert looked == [mapped._TAIL_FIRST]
    looked.clear()
    data[len(data) - 30] = 0  # then only the byte at 100: windows growing to the chunk, every byte looked at once
    assert data_end(data, 0, len(data)) == 101
    assert sum(looked) == len(data) and max(looked) <= mapped.ZERO_CHUNK


def test_a_written_out_zero_tail_is_scanned_once(tmp_path, small_chunks, monkeypatch):
    """A copy with its preallocated tail written out as zeros: the first question reads it (in chunks), later
    ones, forwards or backwards, answer from the run it remembered."""
    data = b"\x07" * 100 + bytes(8000)
    path = tmp_path / "copy"
    _write(path, data, sparse=False)
    scanned = []
    real = mapped._scan_forward

    def counting(arr, start, end, release=None):
        scanned.append(end - start)
        return real(arr, start, end, release)

    monkeypatch.setattr(mapped, "_scan_forward", counting)
    with MappedFile(path, "copy") as mf:
        assert first_nonzero(mf.buf, 100, len(data)) == len(data)
        assert sum(scanned) == len(data) - 100
        assert first_nonzero(mf.buf, 500, len(data)) == len(data)
        assert data_end(mf, 0, len(data)) == 100
        assert sum(scanned) == len(data) - 100


def test_what_was_remembered_is_forgotten_when_the_file_changes(tmp_path, small_chunks):
    """A broker writing into the tail changes the file's modification time: the tail is looked at again."""
    data = b"\x07" * 100 + bytes(8000)
    path = tmp_path / "live"
    _write(path, data, sparse=False)
    with MappedFile(path, "live") as mf:
        assert first_nonzero(mf.buf, 100, len(data)) == len(data)
        with open(path, "r+b") as f:
            f.seek(5000)
            f.write(b"\x01")
        st = os.stat(path)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # a later write, whatever the clock
        assert first_nonzero(mf.buf, 100, len(data)) == 5000
        assert data_end(mf, 0, len(data)) == 5001


def test_a_hole_is_not_read(tmp_path, monkeypatch):
    """The sparse original: a tail that is a hole costs no scan at all (where the file system tells holes)."""
    path = tmp_path / "sparse"
    with open(path, "wb") as f:
        f.write(b"\x07" * 100)
        f.truncate(64 << 20)
    extents = mapped.data_extents(path)
    if extents is None or extents[-1][1] >= 64 << 20:
        pytest.skip("this file system does not report holes")
    scanned = []
    real = mapped._scan_forward
    monkeypatch.setattr(mapped, "_scan_forward", lambda arr, s, e, r=None: scanned.append(e - s) or real(arr, s, e, r))
    with MappedFile(path, "sparse") as mf:
        assert first_nonzero(mf.buf, 100, mf.size) == mf.size
        assert data_end(mf, 0, mf.size) == 100
    assert sum(scanned) < 1 << 20


def _has_zero_window(data: bytes, start: int, end: int, window: int) -> bool:
    """Whether an aligned all-zero window of ``window`` bytes lies in data[start:end]."""
    lo = -(-start // window) * window
    return any(not data[at : at + window].strip(b"\0") for at in range(lo, end - window + 1, window))


@pytest.mark.parametrize("seed", range(12))
def test_the_bounded_scans_agree_with_the_exact_ones_or_say_where_they_stopped(tmp_path, small_chunks, monkeypatch,
                                                                                seed):
    """first_nonzero_within: the exact answer, or (p, False) with only zeros before p and no more than the budget
    read; data_end_bounded: the exact data end, or, past a long zero tail written out, the end of the data before
    the first aligned zero window (never more than the exact one)."""
    from inspector.engine.read.commitlog.mapped import data_end_bounded, first_nonzero_within

    monkeypatch.setattr(mapped, "_WINDOW", 64)
    size = 3 * 4096 + random.Random(seed).randrange(4096)
    data = _layout(seed, size)
    rng = random.Random(seed + 200)
    bounds = [(0, size), (1, size - 1)] + [tuple(sorted((rng.randrange(size + 1), rng.randrange(size + 1))))
                                           for _ in range(20)]
    for sparse in (True, False):
        path = tmp_path / f"f{sparse}"
        _write(path, data, sparse=sparse)
        for start, end in bounds:
            for budget in (100, 1000, 1 << 20):
                with MappedFile(path, path.name) as mf:  # fresh: nothing remembered
                    found, decided = first_nonzero_within(mf.buf, start, end, budget)
                    exact = _naive_first(data, start, end)
                    if decided:
                        assert found == exact, (sparse, start, end, budget)
                    else:
                        assert found <= exact and not data[start:found].strip(b"\0") and found - start >= budget
                with MappedFile(path, path.name) as mf:
                    bounded, exact = data_end_bounded(mf, start, end, budget), _naive_end(data, start, end)
                    assert bounded <= exact and (bounded == start or data[bounded - 1] != 0)  # a data end
                    if bounded != exact:  # it stopped before a zero window, in a tail longer than the budget
                        assert _has_zero_window(data, start, exact, 64), (sparse, start, end, budget)
                    if not _has_zero_window(data, start, exact, 64):
                        assert bounded == exact, (sparse, start, end, budget)
