"""Many file consume queues' ends in one pass: what :meth:`ConsumeQueue.info` answers for each, at a fraction of
its cost per queue.

A listing of every queue (``info``, ``groups``) or of a group's queues (``group``) on a store of 16,000 queues
spent ~190 us of Python a queue: a ``ConsumeQueue`` built (a ``Path``, its folder listed, a stat per file), a
``UnitProbe`` opened, binary searches unit by unit. Almost every such queue is one preallocated file whose few
written units lie in its first allocated extent: here its folder is listed (``listdir``), the file opened,
``fstat``'ed and its written part read with one ``pread`` (its end found by ``SEEK_DATA`` past its allocated
bytes, or by ``SEEK_HOLE`` as ``UnitProbe`` does: the hole not read), and the queues are then answered together with numpy: the written units'
run, the pre-blank units, the first unit still in the log (``correctMinOffset``), the last unit's end.

Only the plain case is answered: one regular file on its queue's grid, at most 64 KiB written, whose units are
a run of non-zero units then zeros and whose expired units come first. Every other queue (several files, a
damaged or unusual unit, a file that cannot be opened or is no regular file, more written) is left out of the
answer, and the caller asks its ``ConsumeQueue``: the same answer, or the same error, as before.
"""

from __future__ import annotations

import errno
import os
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from stat import S_ISREG

import numpy as np

from inspector.engine.model.bounds import INT64_MAX
from inspector.engine.model.records import QUEUE_KIND_CQ, QueueInfo
from parsers.consumequeue import CQ_UNIT_SIZE, PRE_BLANK_SIZE

_UNIT = struct.Struct(">qiq")
_UNIT_DTYPE = np.dtype([("physical_offset", ">i8"), ("size", ">i4"), ("tags_code", ">i8")])
_HEAD_BYTES = 64 << 10  # UnitProbe's: a file with more written than this is probed page by page (not here)
_BATCH_BYTES = 16 << 20  # written parts held at once: 16,000 queues of 64 KiB would be 1 GB
_ZERO = (0, 0, 0)
_ZERO_UNIT_BYTES = bytes(CQ_UNIT_SIZE)
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK
_new, _set = object.__new__, object.__setattr__

Key = tuple[str, int]
Unit = tuple[int, int, int]  # phyOffset, size, tagsCode


@dataclass
class QueueEnds:
    """What :func:`queue_ends` answered: each answered queue's info, and the units asked for by ``peek`` (queue
    offset -> (phyOffset, size, tagsCode), zeros where the file holds none) with the file they are in. A queue not
    in ``infos`` was not answered here: its ``ConsumeQueue`` answers it."""

    infos: dict[Key, QueueInfo] = field(default_factory=dict)
    units: dict[Key, dict[int, Unit]] = field(default_factory=dict)
    files: dict[Key, tuple[str, int]] = field(default_factory=dict)  # the queue's one file: (rel path, start)


@dataclass(slots=True)
class _Head:
    key: Key
    rel: str
    start: int  # the file's name: its first unit's queue offset times 20
    units: int  # whole units the file holds (its length / 20)
    data: bytes  # its written part, padded with zeros to whole units (at least one)


def queue_ends(root: str | os.PathLike[str], ids: Iterable[Key], *, file_size: int | None = None,
               log_min_offset: int = 0, directory: str = "consumequeue",
               peek: Callable[[QueueInfo], Sequence[int]] | None = None) -> QueueEnds:
    """The info of each queue of ``ids`` under ``root/directory`` that is in the plain case (module docstring),
    equal to its ``ConsumeQueue(root, topic, queue_id, file_size, directory, log_min_offset).info()``; ``peek``:
    the queue offsets whose units to hand back with each answered queue (those in its one file)."""
    found = QueueEnds()
    base = os.path.join(root, directory)
    batch: list[_Head] = []
    held = 0
    for key in ids:
        head = _read_head(base, directory, key, file_size)
        if head is None:
            continue
        batch.append(head)
        held += len(head.data)
        if held >= _BATCH_BYTES:
            _answer(batch, log_min_offset, peek, found)
            batch, held = [], 0
    if batch:
        _answer(batch, log_min_offset, peek, found)
    return found


