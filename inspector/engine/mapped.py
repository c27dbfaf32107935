"""Read-only memory-mapped files: the only way the engine reads store data.

Files are opened O_RDONLY and mapped with ACCESS_READ, so the engine cannot
change what it inspects. An empty file maps to ``b""`` (mmap refuses length 0).
"""

from __future__ import annotations

import mmap
import os
import re
from pathlib import Path

from inspector.engine.errors import StoreError

OFFSET_NAME = re.compile(r"^\d{20}$")


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

    def read(self, position: int, length: int) -> bytes:
        """Bytes [position, position+length), clipped to the file."""
        if position < 0:
            return b""
        return self.buf[position : position + length]

    def close(self) -> None:
        if self._mm is not None:
            self._mm.close()
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
