"""The timer store of a store root: settings from the broker's
configuration, the units named (real topic by its Java hash, the linked ``rmq_sys_wheel_timer`` record), slot
chains walked like index chains, the pending-timer histogram.

The relations are TimerMessageStore's (rocketmq-all-5.3.1): a unit's delivery time is write time + delay
(``dequeue`` reads ``delayedTime = delay + enqueueTime``); for a unit that is not a ROLL it equals the record's
``TIMER_OUT_MS`` (``doEnqueue`` writes ``delayedTime - currWriteTimeMs``); a ROLL unit is parked at most the roll
window ahead, so its delivery time is before ``TIMER_OUT_MS``. A slot's chain is ``last_pos -> prev_pos -> ... ->
-1``; ``num`` counts +1 per unit and -1 per DELETE unit (``putSlot(..., isDelete ? num - 1 : num + 1)``).
Pending: delivery time >= timercheck's ``lastReadTimeMs`` (the dequeue reads the slot at currReadTimeMs, then
moves on: slots before it are done).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from inspector.engine.model.broker_config import BrokerConfig
from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message, Problem
from inspector.engine.model.systopics import TIMER_TOPIC
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.config.config import ConfigSet
from inspector.engine.read.timer.timerstore import (
    CHECK_FILE,
    METRICS_NAME,
    PRECISIONS,
    TIMERLOG_DIR,
    WHEEL_FILE,
    TimerCheck,
    TimerLog,
    TimerSettings,
    TimerUnits,
    WheelSlots,
    effective_precision,
    read_timer_check,
    read_wheel,
)
from parsers.java import java_string_hash
from parsers.timer import MAGIC_DELETE, MAGIC_ROLL, TIMER_WHEEL_SLOT_SIZE, TIMER_WHEEL_SLOTS

P_TIMER_OUT_MS, P_REAL_TOPIC, P_REAL_QID = "TIMER_OUT_MS", "REAL_TOPIC", "REAL_QID"
P_DEL_UNIQKEY, P_UNIQ_KEY = "TIMER_DEL_UNIQKEY", "UNIQ_KEY"


def timer_settings(config: BrokerConfig | None) -> TimerSettings:
    """timerPrecisionMs and mappedFileSizeTimerLog from the broker.conf given, else the defaults (the file size
    is then inferred from the timer log's files)."""
    precision = getattr(config, "timerPrecisionMs", None) if config is not None else None
    size = getattr(config, "mappedFileSizeTimerLog", None) if config is not None else None
    defaults = TimerSettings()
    return TimerSettings(effective_precision(precision) if precision else defaults.precision_ms,
                         size or defaults.file_size,
                         defaults.roll_window_slots, "broker.conf" if precision else "default",
                         "broker.conf" if size else "inferred")


@dataclass(frozen=True)
class RecordLink:
    """The ``rmq_sys_wheel_timer`` record a unit points at, or why there is none."""

    message: Message | None
    problem: str | None = None  # None: the record is there, of that size

    @property
    def properties(self) -> dict[str, str]:
        return self.message.properties if self.message is not None else {}


@dataclass(frozen=True)
class ChainHop:
    """One unit of a slot's chain: its timer-log offset and row (None: no unit there)."""

    log_offset: int
    row: int | None


@dataclass(frozen=True)
class SlotChain:
    slot: int
    time_ms: int
    num: int
    hops: tuple[ChainHop, ...]
    counted: int  # +1 per unit, -1 per DELETE unit: what num should be
    problems: tuple[Problem, ...] = ()
    truncated: bool = False
    expired: bool = False  # the chain reaches a timer-log file the broker deleted (its records had expired)


@dataclass
class TimerStore:
    """The timer files of a store, read once; the records its units point at are read from ``commitlog``, and
    ``find_log_end`` gives the end of its good records (a walk of the log: asked once, when needed)."""

    config: ConfigSet
    commitlog: CommitLog
    find_log_end: Callable[[], int]
    settings: TimerSettings
    log: TimerLog
    wheel: WheelSlots | None
    check: TimerCheck | None
    check_problems: list[Problem]
    _topics: dict[int, list[str]] | None = field(default=None, repr=False)
    _log_end: int | None = field(default=None, repr=False)

    @property
    def present(self) -> bool:
        return self.log.present or self.wheel is not None or self.check is not None

    def units(self) -> TimerUnits:
        return self.log.units()

    def metrics(self) -> dict[str, int]:
        """``config/timermetrics`` timingCount: real topic -> pending count (as the broker last saved it)."""
        table = self.config.value(METRICS_NAME).get("timingCount", {})
        if not isinstance(table, dict):
            return {}
        return {k: v.get("count") for k, v in table.items() if isinstance(k, str) and isinstance(v, dict)
                and isinstance(v.get("count"), int)}

    def metrics_data_version(self) -> dict:
        version = self.config.value(METRICS_NAME).get("dataVersion", {})
        return version if isinstance(version, dict) else {}

    def problems(self) -> list[Problem]:
        found = [*self.units().problems, *self.check_problems]
        if self.wheel is not None:
            found += self.wheel.problems
        return found

    # -- names --------------------------------------------------------------------------------------------

    def topic_names(self) -> dict[int, list[str]]:
        """Java hashCode -> topic names of topics.json and timermetrics (several: a hash collision)."""
        if self._topics is None:
            names = set(self.config.topics) | set(self.metrics())
            table: dict[int, list[str]] = {}
            for name in sorted(names):
                table.setdefault(java_string_hash(name), []).append(name)
            self._topics = table
        return self._topics

    def topic_of(self, topic_hash: int, link: RecordLink | None = None) -> str | None:
        """The real topic of a unit: the record's REAL_TOPIC when it hashes to the unit's value, else the one
        known topic with that hash; None when unknown or ambiguous."""
        if link is not None:
            real = link.properties.get(P_REAL_TOPIC)
            if real is not None and java_string_hash(real) == topic_hash:
                return real
        names = self.topic_names().get(topic_hash, [])
        return names[0] if len(names) == 1 else None

    # -- records ------------------------------------------------------------------------------------------

    def record(self, commitlog_offset: int, size: int) -> RecordLink:
        """The record at ``commitlog_offset``: must exist, be ``size`` bytes and of topic rmq_sys_wheel_timer."""
        log_end = self.log_end()
        if commitlog_offset < 0:
            return RecordLink(None, f"commitlog offset {commitlog_offset} is negative: no record is there")
        if commitlog_offset < self.commitlog.min_offset:
            return RecordLink(None, f"commitlog offset {commitlog_offset} is before the commitlog's first offset "
                                    f"{self.commitlog.min_offset}: the broker's cleanup deleted its record")
        if commitlog_offset >= log_end:
            return RecordLink(None, f"commitlog offset {commitlog_offset} is outside the commitlog "
                                    f"[{self.commitlog.min_offset}, {log_end})")
        try:
            msg = self.commitlog.message_at(commitlog_offset)
        except StoreError as e:
            return RecordLink(None, f"no record at commitlog offset {commitlog_offset}: {e.reason}")
        if msg.total_size != size:
            return RecordLink(msg, f"the record at {commitlog_offset} is {msg.total_size} bytes, the unit says {size}")
        if msg.topic != TIMER_TOPIC:
            return RecordLink(msg, f"the record at {commitlog_offset} is of topic {msg.topic!r}, not {TIMER_TOPIC}")
        return RecordLink(msg)

    def log_end(self) -> int:
        """The commitlog's end (its max offset), found once: every unit is held against it."""
        if self._log_end is None:
            self._log_end = self.find_log_end()
        return self._log_end

    def linkable(self) -> np.ndarray:
        """Per unit: does its commitlog offset lie inside the log (worth a record read)?"""
        units = self.units().units
        end = self.log_end()
        return (units["commitlog_offset"] >= self.commitlog.min_offset) & (units["commitlog_offset"] < end)

    # -- time ---------------------------------------------------------------------------------------------

    def delivery_times(self) -> np.ndarray:
        units = self.units().units
        return units["write_time"].astype(np.int64) + units["delay"].astype(np.int64)

    def pending_mask(self) -> np.ndarray | None:
        """Per unit: still to be delivered (delivery time >= lastReadTimeMs); None without a timercheck."""
        if self.check is None:
            return None
        return self.delivery_times() >= self.check.last_read_time_ms

    def histogram(self, buckets: int = 12) -> list[dict]:
        """Pending timers (non-DELETE units) by delivery time: ``buckets`` equal ranges from the first to the last."""
        mask = self.pending_mask()
        if mask is None:
            return []
        units = self.units().units
        times = self.delivery_times()[mask & ((units["magic"] & MAGIC_DELETE) == 0)]
        if not len(times):
            return []
        low, high = int(times.min()), int(times.max())
        width = max(self.settings.precision_ms, -(-(high - low + 1) // buckets))
        width = -(-width // self.settings.precision_ms) * self.settings.precision_ms
        counts = np.bincount((times - low) // width)
        return [{"from_ms": low + i * width, "to_ms": low + (i + 1) * width, "count": int(c)}
                for i, c in enumerate(counts)]

    # -- the wheel ----------------------------------------------------------------------------------------

    def slot_of_time(self, time_ms: int) -> int:
        """``TimerWheel.getSlotIndex``."""
        return time_ms // self.settings.precision_ms % TIMER_WHEEL_SLOTS

    def slot(self, slot: int) -> np.void | None:
        """The stored slot ``slot`` when it is non-empty."""
        if self.wheel is None:
            return None
        i = int(np.searchsorted(self.wheel.index, slot))
        if i < len(self.wheel.index) and int(self.wheel.index[i]) == slot:
            return self.wheel.slots[i]
        return None

    def walk(self, slot: int, limit: int | None = None) -> SlotChain:
        """Slot ``slot``'s chain, last_pos -> prev_pos ... -> -1, at most ``limit`` hops (default: every unit
        of the log once: a loop or a chain longer than the log ends there and is said)."""
        stored = self.slot(slot)
        if stored is None:
            return SlotChain(slot, 0, 0, (), 0)
        units = self.units()
        bound = len(units) + 1 if limit is None else limit
        at = int(stored["last_pos"])
        hops: list[ChainHop] = []
        seen: set[int] = set()
        counted = 0
        problems: list[Problem] = []
        where = slot * TIMER_WHEEL_SLOT_SIZE
        truncated = expired = False
        while at != -1:
            if len(hops) >= bound:
                truncated = True
                if limit is None:
                    problems.append(Problem("timerwheel", where, f"slot {slot}: the chain goes on past "
                                            f"{len(hops)} hops, more than the timer log's units", "timer-chain-long"))
                break
            if at in seen:
                problems.append(Problem("timerwheel", where, f"slot {slot}: the chain comes back to timer-log "
                                        f"offset {at} (a loop)", "timer-chain-loop"))
                break
            seen.add(at)
            row = units.position_of(at)
            if row is None and 0 <= at < units.start:  # deleted by the broker's cleanup: the chain ends here
                expired = True
                break
            hops.append(ChainHop(at, row))
            if row is None:
                problems.append(Problem("timerwheel", where, f"slot {slot}: the chain reaches timer-log offset "
                                        f"{at}, where no unit is (past the log's end {units.end} or not on a unit "
                                        f"boundary)", "timer-chain-broken"))
                break
            magic = int(units.units["magic"][row])
            counted += -1 if magic & MAGIC_DELETE else 1
            at = int(units.units["prev_pos"][row])
        time_ms = int(stored["time"]) * self.settings.precision_ms
        return SlotChain(slot, time_ms, int(stored["num"]), tuple(hops), counted, tuple(problems), truncated,
                         expired)

    def slot_numbers(self) -> Iterator[int]:
        if self.wheel is not None:
            yield from (int(i) for i in self.wheel.index)


def unit_row(timer: TimerStore, row: int) -> dict:
    """One unit as plain values (no record)."""
    units = timer.units()
    u = units.units[row]
    offset = int(units.offset[row])
    file_start = offset - offset % timer.log.file_size
    return {"offset": offset, "file": f"timerlog/{file_start:020d}", "position": offset - file_start,
            "unit_size": int(u["size"]), "prev_pos": int(u["prev_pos"]), "magic": int(u["magic"]),
            "write_time": int(u["write_time"]), "delay_time": int(u["delay"]),
            "delivery_time": int(u["write_time"]) + int(u["delay"]), "commitlog_offset": int(u["commitlog_offset"]),
            "size": int(u["record_size"]), "topic_hash": int(u["topic_hash"]),
            "roll": bool(int(u["magic"]) & MAGIC_ROLL), "delete": bool(int(u["magic"]) & MAGIC_DELETE)}


def read_timer(root: Path, config: ConfigSet, broker_config: BrokerConfig | None, commitlog: CommitLog,
               find_log_end: Callable[[], int]) -> TimerStore:
    """The timer store under ``root`` (timerlog/, timerwheel, config/timercheck), with the settings of
    ``broker_config`` (else the defaults, the file size and precision inferred from the files)."""
    settings = timer_settings(broker_config)
    log = TimerLog(root, settings.file_size if settings.file_size_source == "broker.conf" else None,
                   live=(root / "abort").exists())
    if settings.file_size_source != "broker.conf":
        settings = TimerSettings(settings.precision_ms, log.file_size, settings.roll_window_slots,
                                 settings.precision_source, "inferred" if log.files else "default")
    check, check_problems = read_timer_check(root)
    wheel = read_wheel(root)
    if settings.precision_source != "broker.conf":
        inferred = infer_precision(wheel, log)
        if inferred is not None:
            settings = replace(settings, precision_ms=inferred, precision_source="inferred")
    return TimerStore(config, commitlog, find_log_end, settings, log, wheel, check, check_problems)


def timer_files(root: Path) -> tuple:
    """(name, size, mtime) of every file the timer store is read from: timerlog/*, timerwheel, config/timercheck
    and config/timermetrics. The broker writes through mmaps, whose pages reach the file's mtime when written
    back; the log's size and the files' names change as it rolls."""
    found = []
    try:
        with os.scandir(Path(root) / TIMERLOG_DIR) as it:
            for e in it:
                found.append(_stat_of(e.path, f"{TIMERLOG_DIR}/{e.name}"))
    except OSError:
        pass
    for rel in (WHEEL_FILE, CHECK_FILE, f"config/{METRICS_NAME}"):
        found.append(_stat_of(Path(root) / rel, rel))
    return tuple(sorted(found))


def _stat_of(path, rel: str) -> tuple:
    try:
        st = os.stat(path)
    except OSError:
        return (rel, None, None)
    return (rel, st.st_size, st.st_mtime_ns)


def infer_precision(wheel: WheelSlots | None, log: TimerLog, samples: int = 16) -> int | None:
    """timerPrecisionMs as the store shows it: a slot stores its time / precision, and its newest unit's
    delivery time is that slot time, so delivery / stored value is the precision. The value most of the first
    ``samples`` non-empty slots agree on, when it is one a broker runs with; None when none tells."""
    if wheel is None or not len(wheel.index):
        return None
    units = log.units()
    votes: dict[int, int] = {}
    for i in range(min(samples, len(wheel.index))):
        stored, last = int(wheel.slots["time"][i]), int(wheel.slots["last_pos"][i])
        row = units.position_of(last)
        if row is None or stored <= 0:
            continue
        due = int(units.units["write_time"][row]) + int(units.units["delay"][row])
        if due % stored == 0 and due // stored in PRECISIONS:
            votes[due // stored] = votes.get(due // stored, 0) + 1
    return max(votes, key=votes.__getitem__) if votes else None


