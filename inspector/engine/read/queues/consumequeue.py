"""File consume queues: ``consumequeue/<topic>/<queueId>/<byte offset>`` of 20-byte units (spec §4.1)."""

from __future__ import annotations

import os
import struct
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from inspector.engine.model.bounds import misalignment
from inspector.engine.model.errors import NotFound, StoreError
from inspector.engine.model.records import CqUnit, Problem, QueueInfo, listed_then_counted
from inspector.engine.read.commitlog.mapped import MappedFile, allocated_end, data_end, offset_named_files
from inspector.engine.read.queues.cq_probe import UnitProbe
from inspector.engine.read.store.strays import queue_id_name
from parsers.consumequeue import CQ_DEFAULT_FILE_SIZE, CQ_UNIT_SIZE, PRE_BLANK_SIZE, cq_file_size

_UNIT = struct.Struct(">qiq")
UNIT_DTYPE = np.dtype([("physical_offset", ">i8"), ("size", ">i4"), ("tags_code", ">i8")])
"""A 20-byte unit as a numpy structured type (checked against ConsumeQueueUnit in the tests)."""


def file_size_problem(rel: str, size: int, expected: int, is_last: bool) -> Problem | None:
    """A queue file whose length is not the configured one: an error, the broker's own refusal:
    ``MappedFileQueue.load`` (4.9.8) / ``doLoad`` (5.3.1) logs "length not matched message store config value,
    please check it manually" and returns false, so ``ConsumeQueueStore.load`` fails and the broker does not start.
    An empty last file (a broker creating it, or stopped right after) too: 4.9.8 refuses it; since RocketMQ 5.1.3
    the load deletes it instead (the reason says both; one verdict, the stricter: model/verdicts.py)."""
    if size == expected:
        return None
    empty_last = is_last and size == 0
    return Problem(rel, 0, f"file is {size} bytes, expected {expected}: the broker's MappedFileQueue.load refuses "
                   "it and does not start" + (" (an empty last file: RocketMQ 5.1.3+ deletes it instead)"
                                              if empty_last else ""), "wrong-cq-file-size")


def misaligned_name_problem(rel: str, start: int, size: int) -> Problem | None:
    """A queue file named off its queue's grid of ``size``-byte files: the broker names each by a multiple of the
    size and finds a unit's file as offset / size - first / size (``MappedFileQueue.findMappedFileByOffset``),
    so units in this one are looked for in the wrong file."""
    if not misalignment(start, size):
        return None
    return Problem(rel, 0, f"named {start}, not a multiple of the queue's file size {size}: the broker looks for its "
                   "units in the wrong file (MappedFileQueue.findMappedFileByOffset)", "misaligned-cq-file")


def queue_file_size(sizes: Iterable[int], configured: int | None = None, unit: int | None = CQ_UNIT_SIZE,
                    default: int = CQ_DEFAULT_FILE_SIZE) -> int:
    """The one length a broker gives every file of its consume queues: the configured size when given (for
    consume queues rounded up to a multiple of 20, ``MessageStoreConfig.getMappedFileSizeConsumeQueue``), else
    the most common length among ``sizes`` that can be one (positive; a multiple of ``unit`` when given: a
    16,007-byte file is no consume queue's size, whatever the others), the larger on a tie; else ``default``.
    One rule for a queue's own files, all of a store's (verify) and all of a root's (census)."""
    if configured:
        return cq_file_size(configured) if unit == CQ_UNIT_SIZE else configured
    counts = Counter(s for s in sizes if s > 0 and (unit is None or s % unit == 0))
    return max(counts.items(), key=lambda kv: (kv[1], kv[0]))[0] if counts else default


