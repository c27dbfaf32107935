"""Exercise kinds about the commitlog and the consume queues: a unit's queue offset, where a unit points, where a
segment's data ends, tag codes, a delayed message's delivery time, a transaction's commit, consume-queue file names.
"""

from __future__ import annotations

import itertools

from inspector.engine.model.records import Message
from inspector.engine.model.systopics import HALF_TOPIC, SCHEDULE_TOPIC
from inspector.engine.workshop.exercise_facts import (
    QUEUE_UNITS,
    SCAN_QUEUES,
    SYSTEM_UNITS,
    Facts,
    Unavailable,
    variant,
)
from inspector.engine.workshop.exercise_model import INT_HINT, draft
from inspector.engine.workshop.tour import is_system
from parsers.consumequeue import CQ_UNIT_SIZE
from parsers.java import java_string_hash


def _user_queues(f: Facts) -> list[tuple[str, int]]:
    """The first ``SCAN_QUEUES`` ordinary queues that hold units."""
    found = []
    for t, q in f.store.queue_ids()[: 4 * SCAN_QUEUES]:  # a store of many empty queues: look at a few hundred
        if not is_system(t) and f.store.queue(t, q).info().message_count:
            found.append((t, q))
            if len(found) >= SCAN_QUEUES:
                break
    return found


