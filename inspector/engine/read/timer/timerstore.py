"""The 5.x timer store, read-only: ``timerlog/`` segments of 52-byte units, the ``timerwheel`` slot file,
``config/timercheck`` and ``config/timermetrics`` (spec §9.2-9.4, part 2 §18).

The timer log is read as ``TimerMessageStore.recoverAndRevise`` (rocketmq-all-5.3.1) reads it at start-up:
52-byte steps from each segment's start; the segment-end blank (magic ``0xCBD43194``) ends a segment; the first
unit whose size is not 52 or whose magic is no bit set of ``0xF`` ends the log (the broker truncates there).
All-zero bytes there are the unwritten tail; anything else is a finding naming the file and byte position, and
every unit after it is left unread, as the broker would. Units are read in bulk through numpy over the read-only
mapping (the dtype is held equal to ``parsers.timer.TimerLogUnit`` by a test), never whole-file reads.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from inspector.engine.model.bounds import misalignment, usable_size, whole_units
from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Problem, listed_then_counted
from inspector.engine.read.commitlog.mapped import MappedFile, data_extents, is_all_zero, offset_named_entries
from inspector.engine.read.commitlog.segment_files import not_file_problems
from parsers.checkpoint import CHECKPOINT_FILE_SIZE
from parsers.timer import (
    MAGIC_DEFAULT,
    MAGIC_DELETE,
    MAGIC_ROLL,
    TIMER_LOG_BLANK_MAGIC,
    TIMER_LOG_DEFAULT_FILE_SIZE,
    TIMER_LOG_UNIT_SIZE,
    TIMER_WHEEL_FILE_SIZE,
    TIMER_WHEEL_SLOT_SIZE,
    TIMER_WHEEL_SLOTS,
)

TIMERLOG_DIR = "timerlog"
WHEEL_FILE = "timerwheel"
CHECK_FILE = "config/timercheck"
METRICS_NAME = "timermetrics"  # config/timermetrics, fastjson, no suffix (read by the config reader)
DEFAULT_PRECISION_MS = 1000  # MessageStoreConfig.timerPrecisionMs
DEFAULT_ROLL_WINDOW_SLOTS = 3600 * 24 * 2  # MessageStoreConfig.timerRollWindowSlot
TIMER_CHECK_SIZE = 56  # seven longs (TimerCheckpoint.encode)
_BLANK = TIMER_LOG_BLANK_MAGIC - (1 << 32)  # as a signed int32
_BLANK_LEN = 16  # TimerLog.MIN_BLANK_LEN

UNIT_DTYPE = np.dtype([
    ("size", ">i4"), ("prev_pos", ">i8"), ("magic", ">i4"), ("write_time", ">i8"), ("delay", ">i4"),
    ("commitlog_offset", ">i8"), ("record_size", ">i4"), ("topic_hash", ">i4"), ("reserved", ">i8"),
])
"""A timerlog unit as a numpy structured type (52 bytes, no padding; held equal to TimerLogUnit by a test)."""
SLOT_DTYPE = np.dtype([("time", ">i8"), ("first_pos", ">i8"), ("last_pos", ">i8"), ("num", ">i4"), ("magic", ">i4")])
"""A timer wheel slot (32 bytes): time / precision, first and last timerlog offsets, count, magic."""

MAGIC_NAMES = ((MAGIC_DEFAULT, "DEFAULT"), (MAGIC_ROLL, "ROLL"), (MAGIC_DELETE, "DELETE"))


PRECISIONS = (100, 200, 500, 1000)  # MessageStoreConfig.setTimerPrecisionMs: the only values a broker runs with


def effective_precision(configured: int) -> int:
    """``MessageStoreConfig.setTimerPrecisionMs``: the largest of 100, 200, 500, 1000 not above the configured
    value (100 below 200); a broker.conf's 300 runs as 200."""
    for low, high in zip(PRECISIONS, PRECISIONS[1:], strict=False):
        if configured < high:
            return low
    return PRECISIONS[-1]


def magic_names(magic: int) -> list[str]:
    """The named bits of a unit's magic (``TimerMessageStore.MAGIC_*``); an unnamed bit as ``0x8``."""
    names = [name for bit, name in MAGIC_NAMES if magic & bit]
    names += [hex(1 << b) for b in range(32) if magic & (1 << b) and not any(bit == 1 << b for bit, _ in MAGIC_NAMES)]
    return names


