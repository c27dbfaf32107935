"""Read-only memory-mapped files: the only way the engine reads store data.

Files are opened O_RDONLY and mapped with ACCESS_READ, so the engine cannot
change what it inspects. An empty file maps to ``b""`` (mmap refuses length 0).

Pages of a mapped file count in the process's resident memory once touched. Long sequential scans call
:meth:`MappedFile.release` behind themselves (``madvise(MADV_DONTNEED)``: the kernel drops our mapping of
those pages, the page cache keeps them, a later read maps them again), so resident memory stays flat
however big the store is.
"""

from __future__ import annotations

import mmap
import os
import re
from pathlib import Path

import numpy as np

from inspector.engine.errors import StoreError

OFFSET_NAME = re.compile(r"^\d{20}$")
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
            fd = os.open(path, os.O_RDONLY)
        except OSError as e:
            raise StoreError(f"cannot open: {e.strerror}", rel) from e
        try:
            self.size = os.fstat(fd).st_size
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
        if self._mm is not None and hasattr(mmap, "MADV_SEQUENTIAL"):
            try:
                self._mm.madvise(mmap.MADV_SEQUENTIAL)
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
    if not directory.is_dir():
        return []
    found = []
    for entry in directory.iterdir():
        if OFFSET_NAME.match(entry.name) and entry.is_file():
            found.append((int(entry.name), entry))
    found.sort()
    return found


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