def _queue_offsets(cq, step: int) -> list[int]:
    """Queue offsets min, min + step, ... of ``cq``; of a long queue only ``QUEUE_UNITS`` of them: the first half
    from its start, the second from the start of its second file (a later file teaches how files are named)."""
    info = cq.info()
    lo, hi = info.min_offset, info.max_offset
    if hi - lo <= QUEUE_UNITS:
        return list(range(lo, hi, step))
    half = QUEUE_UNITS // 2
    offsets = list(range(lo, lo + half, step))
    files = getattr(cq, "files", ())
    if len(files) >= 2:
        second = max(files[1][0] // CQ_UNIT_SIZE, lo + half)
        second = lo + -(-(second - lo) // step) * step  # stay on the step grid
        offsets.extend(range(second, min(hi, second + half), step))
    return offsets


def _multi_file_first(f: Facts, step: int) -> list[tuple[str, int, int]]:
    """(topic, queue, queue offset) candidates; queues with two or more files first (they teach file names)."""
    multi, single = [], []
    for t, q in _user_queues(f):
        cq = f.store.queue(t, q)
        target = multi if len(getattr(cq, "files", ())) >= 2 else single
        target.extend((t, q, qo) for qo in _queue_offsets(cq, step))
    return multi or single


def _cq_queue_offset(f: Facts, seed: int, r: int):
    pool = _multi_file_first(f, 3)
    later = [c for c in pool if c[2] * CQ_UNIT_SIZE >= f.store.queue(c[0], c[1]).file_size]
    pool = later or pool
    choice = variant(pool, "cq-queue-offset", seed, r)
    if choice is None:
        raise Unavailable
    topic, queue_id, qo = choice
    unit = f.store.queue(topic, queue_id).unit(qo)
    name = unit.file.rsplit("/", 1)[-1]
    start = int(name)
    hints = []
    if start:
        hints.append(((unit.position // CQ_UNIT_SIZE,), f"that counts from the start of the file; the file itself "
                                                         f"starts at queue offset {start} / 20 = {start // CQ_UNIT_SIZE}."))
        hints.append(((start + unit.position // CQ_UNIT_SIZE,), "the file name counts bytes, not units: divide it by 20."))
    return draft(
        question=f"In {topic} queue {queue_id}, consume-queue file {name} has a unit at byte position "
                 f"{unit.position}. Which queue offset does that unit hold?",
        answer=str(qo), answer_type="int", expected=(qo,), format_hint=INT_HINT, hints=tuple(hints),
        explanation=(f"Units are 20 bytes and the file name is the byte offset of its first unit in the queue: "
                     f"({start} + {unit.position}) / 20 = {qo}."),
        command=f.cmd("messages", "--topic", topic, "--queue", str(queue_id), "--from", str(qo), "--limit", "1"),
    )


def _cq_points_at(f: Facts, seed: int, r: int):
    pool = []
    for t, q in _user_queues(f):
        pool.extend((t, q, qo) for qo in _queue_offsets(f.store.queue(t, q), 2))
    choice = variant(pool, "cq-points-at", seed, r)
    if choice is None:
        raise Unavailable
    topic, queue_id, qo = choice
    unit = f.store.queue(topic, queue_id).unit(qo)
    return draft(
        question=f"Unit {qo} of {topic} queue {queue_id}: at which physical offset does the message it points at "
                 f"start?",
        answer=str(unit.physical_offset), answer_type="int", expected=(unit.physical_offset,), format_hint=INT_HINT,
        hints=(((qo * CQ_UNIT_SIZE,), f"{qo * CQ_UNIT_SIZE} is where the unit itself sits in the queue's files; the "
                                      "unit's first 8 bytes give the commitlog offset."),),
        explanation=(f"The unit's first 8 bytes hold the commitlog offset {unit.physical_offset} (then the size "
                     f"{unit.size} and the tag code {unit.tags_code})."),
        command=f.cmd("messages", "--topic", topic, "--queue", str(queue_id), "--from", str(qo), "--limit", "1"),
    )


def _segment_end(f: Facts, seed: int, r: int):
    scans = []
    for i in range(min(len(f.store.segments), 8)):
        f.budget.check(f"scanning {i} segments")
        scans.append(f.store.scan_segment(i))
    pool = [i for i, s in enumerate(scans) if s.messages or s.blank_position is not None]
    i = variant(pool, "segment-end", seed, r)
    if i is None:
        raise Unavailable
    scan = scans[i]
    seg = scan.segment
    if scan.blank_position is not None:
        phy = seg.start_offset + scan.blank_position
        hints = [((seg.end_offset,), "that is the end of the file; the data stops earlier, where the BLANK starts.")]
        if seg.start_offset:
            hints.append(((scan.blank_position,), f"that is the position inside the file; add the segment's start "
                                                  f"offset {seg.start_offset}."))
        return draft(
            question=f"Commitlog segment {seg.name} is sealed. At which physical offset does its BLANK record start?",
            answer=str(phy), answer_type="int", expected=(phy,), format_hint=INT_HINT, hints=tuple(hints),
            explanation=(f"The last message ends at position {scan.blank_position}; there the broker wrote the 8-byte "
                         f"BLANK ({scan.blank_size} bytes left, magic CBD43194) because the next message plus 8 spare "
                         f"bytes did not fit. Physical offset = {seg.start_offset} + {scan.blank_position} = {phy}."),
            command=f.cmd("info"),
        )
    end = scan.valid_end_offset
    hints = [((seg.end_offset,), "that is the end of the file; the active segment ends in zeros after its data.")]
    if seg.start_offset:
        hints.append(((scan.data_end,), f"that is the position inside the file; add the segment's start offset "
                                        f"{seg.start_offset}."))
    return draft(
        question=f"Commitlog segment {seg.name} is the one being written (no BLANK yet). At which physical offset "
                 f"does its data end (the first byte after its last record)?",
        answer=str(end), answer_type="int", expected=(end,), format_hint=INT_HINT, hints=tuple(hints),
        explanation=(f"Its {scan.messages} records end at position {scan.data_end}, followed by zeros: "
                     f"{seg.start_offset} + {scan.data_end} = {end}, where the next message would be written."),
        command=f.cmd("info"),
    )


def _tags_code(f: Facts, seed: int, r: int):
    pool = sorted({m.tags for m in f.messages if m.tags and not is_system(m.topic)})
    tag = variant(pool, "tags-code", seed, r)
    if tag is None:
        raise Unavailable
    code = java_string_hash(tag)
    m = next(m for m in f.messages if m.tags == tag and not is_system(m.topic))
    hints = []
    if code < 0:
        hints.append(((code + (1 << 32),), "that reads the hash as unsigned; Java ints are signed, and the 8-byte "
                                           "tag code is the sign-extended int."))
    return draft(
        question=f"A message has the tag '{tag}'. What tagsCode does its consume-queue unit store?",
        answer=str(code), answer_type="int", expected=(code,), format_hint=INT_HINT + " (negative allowed)",
        hints=tuple(hints),
        explanation=(f"The tag code of an ordinary message is Java's '{tag}'.hashCode() = {code}, widened to 8 bytes "
                     f"(0x{code & 0xFFFFFFFFFFFFFFFF:016X})."),
        # the consume-queue listing of a message with that tag: its table's tagsCode column is the answer
        command=f.cmd("messages", "--topic", m.topic, "--queue", str(m.queue_id), "--from", str(m.queue_offset),
                      "--limit", "1"),
    )


def _delay_tagscode(f: Facts, seed: int, r: int):
    pool = []
    for t, q in f.store.queue_ids():
        if t != SCHEDULE_TOPIC:
            continue
        for n, (unit, msg) in enumerate(f.store.queue_messages(t, q)):
            if n >= SYSTEM_UNITS:
                break
            if n % 256 == 255:
                f.budget.check(f"reading {SCHEDULE_TOPIC}")
            if unit is not None and isinstance(msg, Message) and msg.properties.get("DELAY"):
                pool.append((q, unit.queue_offset, unit.tags_code, msg.store_timestamp, msg.properties["DELAY"]))
    choice = variant(sorted(pool), "delay-tagscode", seed, r)
    if choice is None:
        raise Unavailable
    q, qo, code, stored, level = choice
    delay = code - stored
    return draft(
        question=f"The unit at queue offset {qo} of {SCHEDULE_TOPIC} queue {q} has tagsCode {code}; the record it "
                 f"points at was stored at {stored} (epoch ms). How long after it was stored is the message "
                 f"delivered?",
        answer=f"{delay} ms", answer_type="duration", expected=(delay,),
        format_hint="a duration, e.g. 10000 ms or 10 s",
        hints=(((code,), "that is the tag code itself: in this topic it is the delivery time; subtract the store "
                         "time."),),
        explanation=(f"In {SCHEDULE_TOPIC} the tag code is the delivery time: store time + the delay of level "
                     f"{level} (queue {q} = level - 1): {code} - {stored} = {delay} ms."),
        command=f.cmd("messages", "--topic", SCHEDULE_TOPIC, "--queue", str(q), "--json"),
    )


def _transaction_commit(f: Facts, seed: int, r: int):
    if (HALF_TOPIC, 0) not in f.store.queue_ids():
        raise Unavailable
    halves = [m for u, m in itertools.islice(f.store.queue_messages(HALF_TOPIC, 0), SYSTEM_UNITS)
              if u is not None and isinstance(m, Message)]
    half = variant(sorted(halves, key=lambda m: m.physical_offset), "transaction-commit", seed, r)
    if half is None:
        raise Unavailable
    real = half.properties.get("REAL_TOPIC")
    commit = None
    if real and half.unique_key:
        commit = next((h.message for h in f.store.lookup_key(real, half.unique_key)
                       if h.message.transaction == "COMMIT" and h.message.prepared_transaction_offset == half.physical_offset),
                      None)
    keys = " ".join(half.keys)
    question = (f"The half message at physical offset {half.physical_offset} (for {real}, keys '{keys}') belongs to a "
                f"transaction. At which physical offset is its COMMIT record? Answer 'none' if it was rolled back.")
    if commit is None:
        return draft(question=question, answer="none", answer_type="int-or-none", expected=("none",),
                   format_hint="a physical offset, or 'none'",
                   explanation=(f"No record of {real} has sysFlag COMMIT with PREPARED TRANSACTION OFFSET "
                                f"{half.physical_offset}: the transaction was rolled back (only an op record marks "
                                "the half as done)."),
                   hints=(((half.physical_offset,), "that is the half message itself."),),
                   command=f.cmd("key", real or HALF_TOPIC, half.keys[0] if half.keys else half.unique_key or ""))
    return draft(question=question, answer=str(commit.physical_offset), answer_type="int-or-none",
               expected=(commit.physical_offset,), format_hint="a physical offset, or 'none'",
               hints=(((half.physical_offset,), "that is the half message itself; the commit is a second record."),),
               explanation=(f"The COMMIT record is in {commit.topic} queue {commit.queue_id} at "
                            f"{commit.physical_offset}: sysFlag 0x{commit.sys_flag:X} (COMMIT) and PREPARED "
                            f"TRANSACTION OFFSET {commit.prepared_transaction_offset}, the half's offset."),
               command=f.cmd("key", commit.topic, commit.keys[0] if commit.keys else commit.unique_key or ""))


def _cq_file_name(f: Facts, seed: int, r: int):
    pool = _multi_file_first(f, 1)
    later = [c for c in pool if c[2] * CQ_UNIT_SIZE >= f.store.queue(c[0], c[1]).file_size]
    later_set = set(later)  # a set: `in later` made this quadratic (14 s on a 20,000-message store)
    first = [c for c in pool if c not in later_set]
    pool = later + first[:: max(1, len(first) // max(1, len(later)))] if later else pool
    choice = variant(pool, "cq-file-name", seed, r)
    if choice is None:
        raise Unavailable
    topic, queue_id, qo = choice
    cq = f.store.queue(topic, queue_id)
    size = cq.file_size
    per_file = size // CQ_UNIT_SIZE
    start = qo * CQ_UNIT_SIZE // size * size
    name = f"{start:020d}"
    hints = []
    wrong = qo // per_file * per_file
    if wrong != start:
        hints.append(((wrong,), f"{wrong} is the first queue offset in that file; file names count bytes "
                                f"(queue offset x 20)."))
    return draft(
        question=f"{topic} queue {queue_id} uses consume-queue files of {size} bytes ({per_file} units). Which file "
                 f"holds queue offset {qo}?",
        answer=name, answer_type="int", expected=(start,), format_hint="a file name (20 digits) or its number",
        hints=tuple(hints),
        explanation=(f"Unit {qo} starts at byte {qo} x 20 = {qo * CQ_UNIT_SIZE} of the queue; files are named by "
                     f"the byte offset of their first unit, in steps of {size}: {name}."),
        command=f.cmd("info"),
    )


def _expired_min(f: Facts, seed: int, r: int):
    """A store past its retention (sample_store_aged): a queue whose first file still holds units below the log's
    first offset; its min offset is the first unit at or above it (ConsumeQueue.correctMinOffset)."""
    first = f.store.commitlog.retention_floor
    if not first:
        raise Unavailable  # nothing removed by retention: no unit is expired
    pool = []
    for t, q in _user_queues(f):
        cq = f.store.queue(t, q)
        files = getattr(cq, "files", ())
        if files and cq.info().min_offset > files[0][0] // CQ_UNIT_SIZE:
            pool.append((t, q, files[0][0] // CQ_UNIT_SIZE, cq.info().min_offset, files[0][1]))
    choice = variant(pool, "expired-min", seed, r)
    if choice is None:
        raise Unavailable
    topic, queue_id, file_first, min_offset, path = choice
    name = path.name
    hints = [((file_first,), f"{file_first} is the first unit in file {name}, but it points below the log's first "
                             f"offset {first}: its record was removed by retention.")]
    return draft(
        question=f"Retention removed every record of this store below physical offset {first}. The first "
                 f"consume-queue file of {topic} queue {queue_id} ({name}) starts at queue offset {file_first}. "
                 f"Which min offset does the broker give this queue when it loads it?",
        answer=str(min_offset), answer_type="int", expected=(min_offset,), format_hint=INT_HINT,
        hints=tuple(hints),
        explanation=(f"ConsumeQueue.correctMinOffset skips the units whose physical offset is below the log's "
                     f"first offset {first}: units {file_first}..{min_offset - 1} are expired (verify counts them "
                     f"as an info finding, cq-expired), so the queue starts at {min_offset}; a consumer offset "
                     f"below it is corrected by the broker."),
        command=f.cmd("info"),
    )


BUILDERS = {
    "cq-queue-offset": _cq_queue_offset, "cq-points-at": _cq_points_at, "segment-end": _segment_end,
    "tags-code": _tags_code, "delay-tagscode": _delay_tagscode, "transaction-commit": _transaction_commit,
    "cq-file-name": _cq_file_name, "expired-min": _expired_min,
}