def magic_ok(magic: int) -> bool:
    """``TimerMessageStore.isMagicOK``: no bit outside 0xF."""
    return (magic | 0xF) == 0xF


@dataclass(frozen=True)
class TimerSettings:
    """The broker settings the timer store is read with, each with its source (flag/broker.conf/inferred/default)."""

    precision_ms: int = DEFAULT_PRECISION_MS
    file_size: int = TIMER_LOG_DEFAULT_FILE_SIZE
    roll_window_slots: int = DEFAULT_ROLL_WINDOW_SLOTS
    precision_source: str = "default"
    file_size_source: str = "default"


@dataclass(frozen=True)
class TimerUnits:
    """The units the broker's recovery would keep, as columns (``UNIT_DTYPE`` fields) plus ``offset`` (in the
    timer log), in log order; ``end`` is the log offset where recovery stops; ``problems`` what stopped it
    early or looked wrong."""

    offset: np.ndarray  # int64
    units: np.ndarray  # UNIT_DTYPE
    end: int
    problems: tuple[Problem, ...]
    start: int = 0  # the first file's offset: the broker deletes files whose records have all expired

    def __len__(self) -> int:
        return len(self.offset)

    def position_of(self, log_offset: int) -> int | None:
        """Row of the unit at timer-log offset ``log_offset``, None when no unit starts there."""
        i = int(np.searchsorted(self.offset, log_offset))
        return i if i < len(self.offset) and int(self.offset[i]) == log_offset else None


@dataclass(frozen=True)
class TimerCheck:
    """``config/timercheck`` (``TimerCheckpoint``): dequeue and enqueue progress."""

    file: str
    size: int
    last_read_time_ms: int
    last_timer_log_flush_pos: int
    last_timer_queue_offset: int
    master_timer_queue_offset: int
    state_version: int | None
    data_version_timestamp: int | None
    data_version_counter: int | None


@dataclass(frozen=True)
class WheelSlots:
    """The non-empty slots of ``timerwheel``: slot index, stored time (x precision = slot time, ms), the rest."""

    file: str
    size: int  # bytes of the file (0: not yet sized by a broker)
    index: np.ndarray  # int64 slot numbers
    slots: np.ndarray  # SLOT_DTYPE
    problems: tuple[Problem, ...]


LISTED = 1000  # findings of one kind listed one by one (a wheel may hold 1.2 million): then one counts the rest


def _size(path: Path) -> int:
    """The file's length; 0 when it cannot be stat'ed (opening it then says why)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _unit_segments(root: Path) -> tuple[list[tuple[int, Path]], list[Path]]:
    """The timer log's files by offset, and the entries named like one that are none (never opened)."""
    return offset_named_entries(root / TIMERLOG_DIR)


def not_timer_files(not_files: list[Path]) -> list[Problem]:
    """An error for each entry of ``timerlog/`` named like a timer log file that is no regular file (never opened):
    the timer log's walk reports them, and ``Store.problems`` (info) from :func:`timer_log_not_files`."""
    return not_file_problems(TIMERLOG_DIR, not_files, "a timer log file", "not-a-timer-file")


def timer_log_not_files(root: str | Path) -> list[Problem]:
    """:func:`not_timer_files` of the store at ``root`` (a listing of ``timerlog/``, no file opened)."""
    return not_timer_files(_unit_segments(Path(root))[1])


