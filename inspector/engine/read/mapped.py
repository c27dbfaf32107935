"""Read-only memory-mapped files: the only way the engine reads store data.

Files are opened O_RDONLY and mapped with ACCESS_READ, so the engine cannot
change what it inspects. An empty file maps to ``b""`` (mmap refuses length 0).

Pages of a mapped file count in the process's resident memory once touched. Long sequential scans call
:meth:`MappedFile.release` behind themselves (``madvise(MADV_DONTNEED)``: the kernel drops our mapping of
those pages, the page cache keeps them, a later read maps them again), so resident memory stays flat
however big the store is.
"""

from __future__ import annotations

import errno
import mmap
import os
from pathlib import Path

import numpy as np

from inspector.engine.model.errors import StoreError
from inspector.engine.model.files import read_regular, refusal
from inspector.engine.read.strays import offset_name

PAGE = mmap.PAGESIZE
_CAN_RELEASE = hasattr(mmap, "MADV_DONTNEED") and hasattr(mmap.mmap, "madvise")


def read_small_file(path: Path, limit: int, what: str = "this file") -> bytes:
    """The bytes of a small text file (a config, DLedger's checkpoint/currterm): OSError when it cannot be read,
    :class:`UnfitFile` when it is no regular file (a FIFO would block the read forever) or is larger than
    ``limit`` (never slurped whole). The one guarded read: ``model.files.read_regular``."""
    return read_regular(path, limit, what)


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
                self._mm = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
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


def is_all_zero(buf, start: int, end: int, chunk: int = 1 << 20) -> bool:
    """True when buf[start:end] holds only zero bytes (checked in chunks, no whole-file copy)."""
    pos = start
    while pos < end:
        stop = min(end, pos + chunk)
        if buf[pos:stop].strip(b"\0"):
            return False
        pos = stop
    return True


def first_nonzero(buf, start: int, end: int, chunk: int = 1 << 16) -> int:
    """Position of the first non-zero byte in [start, end), or ``end``."""
    pos = start
    while pos < end:
        stop = min(end, pos + chunk)
        piece = buf[pos:stop]
        stripped = piece.lstrip(b"\0")
        if stripped:
            return pos + len(piece) - len(stripped)
        pos = stop
    return end


def data_end(arr: np.ndarray, start: int, end: int, chunk: int = 1 << 20) -> int:
    """One past the last non-zero byte of arr[start:end] (``start`` when all are zero), scanning backwards.

    A complete record never ends in a zero byte (its properties end with 0x02, or its topic with a
    character), so in the active segment a record that reaches past this point is still being written.
    """
    pos = end
    while pos > start:
        lo = max(start, pos - chunk)
        if arr[lo:pos].any():
            # a copy: a live broker may be writing these bytes; a bool mask, not flatnonzero (8 bytes per
            # non-zero byte: +128 MB of peak RSS for a 16 MiB chunk of data)
            nonzero = arr[lo:pos].copy() != 0
            if nonzero.any():
                return pos - int(np.argmax(nonzero[::-1]))
        pos = lo
    return start


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
