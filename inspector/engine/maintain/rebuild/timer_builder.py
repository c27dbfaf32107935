"""The 5.x timer store as ``TimerMessageStore`` (rocketmq-all-5.3.1) writes it: timerlog units appended per
enqueued timer (``doEnqueue``), the wheel's slots (``TimerWheel.putSlot``), the dequeue of due slots
(``dequeue``: DELETE keys collected per slot, the rest delivered or rolled), ``config/timercheck``
(``TimerCheckpoint.flush``) and ``config/timermetrics`` (``TimerMetrics``: +1/-1 per enqueue, delivery and
cancel, as ``addMetric`` is called).

No I/O until :meth:`TimerBuilder.write`: the files are small except the wheel (38,707,200 bytes) and the
timer log's segments (100 MiB by default), which are written sparse (the slots and units written, the rest
a hole), as a broker's preallocated mapped files are.
"""

from __future__ import annotations

import heapq
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.read.timer.timerstore import DEFAULT_PRECISION_MS, DEFAULT_ROLL_WINDOW_SLOTS
from parsers import timer as layout  # the spec's §9 constants: unit and slot sizes, magic bits
from parsers.checkpoint import CHECKPOINT_FILE_SIZE
from parsers.fastjson import dumps
from parsers.java import java_string_hash

__all__ = ["DEFAULT_MAX_DELAY_SEC", "Timer", "TimerBuilder", "timer_out_ms"]

DEFAULT_MAX_DELAY_SEC = 3600 * 24 * 3  # MessageStoreConfig.timerMaxDelaySec
_UNIT = struct.Struct(">iqiqiqiiq")
_BLANK = struct.Struct(">iqi")
_SLOT = struct.Struct(">qqqii")
_BLANK_LEN = _BLANK.size  # TimerLog.MIN_BLANK_LEN


def timer_out_ms(deliver_ms: int, precision_ms: int) -> int:
    """``HookUtils.transformTimerMessage``: the delivery time rounded down to the precision, an exact multiple
    one precision step earlier (stored as TIMER_OUT_MS)."""
    if deliver_ms % precision_ms == 0:
        return deliver_ms - precision_ms
    return deliver_ms // precision_ms * precision_ms


@dataclass
class Timer:
    """One enqueued timer: its record and what the unit says. ``ref`` is the writer's handle on the record."""

    commitlog_offset: int
    size: int
    out_ms: int  # TIMER_OUT_MS of the record
    real_topic: str | None
    unique_key: str | None
    delete_key: str | None  # TIMER_DEL_UNIQKEY: a DELETE timer
    ref: object
    log_offset: int = -1
    write_time: int = 0
    due_ms: int = 0  # write time + delay (the roll-parked time for a ROLL unit)
    magic: int = layout.MAGIC_DEFAULT


@dataclass
class Delivery:
    """What the dequeue of one slot does: ``deliver`` and ``roll`` (timers re-put), ``cancelled`` (dropped by a
    DELETE of the same slot); ``dequeue_ms`` the earliest the broker reads the slot (its time + precision)."""

    slot_ms: int
    dequeue_ms: int
    deliver: list[Timer] = field(default_factory=list)
    roll: list[Timer] = field(default_factory=list)
    cancelled: list[Timer] = field(default_factory=list)