def _read_head(base: str, directory: str, key: Key, file_size: int | None) -> _Head | None:
    """The queue's one file's written part, None when the queue is not in the plain case."""
    topic, queue_id = key
    folder = f"{base}/{topic}/{queue_id}"
    try:
        names = os.listdir(folder)  # names only: the one file's kind is told by its fstat below
    except OSError:
        return None  # gone, or unreadable: ConsumeQueue says what it says of it
    # offset_name's test, inline (16,000 queues): 20 ASCII digits within the signed 64-bit range; other names are
    # skipped by the queue (strays.py says them). Several such names (a second file, or a folder so named, which
    # the queue skips): its own walk
    name = None
    for entry in names:
        if len(entry) == 20 and entry.isdigit() and entry.isascii():
            if name is not None:
                return None
            name = entry
    if name is None:
        return None
    start = int(name)
    if start > INT64_MAX:
        return None  # no offset name: the queue skips the file (and has none)
    try:
        fd = os.open(f"{folder}/{name}", _OPEN_FLAGS)  # NONBLOCK: a FIFO must not hang us
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        size = st.st_size
        # the queue's file size is its one file's length (ConsumeQueue._common_size) unless configured; a file of
        # another length, or one named off its grid, maps some queue offsets to other files: not the plain case;
        # no regular file: the queue's probe refuses it (model/files.py's refusal)
        if not S_ISREG(st.st_mode) or size <= 0 or size % CQ_UNIT_SIZE or (file_size or size) != size \
                or start % size:
            return None
        allocated = st.st_blocks * 512
        written = size if allocated >= size else _written_end(fd, size, allocated)
        if written is None or written > _HEAD_BYTES:
            return None
        data = os.pread(fd, written, 0)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) != written:
        return None  # the file changed under us
    run = _unit_run(data)
    if run is None:
        return None
    return _Head(key, f"{directory}/{topic}/{queue_id}/{name}", start, size // CQ_UNIT_SIZE, run)


def _unit_run(data: bytes) -> bytes | None:
    """The units of ``data`` (a file's written part) before its first all-zero unit, and that zero unit (so a
    queue always has one to look at), when only zeros follow: the zero tail of a queue, what the binary search
    for it finds. None when non-zero bytes follow (damage: the queue's own search answers). Byte searches and
    compares (memchr, memcmp): a preallocated file's written block is 4 KiB, its units often a few dozen bytes."""
    data += bytes(-len(data) % CQ_UNIT_SIZE)
    at = 0
    while True:
        found = data.find(_ZERO_UNIT_BYTES, at)
        if found < 0:
            return data + _ZERO_UNIT_BYTES  # no zero unit in the written part: the hole after it is
        first = -(-found // CQ_UNIT_SIZE) * CQ_UNIT_SIZE  # the first unit boundary at or after the zero run
        if data[first : first + CQ_UNIT_SIZE] == _ZERO_UNIT_BYTES:
            break
        at = found + 1  # zeros across two units (a tagsCode 0 and a small next offset): look on
    end = first + CQ_UNIT_SIZE
    if data.count(0, end) != len(data) - end:
        return None
    return data[:end]


def _written_end(fd: int, size: int, allocated: int) -> int | None:
    """How far the file's bytes may be other than zeros (past it a hole), or None when it cannot tell that way.
    Usually one ``lseek``: no data at or past ``allocated`` (st_blocks * 512, whatever it counts: metadata blocks,
    compressed ones) bounds the content there, its holes read as the zeros they are. Else, as ``allocated_end_fd``
    finds it, in two: the first hole, when no data follows it."""
    if allocated <= _HEAD_BYTES:
        try:
            os.lseek(fd, allocated, os.SEEK_DATA)
        except OSError as e:
            if e.errno == errno.ENXIO:  # no data at or after it
                return allocated
        except AttributeError:
            return None
    try:
        hole = os.lseek(fd, 0, os.SEEK_HOLE)  # 0: the file starts with a hole
    except (OSError, AttributeError):
        return None
    if hole >= size:
        return size
    try:
        os.lseek(fd, hole, os.SEEK_DATA)
    except OSError as e:
        return hole if e.errno == errno.ENXIO else None  # ENXIO: no data after the hole
    return None  # data after a hole: several runs (ConsumeQueue reads them)


def _answer(batch: list[_Head], log_min_offset: int, peek: Callable[[QueueInfo], Sequence[int]] | None,
            found: QueueEnds) -> None:
    """The infos of a batch of queues, their units concatenated and looked at together.

    Per queue, as ``ConsumeQueue._probe_info`` finds them: ``k`` the non-zero units' run (its binary search for
    the zero tail ends there, :func:`_unit_run`); the max
    is one past the last real unit (phyOffset >= 0, size > 0) of that run; the min skips the leading pre-blank
    units, then the units whose message is below the log's first offset (its binary search ends after them only
    when they come first: else not answered); the last unit's end."""
    buf = b"".join(h.data for h in batch)
    units = np.frombuffer(buf, dtype=_UNIT_DTYPE)
    lengths = np.fromiter((len(h.data) // CQ_UNIT_SIZE for h in batch), dtype=np.int64, count=len(batch))
    starts = np.zeros(len(batch), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    local = np.arange(len(units), dtype=np.int64) - np.repeat(starts, lengths)
    phy = units["physical_offset"].astype(np.int64)
    size = units["size"].astype(np.int64)
    tags = units["tags_code"].astype(np.int64)

    def per_queue(values: np.ndarray, how: np.ufunc = np.add) -> np.ndarray:
        return how.reduceat(values, starts)  # every queue has at least one unit (padded): no empty segment

    run_each = np.repeat(lengths - 1, lengths)  # k: the non-zero units before the zero one (_unit_run)
    real = (phy >= 0) & (size > 0)
    last = per_queue(np.where(real & (local < run_each), local + 1, 0), np.maximum)  # max - first offset
    last_each = np.repeat(last, lengths)
    pre_blank = (phy == 0) & (size == PRE_BLANK_SIZE) & (tags == 0)
    lead = per_queue(np.where(pre_blank, len(units), local), np.minimum)  # the first unit that is no pre-blank
    lead = np.minimum(np.minimum(lead, lengths), last)
    lead_each = np.repeat(lead, lengths)
    in_range = (local >= lead_each) & (local < last_each)
    below = in_range & (phy < log_min_offset)
    expired = per_queue(below.astype(np.int64))
    straggler = per_queue((below & (local >= lead_each + np.repeat(expired, lengths))).astype(np.int64)) > 0
    first = lead + expired
    last_unit = starts + np.maximum(last - 1, 0)
    rows = zip(batch, straggler.tolist(), first.tolist(), last.tolist(), phy[last_unit].tolist(),
               size[last_unit].tolist(), starts.tolist(), strict=True)  # Python ints: no numpy scalar a queue
    infos, files, units, unpack = found.infos, found.files, found.units, _UNIT.unpack_from
    for h, bad_min, lo, hi, end_phy, end_size, at in rows:
        if bad_min:
            continue  # an expired unit after a live one: the queue's binary search answers
        base = h.start // CQ_UNIT_SIZE
        key = h.key
        # the end in Python ints: a damaged unit's offset near 2^63 plus its size must not wrap as int64 would
        info = _new(QueueInfo)  # collector.built, inline: an info per queue
        _set(info, "__dict__", {"topic": key[0], "queue_id": key[1], "min_offset": base + lo,
                                "max_offset": base + hi, "files": (h.rel,),
                                "max_physical_end": end_phy + end_size if hi > lo else 0, "kind": QUEUE_KIND_CQ,
                                "units": None})
        infos[key] = info
        files[key] = (h.rel, h.start)
        if peek is not None:
            at *= CQ_UNIT_SIZE
            held = len(h.data) // CQ_UNIT_SIZE
            wanted = {}
            for offset in peek(info):
                j = offset - base
                if 0 <= j < held:
                    wanted[offset] = unpack(buf, at + j * CQ_UNIT_SIZE)
                elif held <= j < h.units:
                    wanted[offset] = _ZERO  # past the written part: the hole, zeros
            units[key] = wanted

