"""``verify``: every problem in a store, each with file, offset and a short reason (issue: write/rebuild/verify).

Checks, in order: commitlog layout and every record (magic, sizes, length formula,
body CRC, the 5.x ``__CRC32#`` property, PHYSICALOFFSET, BLANK at segment ends);
consume queues against the records they point at; index files (header counters,
time ranges, items against their messages' keys, chains); checkpoint; consumer
offsets; config files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from inspector.engine.dispatch import dispatch_request
from inspector.engine.errors import BadInput, StoreError
from inspector.engine.geometry import Geometry
from inspector.engine.indexfile import IndexFileReader
from inspector.engine.records import Message, Problem
from parsers.java import (
    CRC_PROPERTY_NAME,
    CRC_PROPERTY_TAIL_LENGTH,
    index_key,
    index_key_hash,
    parse_crc_property_digits,
    rocketmq_crc32,
)

Progress = Callable[[str, int, int], None]  # (phase, done, total)


@dataclass(frozen=True)
class VerifyReport:
    problems: tuple[Problem, ...]
    messages: int
    cq_units: int
    index_items: int

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


def verify(store, geometry: Geometry | None = None, *, progress: Progress | None = None) -> VerifyReport:
    from inspector.engine.rebuild import store_geometry

    geometry = geometry or store_geometry(store)
    problems: list[Problem] = list(store.commitlog.problems)
    messages = 0
    last_ts = 0
    total = max(1, sum(s.file_size for s in store.segments))
    for entry in store.entries(check_crc=True):
        if isinstance(entry, Problem):
            problems.append(entry)
        elif isinstance(entry, Message):
            messages += 1
            last_ts = max(last_ts, entry.store_timestamp)
            problems.extend(_crc_property(store, entry))
            if progress and messages % 4096 == 0:
                progress("commitlog", entry.end_offset - store.min_offset, total)
    cq_units = 0
    for topic, qid in store.queue_ids():
        for p in _check_queue(store, topic, qid, geometry):
            if isinstance(p, Problem):
                problems.append(p)
            else:
                cq_units += 1
    index_items = 0
    for reader in store.index_files():
        found, n = _check_index(store, reader)
        problems.extend(found)
        index_items += n
    problems.extend(store.index_problems())
    problems.extend(store.checkpoint_problems())
    problems.extend(_check_checkpoint(store, last_ts))
    problems.extend(_check_consumer_offsets(store))
    problems.extend(store.config.problems)
    return VerifyReport(tuple(_dedupe(problems)), messages, cq_units, index_items)


def _dedupe(problems: list[Problem]) -> Iterator[Problem]:
    seen = set()
    for p in problems:
        key = (p.file, p.offset, p.code)
        if key not in seen:
            seen.add(key)
            yield p


def _crc_property(store, msg: Message) -> list[Problem]:
    """5.2.0+ ``__CRC32#``: reversed decimal digits of the CRC of the record's first TOTALSIZE-20 bytes."""
    value = msg.properties.get(CRC_PROPERTY_NAME)
    if value is None:
        return []
    try:
        expected = parse_crc_property_digits(value)
    except ValueError:
        return [Problem(msg.file, msg.position, f"__CRC32# property {value!r} is not ten digits", "bad-crc-property")]
    data = store.commitlog.read(msg.physical_offset, msg.total_size - CRC_PROPERTY_TAIL_LENGTH)
    actual = rocketmq_crc32(data)
    if actual != expected:
        return [Problem(msg.file, msg.position, f"__CRC32# property says {expected}, the record gives {actual}",
                        "crc-property-mismatch")]
    return []


def _check_queue(store, topic: str, qid: int, geometry: Geometry) -> Iterator[Problem | int]:
    cq = store.queue(topic, qid)
    log_end = store.max_offset()
    prev_phy = -1
    for unit in cq.units(0):
        if isinstance(unit, Problem):
            yield unit
            continue
        if unit.is_pre_blank:
            continue
        yield 1
        where = (unit.file, unit.position)
        if unit.physical_offset + unit.size > log_end:
            yield Problem(*where, f"unit {unit.queue_offset} points at {unit.physical_offset}+{unit.size}, "
                          f"past the end of the commitlog ({log_end})", "cq-past-end")
            continue
        if unit.physical_offset <= prev_phy:
            yield Problem(*where, f"unit {unit.queue_offset} points at {unit.physical_offset}, not after the previous "
                          f"unit ({prev_phy})", "cq-order")
        prev_phy = unit.physical_offset
        try:
            msg = store.message_at(unit.physical_offset)
        except StoreError as e:
            yield Problem(*where, f"unit {unit.queue_offset} points at {unit.physical_offset}: {e.reason}", "cq-dangling")
            continue
        mismatches = []
        if msg.topic != topic and not _lmq_fanout(msg, topic):
            mismatches.append(f"topic {msg.topic!r}")
        if msg.queue_id != qid and not _lmq_fanout(msg, topic):
            mismatches.append(f"queue {msg.queue_id}")
        if msg.queue_offset != unit.queue_offset and not _lmq_fanout(msg, topic):
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
            yield Problem(*where, f"unit {unit.queue_offset} -> message at {unit.physical_offset} has "
                          + ", ".join(mismatches), "cq-mismatch")


def _lmq_fanout(msg: Message, topic: str) -> bool:
    return topic in msg.properties.get("INNER_MULTI_DISPATCH", "").split(",")


def _is_ext(tags_code: int) -> bool:
    from parsers.consumequeue import is_ext_address

    return is_ext_address(tags_code)


def _message_index_hashes(msg: Message) -> set[int]:
    keys = ([msg.unique_key] if msg.unique_key else []) + msg.keys
    return {index_key_hash(index_key(msg.topic, k)) for k in keys}


