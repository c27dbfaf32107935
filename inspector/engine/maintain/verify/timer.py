"""``verify`` of the 5.x timer store (spec §9.2-9.4, part 2 §18), by the relations of TimerMessageStore
(rocketmq-all-5.3.1):

* each timer-log unit points at a record of ``rmq_sys_wheel_timer`` at that commitlog offset, of that size
  (``getMessageByCommitOffset(offsetPy, sizePy)``); a unit past the commitlog's end is the stale unit of
  apache/rocketmq#10668 (a slave truncated its commitlog, the broker then retries an unrelated message forever);
* the record's ``TIMER_OUT_MS`` equals the unit's write time + delay (``doEnqueue``), or is later for a ROLL
  unit (parked at most a roll window ahead); the unit's topic hash is the ``hashCode()`` of its REAL_TOPIC;
* each wheel slot's chain (last_pos -> prev_pos ... -> -1) ends, without a loop, and counts ``num`` (+1 per
  unit, -1 per DELETE unit, as ``putSlot`` keeps it);
* a DELETE unit's ``TIMER_DEL_UNIQKEY`` names a timer of the same slot (``dequeue`` collects the keys per slot
  and drops the message whose UNIQ_KEY is one of them): else it cancels nothing;
* timercheck's lastTimerQueueOffset (and masterTimerQueueOffset) lie within the consume queue of
  ``rmq_sys_wheel_timer`` queue 0, its lastTimerLogFlushPos within the timer log.
"""

from __future__ import annotations

from inspector.engine.model.errors import NotFound, StoreError
from inspector.engine.model.records import Problem
from inspector.engine.model.systopics import TIMER_TOPIC
from inspector.engine.read.store.answers import open_timer
from inspector.engine.read.timer.timerlinks import (
    P_DEL_UNIQKEY,
    P_REAL_TOPIC,
    P_TIMER_OUT_MS,
    P_UNIQ_KEY,
    TimerStore,
)
from parsers.java import java_string_hash
from parsers.timer import MAGIC_DELETE, MAGIC_ROLL


def check_timer(store, log_end: int | None = None) -> tuple[list[Problem], int]:
    """Every timer-store finding and the number of units checked. ``log_end``: the commitlog's end when the
    caller knows it (Spark's driver, from the segment tasks' reports), else found by a walk of the log."""
    timer = open_timer(store)
    if log_end is not None:
        timer._log_end = log_end
    if not timer.present:
        return [], 0
    problems = [*timer.problems()]
    uniq_by_slot: dict[int, set[str]] = {}
    deletes: list[tuple[int, int, str]] = []  # (row, slot, key) of DELETE units
    problems += _unit_problems(timer, uniq_by_slot, deletes)
    for row, slot, key in deletes:
        if key not in uniq_by_slot.get(slot, set()):
            file, position = _where(timer, row)
            problems.append(Problem(file, position, f"DELETE unit: TIMER_DEL_UNIQKEY {key} names no timer of its "
                                    f"slot {slot}: it cancels nothing", "timer-delete-unmatched", "warning"))
    for slot in _chained_slots(timer):
        chain = timer.walk(slot)
        problems += chain.problems
        if chain.expired:  # its oldest units' file was deleted: num cannot be counted any more
            if timer.check is not None and chain.time_ms >= timer.check.last_read_time_ms:
                problems.append(Problem("timerwheel", slot * 32, f"slot {slot} is pending but its chain reaches a "
                                        "timer-log file the broker deleted: those timers will not be delivered",
                                        "timer-chain-expired", "warning"))
            continue
        if not chain.problems and chain.counted != chain.num:
            problems.append(Problem("timerwheel", slot * 32 + 24, f"slot {slot}: num {chain.num}, its chain has "
                                    f"{len(chain.hops)} unit(s) counting {chain.counted} (+1 per unit, -1 per "
                                    "DELETE)", "timer-slot-num"))
        problems += _first_pos_problems(timer, chain)
    problems += _check_progress(store, timer)
    return problems, len(timer.units())


def _chained_slots(timer: TimerStore) -> list[int]:
    """The non-empty slots with something to walk or count: a slot whose lastPos is -1 and num 0 has an empty
    chain that counts 0, nothing to say (a wheel of 1.2 million such slots, each with a time of another slot,
    took 14 s walked one by one; its misplaced times are timerstore's findings)."""
    wheel = timer.wheel
    if wheel is None or not len(wheel.index):
        return []
    busy = (wheel.slots["last_pos"] != -1) | (wheel.slots["num"] != 0)
    return wheel.index[busy].tolist()


def _first_pos_problems(timer: TimerStore, chain) -> list[Problem]:
    """A whole chain ends at the slot's firstPos: the first unit put in the slot has prev_pos -1 and is the
    slot's firstPos (``putSlot(delayedTime, slot.firstPos == -1 ? ret : slot.firstPos, ret, ...)``), and
    ``reviseSlot`` keeps it. The broker's dequeue walks from lastPos and never reads it: a warning."""
    if chain.problems or chain.truncated or chain.expired or not chain.hops:
        return []
    first = int(timer.slot(chain.slot)["first_pos"])
    oldest = chain.hops[-1].log_offset
    if first == oldest:
        return []
    return [Problem("timerwheel", chain.slot * 32 + 8, f"slot {chain.slot}: firstPos {first}, but its chain's "
                    f"oldest unit is at timer-log offset {oldest}", "timer-first-pos", "warning")]


