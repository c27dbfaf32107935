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

import numpy as np

from inspector.engine.maintain.dispatch import SCHEDULE_TOPIC, dispatch_request
from inspector.engine.model.errors import BadInput, StoreError
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.records import IndexItem, Message, Problem
from inspector.engine.read.consumequeue import UNIT_DTYPE, ConsumeQueue
from inspector.engine.read.indexfile import IndexFileReader
from inspector.engine.read.journal import interrupted_rebuild_problems
from inspector.engine.read.parallel import default_workers
from inspector.engine.scan.batch import INTERN_SLOTS
from inspector.engine.scan.crc import rocketmq_crc32
from inspector.engine.scan.kernels import numba_enabled
from inspector.engine.scan.verify_kernels import (
    INFO_DELAY,
    INFO_TAGS,
    INFO_UNITS,
    VERIFY_COLUMNS,
    VerifyTable,
    index_chains,
    index_match,
    mark_units,
)
from parsers.consumequeue import CQ_UNIT_SIZE, PRE_BLANK_SIZE
from parsers.java import (
    CRC_PROPERTY_NAME,
    CRC_PROPERTY_TAIL_LENGTH,
    index_key,
    index_key_hash,
    parse_crc_property_digits,
)

Progress = Callable[[str, int, int], None]  # (phase, done, total)
VERIFY_PHY, VERIFY_SIZE, VERIFY_QID, VERIFY_QOFF, VERIFY_TAGS, VERIFY_TOPIC, VERIFY_INFO = (
    VERIFY_COLUMNS.index(n) for n in ("physical_offset", "total_size", "queue_id", "queue_offset", "tags_code",
                                      "topic", "info"))
ITEM_DTYPE = np.dtype([("key_hash", ">i4"), ("phy_offset", ">i8"), ("time_diff", ">i4"), ("prev_index", ">i4")])


@dataclass(frozen=True)
class VerifyReport:
    problems: tuple[Problem, ...]
    messages: int
    cq_units: int
    index_items: int

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


def verify(store, geometry: Geometry | None = None, *, progress: Progress | None = None,
           workers: int | None = None, fast: bool = True) -> VerifyReport:
    """Every problem in the store, in a stable order (commitlog, queues, index files, checkpoint, offsets, config).

    One walk of the commitlog checks every record and tables what the cross-checks need (bulk path); each
    consume-queue unit and index item the tables vouch for is then done, and every other one is checked one
    by one against the record it points at. ``workers``: threads for the walk (default: the CPUs available,
    at most 4). ``fast=False`` checks everything one by one; the report is the same either way.
    """
    from inspector.engine.model.geometry import store_geometry

    geometry = geometry or store_geometry(store)
    workers = default_workers() if workers is None else max(1, workers)
    problems: list[Problem] = list(store.commitlog.problems)
    messages = 0
    last_ts = 0
    total = max(1, sum(s.file_size for s in store.segments))
    cross = _CrossChecks(store) if fast and numba_enabled() else None
    if fast:
        for seg in store.segments:
            summary = store.commitlog.summarise_segment(
                seg, check_crc=True, crc_property=True, on_message=lambda m: crc_property_problems(store, m),
                on_table=cross.add if cross is not None else None, workers=workers,
            )
            problems.extend(summary.problems)
            messages += summary.scan.messages
            last_ts = max(last_ts, summary.max_store_timestamp)
            if progress:
                progress("commitlog", seg.end_offset - store.min_offset, total)
        if cross is not None:
            cross.flush()
    else:
        for entry in store.entries(check_crc=True):
            if isinstance(entry, Problem):
                problems.append(entry)
            elif isinstance(entry, Message):
                messages += 1
                last_ts = max(last_ts, entry.store_timestamp)
                problems.extend(crc_property_problems(store, entry))
                if progress and messages % 4096 == 0:
                    progress("commitlog", entry.end_offset - store.min_offset, total)
    cq_units = 0
    log_end = store.max_offset()
    for topic, qid in store.queue_ids():
        found, n = check_queue(store, topic, qid, geometry, log_end, cross)
        problems.extend(found)
        cq_units += n
    index_items = 0
    for reader in store.index_files():
        found, n = check_index(store, reader, cross)
        problems.extend(found)
        index_items += n
    problems.extend(store.index_problems())
    problems.extend(store.checkpoint_problems())
    problems.extend(check_checkpoint(store, last_ts))
    problems.extend(check_consumer_offsets(store))
    problems.extend(store.config.problems)
    problems.extend(interrupted_rebuild_problems(store.root))
    return VerifyReport(tuple(_dedupe(problems)), messages, cq_units, index_items)


