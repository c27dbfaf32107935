"""The tour's steps about consume queues: one unit and the record it points at, a delayed message (its unit's tag
code is the delivery time) and a transaction (half message, commit record, op record).
"""

from __future__ import annotations

import datetime as dt

from inspector.engine.maintain.rebuild.cq_builder import cq_unit_bytes
from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message, Problem
from inspector.engine.model.systopics import HALF_TOPIC, OP_TOPIC, SCHEDULE_TOPIC
from inspector.engine.workshop.tour import (
    SEARCH_HALVES,
    SEARCH_QUEUES,
    SEARCH_UNITS,
    Context,
    Missing,
    is_system,
)
from inspector.engine.workshop.tour_targets import CqTarget, record_hex
from parsers import commitlog as cl
from parsers.consumequeue import CQ_UNIT_SIZE
from parsers.java import java_string_hash


def _utc(ms: int) -> str:
    try:
        return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"
    except (OverflowError, OSError, ValueError):
        return f"{ms} ms"


def _tags_meaning(topic: str, tags_code: int, msg: Message | None) -> str:
    if msg is not None and topic == SCHEDULE_TOPIC and msg.properties.get("DELAY"):
        return f"delivery time {_utc(tags_code)} ({tags_code} ms), not a tag hash"
    if msg is not None and msg.tags:
        return f"hashCode of the tag '{msg.tags}' ({java_string_hash(msg.tags)})"
    return "0: the message has no tag"


def _cq_target(ctx: Context, unit, msg: Message, caption: str) -> CqTarget:
    return CqTarget(unit.topic, unit.queue_id, unit.queue_offset, unit.file, unit.position, unit.physical_offset,
                    unit.size, unit.tags_code, cq_unit_bytes(unit.physical_offset, unit.size, unit.tags_code).hex().upper(),
                    _tags_meaning(unit.topic, unit.tags_code, msg), msg.file, msg.end_offset, caption)