class TimerLog:
    """``timerlog/``: its segments and units."""

    def __init__(self, root: str | Path, file_size: int | None = None, *, live: bool = False):
        """``live``: ``abort`` is present, a broker may be appending: a torn or half-written unit at the very end
        of the log (nothing but zeros after it) is the unit being written, a warning, not damage."""
        self.root = Path(root)
        self.live = live
        self.files, self.not_files = _unit_segments(self.root)
        sizes = [_size(path) for _, path in self.files]
        self.file_sizes = sizes
        # a 0-byte file gives no size (the broker's load deletes an empty last file): the default then
        self.file_size = usable_size(file_size, max(sizes, default=0), default=TIMER_LOG_DEFAULT_FILE_SIZE)
        self._units: TimerUnits | None = None

    @property
    def present(self) -> bool:
        return (self.root / TIMERLOG_DIR).is_dir()

    def units(self) -> TimerUnits:
        """Every unit recovery keeps (computed once)."""
        if self._units is None:
            self._units = self._scan()
        return self._units

    def _scan(self) -> TimerUnits:
        offsets: list[np.ndarray] = []
        parts: list[np.ndarray] = []
        problems: list[Problem] = not_timer_files(self.not_files)
        end = self.files[0][0] if self.files else 0
        for n, (start, path) in enumerate(self.files):
            rel = f"{TIMERLOG_DIR}/{path.name}"
            if misalignment(start, self.file_size):
                problems.append(Problem(rel, 0, f"named {start}, not a multiple of the timer log file size "
                                        f"{self.file_size}", "timerlog-name", "warning"))
            if self.file_sizes[n] != self.file_size:
                problems.append(Problem(rel, 0, f"{self.file_sizes[n]} bytes, the timer log's files are "
                                        f"{self.file_size} (mappedFileSizeTimerLog)", "timerlog-size", "warning"))
            try:
                mf = MappedFile(path, rel)
            except StoreError as e:
                problems.append(Problem(rel, 0, e.reason, "unreadable-file"))
                break
            try:
                last = n == len(self.files) - 1
                rows, stop, found, ended = _scan_segment(mf, rel, last)
                if last and self.live:
                    found = [_being_written(p, mf) for p in found]
                parts.append(rows.copy())  # a copy: the mapping is closed now, not kept per segment
            finally:
                mf.close()
            offsets.append(start + np.arange(len(rows), dtype=np.int64) * TIMER_LOG_UNIT_SIZE)
            problems.extend(found)
            end = start + stop
            if not ended:  # the broker's recovery stops here and truncates every later file
                later = [f"{TIMERLOG_DIR}/{p.name}" for _, p in self.files[n + 1:]]
                if later:
                    problems.append(Problem(rel, stop, f"the timer log ends here (as the broker's recovery reads "
                                            f"it): {len(later)} later file(s) not read, the broker truncates them "
                                            f"({', '.join(later[:3])}{' ...' if len(later) > 3 else ''})",
                                            "timerlog-truncated"))
                break
        offset = np.concatenate(offsets) if offsets else np.zeros(0, np.int64)
        units = np.concatenate(parts) if parts else np.zeros(0, UNIT_DTYPE)
        return TimerUnits(offset, units, end, tuple(problems), self.files[0][0] if self.files else 0)


def _scan_segment(mf: MappedFile, rel: str, last: bool) -> tuple[np.ndarray, int, list[Problem], bool]:
    """(units kept, stop position, findings, ended at a blank) of one segment, as recoverAndRevise walks it."""
    n = whole_units(mf.size, TIMER_LOG_UNIT_SIZE)
    # a unit wholly inside a hole is zeros (size 0: where recovery stops), so the units up to and including the
    # first such one decide as all of them would: a sparse 100 MiB file holding a few units is not read whole
    looked = min(n, _units_before_hole(mf) + 1)
    while True:
        arr = np.frombuffer(mf.buf, dtype=UNIT_DTYPE, count=looked) if n else np.zeros(0, UNIT_DTYPE)
        # the blank is read at a unit step: its magic sits where a unit's does (offset 12)
        blank = arr["magic"] == _BLANK
        good = (arr["size"] == TIMER_LOG_UNIT_SIZE) & ((arr["magic"] | 0xF) == 0xF)
        stops = np.flatnonzero(blank | ~good)
        if len(stops) or looked == n:
            break
        looked = n  # a broker wrote into the hole since it was looked up: every unit, then
    found: list[Problem] = []
    if not len(stops):
        found += _torn_units(arr, rel)
        position = n * TIMER_LOG_UNIT_SIZE
        tail = mf.read(position, TIMER_LOG_UNIT_SIZE)
        if not tail:
            return arr, position, found, True
        # the broker's loop reads on past the last whole unit: the blank there ends the file (a 100 MiB file
        # keeps exactly 16 bytes after its last unit), anything else stops its recovery
        if len(tail) >= _BLANK_LEN and int.from_bytes(tail[12:16], "big", signed=True) == _BLANK:
            found += _blank_problems(int.from_bytes(tail[:4], "big", signed=True), mf.size - position, rel, position)
            return arr, position, found, True
        if any(tail):
            found.append(Problem(rel, position, f"a torn unit: {len(tail)} byte(s) where a unit needs 52 or the "
                                 "end blank 16, the file ends: the broker's recovery stops here", "timer-torn-unit"))
        elif not last:
            found.append(Problem(rel, position, "zeros where the segment's end blank should be: the broker's "
                                 "recovery ends the timer log here", "timer-gap"))
        return arr, position, found, False
    i = int(stops[0])
    position = i * TIMER_LOG_UNIT_SIZE
    rows = arr[:i]
    found += _torn_units(rows, rel)
    if blank[i]:
        return rows, position, found + _blank_problems(int(arr["size"][i]), mf.size - position, rel, position), True
    rest = mf.size - position
    if not is_all_zero(mf.buf, position, mf.size):
        size, magic = int(arr["size"][i]), int(arr["magic"][i])
        why = (f"magic {magic:#x} has bits outside 0xF" if not magic_ok(magic)
               else f"size {size} is not {TIMER_LOG_UNIT_SIZE}")
        found.append(Problem(rel, position, f"not a timer unit ({why}): the broker's recovery stops the timer log "
                             f"here and truncates the {rest} byte(s) from here on", "timer-bad-unit"))
    elif not last:
        found.append(Problem(rel, position, "zeros where the segment's units or its end blank should be: the "
                             "broker's recovery ends the timer log here", "timer-gap"))
    return rows, position, found, False