class _CrossChecks:
    """Marks, during the commitlog walk, the consume-queue units and index items the records vouch for.

    A unit is marked when a clean record names its queue and queue offset and the unit points back at it
    with the record's size and tagsCode (and the record gets units at all); an index item when it points at
    a clean record one of whose index keys has the item's hash and links to an older item. Marked units and
    items have nothing for verify to report (apart from order and log-end checks done afterwards on arrays);
    the others are checked one by one, so the report is the record-by-record one.
    """

    def __init__(self, store):
        self.store = store
        self.queues: dict[tuple[str, int], _QueueMarks] = {}
        for topic, qid in store.queue_ids():
            cq = store.queue(topic, qid)
            if isinstance(cq, ConsumeQueue):
                self.queues[(topic, qid)] = _QueueMarks(cq)
        self.indexes: dict[str, _IndexMarks] = {}
        for reader in store.index_files():
            self.indexes[reader.rel] = _IndexMarks(reader)
        self._topic_ids: dict[str, int] = {}
        self._pending: list[tuple] = []
        self._rows = 0

    FLUSH_ROWS = 1 << 16  # records gathered before their units are looked up (numpy works in bulk)

    def add(self, table: VerifyTable) -> None:
        if not len(table):
            return
        for marks in self.indexes.values():
            marks.add(table)
        info = table.column("info")
        rows = np.flatnonzero(((info & INFO_UNITS) != 0) & ((info & INFO_TAGS) != 0))
        if not rows.size:
            return
        # topic codes are per table: name them through this walk's own numbering
        codes = np.full(INTERN_SLOTS, -1, dtype=np.int64)
        for code, name in table.topics.items():
            codes[code] = self._topic_ids.setdefault(name, len(self._topic_ids))
        picked = table.table[:, rows]
        topic_ids = codes[picked[VERIFY_TOPIC]]
        delayed = (picked[VERIFY_INFO] & INFO_DELAY) != 0
        self._pending.append((topic_ids, picked[VERIFY_QID], picked[VERIFY_QOFF], picked[VERIFY_PHY],
                              picked[VERIFY_SIZE], picked[VERIFY_TAGS], delayed))
        self._rows += rows.size
        if self._rows >= self.FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        """Look up the units of the records gathered so far and mark those that point back at them."""
        if not self._pending:
            return
        topic_ids, qids, qoffs, phys, sizes, tags, delayed = (np.concatenate(c) for c in zip(*self._pending,
                                                                                            strict=True))
        self._pending.clear()
        self._rows = 0
        names = {v: k for k, v in self._topic_ids.items()}
        group = topic_ids * (1 << 33) + (qids + (1 << 31))
        order = np.argsort(group, kind="stable")
        sorted_group = group[order]
        starts = np.flatnonzero(np.concatenate([[True], sorted_group[1:] != sorted_group[:-1]]))
        bounds = [*starts.tolist(), order.size]
        for g, first in enumerate(starts.tolist()):
            key = int(sorted_group[first])
            topic = names[key >> 33]
            qid = (key & ((1 << 33) - 1)) - (1 << 31)
            marks = self.queues.get((topic, qid))
            if marks is None:
                continue
            sel = order[bounds[g] : bounds[g + 1]]
            if topic == SCHEDULE_TOPIC:
                sel = sel[~delayed[sel]]  # tagsCode is a delivery time: one by one
            marks.add(qoffs[sel], phys[sel], sizes[sel], tags[sel])