def _check_index(store, reader: IndexFileReader) -> tuple[list[Problem], int]:
    problems: list[Problem] = []
    h = reader.header
    rel = reader.rel
    count = reader.effective_index_count
    if count - 1 > reader.item_count - 1:
        problems.append(Problem(rel, 36, f"indexCount {h.index_count} exceeds the item table ({reader.item_count})",
                                "index-header"))
    items = reader.items()
    written = len(items)
    if written != count - 1:
        problems.append(Problem(rel, 36, f"indexCount {h.index_count} promises {count - 1} items, the file holds "
                                f"{written}", "index-truncated"))
    if not items:
        return problems, 0
    # item -> message key hashes
    cache: dict[int, set[int] | None] = {}
    min_ts = max_ts = None
    for item in items:
        pos = 40 + reader.slot_count * 4 + item.number * 20
        if item.phy_offset not in cache:
            try:
                msg = store.message_at(item.phy_offset)
                cache[item.phy_offset] = _message_index_hashes(msg)
                ts = msg.store_timestamp
                min_ts = ts if min_ts is None else min(min_ts, ts)
                max_ts = ts if max_ts is None else max(max_ts, ts)
            except StoreError as e:
                cache[item.phy_offset] = None
                problems.append(Problem(rel, pos, f"item {item.number} points at {item.phy_offset}: {e.reason}",
                                        "index-dangling"))
                continue
        hashes = cache[item.phy_offset]
        if hashes is not None and item.key_hash not in hashes:
            problems.append(Problem(rel, pos, f"item {item.number}: the message at {item.phy_offset} has no key with "
                                    f"hash {item.key_hash}", "index-key-mismatch"))
        if item.prev_index < 0 or item.prev_index >= item.number:
            problems.append(Problem(rel, pos + 16, f"item {item.number} links to {item.prev_index}, which is not an "
                                    "older item", "index-bad-link"))
    # header phy offsets and times
    if h.begin_phy_offset != items[0].phy_offset:
        problems.append(Problem(rel, 16, f"beginPhyOffset {h.begin_phy_offset} but the first item points at "
                                f"{items[0].phy_offset}", "index-header"))
    if h.end_phy_offset != items[-1].phy_offset:
        problems.append(Problem(rel, 24, f"endPhyOffset {h.end_phy_offset} but the last item points at "
                                f"{items[-1].phy_offset}", "index-header"))
    if min_ts is not None and h.begin_timestamp > min_ts:
        problems.append(Problem(rel, 0, f"beginTimestamp {h.begin_timestamp} is after the oldest indexed message "
                                f"({min_ts})", "index-header"))
    if max_ts is not None and h.end_timestamp < max_ts:
        problems.append(Problem(rel, 8, f"endTimestamp {h.end_timestamp} is before the newest indexed message "
                                f"({max_ts})", "index-header"))
    # slots: chains, counters, items reachable from the right slot
    used_slots = 0
    reached: set[int] = set()
    for slot in range(reader.slot_count):
        value = reader.slot_value(slot)
        if value is None:
            break
        if value == 0:
            continue
        spos = 40 + slot * 4
        if value < 0 or value >= count:
            problems.append(Problem(rel, spos, f"slot {slot} holds {value}, outside 1..{count - 1}", "index-bad-slot"))
            continue
        used_slots += 1
        number, seen = value, set()
        while number > 0:
            if number in seen:
                problems.append(Problem(rel, spos, f"chain of slot {slot} loops back to item {number}", "index-loop"))
                break
            seen.add(number)
            item = reader.item(number)
            if item is None or number >= count:
                problems.append(Problem(rel, spos, f"chain of slot {slot} reaches item {number}, outside the file",
                                        "index-bad-link"))
                break
            if item.key_hash % reader.slot_count != slot:
                problems.append(Problem(rel, spos, f"item {number} (hash {item.key_hash}) sits in the chain of slot "
                                        f"{slot}", "index-wrong-slot"))
            reached.add(number)
            number = item.prev_index
    if used_slots != h.hash_slot_count:
        problems.append(Problem(rel, 32, f"hashSlotCount {h.hash_slot_count} but {used_slots} slots are in use",
                                "index-header"))
    unreached = written - len(reached & set(range(1, written + 1)))
    if unreached:
        problems.append(Problem(rel, 40 + reader.slot_count * 4, f"{unreached} item(s) are in no slot's chain",
                                "index-orphan-items"))
    return problems, written


def _check_checkpoint(store, last_ts: int) -> list[Problem]:
    try:
        cp = store.checkpoint()
    except StoreError:
        return []  # reported by checkpoint_problems
    if cp is None or last_ts == 0:
        return []
    found = []
    if cp.physic_msg_timestamp > last_ts:
        found.append(Problem("checkpoint", 0, f"physicMsgTimestamp {cp.physic_msg_timestamp} is after the newest record "
                             f"({last_ts}): data the broker flushed is missing", "checkpoint-ahead"))
    if cp.logics_msg_timestamp > last_ts:
        found.append(Problem("checkpoint", 8, f"logicsMsgTimestamp {cp.logics_msg_timestamp} is after the newest record "
                             f"({last_ts})", "checkpoint-ahead"))
    return found


def _check_consumer_offsets(store) -> list[Problem]:
    found = []
    for row in store.consumer_lag():
        if row["max_offset"] is None:
            continue
        info = store.queue(row["topic"], row["queue_id"]).info()
        off = row["consumer_offset"]
        if not info.min_offset <= off <= info.max_offset:
            found.append(Problem("config/consumerOffset.json", 0,
                                 f"{row['topic']}@{row['group']} queue {row['queue_id']}: offset {off} is outside "
                                 f"[{info.min_offset}, {info.max_offset}]", "consumer-offset-range", "warning"))
    return found