def _being_written(p: Problem, mf: MappedFile) -> Problem:
    """A torn or bad unit at the live end of the log (zeros from its end to the file's) is the unit a running
    broker is writing; anything else stays what it is."""
    if p.code not in ("timer-torn-unit", "timer-bad-unit") or not is_all_zero(mf.buf, p.offset + TIMER_LOG_UNIT_SIZE,
                                                                               mf.size):
        return p
    return Problem(p.file, p.offset, "the end of the timer log: a unit being written (abort present: a broker is "
                   "running or crashed while writing it)", "timer-unit-being-written", "warning")


def _blank_problems(remaining: int, actual: int, rel: str, position: int) -> list[Problem]:
    """The blank's first int is the bytes left in the file from it (``TimerLog.append``)."""
    if remaining == actual:
        return []
    return [Problem(rel, position, f"the segment-end blank says {remaining} bytes remain, the file has {actual} "
                    "from it", "timer-blank", "warning")]


def _torn_units(rows: np.ndarray, rel: str) -> list[Problem]:
    """Units whose size and magic were written but nothing after them (write time, record offset and size all
    0): a unit torn by a crash; the broker would deliver nothing real from it."""
    torn = np.flatnonzero((rows["write_time"] == 0) & (rows["commitlog_offset"] == 0) & (rows["record_size"] == 0))
    return listed_then_counted(
        torn, LISTED,
        lambda i: Problem(rel, int(i) * TIMER_LOG_UNIT_SIZE, "a torn unit: size and magic written, write time, "
                          "record offset and size all 0", "timer-torn-unit"),
        lambda n, first, last: Problem(rel, int(first) * TIMER_LOG_UNIT_SIZE, f"and {n:,} more torn units like "
                                       f"these up to timer-log position {int(last) * TIMER_LOG_UNIT_SIZE} (the first "
                                       f"{LISTED:,} are listed)", "timer-torn-units-more"))