class _QueueMarks:
    """Per consume-queue file: which units a record vouched for."""

    def __init__(self, cq: ConsumeQueue):
        self.files = []  # (first queue offset, units view, marks)
        self.by_rel: dict[str, np.ndarray] = {}
        for start, _ in cq.files:
            try:
                mf = cq._map(start)
            except StoreError:
                continue
            count = mf.size // CQ_UNIT_SIZE
            units = np.frombuffer(mf.buf, dtype=UNIT_DTYPE, count=count) if count else np.zeros(0, UNIT_DTYPE)
            marks = np.zeros(count, dtype=np.uint8)
            self.files.append((start // CQ_UNIT_SIZE, units, marks, mf))
            self.by_rel[mf.rel] = marks
        self.first_q = np.array([f[0] for f in self.files], dtype=np.int64)

    def add(self, qoffs: np.ndarray, phys: np.ndarray, sizes: np.ndarray, tags: np.ndarray) -> None:
        """Mark the units at these queue offsets that point at these records (offset, size, tagsCode)."""
        if not self.files or not qoffs.size:
            return
        if len(self.files) == 1:
            parts = [(0, slice(None))]
        else:
            which = np.searchsorted(self.first_q, qoffs, side="right") - 1
            parts = [(f, which == f) for f in np.unique(which).tolist() if f >= 0]
        for f, here in parts:
            first_q, units, marks, mf = self.files[f]
            lowest = mark_units(mf.array, first_q, qoffs[here], phys[here], sizes[here], tags[here], marks)
            mf.release(0, lowest * CQ_UNIT_SIZE)  # units are met in queue order: drop what is behind


class _IndexMarks:
    """Per index file: which items a record vouched for, walked in file order against each table."""

    def __init__(self, reader: IndexFileReader):
        self.reader = reader
        self.written = _written_items(reader)
        self.items_at = 40 + reader.slot_count * 4
        self.ok = np.zeros((self.written + 7) // 8, dtype=np.uint8)  # a bit per item
        self.cursor = 0
        self.stats = np.zeros(3, dtype=np.int64)

    def add(self, table: VerifyTable) -> None:
        if self.cursor < self.written:
            self.cursor = index_match(self.reader.mf.array, self.items_at, self.cursor, self.written, table,
                                      self.ok, self.stats)
            self.reader.mf.release(self.items_at, self.items_at + self.cursor * 20)


def _dedupe(problems: list[Problem]) -> Iterator[Problem]:
    seen = set()
    for p in problems:
        key = (p.file, p.offset, p.code)
        if key not in seen:
            seen.add(key)
            yield p


def crc_property_problems(store, msg: Message) -> list[Problem]:
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


# --- consume queues --------------------------------------------------------------------------------------------


def check_queue(store, topic: str, qid: int, geometry: Geometry, log_end: int,
                 cross: _CrossChecks | None) -> tuple[list[Problem], int]:
    """(problems, units checked) of one queue: every unit against the record it points at.

    Units the commitlog walk vouched for (see _CrossChecks) need only the log-end and order checks, done
    here on arrays; every other unit goes through :func:`_check_unit`.
    """
    cq = store.queue(topic, qid)
    problems: list[Problem] = []
    units = 0
    prev_phy = -1
    marks = cross.queues.get((topic, qid)) if cross is not None else None
    if marks is None:
        for unit in cq.units(0):
            if isinstance(unit, Problem):
                problems.append(unit)
                continue
            if unit.is_pre_blank:
                continue
            units += 1
            found, prev_phy = _check_unit(store, unit, topic, qid, geometry, log_end, prev_phy)
            problems.extend(found)
        return problems, units
    for run in cq.unit_runs(0):
        if isinstance(run, Problem):
            problems.append(run)
            continue
        phys = run.column("physical_offset")
        sizes = run.column("size")
        tags = run.column("tags_code")
        real = ~((phys == 0) & (sizes == PRE_BLANK_SIZE) & (tags == 0))
        index = np.flatnonzero(real)
        units += index.size
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
        matched = vouched[first + index].astype(bool) if vouched is not None else np.zeros(index.size, bool)
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
    return problems, units


def _check_unit(store, unit, topic: str, qid: int, geometry: Geometry, log_end: int,
                prev_phy: int) -> tuple[list[Problem], int]:
    """Problems of one unit, and prev_phy for the next one."""
    found: list[Problem] = []
    where = (unit.file, unit.position)
    if unit.physical_offset + unit.size > log_end:
        # with abort present a broker is running (or crashed): its queues may run ahead of the complete records
        ahead = store.abort_exists and unit.physical_offset >= log_end
        found.append(Problem(*where, f"unit {unit.queue_offset} points at {unit.physical_offset}+{unit.size}, "
                             f"past the end of the commitlog ({log_end})"
                             + ("; the broker is running or crashed (abort file present)" if ahead else ""),
                             "cq-past-end", "warning" if ahead else "error"))
        return found, prev_phy
    if unit.physical_offset <= prev_phy:
        found.append(Problem(*where, f"unit {unit.queue_offset} points at {unit.physical_offset}, not after the "
                             f"previous unit ({prev_phy})", "cq-order"))
    prev_phy = unit.physical_offset
    try:
        msg = store.message_at(unit.physical_offset)
    except StoreError as e:
        found.append(Problem(*where, f"unit {unit.queue_offset} points at {unit.physical_offset}: {e.reason}",
                             "cq-dangling"))
        return found, prev_phy
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
        found.append(Problem(*where, f"unit {unit.queue_offset} -> message at {unit.physical_offset} has "
                             + ", ".join(mismatches), "cq-mismatch"))
    return found, prev_phy


def _lmq_fanout(msg: Message, topic: str) -> bool:
    return topic in msg.properties.get("INNER_MULTI_DISPATCH", "").split(",")


def _is_ext(tags_code: int) -> bool:
    from parsers.consumequeue import is_ext_address

    return is_ext_address(tags_code)


# --- index files ---------------------------------------------------------------------------------------------


def _message_index_hashes(msg: Message) -> set[int]:
    keys = ([msg.unique_key] if msg.unique_key else []) + msg.keys
    return {index_key_hash(index_key(msg.topic, k)) for k in keys}


def _written_items(reader: IndexFileReader) -> int:
    """How many items ``reader.items()`` returns: 1 .. indexCount-1, bounded by the table and the file."""
    last = min(reader.effective_index_count, reader.item_count) - 1
    base = 40 + reader.slot_count * 4
    readable = (reader.mf.size - base) // 20 - 1 if reader.mf.size >= base else -1
    return max(0, min(last, readable))


def check_index(store, reader: IndexFileReader, cross: _CrossChecks | None = None) -> tuple[list[Problem], int]:
    problems: list[Problem] = []
    h = reader.header
    rel = reader.rel
    count = reader.effective_index_count
    if count - 1 > reader.item_count - 1:
        problems.append(Problem(rel, 36, f"indexCount {h.index_count} exceeds the item table ({reader.item_count})",
                                "index-header"))
    written = _written_items(reader)
    if written != count - 1:
        problems.append(Problem(rel, 36, f"indexCount {h.index_count} promises {count - 1} items, the file holds "
                                f"{written}", "index-truncated"))
    if not written:
        return problems, 0
    base = 40 + reader.slot_count * 4
    items = np.frombuffer(reader.mf.buf, dtype=ITEM_DTYPE, count=written, offset=base + 20)
    marks = cross.indexes.get(rel) if cross is not None else None
    # item -> message key hashes; items the commitlog walk vouched for need nothing more
    cache: dict[int, set[int] | str] = {}  # phy offset -> its key hashes, or why it is unreadable
    min_ts = max_ts = None
    if marks is not None and marks.stats[2]:
        min_ts, max_ts = int(marks.stats[0]), int(marks.stats[1])
    if marks is not None:
        todo = np.flatnonzero(np.unpackbits(marks.ok, count=written, bitorder="little") == 0).tolist()
    else:
        todo = range(written)
    for i in todo:
        k_hash, phy, diff, prev = (int(x) for x in items[i].tolist())
        item = IndexItem(i + 1, k_hash, phy, diff, prev)
        pos = base + item.number * 20
        if item.phy_offset not in cache:
            try:
                msg = store.message_at(item.phy_offset)
                cache[item.phy_offset] = _message_index_hashes(msg)
                ts = msg.store_timestamp
                min_ts = ts if min_ts is None else min(min_ts, ts)
                max_ts = ts if max_ts is None else max(max_ts, ts)
            except StoreError as e:
                cache[item.phy_offset] = e.reason
        hashes_of = cache[item.phy_offset]
        if isinstance(hashes_of, str):  # every item pointing at an unreadable record dangles, not just the first
            problems.append(Problem(rel, pos, f"item {item.number} points at {item.phy_offset}: {hashes_of}",
                                    "index-dangling"))
        elif item.key_hash not in hashes_of:
            problems.append(Problem(rel, pos, f"item {item.number}: the message at {item.phy_offset} has no key "
                                    f"with hash {item.key_hash}", "index-key-mismatch"))
        if item.prev_index < 0 or item.prev_index >= item.number:
            problems.append(Problem(rel, pos + 16, f"item {item.number} links to {item.prev_index}, which is not "
                                    "an older item", "index-bad-link"))
    # header phy offsets and times
    first_phy, last_phy = int(items[0]["phy_offset"]), int(items[-1]["phy_offset"])
    if h.begin_phy_offset != first_phy:
        problems.append(Problem(rel, 16, f"beginPhyOffset {h.begin_phy_offset} but the first item points at "
                                f"{first_phy}", "index-header"))
    if h.end_phy_offset != last_phy:
        problems.append(Problem(rel, 24, f"endPhyOffset {h.end_phy_offset} but the last item points at "
                                f"{last_phy}", "index-header"))
    if min_ts is not None and h.begin_timestamp > min_ts:
        problems.append(Problem(rel, 0, f"beginTimestamp {h.begin_timestamp} is after the oldest indexed message "
                                f"({min_ts})", "index-header"))
    if max_ts is not None and h.end_timestamp < max_ts:
        problems.append(Problem(rel, 8, f"endTimestamp {h.end_timestamp} is before the newest indexed message "
                                f"({max_ts})", "index-header"))
    # slots: chains, counters, items reachable from the right slot
    chains = None
    if cross is not None and reader.slot_count:
        used, reached_n, unusual = index_chains(reader.mf.array, 40, reader.slot_count, base, reader.item_count,
                                                count, reader.mf.size, written, reader.mf.release)
        reader.mf.release(0, reader.mf.size)
        if not unusual:
            chains = (used, reached_n)
    if chains is None:
        used_slots, reached_count = _walk_chains(reader, count, rel, problems, written)
    else:
        used_slots, reached_count = chains
    if used_slots != h.hash_slot_count:
        problems.append(Problem(rel, 32, f"hashSlotCount {h.hash_slot_count} but {used_slots} slots are in use",
                                "index-header"))
    unreached = written - reached_count
    if unreached:
        problems.append(Problem(rel, base, f"{unreached} item(s) are in no slot's chain", "index-orphan-items"))
    return problems, written


def _walk_chains(reader: IndexFileReader, count: int, rel: str, problems: list[Problem],
                 written: int) -> tuple[int, int]:
    """Every slot's chain, item by item: (slots in use, items 1..written reached); problems appended."""
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
    return used_slots, len(reached & set(range(1, written + 1)))


def check_checkpoint(store, last_ts: int) -> list[Problem]:
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


def check_consumer_offsets(store) -> list[Problem]:
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


