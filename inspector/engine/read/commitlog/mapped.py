"""Read-only memory-mapped files: the only way the engine reads store data.

Files are opened O_RDONLY and mapped with ACCESS_READ, so the engine cannot
change what it inspects. An empty file maps to ``b""`` (mmap refuses length 0).

Pages of a mapped file count in the process's resident memory once touched. Long sequential scans call
:meth:`MappedFile.release` behind themselves (``madvise(MADV_DONTNEED)``: the kernel drops our mapping of
those pages, the page cache keeps them, a later read maps them again), so resident memory stays flat
however big the store is.
"""

from __future__ import annotations

import bisect
import errno
import mmap
import os
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from inspector.engine.model.errors import StoreError
from inspector.engine.model.files import refusal
from inspector.engine.read.store.strays import offset_name

PAGE = mmap.PAGESIZE
_CAN_RELEASE = hasattr(mmap, "MADV_DONTNEED") and hasattr(mmap.mmap, "madvise")


class PageReleaser:
    """Releases a mapped file's pages behind a sequential reader, every ``step`` bytes."""

    def __init__(self, mf: MappedFile, position: int = 0, step: int = 8 << 20):
        self.mf = mf
        self.done = position
        self.step = step

    def advance(self, position: int) -> None:
        if position - self.done >= self.step:
            self.mf.release(self.done, position)
            self.done = position // PAGE * PAGE

    def finish(self, position: int) -> None:
        self.mf.release(self.done, position)
        self.done = max(self.done, position // PAGE * PAGE)


class MappedFile:
    """A read-only view of one file. ``buf`` supports slicing and ``find`` like bytes."""

    def __init__(self, path: Path, rel: str):
        self.path = path
        self.rel = rel
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # NONBLOCK: a FIFO in the store must not hang us
        except OSError as e:
            raise StoreError(f"cannot open: {e.strerror}", rel) from e
        try:
            st = os.fstat(fd)
            why = refusal(st)  # the guarded open's question: a device or a FIFO is never mapped
            if why is not None:
                raise StoreError(why, rel)
            self.size = st.st_size
            self._mm: mmap.mmap | None = None
            if self.size:
                self._mm = _Mapping(fd, 0, access=mmap.ACCESS_READ)
                self._mm.zero_runs = ZeroRuns(self)
        except (OSError, ValueError) as e:
            raise StoreError(f"cannot map: {e}", rel) from e
        finally:
            os.close(fd)

    @property
    def buf(self) -> mmap.mmap | bytes:
        return self._mm if self._mm is not None else b""

    @property
    def array(self) -> np.ndarray:
        """The whole file as a read-only uint8 numpy array (a view of the mapping, no copy)."""
        arr = self.__dict__.get("_array")
        if arr is None:
            arr = np.frombuffer(self._mm, dtype=np.uint8) if self._mm is not None else np.zeros(0, np.uint8)
            arr.flags.writeable = False  # always read-only (one compiled kernel signature)
            self._array = arr
        return arr

    def release(self, start: int, end: int) -> None:
        """Drop the pages wholly inside [start, end) from this process's mapping (contents are unchanged)."""
        if self._mm is None or not _CAN_RELEASE:
            return
        first = -(-max(start, 0) // PAGE) * PAGE
        last = min(end, self.size) // PAGE * PAGE
        if last > first:
            try:
                self._mm.madvise(mmap.MADV_DONTNEED, first, last - first)
            except (OSError, ValueError):
                pass

    def advise_sequential(self) -> None:
        """Tell the kernel the file will be read front to back (larger read-ahead)."""
        self._advise("MADV_SEQUENTIAL")

    def advise_random(self) -> None:
        """Tell the kernel the file is read a unit here and there: no read-around on a fault (in a sparse
        preallocated file each fault would otherwise zero-fill the page cache around it, ~128 KB a fault)."""
        self._advise("MADV_RANDOM")

    def advise_normal(self) -> None:
        """The kernel's default read-ahead again (after :meth:`advise_random`)."""
        self._advise("MADV_NORMAL")

    def _advise(self, name: str) -> None:
        if self._mm is not None and hasattr(mmap, name):
            try:
                self._mm.madvise(getattr(mmap, name))
            except (OSError, ValueError):
                pass

    def read(self, position: int, length: int) -> bytes:
        """Bytes [position, position+length), clipped to the file."""
        if position < 0:
            return b""
        return self.buf[position : position + length]

    def close(self) -> None:
        if self._mm is not None:
            self.__dict__.pop("_array", None)
            try:
                self._mm.close()
            except BufferError:
                pass  # a numpy view (e.g. a MessageBatch) still uses it: unmapped when the last view goes
            self._mm = None

    def __enter__(self) -> MappedFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def offset_named_files(directory: Path) -> list[tuple[int, Path]]:
    """Files named by a 20-digit offset, ascending (a mapped file queue)."""
    return offset_named_entries(directory)[0]


def offset_named_entries(directory: Path) -> tuple[list[tuple[int, Path]], list[Path]]:
    """``offset_named_files`` plus the entries with such a name that are no regular file (a directory, a
    pipe, a dangling link), by name: a queue skips them, a caller may say so."""
    found, others = [], []
    try:
        entries = os.scandir(directory)  # scandir: no Path and no stat per entry (thousands of queues)
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    with entries:
        for entry in entries:
            start = offset_name(entry.name)  # other names (a letter, 25 digits, past 2^63) are strays.py's findings
            if start is not None:
                try:
                    regular = entry.is_file()
                except OSError:
                    regular = False
                if regular:
                    found.append((start, Path(entry.path)))
                else:
                    others.append(Path(entry.path))
    found.sort()
    others.sort(key=lambda e: e.name)
    return found, others


ZERO_CHUNK = 4 << 20  # bytes looked at per numpy pass of a zero scan (and released behind it)
_TAIL_FIRST = 4 << 10  # the first window of a backward zero scan (then x8 a window, up to ZERO_CHUNK)
_SMALL = 64 << 10  # a range this short is scanned at once: no hole look-up, nothing remembered
_LEARN = 16 << 20  # zero runs at least this long are remembered (a preallocated tail), shorter ones not


def _view(buf) -> np.ndarray:
    return buf if isinstance(buf, np.ndarray) else np.frombuffer(buf, dtype=np.uint8)


def _any(piece: np.ndarray) -> bool:
    """Whether ``piece`` (uint8) holds a non-zero byte: 8 bytes at a time (count_nonzero is vectorised)."""
    n = piece.size & ~7
    return bool(n and np.count_nonzero(piece[:n].view(np.uint64))) or bool(piece[n:].any())


def _scan_forward(arr: np.ndarray, start: int, end: int, release=None) -> int:
    """First non-zero byte of arr[start:end] (or ``end``), ZERO_CHUNK bytes per numpy pass; ``release(a, b)``
    drops the pages of each zero chunk behind the scan (a 1 GiB zero tail never stays resident)."""
    pos = start
    while pos < end:
        stop = min(end, (pos // ZERO_CHUNK + 1) * ZERO_CHUNK)  # chunk-aligned after the first: 8-byte aligned views
        piece = arr[pos:stop]
        if _any(piece):
            nonzero = piece != 0  # one read of the bytes: a live broker may be writing them
            if nonzero.any():
                return pos + int(np.argmax(nonzero))
        if release is not None:
            release(pos, stop)
        pos = stop
    return end


def _scan_backward(arr: np.ndarray, start: int, end: int, release=None) -> int:
    """One past the last non-zero byte of arr[start:end] (``start`` when all are zero), scanning backwards.

    A copy of the bytes is looked at (a bool mask of one chunk, not flatnonzero: 8 bytes per non-zero byte
    would add 128 MB of peak RSS for a 16 MiB chunk of data), as a live broker may be writing them."""
    pos = end
    window = _TAIL_FIRST
    while pos > start:
        # the data usually ends just before ``end`` (a queue file's last unit, a segment's last record): a small
        # window first, growing eightfold up to a chunk, so that is found without a mask (and a reversed copy)
        # of the whole chunk; a long zero tail costs at most a few windows more than whole chunks did
        lo = max(start, (pos - 1) // ZERO_CHUNK * ZERO_CHUNK, pos - window)
        window = min(window * 8, ZERO_CHUNK)
        piece = arr[lo:pos]
        if _any(piece):
            nonzero = piece != 0
            if nonzero.any():
                return pos - int(np.argmax(nonzero[::-1]))
        if release is not None:
            release(lo, pos)
        pos = lo
    return start


TAIL_BUDGET = 16 << 20  # written bytes a bounded look at a zero tail reads before it stops (holes cost nothing)
_WINDOW = 64 << 10  # an aligned all-zero window this long is where a look from the front takes the data to end


def first_nonzero_within(buf, start: int, end: int, budget: int = TAIL_BUDGET) -> tuple[int, bool]:
    """(position, True): the first non-zero byte of [start, end), or ``end``; or (position, False) when more than
    ``budget`` bytes written out as zeros would have to be read to say (holes and known zero runs are free):
    [start, position) holds only zeros, nothing after it was looked at. A copied store's 1 GiB zero tail is not
    read to answer a question about the data before it."""
    stop = min(end, len(buf))
    if start >= stop:
        return end, True
    zeros = getattr(buf, "zero_runs", None)
    if zeros is not None and stop - start > _SMALL:
        found, decided = zeros.first_nonzero_within(start, stop, budget)
    else:
        limit = min(stop, start + max(budget, _SMALL))
        found = _scan_forward(_view(buf), start, limit)
        decided = found < limit or limit == stop
    if not decided:
        return found, False
    return (end if found >= stop else found), True


def data_end_bounded(buf, start: int, end: int, budget: int = 16 * _WINDOW) -> int:
    """:func:`data_end` without reading a long zero tail written out: when more than ``budget`` written zero
    bytes end the range (1 MiB: a broker's own active segment has a hole there, a full one data), the data is taken to end before the first aligned all-zero window of 64 KiB read from
    ``start`` (a copied segment holding little data: its data read, not its GiB of zeros). On a sound segment that
    is where the data ends; a zero window inside the data only makes the answer smaller (a walk bounded by it
    goes on past it the careful way, then asks again from there)."""
    if isinstance(buf, MappedFile):
        buf = buf.buf
    end = min(end, len(buf))
    zeros = getattr(buf, "zero_runs", None)
    if zeros is None or end - start <= budget:
        return data_end(buf, start, end)
    found, decided = zeros.data_end_within(start, end, budget)
    return found if decided else zeros.data_end_from_front(start, found)


def is_all_zero(buf, start: int, end: int) -> bool:
    """True when buf[start:end] holds only zero bytes (a mapped file's holes and known zero runs are not read)."""
    return first_nonzero(buf, start, end) >= end


def first_nonzero(buf, start: int, end: int) -> int:
    """Position of the first non-zero byte in [start, end), or ``end``. A mapped file's buffer (``MappedFile.buf``)
    skips its holes and the zero runs already scanned (:class:`ZeroRuns`); anything else is scanned with numpy."""
    stop = min(end, len(buf))  # past the buffer: no byte, so none non-zero
    if start >= stop:
        return end
    zeros = getattr(buf, "zero_runs", None)
    if zeros is not None and stop - start > _SMALL:
        found = zeros.first_nonzero(start, stop)
    else:
        found = _scan_forward(_view(buf), start, stop)
    return end if found >= stop else found


def data_end(buf, start: int, end: int) -> int:
    """One past the last non-zero byte of buf[start:end] (``start`` when all are zero), scanning backwards; a
    :class:`MappedFile` (or its buffer) skips holes and known zero runs.

    A complete record never ends in a zero byte (its properties end with 0x02, or its topic with a
    character), so in the active segment a record that reaches past this point is still being written.
    """
    if isinstance(buf, MappedFile):
        buf = buf.buf
    end = min(end, len(buf))
    if start >= end:
        return start
    zeros = getattr(buf, "zero_runs", None)
    if zeros is not None and end - start > _SMALL:
        return zeros.data_end(start, end)
    return _scan_backward(_view(buf), start, end)


class _Mapping(mmap.mmap):
    """A read-only mapping that carries its file's :class:`ZeroRuns` (``zero_runs``), so the zero scans above
    skip holes and remember zero runs whoever hands them the buffer."""

    zero_runs: ZeroRuns


class ZeroRuns:
    """What this process knows of one mapped file's zero bytes: its holes (SEEK_DATA/SEEK_HOLE: never read) and
    the long zero runs already scanned, so a preallocated tail written out as zeros (a store copied with
    ``scp``, plain ``tar`` or ``cp --sparse=never``) is scanned once, in numpy chunks with its pages released
    behind the scan, whatever asks about it next (the walk's data end, the careful step at the end of the
    log, the hex view's zero region, each web request).

    What is remembered is forgotten when the file's size or modification time changes (a broker appending);
    a scan holds a lock, so concurrent requests for the same tail wait for one scan and use its answer."""

    def __init__(self, mf: MappedFile) -> None:
        self.path = mf.path
        self._file = weakref.ref(mf)  # not the file itself: its mapping holds this (no cycle keeping it mapped)
        self.runs: list[tuple[int, int]] = []  # sorted, disjoint [start, end) ranges known to be zero
        self.stamp: tuple[int, int] | None = None
        self.lock = threading.Lock()

    def _mapped(self) -> MappedFile:
        mf = self._file()
        if mf is None or mf._mm is None:
            raise StoreError("the file is closed", self.path.name)
        return mf

    def first_nonzero(self, start: int, end: int) -> int:
        return self.first_nonzero_within(start, end, None)[0]

    def first_nonzero_within(self, start: int, end: int, budget: int | None) -> tuple[int, bool]:
        """(first non-zero position or ``end``, True), or (where the look stopped, False) once ``budget`` written
        bytes were read (None: no bound)."""
        return self._look(start, end, budget, backward=False)

    def data_end(self, start: int, end: int) -> int:
        return self.data_end_within(start, end, None)[0]

    def data_end_within(self, start: int, end: int, budget: int | None) -> tuple[int, bool]:
        """(one past the last non-zero byte of [start, end), or ``start``; True), or (where the backward look
        stopped, False) once ``budget`` written bytes were read: [that position, end) holds only zeros."""
        return self._look(start, end, budget, backward=True)

    def _look(self, start: int, end: int, budget: int | None, backward: bool) -> tuple[int, bool]:
        """The zero look of both directions over the pieces :meth:`_unread` gives, remembering the zero runs."""
        mf = self._mapped()
        arr = mf.array
        with self.lock:
            self._fresh()
            for piece in self._unread(start, end, budget, arr.size, backward):
                if isinstance(piece, int):
                    return piece, False
                lo, hi = piece
                release = mf.release if hi - lo > _SMALL else None
                if backward:
                    found = _scan_backward(arr, lo, hi, release)
                    self._learn(found, hi)
                    if found > lo:
                        return found, True
                else:
                    found = _scan_forward(arr, lo, hi, release)
                    self._learn(lo, found)
                    if found < hi:
                        return found, True
            return (start if backward else end), True

    def _unread(self, start: int, end: int, budget: int | None, size: int,
                backward: bool) -> Iterator[tuple[int, int] | int]:
        """The pieces of [start, end) a zero scan has to read, nearest first (from ``start``, or from ``end``
        backwards): holes (the file's extents, SEEK_DATA/SEEK_HOLE) and the zero runs known so far are skipped,
        and each piece is cut to what is left of ``budget`` (None: no bound). Once the budget is spent, the
        position where the look stopped (an int) is the last thing given. The caller scans each piece whole or
        stops; the runs it learns are seen by the next step, as they are looked up afresh each time."""
        extents = data_extents(self.path)
        if extents is None:
            extents = [(0, size)]
        spent = 0
        for lo, hi in reversed(extents) if backward else extents:
            lo, hi = max(lo, start), min(hi, end)
            pos = hi if backward else lo
            while lo < hi and (pos > lo if backward else pos < hi):
                known = self._run_before(pos) if backward else self._run_at(pos)
                if known is not None:
                    pos = max(lo, known) if backward else min(hi, known)
                    continue
                if budget is not None and spent >= budget:
                    yield pos
                    return
                left = 1 << 63 if budget is None else budget - spent
                if backward:
                    stop = max(lo, self._prev_run_end(pos), pos - left)
                    yield stop, pos
                else:
                    stop = min(hi, self._next_run(pos), pos + left)
                    yield pos, stop
                spent += abs(stop - pos)
                pos = stop

    def data_end_from_front(self, start: int, end: int) -> int:
        """One past the last non-zero byte before the first aligned all-zero window of _WINDOW bytes in
        [start, end) (or before ``end``, or the first hole), reading from ``start`` in ZERO_CHUNK pieces whose pages
        are released behind the look: the data of a segment whose long zero tail is written out, not its tail."""
        mf = self._mapped()
        arr = mf.array
        fd = _open_quietly(self.path)
        try:
            data, hole = _extent_from(fd, start, arr.size)
        finally:
            if fd is not None:
                os.close(fd)
        if data > start:  # a hole from ``start``: no data there
            return start
        limit = min(end, hole)
        pos = start
        while pos < limit:
            stop = min(limit, (pos // ZERO_CHUNK + 1) * ZERO_CHUNK)
            lo, hi = -(-pos // _WINDOW) * _WINDOW, stop // _WINDOW * _WINDOW
            if hi > lo:
                blocks = arr[lo:hi].view(np.uint64).reshape(-1, _WINDOW // 8)
                empty = np.count_nonzero(blocks, axis=1) == 0
                if empty.any():
                    return _scan_backward(arr, start, lo + int(np.argmax(empty)) * _WINDOW)
            mf.release(pos, stop)
            pos = stop
        return _scan_backward(arr, start, limit)

    # -- what is known ----------------------------------------------------------------------------------------

    def _fresh(self) -> None:
        try:
            st = os.stat(self.path)
            stamp = (st.st_size, st.st_mtime_ns)
        except OSError:
            stamp = None
        if stamp is None or stamp != self.stamp:
            self.runs.clear()
        self.stamp = stamp

    def _run_at(self, pos: int) -> int | None:
        """End of the known zero run holding ``pos``, or None."""
        i = bisect.bisect_right(self.runs, (pos, 1 << 63)) - 1
        return self.runs[i][1] if i >= 0 and self.runs[i][1] > pos else None

    def _run_before(self, pos: int) -> int | None:
        """Start of the known zero run holding ``pos - 1``, or None."""
        i = bisect.bisect_right(self.runs, (pos - 1, 1 << 63)) - 1
        return self.runs[i][0] if i >= 0 and self.runs[i][1] >= pos else None

    def _next_run(self, pos: int) -> int:
        i = bisect.bisect_right(self.runs, (pos, 1 << 63))
        return self.runs[i][0] if i < len(self.runs) else 1 << 63

    def _prev_run_end(self, pos: int) -> int:
        i = bisect.bisect_left(self.runs, (pos, 0)) - 1
        return self.runs[i][1] if i >= 0 else 0

    def _learn(self, start: int, end: int) -> None:
        if end - start < _LEARN or self.stamp is None:
            return
        runs = self.runs
        merged = [(a, b) for a, b in runs if b < start or a > end]
        joined = [(a, b) for a, b in runs if not (b < start or a > end)]
        lo = min([start, *(a for a, _ in joined)])
        hi = max([end, *(b for _, b in joined)])
        bisect.insort(merged, (lo, hi))
        self.runs = merged[-64:] if len(merged) > 64 else merged


def _open_quietly(path: Path) -> int | None:
    try:
        return os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None


def _extent_from(fd: int | None, pos: int, size: int) -> tuple[int, int]:
    """(data, hole): where data starts at or after ``pos`` and where that data ends; (pos, size) when the file
    system cannot tell, (size, size) when only a hole follows."""
    if fd is None or not hasattr(os, "SEEK_DATA"):
        return pos, size
    try:
        data = os.lseek(fd, pos, os.SEEK_DATA)
    except OSError as e:
        return (size, size) if e.errno == errno.ENXIO else (pos, size)
    try:
        hole = os.lseek(fd, data, os.SEEK_HOLE)
    except OSError:
        hole = size
    return min(data, size), min(max(hole, data), size)


def allocated_end(path: Path) -> int | None:
    """End of the file's last allocated extent (SEEK_DATA/SEEK_HOLE): bytes after it are a hole, so zeros.

    A broker's preallocated segment is mostly a hole; this bounds the backward scan of :func:`data_end` to the
    written part. None when the file system cannot tell.
    """
    return _last_end(data_extents(path))


def allocated_end_fd(fd: int) -> int | None:
    """:func:`allocated_end` of a file already open for reading."""
    return _last_end(data_extents_fd(fd))


def _last_end(extents: list[tuple[int, int]] | None) -> int | None:
    if extents is None:
        return None
    return extents[-1][1] if extents else 0


def data_extents(path: Path) -> list[tuple[int, int]] | None:
    """The file's allocated extents as (start, end) pairs, in order (SEEK_DATA/SEEK_HOLE): every byte outside
    them is a hole, so zero. None when the file system cannot tell (then every byte has to be looked at)."""
    if not hasattr(os, "SEEK_DATA"):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        return data_extents_fd(fd)
    finally:
        os.close(fd)


def data_extents_fd(fd: int) -> list[tuple[int, int]] | None:
    """:func:`data_extents` of a file already open for reading."""
    if not hasattr(os, "SEEK_DATA"):
        return None
    extents: list[tuple[int, int]] = []
    try:
        pos = 0
        while True:
            try:
                start = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError as e:  # ENXIO: no data after pos; anything else: the file system cannot tell
                return extents if e.errno == errno.ENXIO else None
            pos = os.lseek(fd, start, os.SEEK_HOLE)
            extents.append((start, pos))
    except OSError:
        return None
