"""Single consume-queue units read with ``pread``, never through a mapping: what a queue listing needs.

A broker preallocates every consume-queue file (6,000,000 bytes, mostly a hole) and a store may hold tens of
thousands of them. Finding a queue's ends by binary search over a mapped file faults in a page (and its
neighbours) per probe, and every touched page of every file stays in the process's resident memory: 16,000
queues cost a minute and gigabytes. Here a probe is one ``pread`` of the page that holds the unit (kept for
the next probes of the same search), and a probe past the file's last allocated byte (``SEEK_DATA`` /
``SEEK_HOLE``) reads nothing at all: a hole holds zeros, and a zero unit is the end of a queue. Where the file
system cannot tell, every probe is a ``pread`` (still no mapping). One descriptor per file, closed at once.
"""

from __future__ import annotations

import os
import struct

import numpy as np

from inspector.engine.model.errors import StoreError
from inspector.engine.model.files import refusal
from inspector.engine.read.commitlog.mapped import allocated_end_fd
from parsers.consumequeue import CQ_UNIT_SIZE

_UNIT = struct.Struct(">qiq")
_ZERO = (0, 0, 0)
_UNIT_DTYPE = np.dtype([("physical_offset", ">i8"), ("size", ">i4"), ("tags_code", ">i8")])
_PAGE = 4096
_BACK_UNITS = 4096  # units read at a time looking back from the zero tail for the last real unit
_HEAD_BYTES = 64 << 10


def _real(unit: tuple[int, int, int]) -> bool:
    return unit[0] >= 0 and unit[1] > 0


class UnitProbe:
    """Units of one consume-queue file by index, read on demand: ``probe(i)`` is (phyOffset, size, tagsCode)."""

    def __init__(self, path: str | os.PathLike[str], rel: str):
        self.rel = rel
        self._pages: dict[int, bytes] = {}
        self._head = b""
        try:
            self._fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # NONBLOCK: a FIFO must not hang us
        except OSError as e:
            raise StoreError(f"cannot open: {e.strerror}", rel) from e
        try:
            st = os.fstat(self._fd)
            why = refusal(st)  # the guarded open's question (model/files.py)
            if why is not None:
                raise StoreError(why, rel)
            self.size = st.st_size
            self.units = self.size // CQ_UNIT_SIZE
            # past the last allocated byte the file is a hole: zeros, read without a system call
            end = allocated_end_fd(self._fd) if st.st_blocks * 512 < self.size else None
            self.data_end = self.size if end is None else min(end, self.size)
            # the usual preallocated file holds a few KiB of units: read in one go, probes answered from them
            if self.data_end <= _HEAD_BYTES:
                self._head = self._read(0, self.data_end)
        except (OSError, StoreError):
            self.close()
            raise

    def probe(self, i: int) -> tuple[int, int, int]:
        """Unit ``i`` (0 <= i < ``units``) as (physical offset, size, tags code)."""
        pos = i * CQ_UNIT_SIZE
        if pos >= self.data_end:
            return _ZERO
        if pos + CQ_UNIT_SIZE <= len(self._head):
            return _UNIT.unpack_from(self._head, pos)
        first, last = pos // _PAGE, (pos + CQ_UNIT_SIZE - 1) // _PAGE
        if first == last:
            page = self._page(first)
            at = pos - first * _PAGE
            if len(page) >= at + CQ_UNIT_SIZE:
                return _UNIT.unpack_from(page, at)
        data = self._read(pos, CQ_UNIT_SIZE)  # a unit across a page boundary (or cut by a shrinking file)
        return _UNIT.unpack(data) if len(data) == CQ_UNIT_SIZE else _ZERO

    def _page(self, n: int) -> bytes:
        page = self._pages.get(n)
        if page is None:
            page = self._pages[n] = self._read(n * _PAGE, _PAGE)
        return page

    def _read(self, pos: int, length: int) -> bytes:
        try:
            return os.pread(self._fd, length, pos)
        except OSError as e:
            raise StoreError(f"cannot read: {e.strerror}", self.rel) from e

    def last_valid(self) -> int:
        """One past the last real unit (phyOffset >= 0, size > 0) of the file, 0 when none: the queue's end.

        A binary search for the zero tail (the first all-zero unit: units are written in order), not for the
        first bad unit, so a damaged unit in the middle does not hide the units after it; then back to the last
        real unit (a torn one being written is not). The probes past the allocated end read nothing."""
        lo, hi = 0, self.units
        holes = -(-self.data_end // CQ_UNIT_SIZE)  # units from here on lie in the hole: zeros
        head, in_head = self._head, len(self._head) // CQ_UNIT_SIZE
        unpack = _UNIT.unpack_from
        while lo < hi:
            mid = (lo + hi) // 2
            if mid >= holes:
                hi = mid
                continue
            unit = unpack(head, mid * CQ_UNIT_SIZE) if mid < in_head else self.probe(mid)
            if unit != _ZERO:
                lo = mid + 1
            else:
                hi = mid
        if hi and _real(self.probe(hi - 1)):
            return hi  # the usual case: the unit before the zero tail is a real one
        while hi > 0:
            lo = max(0, hi - _BACK_UNITS)
            units = np.frombuffer(self._units_bytes(lo, hi), dtype=_UNIT_DTYPE)
            good = np.flatnonzero((units["physical_offset"] >= 0) & (units["size"] > 0))
            if good.size:
                return lo + int(good[-1]) + 1
            hi = lo
        return 0

    def _units_bytes(self, lo: int, hi: int) -> bytes:
        """Units [lo, hi) as bytes (zeros where the file is shorter than it was)."""
        length = (hi - lo) * CQ_UNIT_SIZE
        if hi * CQ_UNIT_SIZE <= len(self._head):
            return self._head[lo * CQ_UNIT_SIZE : hi * CQ_UNIT_SIZE]
        return self._read(lo * CQ_UNIT_SIZE, length).ljust(length, b"\0")

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._pages.clear()
        self._head = b""

    def __enter__(self) -> UnitProbe:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