def _units_before_hole(mf: MappedFile) -> int:
    """How many whole units come before the file's first hole (SEEK_HOLE through ``data_extents``; all of them
    when the file system cannot tell). The broker sizes a timer log file with setLength: a hole past its units."""
    extents = data_extents(mf.path)
    if extents is None:
        return whole_units(mf.size, TIMER_LOG_UNIT_SIZE)
    end = 0
    for start, stop in extents:
        if start > end:
            break
        end = stop
    return -(-end // TIMER_LOG_UNIT_SIZE)  # the first unit starting at or after the hole lies in it (or past it)


def _slot_ranges(path: Path, n: int) -> list[tuple[int, int]]:
    """The slot ranges of the wheel's allocated extents: the broker sizes the 38.7 MB file with setLength, so a
    wheel that has seen few timers is mostly a hole, and a hole's slots are empty without being looked at."""
    extents = data_extents(path)
    if extents is None:
        return [(0, n)]
    ranges = [(start // TIMER_WHEEL_SLOT_SIZE, min(n, -(-end // TIMER_WHEEL_SLOT_SIZE))) for start, end in extents]
    return [(a, b) for a, b in ranges if a < b]


def read_wheel(root: str | Path) -> WheelSlots | None:
    """The non-empty slots of ``timerwheel`` (None when there is none). A 0-byte file is a wheel the broker has
    not sized yet (accepted, as ``TimerWheel`` does); any other length than 38,707,200 is a finding (the broker
    refuses to start), and the slots the file holds are still read."""
    path = Path(root) / WHEEL_FILE
    if not path.exists():
        return None
    try:
        mf = MappedFile(path, WHEEL_FILE)
    except StoreError as e:
        return WheelSlots(WHEEL_FILE, 0, np.zeros(0, np.int64), np.zeros(0, SLOT_DTYPE),
                          (Problem(WHEEL_FILE, 0, e.reason, "unreadable-file"),))
    problems = []
    if mf.size not in (0, TIMER_WHEEL_FILE_SIZE):
        problems.append(Problem(WHEEL_FILE, 0, f"{mf.size} bytes, the wheel is {TIMER_WHEEL_FILE_SIZE} "
                                f"({TIMER_WHEEL_SLOTS:,} slots of 32): the broker does not start (\"Timer wheel "
                                "length ... != expected\")", "timerwheel-size"))
    n = min(whole_units(mf.size, TIMER_WHEEL_SLOT_SIZE), TIMER_WHEEL_SLOTS)
    if n:
        words = np.frombuffer(mf.buf, dtype=np.uint64, count=n * 4).reshape(n, 4)
        index = np.concatenate([np.flatnonzero(words[a:b].any(axis=1)).astype(np.int64) + a
                                for a, b in _slot_ranges(path, n)] or [np.zeros(0, np.int64)])
        slots = np.frombuffer(mf.buf, dtype=SLOT_DTYPE, count=n)[index]  # fancy indexing copies: no .copy()
    else:
        index, slots = np.zeros(0, np.int64), np.zeros(0, SLOT_DTYPE)
    size = mf.size
    mf.close()
    misplaced = np.flatnonzero(slots["time"] % TIMER_WHEEL_SLOTS != index)
    problems += listed_then_counted(
        misplaced, LISTED,
        lambda i: Problem(WHEEL_FILE, int(index[i]) * TIMER_WHEEL_SLOT_SIZE, f"slot {int(index[i])} holds time "
                          f"{int(slots['time'][i])} (x precision), which belongs in slot "
                          f"{int(slots['time'][i]) % TIMER_WHEEL_SLOTS}", "timer-slot-misplaced", "warning"),
        lambda n, first, last: Problem(WHEEL_FILE, int(index[first]) * TIMER_WHEEL_SLOT_SIZE, f"and {n:,} more "
                                       f"slots holding a time of another slot, up to slot {int(index[last])} (the "
                                       f"first {LISTED:,} are listed)", "timer-slot-misplaced-more", "warning"))
    return WheelSlots(WHEEL_FILE, size, index, slots, tuple(problems))


def read_timer_check(root: str | Path) -> tuple[TimerCheck | None, list[Problem]]:
    """``config/timercheck`` and its findings (None when absent or unreadable). The broker maps 4096 bytes and
    reads seven longs: a file shorter than 56 bytes is a finding; the longs it holds are still read."""
    path = Path(root) / CHECK_FILE
    if not path.exists():
        return None, []
    try:
        with MappedFile(path, CHECK_FILE) as mf:
            raw = mf.read(0, TIMER_CHECK_SIZE)
            size = mf.size
    except StoreError as e:
        return None, [Problem(CHECK_FILE, 0, e.reason, "unreadable-file")]
    problems = []
    if size < TIMER_CHECK_SIZE:
        problems.append(Problem(CHECK_FILE, size, f"{size} bytes: the timer checkpoint holds seven 8-byte values "
                                f"(56 bytes; the broker maps {CHECKPOINT_FILE_SIZE})", "timercheck-short"))
    elif size != CHECKPOINT_FILE_SIZE:
        problems.append(Problem(CHECK_FILE, 0, f"{size} bytes, the broker writes {CHECKPOINT_FILE_SIZE}",
                                "timercheck-size", "warning"))
    longs = len(raw) // 8
    if longs < 4:
        return None, problems
    values = [int.from_bytes(raw[i * 8:i * 8 + 8], "big", signed=True) for i in range(longs)]
    values += [None] * (7 - longs)
    return TimerCheck(CHECK_FILE, size, *values[:7]), problems