def _cq_unit(ctx: Context):
    store = ctx.store
    candidates = [(t, q) for t, q in store.queue_ids() if not is_system(t)][:SEARCH_QUEUES]
    if not candidates:
        raise Missing("This store has no consume queue of an ordinary topic.")
    chosen = None
    for t, q in candidates:  # a queue with a second file shows how files are named
        ctx.budget.check("looking at consume queues")
        cq = store.queue(t, q)
        info = cq.info()
        files = getattr(cq, "files", ())
        if len(files) >= 2 and info.max_offset > files[1][0] // CQ_UNIT_SIZE:
            chosen = (t, q, files[1][0] // CQ_UNIT_SIZE)
            break
    if chosen is None:
        for t, q in candidates:
            info = store.queue(t, q).info()
            if info.message_count >= 1:
                chosen = (t, q, min(info.min_offset + 1, info.max_offset - 1))
                break
    if chosen is None:
        raise Missing("Every consume queue of this store is empty.")
    topic, queue_id, queue_offset = chosen
    cq = store.queue(topic, queue_id)
    unit = cq.unit(queue_offset)
    msg = store.message_at(unit.physical_offset)
    file_start = (unit.queue_offset * CQ_UNIT_SIZE) - unit.position
    target = _cq_target(ctx, unit, msg, f"unit {queue_offset} of {topic} queue {queue_id}")
    file_name = unit.file.rsplit("/", 1)[-1]
    text = (
        f"A consume queue is the list of one queue's messages, in order, without the messages themselves. Each "
        f"unit is 20 bytes: where the record starts in the commitlog (8 bytes), how long it is (4) and a tag "
        f"code (8). This is unit number {queue_offset} of {topic} queue {queue_id}: it sits at byte "
        f"{unit.position} of file {file_name}. The file name is a byte count, not a message number: "
        f"{int(file_name)} bytes / 20 = unit {file_start // CQ_UNIT_SIZE}, and {unit.position} / 20 = "
        f"{unit.position // CQ_UNIT_SIZE} more, so this is queue offset {queue_offset}. "
        f"The unit points at physical offset {unit.physical_offset} with size {unit.size}; the record there "
        f"says TOTALSIZE {msg.total_size}, QUEUEOFFSET {msg.queue_offset} and topic {msg.topic}, which is how a "
        f"reader checks that both agree. The tag code is {target.tags_meaning}: consumers filter by tag "
        f"without reading the record."
    )
    extra = (record_hex(msg, ("TOTALSIZE", "QUEUEID", "QUEUEOFFSET", "TOPIC"), "QUEUEOFFSET",
                         f"the record unit {queue_offset} points at"),)
    return text, target, extra, (ctx.cmd("messages", "--topic", topic, "--queue", str(queue_id), "--from",
                                         str(queue_offset), "--limit", "3"),
                                 ctx.cmd("show", str(unit.physical_offset)))


def _delay(ctx: Context):
    store = ctx.store
    best = None
    for t, q in store.queue_ids():
        if t != SCHEDULE_TOPIC:
            continue
        for n, (unit, msg) in enumerate(store.queue_messages(t, q)):
            if n >= SEARCH_UNITS:
                break
            if n % 256 == 255:
                ctx.budget.check(f"reading {SCHEDULE_TOPIC}")
            if unit is None or isinstance(msg, Problem) or not msg.properties.get("DELAY"):
                continue
            real = msg.properties.get("REAL_TOPIC", "")
            if best is None or (best[1].properties.get("REAL_TOPIC", "").startswith("%") and not real.startswith("%")):
                best = (unit, msg)
            if not real.startswith("%"):
                break
        if best is not None and not best[1].properties.get("REAL_TOPIC", "").startswith("%"):
            break
    if best is None:
        raise Missing(f"No message of this store went through {SCHEDULE_TOPIC}: nothing was sent with a delay level.")
    unit, msg = best
    level = msg.properties["DELAY"]
    real_topic = msg.properties.get("REAL_TOPIC", "?")
    real_qid = msg.properties.get("REAL_QID", "?")
    delay_ms = unit.tags_code - msg.store_timestamp
    target = _cq_target(ctx, unit, msg, f"the unit of the delayed message in {SCHEDULE_TOPIC} queue {unit.queue_id}")
    extra = [record_hex(msg, ("TOPIC", "QUEUEID", "STORETIMESTAMP", "PROPERTIES"), "PROPERTIES",
                         "the parked record: system topic, queue = level - 1, DELAY and REAL_TOPIC properties")]
    delivered = ""
    if msg.unique_key and real_topic != "?":
        try:
            copies = [h.message for h in store.lookup_key(real_topic, msg.unique_key)
                      if h.message.physical_offset > msg.physical_offset]
        except StoreError:
            copies = []
        if copies:
            copy = copies[0]
            extra.append(record_hex(copy, ("TOPIC", "QUEUEID", "STORETIMESTAMP"), "TOPIC",
                                     f"the same message delivered to {real_topic}"))
            delivered = (f" When it was due, the broker wrote it again, this time into {real_topic} queue "
                         f"{copy.queue_id} at physical offset {copy.physical_offset} (stored "
                         f"{(copy.store_timestamp - msg.store_timestamp) / 1000:g} s later), where consumers see it.")
    text = (
        f"A producer asked for delay level {level}. The broker does not hold the message in memory: it writes it "
        f"to the commitlog at once, but under the system topic {SCHEDULE_TOPIC}, queue {unit.queue_id} "
        f"(level - 1), with the real destination kept in the properties REAL_TOPIC={real_topic} and "
        f"REAL_QID={real_qid}. Its consume-queue unit is the interesting part: the tag code is not a tag hash but "
        f"the delivery time, {unit.tags_code} = store time {msg.store_timestamp} + {delay_ms} ms "
        f"({_utc(unit.tags_code)}). A scheduler reads each level's queue in order and delivers what is due."
        f"{delivered}"
    )
    return text, target, extra, (ctx.cmd("messages", "--topic", SCHEDULE_TOPIC, "--queue", str(unit.queue_id)),
                                 ctx.cmd("show", str(msg.physical_offset)))


def _transaction(ctx: Context):
    store = ctx.store
    if (HALF_TOPIC, 0) not in store.queue_ids():
        raise Missing(f"This store has no {HALF_TOPIC} queue: no transactional message was sent.")
    halves = [(u, m) for u, m in _first_units(store, HALF_TOPIC, SEARCH_HALVES) if isinstance(m, Message)]
    ops: list[Message] = []
    if (OP_TOPIC, 0) in store.queue_ids():
        ops = [m for u, m in _first_units(store, OP_TOPIC, SEARCH_UNITS) if isinstance(m, Message)]
    ctx.budget.check(f"reading {HALF_TOPIC}")
    chosen = None
    for unit, half in halves:
        ctx.budget.check("looking up commit records")
        real = half.properties.get("REAL_TOPIC")
        commit = None
        if real and half.unique_key:
            for hit in store.lookup_key(real, half.unique_key):
                m = hit.message
                if m.transaction == "COMMIT" and m.prepared_transaction_offset == half.physical_offset:
                    commit = m
                    break
        op = next((o for o in ops if str(unit.queue_offset) in o.body.decode("utf-8", "replace").split(",")), None)
        if commit is not None:
            chosen = (unit, half, commit, op)
            break
        if chosen is None:
            chosen = (unit, half, None, op)
    if chosen is None:
        raise Missing(f"The {HALF_TOPIC} queue is empty.")
    unit, half, commit, op = chosen
    extra = [record_hex(half, ("SYSFLAG", "TOPIC", "PROPERTIES"), "TOPIC",
                         f"the half message, parked in {HALF_TOPIC} (queue offset {unit.queue_offset})")]
    if op is not None:
        extra.append(record_hex(op, ("TOPIC", "BODY"), "BODY",
                                 f"the op record: its body names the half by queue offset {unit.queue_offset}"))
    op_text = (f" Finally an op record in {OP_TOPIC} at {op.physical_offset}, tag 'd', with body "
               f"'{op.body.decode('utf-8', 'replace')}', marks the half as done: it names the half by its queue "
               f"offset ({unit.queue_offset}), not by its physical offset." if op is not None else "")
    if commit is not None:
        target = record_hex(commit, ("SYSFLAG", "PREPARED TRANSACTION OFFSET"), "PREPARED TRANSACTION OFFSET",
                             f"the COMMIT record at {commit.physical_offset}")
        text = (
            f"A transactional message is written twice. First the half message: the broker stores it at "
            f"{half.physical_offset} under the system topic {HALF_TOPIC}, with the real topic in REAL_TOPIC, so "
            f"no consumer sees it yet. When the producer commits, the broker writes a new record into "
            f"{commit.topic} queue {commit.queue_id} at {commit.physical_offset}: its sysFlag says COMMIT "
            f"(0x{commit.sys_flag & cl.TRANSACTION_MASK:X}) and its PREPARED TRANSACTION OFFSET field is "
            f"{commit.prepared_transaction_offset}, the physical offset of the half.{op_text} A rolled-back "
            f"transaction has the half and the op record but no commit."
        )
        shown = commit
    else:
        target = record_hex(half, ("SYSFLAG", "TOPIC", "PROPERTIES"), "TOPIC", f"the half message at {half.physical_offset}")
        extra = extra[1:]
        text = (
            f"This store has a transaction that was never committed. Its half message is at {half.physical_offset} "
            f"under the system topic {HALF_TOPIC}, with the real topic in REAL_TOPIC, so no consumer ever saw "
            f"it.{op_text} Had it been committed, a second record with sysFlag COMMIT and the half's physical "
            f"offset in its PREPARED TRANSACTION OFFSET field would sit in the real topic."
        )
        shown = half
    return text, target, extra, (ctx.cmd("messages", "--topic", HALF_TOPIC, "--queue", "0"),
                                 ctx.cmd("show", str(shown.physical_offset)))


def _first_units(store, topic: str, limit: int) -> list:
    """The first ``limit`` (unit, message or Problem) pairs of ``topic`` queue 0 that have a unit."""
    found = []
    for unit, msg in store.queue_messages(topic, 0):
        if unit is not None:
            found.append((unit, msg))
            if len(found) >= limit:
                break
    return found


BUILDERS = {"cq-unit": _cq_unit, "delay": _delay, "transaction": _transaction}
