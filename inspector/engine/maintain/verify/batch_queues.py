"""verify's batch consume-queue checks: every 46-byte unit against the record it points at (spec §4.3, §2.10, §11).

A unit must be valid (``BatchConsumeQueue.recover``: offsets >= 0, size and batchSize > 0: the reader reports
the others as ``bcq-bad-unit``), point inside the log after the previous unit, at a record of its topic and
queue with the unit's size, store time and the tagsCode dispatch computes; its msgBaseOffset and batchSize
are the record's INNER_BASE / INNER_NUM when the record carries both, else its QUEUEOFFSET and 1, and an
inner-batch record's body holds INNER_NUM well-formed messages. The units' bases follow each other with no gap
or overlap: base[i+1] == base[i] + batchSize[i].
"""

from __future__ import annotations

from inspector.engine.maintain.rebuild.dispatch import dispatch_request
from inspector.engine.maintain.verify.queues import place_mismatches, unit_record
from inspector.engine.model.errors import BadInput, StoreError
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.meaning import gets_queue_unit
from inspector.engine.model.records import BatchUnit, Message, Problem
from inspector.engine.read.queues.batchconsumequeue import inner_messages, is_inner_batch
from inspector.engine.read.store.answers import first_offset
from inspector.engine.read.store.retention import ExpiredRange

__all__ = ["check_batch_queue"]

INVALID_POS = -1  # the compacted offset BatchConsumeQueue writes


def check_batch_queue(store, topic: str, qid: int, geometry: Geometry, log_end: int) -> tuple[list[Problem], int]:
    """(problems, units checked) of one batch consume queue."""
    bcq = store.batch_queue(topic, qid)
    problems: list[Problem] = []
    units = 0
    prev_phy = -1
    prev: BatchUnit | None = None
    floor = first_offset(store)
    expired = ExpiredRange(floor)  # units below the log's first offset: retention's, skipped by the broker
    for unit in bcq.units(0):
        if isinstance(unit, Problem):
            problems.append(unit)
            units += unit.code == "bcq-bad-unit"
            continue
        units += 1
        where = (unit.file, unit.position)
        if prev is not None and unit.msg_base_offset != prev.msg_base_offset + prev.batch_size:
            problems.append(Problem(*where, f"unit's msgBaseOffset {unit.msg_base_offset} does not follow the "
                                    f"previous unit's {prev.msg_base_offset} + batchSize {prev.batch_size} = "
                                    f"{prev.msg_base_offset + prev.batch_size}", "bcq-gap"))
        prev = unit
        if unit.compacted_offset != INVALID_POS or unit.reserved != 0:
            problems.append(Problem(*where, f"compactedOffset {unit.compacted_offset} and reserved {unit.reserved}: "
                                    f"a broker writes {INVALID_POS} and 0", "bcq-unit-fields", "warning"))
        if unit.physical_offset < floor:
            expired.add(unit.file, unit.position, unit.msg_base_offset, unit.physical_offset)
            continue
        found, prev_phy, msg = unit_record(store, unit, log_end, prev_phy,
                                           f"unit of queue offset {unit.msg_base_offset}")
        problems.extend(found)
        if msg is None:
            continue
        mismatches = _mismatches(msg, unit, topic, qid, geometry)
        if mismatches:
            problems.append(Problem(*where, f"unit of queue offset {unit.msg_base_offset} -> message at "
                                    f"{unit.physical_offset} has " + ", ".join(mismatches), "bcq-mismatch"))
    return expired.before(problems, "unit(s)", "bcq-expired", "BatchConsumeQueue.correctMinOffset"), units


def _mismatches(msg: Message, unit: BatchUnit, topic: str, qid: int, geometry: Geometry) -> list[str]:
    found = place_mismatches(msg, topic, qid)
    if msg.total_size != unit.size:
        found.append(f"size {msg.total_size} (unit says {unit.size})")
    if msg.store_timestamp != unit.store_timestamp:
        found.append(f"store time {msg.store_timestamp} (unit says {unit.store_timestamp})")
    if msg.queue_offset != unit.msg_base_offset:
        found.append(f"queue offset {msg.queue_offset} (unit's msgBaseOffset {unit.msg_base_offset})")
    if not gets_queue_unit(msg.transaction):
        found.append(f"a {msg.transaction} record, which never gets a unit")
    try:
        req = dispatch_request(msg.topic, msg.queue_id, msg.stored_physical_offset, msg.total_size,
                               msg.store_timestamp, msg.queue_offset, msg.sys_flag,
                               msg.prepared_transaction_offset, msg.properties, geometry)
    except BadInput as e:
        return [*found, e.reason]
    if req.tags_code != unit.tags_code:
        found.append(f"tagsCode {req.tags_code} (unit says {unit.tags_code})")
    inner_num = msg.properties.get("INNER_NUM")
    if req.msg_base_offset != unit.msg_base_offset:
        found.append(f"INNER_BASE {req.msg_base_offset} (unit's msgBaseOffset {unit.msg_base_offset})")
    if req.batch_size != unit.batch_size:
        what = f"INNER_NUM {inner_num}" if inner_num is not None else "no INNER_NUM (one message)"
        found.append(f"{what} (unit's batchSize {unit.batch_size})")
    if is_inner_batch(msg):
        try:
            count = len(inner_messages(msg, unit.msg_base_offset))
        except StoreError as e:
            found.append(e.reason)
        else:
            if count != req.batch_size:
                found.append(f"{count} inner message(s) in its body, INNER_NUM says {inner_num}")
    return found