def queue_files_problems(folders: Iterable[Sequence[tuple[str, int]]], configured: int | None = None,
                         unit: int | None = CQ_UNIT_SIZE, default: int = CQ_DEFAULT_FILE_SIZE) -> list[Problem]:
    """``file_size_problem`` of every file of every queue folder (each a list of (file, length) in name order)
    against the one size of :func:`queue_file_size` over all of them: what ``MappedFileQueue.load`` refuses."""
    folders = [list(f) for f in folders]
    expected = queue_file_size((size for f in folders for _, size in f), configured, unit, default)
    found = []
    for files in folders:
        for i, (rel, size) in enumerate(files):
            problem = file_size_problem(rel, size, expected, i == len(files) - 1)
            if problem is not None:
                found.append(problem)
    return found


@dataclass(frozen=True)
class UnitRun:
    """Consecutive units of one consume-queue file as arrays: unit ``i`` has queue offset ``queue_offset + i``
    and sits at byte ``position + 20 * i`` of ``file``. ``units`` is a structured view of the mapped file
    (fields physical_offset, size, tags_code, big-endian); :meth:`column` gives native int64 copies."""

    topic: str
    queue_id: int
    file: str
    position: int
    queue_offset: int
    units: np.ndarray

    def __len__(self) -> int:
        return len(self.units)

    def column(self, name: str) -> np.ndarray:
        return self.units[name].astype(np.int64)

    def unit(self, i: int) -> CqUnit:
        u = self.units[i]
        return CqUnit(self.topic, self.queue_id, self.queue_offset + i, int(u["physical_offset"]), int(u["size"]),
                      int(u["tags_code"]), self.file, self.position + i * CQ_UNIT_SIZE)


def _common_size(sizes: list[int]) -> int:
    """The queue's file size as :func:`queue_file_size` tells it from its own files."""
    if len(sizes) == 1 and sizes[0] > 0 and sizes[0] % CQ_UNIT_SIZE == 0:
        return sizes[0]  # most queues have one file: no Counter for them
    return queue_file_size(sizes)


_FAST_UNIT = not hasattr(CqUnit, "__slots__") and not hasattr(CqUnit, "__post_init__")


