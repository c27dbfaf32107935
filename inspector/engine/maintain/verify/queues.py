"""verify's consume-queue checks: every unit against the record it points at (spec §4.1, §11).

A unit must point inside the log, after the previous unit, at a record of its topic, queue and queue offset
(or an LMQ fan-out naming the queue), with the record's size and the tagsCode dispatch would compute.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from inspector.engine.maintain.rebuild.dispatch import dispatch_request
from inspector.engine.model.errors import BadInput, StoreError
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.multidispatch import (
    INNER_MULTI_DISPATCH,
    INNER_MULTI_QUEUE_OFFSET,
    MultiDispatchError,
    is_lmq,
    lmq_targets,
)
from inspector.engine.model.records import Message, Problem
from inspector.engine.read.store.answers import first_offset
from inspector.engine.read.store.retention import ExpiredRange
from parsers.consumequeue import CQ_UNIT_SIZE, PRE_BLANK_SIZE

if TYPE_CHECKING:
    from inspector.engine.maintain.verify.crosschecks import CrossChecks

__all__ = ["check_queue", "place_mismatches", "unit_record"]


def check_queue(store, topic: str, qid: int, geometry: Geometry, log_end: int,
                 cross: CrossChecks | None) -> tuple[list[Problem], int]:
    """(problems, units checked) of one queue: every unit against the record it points at.

    Units the commitlog walk vouched for (see CrossChecks) need only the log-end and order checks, done
    here on arrays; every other unit goes through :func:`_check_unit`. Units below the log's first offset are
    retention's leftovers: counted into one info finding, not checked (see read/retention.py).
    """
    cq = store.queue(topic, qid)
    problems: list[Problem] = []
    floor = first_offset(store)
    expired = ExpiredRange(floor)
    units = 0
    prev_phy = -1
    marks = cross.queues.get((topic, qid)) if cross is not None else None
    if marks is None:
        for unit in cq.units(0):
            if isinstance(unit, Problem):
                problems.append(unit)
                units += unit.code == "cq-bad-unit"  # checked, and not a unit
                continue
            if unit.is_pre_blank:
                continue
            units += 1
            if unit.physical_offset < floor:  # ConsumeQueue.correctMinOffset skips it
                expired.add(unit.file, unit.position, unit.queue_offset, unit.physical_offset)
                continue
            found, prev_phy = _check_unit(store, unit, topic, qid, geometry, log_end, prev_phy)
            problems.extend(found)
        return _expired_first(problems, expired), units
    for run in cq.unit_runs(0):
        if isinstance(run, Problem):
            problems.append(run)
            units += run.code == "cq-bad-unit"
            continue
        phys = run.column("physical_offset")
        sizes = run.column("size")
        tags = run.column("tags_code")
        real = ~((phys == 0) & (sizes == PRE_BLANK_SIZE) & (tags == 0))
        units += int(np.count_nonzero(real))
        # below the log's first offset: ConsumeQueue.correctMinOffset skips them (reductions, no index array: an
        # aged queue's first file can be mostly expired units)
        gone = real & (phys < floor) if floor else None
        n_gone = int(np.count_nonzero(gone)) if gone is not None else 0
        if n_gone:
            first_unit, last_unit = run.unit(int(gone.argmax())), run.unit(len(gone) - 1 - int(gone[::-1].argmax()))
            expired.add_many(first_unit.file, first_unit.position, first_unit.queue_offset, last_unit.queue_offset,
                             n_gone, int(phys.min(where=gone, initial=floor)), int(phys.max(where=gone, initial=-1)))
        index = np.flatnonzero(real & ~gone if n_gone else real)
        if not index.size:
            continue
        phys, sizes = phys[index], sizes[index]
        past_end = phys + sizes > log_end
        # prev_phy before each unit: the last earlier unit that was not past the end
        last = np.maximum.accumulate(np.where(~past_end, np.arange(index.size), -1))
        before = np.concatenate([[-1], last[:-1]])
        prev = np.where(before >= 0, phys[np.maximum(before, 0)], prev_phy)
        vouched = marks.by_rel.get(run.file)
        first = run.position // CQ_UNIT_SIZE
        matched = np.zeros(index.size, bool)
        if vouched is not None:  # marks end at the allocated end the walk saw (a live file may have grown since)
            at = first + index
            inside = at < len(vouched)
            matched[inside] = vouched[at[inside]].astype(bool)
        ok = ~past_end & (phys > prev) & matched
        for i in np.flatnonzero(~ok).tolist():
            found, _ = _check_unit(store, run.unit(int(index[i])), topic, qid, geometry, log_end, int(prev[i]))
            problems.extend(found)
        if last[-1] >= 0:
            prev_phy = int(phys[last[-1]])
    for start, _ in cq.files:  # this queue is done: its pages need not stay resident
        try:
            cq._map(start).release(0, cq.file_sizes.get(start, 0))
        except StoreError:
            pass
    return _expired_first(problems, expired), units


def _expired_first(problems: list[Problem], expired: ExpiredRange) -> list[Problem]:
    return expired.before(problems, "unit(s)", "cq-expired", "ConsumeQueue.correctMinOffset")


def unit_record(store, unit, log_end: int, prev_phy: int, label: str) -> tuple[list[Problem], int, Message | None]:
    """What every queue unit (20- or 46-byte) must pass before its record is compared: inside the log, after
    the previous unit, at a readable record. (problems, prev_phy for the next unit, the record or None);
    ``label`` names the unit in the reasons ("unit 5")."""
    found: list[Problem] = []
    where = (unit.file, unit.position)
    if unit.physical_offset + unit.size > log_end:
        # with abort present a broker is running (or crashed): its queues may run ahead of the complete records
        ahead = store.abort_exists and unit.physical_offset >= log_end
        found.append(Problem(*where, f"{label} points at {unit.physical_offset}+{unit.size}, "
                             f"past the end of the commitlog ({log_end})"
                             + ("; the broker is running or crashed (abort file present)" if ahead else ""),
                             "cq-past-end", "warning" if ahead else "error"))
        return found, prev_phy, None
    if unit.physical_offset <= prev_phy:
        found.append(Problem(*where, f"{label} points at {unit.physical_offset}, not after the "
                             f"previous unit ({prev_phy})", "cq-order"))
    prev_phy = unit.physical_offset
    try:
        msg = store.message_at(unit.physical_offset)
    except StoreError as e:
        found.append(Problem(*where, f"{label} points at {unit.physical_offset}: {e.reason}", "cq-dangling",
                             points_at=unit.physical_offset))
        return found, prev_phy, None
    return found, prev_phy, msg


def _check_unit(store, unit, topic: str, qid: int, geometry: Geometry, log_end: int,
                prev_phy: int) -> tuple[list[Problem], int]:
    """Problems of one unit, and prev_phy for the next one."""
    found, prev_phy, msg = unit_record(store, unit, log_end, prev_phy, f"unit {unit.queue_offset}")
    if msg is None:
        return found, prev_phy
    where = (unit.file, unit.position)
    mismatches = []
    if msg.topic != topic and (is_lmq(topic) or INNER_MULTI_DISPATCH in msg.properties):  # a multi-dispatch unit
        mismatches += _lmq_mismatches(msg, unit, topic, qid)
    else:
        mismatches += place_mismatches(msg, topic, qid)
        if msg.queue_offset != unit.queue_offset:
            mismatches.append(f"queue offset {msg.queue_offset}")
    if msg.total_size != unit.size:
        mismatches.append(f"size {msg.total_size} (unit says {unit.size})")
    try:
        req = dispatch_request(msg.topic, msg.queue_id, msg.stored_physical_offset, msg.total_size,
                               msg.store_timestamp, msg.queue_offset, msg.sys_flag,
                               msg.prepared_transaction_offset, msg.properties, geometry)
        if req.tags_code != unit.tags_code and not _is_ext(unit.tags_code):
            mismatches.append(f"tagsCode {req.tags_code} (unit says {unit.tags_code})")
    except BadInput as e:
        mismatches.append(str(e))
    if msg.transaction not in ("NOT_TYPE", "COMMIT"):
        mismatches.append(f"a {msg.transaction} record, which never gets a unit")
    if mismatches:
        found.append(Problem(*where, f"unit {unit.queue_offset} -> message at {unit.physical_offset} has "
                             + ", ".join(mismatches), "cq-mismatch", points_at=unit.physical_offset))
    return found, prev_phy


def place_mismatches(msg: Message, topic: str, qid: int) -> list[str]:
    """The record's topic and queue id against those of the queue holding its unit (20- and 46-byte units)."""
    return [*([f"topic {msg.topic!r}"] if msg.topic != topic else []),
            *([f"queue {msg.queue_id}"] if msg.queue_id != qid else [])]