class TimerBuilder:
    """The timer store's state while a store is written; :meth:`write` lays it out."""

    def __init__(self, precision_ms: int = DEFAULT_PRECISION_MS, file_size: int = layout.TIMER_LOG_DEFAULT_FILE_SIZE,
                 roll_window_slots: int = DEFAULT_ROLL_WINDOW_SLOTS) -> None:
        self.precision_ms = precision_ms
        self.file_size = file_size
        self.roll_window_slots = roll_window_slots
        self.log = bytearray()  # the timer log's bytes from offset 0 (units and blanks)
        self.slots: dict[int, list[int]] = {}  # slot index -> [time / precision, first, last, num, magic]
        self.timers: list[Timer] = []
        self.write_time = 0  # currWriteTimeMs
        self.read_time: int | None = None  # currReadTimeMs: the next slot time the dequeue reads
        self.queue_offset = 0  # timer records enqueued (lastTimerQueueOffset)
        self.metrics: dict[str, list[int]] = {}  # real topic -> [count, timeStamp]
        self.metric_changes = 0
        self.metric_time = 0
        self._waiting: list[tuple[int, int]] = []  # (due ms, timer number): a heap of what the dequeue reads

    # -- enqueue --------------------------------------------------------------------------------------------

    def enqueue(self, timer: Timer, now_ms: int) -> None:
        """``enqueue`` + ``doEnqueue`` of one record read from the timer topic's queue at ``now_ms``."""
        self.write_time = max(self.write_time, now_ms // self.precision_ms * self.precision_ms)
        if self.read_time is None:
            self.read_time = self.write_time
        delayed = timer.out_ms
        magic = layout.MAGIC_DEFAULT
        window = self.roll_window_slots * self.precision_ms
        if delayed - self.write_time >= window:
            magic |= layout.MAGIC_ROLL
            if delayed - self.write_time - window < self.roll_window_slots // 3 * self.precision_ms:
                delayed = self.write_time + self.roll_window_slots // 2 * self.precision_ms
            else:
                delayed = self.write_time + window
        if timer.delete_key is not None:
            magic |= layout.MAGIC_DELETE
        index = delayed // self.precision_ms % layout.TIMER_WHEEL_SLOTS
        stored = self.slots.get(index)
        if stored is None or stored[0] != delayed // self.precision_ms:  # getSlot: a stale slot reads empty
            stored = [delayed // self.precision_ms, -1, -1, 0, 0]
        unit = _UNIT.pack(layout.TIMER_LOG_UNIT_SIZE, stored[2], magic, self.write_time, delayed - self.write_time,
                          timer.commitlog_offset, timer.size,
                          java_string_hash(timer.real_topic) if timer.real_topic is not None else 0, 0)
        position = self._append(unit)
        timer.log_offset, timer.write_time, timer.due_ms, timer.magic = position, self.write_time, delayed, magic
        self.slots[index] = [stored[0], position if stored[1] == -1 else stored[1], position,
                             stored[3] - 1 if magic & layout.MAGIC_DELETE else stored[3] + 1, stored[4]]
        self._metric(timer.real_topic, -1 if magic & layout.MAGIC_DELETE else 1, now_ms)
        heapq.heappush(self._waiting, (delayed, len(self.timers)))
        self.timers.append(timer)
        self.queue_offset += 1

    def _append(self, unit: bytes) -> int:
        """``TimerLog.append``: a 16-byte blank ends a file the unit (and a blank after it) would not fit."""
        used = len(self.log) % self.file_size
        if len(unit) + _BLANK_LEN > self.file_size - used:
            self.log += _BLANK.pack(self.file_size - used, 0, layout.TIMER_LOG_BLANK_MAGIC - (1 << 32))
            self.log += bytes(self.file_size - used - _BLANK_LEN)
        position = len(self.log)
        self.log += unit
        return position

    def _metric(self, topic: str | None, value: int, now_ms: int) -> None:
        if topic is None:
            return
        entry = self.metrics.setdefault(topic, [0, now_ms])
        entry[0] += value
        entry[1] = now_ms
        self.metric_changes += 1
        self.metric_time = now_ms

    # -- dequeue --------------------------------------------------------------------------------------------

    def due(self, now_ms: int) -> Delivery | None:
        """The next slot the dequeue reads by ``now_ms`` (a slot time before the precision-aligned now, as
        ``currReadTimeMs < currWriteTimeMs``) with what it does, and the read time moved past it; None when
        nothing more is due (the read time is then the aligned now). One slot at a time: a timer rolled by one
        slot may be due again before ``now_ms``."""
        if self.read_time is None:
            return None
        until = now_ms // self.precision_ms * self.precision_ms
        while self._waiting and self._waiting[0][0] < self.read_time:
            heapq.heappop(self._waiting)  # (not reached by this writer: it enqueues at store time)
        if not self._waiting or self._waiting[0][0] >= until:
            self.read_time = max(self.read_time, until)
            return None
        slot_ms = self._waiting[0][0]
        self.read_time = slot_ms + self.precision_ms
        chain = []
        while self._waiting and self._waiting[0][0] == slot_ms:
            chain.append(self.timers[heapq.heappop(self._waiting)[1]])  # oldest first: log order
        keys = {t.delete_key for t in chain if t.magic & layout.MAGIC_DELETE and not t.magic & layout.MAGIC_ROLL}
        d = Delivery(slot_ms, slot_ms + self.precision_ms)
        for t in chain:
            if t.magic & layout.MAGIC_DELETE and not t.magic & layout.MAGIC_ROLL:
                self._metric(t.real_topic, 1, d.dequeue_ms)  # "metric plus one" for the delete message
                continue
            self._metric(t.real_topic, -1, d.dequeue_ms)
            if t.magic & layout.MAGIC_ROLL:
                d.roll.append(t)
            elif t.unique_key is not None and t.unique_key in keys:
                d.cancelled.append(t)
            else:
                d.deliver.append(t)
        return d

    # -- files ----------------------------------------------------------------------------------------------

    def check_bytes(self, now_ms: int) -> bytes:
        """``config/timercheck`` of a broker shut down at ``now_ms``: read time, flush position, queue offsets
        (master = this one: a master broker), dataVersion (state 0, time, one change per flush: 1)."""
        read_time = now_ms // self.precision_ms * self.precision_ms if self.read_time is None else self.read_time
        values = (read_time, len(self.log), self.queue_offset, self.queue_offset, 0, now_ms, 1)
        return struct.pack(">7q", *values).ljust(CHECKPOINT_FILE_SIZE, b"\0")

    def metrics_text(self) -> str:
        """``config/timermetrics`` as TimerMetrics persists it (fastjson, keys in alphabetical order)."""
        timing = {topic: {"count": count, "timeStamp": stamp} for topic, (count, stamp) in sorted(self.metrics.items())}
        version = {"counter": self.metric_changes, "stateVersion": 0, "timestamp": self.metric_time}
        return dumps({"dataVersion": version, "timingCount": timing})

    def write(self, root: Path, now_ms: int) -> None:
        """timerlog/, timerwheel, config/timercheck and config/timermetrics under ``root``."""
        folder = root / "timerlog"
        folder.mkdir(parents=True, exist_ok=True)
        for start in range(0, max(len(self.log), 1), self.file_size):
            _write_sparse(folder / f"{start:020d}", [(0, bytes(self.log[start:start + self.file_size]))],
                          self.file_size)
        pieces = [(index * layout.TIMER_WHEEL_SLOT_SIZE, _SLOT.pack(*values)) for index, values in sorted(self.slots.items())]
        _write_sparse(root / "timerwheel", pieces, layout.TIMER_WHEEL_FILE_SIZE)
        (root / "config").mkdir(parents=True, exist_ok=True)
        (root / "config" / "timercheck").write_bytes(self.check_bytes(now_ms))
        (root / "config" / "timermetrics").write_bytes(self.metrics_text().encode("utf-8"))


def _write_sparse(path: Path, pieces: list[tuple[int, bytes]], size: int) -> None:
    """A file of ``size`` bytes holding ``pieces`` at their positions; the rest a hole reading as zeros."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        for position, data in pieces:
            if data.strip(b"\0"):
                os.pwrite(fd, data, position)
        os.ftruncate(fd, size)
    finally:
        os.close(fd)