class ConsumeQueue:
    """One (topic, queue id): its files, units by queue offset, min/max offsets."""

    def __init__(self, root: Path, topic: str, queue_id: int, file_size: int | None = None,
                 directory: str = "consumequeue", log_min_offset: int = 0, live: bool = False):
        self.root = root
        self.live = live  # abort present: a broker may be writing (or crashed writing) the last unit
        self.log_min_offset = log_min_offset  # units pointing below it are expired (correctMinOffset)
        self.topic = topic
        self.queue_id = queue_id
        self.rel_dir = f"{directory}/{topic}/{queue_id}"
        self._dir = os.path.join(root, directory, topic, str(queue_id))
        self.files = offset_named_files(self._dir)
        sizes = []
        for _, path in self.files:
            try:
                sizes.append(os.stat(path).st_size)
            except OSError:
                sizes.append(0)
        self.file_sizes = dict(zip([start for start, _ in self.files], sizes, strict=True))
        self.file_size = file_size or _common_size(sizes)
        self._maps: dict[int, MappedFile] = {}
        self._info: QueueInfo | None = None

    def _map(self, start: int) -> MappedFile:
        mf = self._maps.get(start)
        if mf is None:
            mf = MappedFile(self.root / self.rel_dir / f"{start:020d}", f"{self.rel_dir}/{start:020d}")
            self._maps[start] = mf
        return mf

    def close(self) -> None:
        """Unmap the queue's files: the owner's call (the store's close). A reader in another thread would meet
        a closed mapping, so a pass over the store's queues that only wants their pages gone calls
        :meth:`release_pages` instead."""
        for mf in self._maps.values():
            mf.close()
        self._maps.clear()

    def release_pages(self) -> None:
        """Drop the mapped files' resident pages, keeping the mappings: a pass over thousands of the store's
        queues (preflight, salvage) leaves no memory behind, and a request reading this queue in another thread
        meanwhile (the web viewer's, the TUI's) reads on, its pages faulted in again. Closing them under it
        gave that reader an empty buffer (a 500 on the tour while the overview's preflight ran)."""
        for mf in list(self._maps.values()):
            mf.release(0, mf.size)

    def _unit_at(self, start: int, position: int, queue_offset: int) -> CqUnit | None:
        mf = self._map(start)
        if position + CQ_UNIT_SIZE > mf.size:
            return None
        phy, size, tags = _UNIT.unpack_from(mf.buf, position)
        return CqUnit(self.topic, self.queue_id, queue_offset, phy, size, tags, mf.rel, position)

    def unit(self, queue_offset: int) -> CqUnit:
        """The unit for a queue offset (file ``(q*20)//size``, position ``(q*20)%size``)."""
        if queue_offset < 0:
            raise NotFound(f"queue offset {queue_offset} is negative", self.rel_dir)
        byte = queue_offset * CQ_UNIT_SIZE
        start = byte // self.file_size * self.file_size
        if start not in self.file_sizes:
            raise NotFound(f"no consume-queue file holds queue offset {queue_offset}", self.rel_dir)
        unit = self._unit_at(start, byte - start, queue_offset)
        if unit is None:
            raise NotFound(f"queue offset {queue_offset} is past the end of its file", f"{self.rel_dir}/{start:020d}")
        return unit

    def file_units(self, start: int) -> np.ndarray:
        """The units of the file named ``start``, as they lie, up to its last written one (a copy: a caller
        reading thousands of queues can :meth:`close` each, else their mapped pages stay resident). The zero
        tail (a preallocated file's hole, 6 MB a queue) is not read: a fault there makes the page cache
        zero-fill it (see unit_runs). Raises StoreError when the file cannot be mapped."""
        mf = self._map(start)
        count = _written_units(mf, 0, mf.size // CQ_UNIT_SIZE) if mf.size >= CQ_UNIT_SIZE else 0
        return np.frombuffer(mf.buf, dtype=UNIT_DTYPE, count=count).copy() if count > 0 else np.zeros(0, UNIT_DTYPE)

    def units(self, from_offset: int = 0) -> Iterator[CqUnit | Problem]:
        """Units from a queue offset to the end (the last real unit before the zeros), with a ``cq-bad-unit``
        Problem for each unit that is neither a unit (size <= 0 or phyOffset < 0) nor those zeros."""
        new = object.__new__
        topic, queue_id = self.topic, self.queue_id
        for run in self.unit_runs(from_offset):
            if isinstance(run, Problem):
                yield run
                continue
            q, pos, rel = run.queue_offset, run.position, run.file
            for phy, size, tags in zip(run.column("physical_offset").tolist(), run.column("size").tolist(),
                                       run.column("tags_code").tolist(), strict=True):
                if _FAST_UNIT:
                    unit = new(CqUnit)
                    unit.__dict__.update(topic=topic, queue_id=queue_id, queue_offset=q, physical_offset=phy,
                                         size=size, tags_code=tags, file=rel, position=pos)
                else:  # pragma: no cover - CqUnit with __slots__
                    unit = CqUnit(topic, queue_id, q, phy, size, tags, rel, pos)
                yield unit
                q += 1
                pos += CQ_UNIT_SIZE

    def unit_runs(self, from_offset: int = 0, max_units: int = 1 << 20) -> Iterator[UnitRun | Problem]:
        """What :meth:`units` yields, the units as arrays over the mapped files (at most ``max_units`` each):
        the fast way to read a queue (tens of millions of units per second)."""
        q = max(from_offset, 0)
        prev_start = None
        for start, _ in self.files:
            first_q = start // CQ_UNIT_SIZE
            off_grid = misaligned_name_problem(f"{self.rel_dir}/{start:020d}", start, self.file_size)
            if off_grid is not None:
                yield off_grid
            elif prev_start is not None and start != prev_start + self.file_size and not misalignment(prev_start,
                                                                                                       self.file_size):
                yield Problem(f"{self.rel_dir}/{start:020d}", 0, "missing consume-queue file before this one", "missing-cq-file")
            prev_start = start
            wrong = file_size_problem(f"{self.rel_dir}/{start:020d}", self.file_sizes[start], self.file_size,
                                      start == self.files[-1][0])
            if wrong is not None:
                yield wrong
            last_q = first_q + self.file_sizes[start] // CQ_UNIT_SIZE
            if q >= last_q:
                continue
            q = max(q, first_q)
            try:
                mf = self._map(start)
            except StoreError as e:
                yield Problem(e.file or self.rel_dir, 0, e.reason, "unreadable-file")
                return
            tail = mf.size % CQ_UNIT_SIZE
            first = (q - first_q) * CQ_UNIT_SIZE
            count = max(0, (mf.size - tail - first) // CQ_UNIT_SIZE)
            mf.advise_normal()  # read in order from here (verify's walk may have asked for no read-ahead)
            allocated = allocated_end(mf.path)
            if allocated is not None and allocated < mf.size:
                # past the last allocated extent the file is a hole: zeros, the queue's end. Not read: a fault
                # there makes the page cache zero-fill the page and its read-ahead (~2 MB of a 6 MB
                # preallocated file: 6 ms a queue, 30 s of verify on a 16,000-queue store)
                count = min(count, max(0, -(-(allocated - first) // CQ_UNIT_SIZE)))
            units = np.frombuffer(mf.buf, dtype=UNIT_DTYPE, count=count, offset=first) if count else \
                np.zeros(0, dtype=UNIT_DTYPE)
            at = 0
            while at < count:
                # the valid units end at the first with phyOffset < 0 or size <= 0: look in growing pieces
                stop = at
                piece = 4096
                while stop < min(count, at + max_units):
                    chunk = units[stop : min(count, at + max_units, stop + piece)]
                    bad = (chunk["physical_offset"] < 0) | (chunk["size"] <= 0)
                    if bad.any():
                        stop += int(np.argmax(bad))
                        break
                    stop += len(chunk)
                    piece *= 4
                if stop > at:
                    yield UnitRun(self.topic, self.queue_id, mf.rel, first + at * CQ_UNIT_SIZE, q, units[at:stop])
                    q += stop - at
                if stop < min(count, at + max_units):
                    # the end of the queue, unless a real unit follows: then these units are damage, said and
                    # stepped over (the broker's recovery would cut the queue here and lose the units after)
                    written = _written_units(mf, first, count)
                    resume = _first_valid(units[stop + 1 : written], stop + 1)
                    if resume is None and not self._continues_after(start):
                        yield from self._tail_damage(mf.rel, units, first, stop, written, q)
                        return
                    resume = count if resume is None else resume
                    if _real(units[stop]):
                        at = stop  # a live broker finished it meanwhile (it writes units in order): read on
                        continue
                    yield from _bad_units(mf.rel, units, first, stop, range(stop, resume), q, _FOLLOWED)
                    q += resume - stop
                    stop = resume
                at = stop
            if tail:
                yield Problem(mf.rel, mf.size - tail, f"file ends with a partial unit of {tail} bytes", "partial-cq-unit")
                return

    def _tail_damage(self, rel: str, units: np.ndarray, first: int, stop: int, written: int,
                     q: int) -> Iterator[Problem]:
        """The units from ``stop`` (queue offset ``q``), the queue's end, to the file's last non-zero byte
        (unit ``written``) that are not zero: a broker leaves only zeros after its last unit (spec §4.1), so
        each is damage, though its recovery would end the queue there all the same. Healthy files have none
        (``written == stop``): nothing more is read."""
        if written <= stop or _real(units[stop]):
            return  # the zero tail; or a live broker finished the unit meanwhile (its end is read next time)
        tail = units[stop:written]
        nonzero = (tail["physical_offset"] != 0) | (tail["size"] != 0) | (tail["tags_code"] != 0)
        picks = stop + np.flatnonzero(nonzero)
        if self.live and all(_real(units[p]) or _torn(units[p]) for p in picks.tolist()):
            # abort present: the first part of a unit being written (or cut by a crash), or units the broker
            # finished while we looked (the file is mapped live)
            return
        yield from _bad_units(rel, units, first, stop, picks.tolist(), q, _TAIL)

    def _continues_after(self, start: int) -> bool:
        """Whether a file after ``start`` begins with a real unit (so the queue did not end in this one)."""
        for later, _ in self.files:
            if later > start and self.file_sizes.get(later, 0) >= CQ_UNIT_SIZE:
                try:
                    unit = self._unit_at(later, 0, later // CQ_UNIT_SIZE)
                except StoreError:
                    continue
                if unit is not None and unit.physical_offset >= 0 and unit.size > 0:
                    return True
        return False

    def info(self) -> QueueInfo:
        """Min (first real unit) and max (exclusive) queue offsets, found by binary searches.

        Read with ``pread`` (:class:`UnitProbe`), not through the mappings: a listing of thousands of
        preallocated files costs a few system calls per queue and no resident memory."""
        if self._info is not None:
            return self._info
        files = tuple(f"{self.rel_dir}/{start:020d}" for start, _ in self.files)
        if not self.files:
            self._info = QueueInfo(self.topic, self.queue_id, 0, 0, files, 0)
            return self._info
        probes: dict[int, UnitProbe] = {}
        try:
            self._info = self._probe_info(files, probes)
        finally:
            for probe in probes.values():
                probe.close()
        return self._info

    def _probe(self, probes: dict[int, UnitProbe], start: int) -> UnitProbe:
        probe = probes.get(start)
        if probe is None:
            name = f"{start:020d}"
            probe = probes[start] = UnitProbe(os.path.join(self._dir, name), f"{self.rel_dir}/{name}")
        return probe

    def _probe_unit(self, probes: dict[int, UnitProbe], queue_offset: int) -> tuple[int, int, int] | None:
        """What :meth:`unit` reads, by ``pread``: (phyOffset, size, tagsCode), None where it raises NotFound."""
        byte = queue_offset * CQ_UNIT_SIZE
        start = byte // self.file_size * self.file_size
        if queue_offset < 0 or start not in self.file_sizes:
            return None
        probe = self._probe(probes, start)
        i = (byte - start) // CQ_UNIT_SIZE
        return probe.probe(i) if i < probe.units else None

    def _probe_info(self, files: tuple[str, ...], probes: dict[int, UnitProbe]) -> QueueInfo:
        # max: one past the last real unit of the last file that has one (see UnitProbe.last_valid)
        max_offset = None
        for start, _ in reversed(self.files):
            lo = self._probe(probes, start).last_valid()
            if lo > 0 or start == self.files[0][0]:
                max_offset = start // CQ_UNIT_SIZE + lo
                break
        assert max_offset is not None
        first_start = self.files[0][0]
        min_offset = first_start // CQ_UNIT_SIZE
        first = self._probe(probes, first_start)
        # skip pre-blank units that pad a queue re-created past offset 0
        while min_offset < max_offset:
            i = min_offset - first_start // CQ_UNIT_SIZE
            if i >= first.units or first.probe(i) != (0, PRE_BLANK_SIZE, 0):
                break
            min_offset += 1
        # correctMinOffset: the first unit whose message is still in the commitlog (units are in phy order)
        lo, hi = min_offset, max_offset
        while lo < hi:
            mid = (lo + hi) // 2
            unit = self._probe_unit(probes, mid)
            # None: a file cut short in the middle of the queue: no unit there to compare
            if unit is not None and unit[0] < self.log_min_offset:
                lo = mid + 1
            else:
                hi = mid
        min_offset = lo
        max_end = 0
        if max_offset > min_offset:
            last = self._probe_unit(probes, max_offset - 1)
            if last is not None:
                max_end = last[0] + last[1]
        return QueueInfo(self.topic, self.queue_id, min_offset, max_offset, files, max_end)


def _written_units(mf: MappedFile, first: int, count: int) -> int:
    """How many of the ``count`` units from byte ``first`` reach into the written (non-zero, allocated) part
    of ``mf``: a preallocated queue file is mostly zeros, often a hole, and need not be read."""
    end = first + count * CQ_UNIT_SIZE
    allocated = allocated_end(mf.path)
    last = data_end(mf, first, end if allocated is None else max(first, min(end, allocated)))
    return -(-(last - first) // CQ_UNIT_SIZE)


BAD_UNITS_SAID = 100  # a zeroed stretch of a queue file: its first units one by one, then one line for the rest
_FOLLOWED = "not a unit, though units follow (the broker's recovery would cut the queue here); skipped"
_TAIL = ("not a unit, and not the zeros a broker leaves after a queue's last unit (its recovery would end the "
         "queue here)")


def _real(unit: np.void) -> bool:
    """What the broker's recovery takes for a unit: phyOffset >= 0 and size > 0 (pre-blank units included)."""
    return bool(unit["physical_offset"] >= 0 and unit["size"] > 0)


def _torn(unit: np.void) -> bool:
    """A unit some of whose bytes are not written (or not yet visible): each field shows part of its value,
    zeros for the rest. The broker's offset and size are never negative, so neither is any part of them; the
    tagsCode is anything. Not only the front: the reput thread's stores (ConsumeQueue.putMessagePositionInfo:
    putLong offset, putInt size, putLong tagsCode into the mapped page) may reach another process's view in
    any order, and a reader has seen a tagsCode before the size."""
    return bool(unit["physical_offset"] >= 0 and unit["size"] >= 0)


def _bad_units(rel: str, units: np.ndarray, first: int, stop: int, picks: Sequence[int], q: int,
               why: str) -> Iterator[Problem]:
    """One ``cq-bad-unit`` finding per unit index in ``picks`` (up to BAD_UNITS_SAID, then one line for the
    rest); unit ``stop`` has queue offset ``q``."""
    yield from listed_then_counted(
        picks, BAD_UNITS_SAID,
        lambda i: Problem(rel, first + i * CQ_UNIT_SIZE, f"unit {q + i - stop} has physical offset "
                          f"{int(units[i]['physical_offset'])} and size {int(units[i]['size'])}: {why}", "cq-bad-unit"),
        lambda n, at, last: Problem(rel, first + at * CQ_UNIT_SIZE, f"and {n} more units like these up to unit "
                                    f"{q + last - stop}", "cq-bad-units-more"))


def _first_valid(units: np.ndarray, base: int) -> int | None:
    """``base`` + the index of the first real unit of ``units``, None without one."""
    piece = 4096
    at = 0
    while at < len(units):
        chunk = units[at : at + piece]
        good = (chunk["physical_offset"] >= 0) & (chunk["size"] > 0)
        if good.any():
            return base + at + int(np.argmax(good))
        at += len(chunk)
        piece *= 4
    return None


def discover_queues(root: Path, directory: str = "consumequeue") -> list[tuple[str, int]]:
    """(topic, queue id) pairs found under consumequeue/ (directories named by decimal queue ids)."""
    base = root / directory
    found: list[tuple[str, int]] = []
    if not base.is_dir():
        return found
    # scandir: the entry types come with the names (no stat per directory; a store may hold 16,000 queues)
    with os.scandir(base) as topics:
        topic_dirs = sorted((e for e in topics if _is_dir(e)), key=lambda e: e.name)
    for topic_dir in topic_dirs:
        with os.scandir(topic_dir.path) as queues:
            for queue_dir in queues:
                queue_id = queue_id_name(queue_dir.name)  # other names: strays.py's findings
                if queue_id is not None and _is_dir(queue_dir):
                    found.append((topic_dir.name, queue_id))
    found.sort()
    return found


def _is_dir(entry: os.DirEntry) -> bool:
    """``Path.is_dir``'s answer for a scandir entry: False when it cannot be told."""
    try:
        return entry.is_dir()
    except OSError:
        return False