def _lmq_mismatches(msg: Message, unit, topic: str, qid: int) -> list[str]:
    """A unit of an LMQ queue against the record it points at (multi-dispatch, spec part 2 §17): the record
    names the queue in INNER_MULTI_DISPATCH and gives, at the same position of INNER_MULTI_QUEUE_OFFSET, the
    unit's queue offset; an LMQ has one queue, id 0."""
    try:
        target = next((t for t in lmq_targets(msg.topic, msg.queue_id, msg.properties) if t.queue == topic), None)
    except MultiDispatchError as e:
        return [f"topic {msg.topic!r}, whose multi-dispatch properties are unusable ({e})"]
    if target is None:
        return [f"topic {msg.topic!r}, which is not multi-dispatched to {topic!r} ({INNER_MULTI_DISPATCH} "
                f"{msg.properties.get(INNER_MULTI_DISPATCH, '')[:120]!r})"]
    found = []
    if target.queue_offset != unit.queue_offset:
        found.append(f"{INNER_MULTI_QUEUE_OFFSET} {target.queue_offset} for {topic!r} (position {target.position} "
                     f"of {INNER_MULTI_DISPATCH})")
    if target.queue_id != qid:
        found.append(f"queue {target.queue_id} for {topic!r} (an LMQ has queue 0 only)")
    return found


def _is_ext(tags_code: int) -> bool:
    from parsers.consumequeue import is_ext_address

    return is_ext_address(tags_code)