def _where(timer: TimerStore, row: int) -> tuple[str, int]:
    offset = int(timer.units().offset[row])
    start = offset - offset % timer.log.file_size
    return f"timerlog/{start:020d}", offset - start


def _unit_problems(timer: TimerStore, uniq_by_slot: dict[int, set[str]],
                   deletes: list[tuple[int, int, str]]) -> list[Problem]:
    units = timer.units().units
    found: list[Problem] = []
    delivery = timer.delivery_times()
    inside = timer.linkable()
    pending = timer.pending_mask()
    log_end = timer.log_end()
    for row in range(len(units)):
        u = units[row]
        file, position = _where(timer, row)
        offset, size, magic = int(u["commitlog_offset"]), int(u["record_size"]), int(u["magic"])
        # the cleanup deleted the record: a delivered timer, or a lost one (a negative offset is no record's: below)
        if 0 <= offset < timer.commitlog.min_offset:
            if pending is not None and pending[row]:
                found.append(Problem(file, position, f"a pending timer whose record (commitlog offset {offset}) is "
                                     f"before the commitlog's first offset {timer.commitlog.min_offset}: deleted, it "
                                     "will not be delivered", "timer-record-expired", "warning"))
            continue
        if not inside[row]:
            found.append(Problem(file, position, f"unit points at commitlog offset {offset} (size {size}), outside "
                                 f"the commitlog [{timer.commitlog.min_offset}, {log_end}): the broker would look for a "
                                 "record that is not there (apache/rocketmq#10668)", "timer-past-commitlog"))
            continue
        link = timer.record(offset, size)
        if link.message is None or link.problem is not None:
            found.append(Problem(file, position, f"unit's record: {link.problem}", "timer-record-mismatch"))
            continue
        props = link.properties
        out = props.get(P_TIMER_OUT_MS)
        due = int(delivery[row])
        if out is None or not out.lstrip("-").isdigit():
            found.append(Problem(file, position, f"the record at {offset} has no TIMER_OUT_MS a timer needs "
                                 f"({out!r})", "timer-out-mismatch"))
        elif magic & MAGIC_ROLL and due > int(out):
            found.append(Problem(file, position, f"ROLL unit due at {due} (write time + delay), after the record's "
                                 f"TIMER_OUT_MS {out}: a roll parks a timer before its time", "timer-out-mismatch"))
        elif not magic & MAGIC_ROLL and due != int(out):
            found.append(Problem(file, position, f"unit due at {due} (write time {int(u['write_time'])} + delay "
                                 f"{int(u['delay'])}), the record's TIMER_OUT_MS is {out}", "timer-out-mismatch"))
        real = props.get(P_REAL_TOPIC)
        expected = java_string_hash(real) if real is not None else 0
        if int(u["topic_hash"]) != expected:
            found.append(Problem(file, position + 40, f"topic hash {int(u['topic_hash'])}, the record's REAL_TOPIC "
                                 f"{real!r} hashes to {expected}", "timer-topic-hash", "warning"))
        slot = timer.slot_of_time(due)
        if magic & MAGIC_DELETE and not magic & MAGIC_ROLL:
            key = props.get(P_DEL_UNIQKEY)
            if key is None:
                found.append(Problem(file, position, "DELETE unit whose record has no TIMER_DEL_UNIQKEY",
                                     "timer-delete-unmatched", "warning"))
            else:
                deletes.append((row, slot, key))
        elif props.get(P_UNIQ_KEY):
            uniq_by_slot.setdefault(slot, set()).add(props[P_UNIQ_KEY])
    return found


def _check_progress(store, timer: TimerStore) -> list[Problem]:
    """timercheck's offsets against the timer topic's queue and the timer log."""
    check = timer.check
    if check is None:
        return []
    found = []
    try:
        info = store.queue(TIMER_TOPIC, 0).info()
        low, high = info.min_offset, info.max_offset
    except (NotFound, StoreError):
        low = high = 0
    for name, at, value, severity in (("lastTimerQueueOffset", 16, check.last_timer_queue_offset, "error"),
                                      ("masterTimerQueueOffset", 24, check.master_timer_queue_offset, "warning")):
        if not low <= value <= high:
            found.append(Problem(check.file, at, f"{name} {value} is outside the consume queue of {TIMER_TOPIC} "
                                 f"queue 0 [{low}, {high}]", "timercheck-queue-offset", severity))
    if check.last_timer_log_flush_pos < 0:  # TimerMessageStore.recover clamps it to 0: recovery from the start
        found.append(Problem(check.file, 8, f"lastTimerLogFlushPos {check.last_timer_log_flush_pos} is negative: "
                             "the broker's recovery starts over from timer-log offset 0", "timercheck-flush-pos",
                             "warning"))
    end = timer.units().end
    file_end = end - end % timer.log.file_size + timer.log.file_size  # a blank may end the last file
    if check.last_timer_log_flush_pos > max(end, file_end if end % timer.log.file_size else end):
        found.append(Problem(check.file, 8, f"lastTimerLogFlushPos {check.last_timer_log_flush_pos} is past the end "
                             f"of the timer log ({end})", "timercheck-flush-pos", "warning"))
    return found
