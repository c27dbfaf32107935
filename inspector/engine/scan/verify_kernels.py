"""The kernels behind verify's cross-checks: tabling clean records, CRCs of many slices, index and queue matches.

:func:`verify_run` is :func:`~inspector.engine.scan.walk.check_run` that also fills a :class:`VerifyTable`
with what the consume-queue and index checks of :mod:`inspector.engine.maintain.verify.verify` need of each
record; :func:`index_match`, :func:`mark_queues` and :func:`index_chains` check index items and queue
units against such tables in one compiled pass (they need numba: callers ask ``numba_enabled()`` first).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from inspector.engine.model.crc import rocketmq_crc32
from inspector.engine.model.multidispatch import INNER_MULTI_DISPATCH
from inspector.engine.scan.batch import INTERN_SLOTS, _topic_text
from inspector.engine.scan.kernels import compiled, compiled_for, need_compiled
from inspector.engine.scan.record_layout import CHECK_BODY_CRC, CHECK_CRC_PROPERTY, CRC_PROPERTY, as_array
from inspector.engine.scan.walk import Run, check_run

# --- records at given positions (consume-queue and index cross-checks) -------------------------------------


def crc32_many(buf, positions: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``rocketmq_crc32`` of many slices of ``buf`` (int64 array)."""
    arr = as_array(buf)
    positions = np.ascontiguousarray(positions, dtype=np.int64)
    lengths = np.ascontiguousarray(lengths, dtype=np.int64)
    k = compiled()
    if k is not None:
        out = np.empty(positions.size, dtype=np.int64)
        k.crc_many(arr, positions, lengths, out)
        return out
    data = arr.data if arr.size else b""
    return np.array([rocketmq_crc32(data[p : p + n]) for p, n in zip(positions.tolist(), lengths.tolist(),
                                                                       strict=True)], dtype=np.int64)


def gather(buf, positions: np.ndarray, width: int) -> np.ndarray:
    """``width`` bytes at each of ``positions`` of ``buf`` as rows of a (n, width) uint8 array (each slice must lie
    inside ``buf``); the compiled kernel when loaded, else numpy's fancy indexing (the same bytes)."""
    arr = as_array(buf)
    positions = np.ascontiguousarray(positions, dtype=np.int64)
    out = np.empty((positions.size, width), dtype=np.uint8)
    if positions.size and (int(positions.min()) < 0 or int(positions.max()) > arr.size - width):
        # the compiled kernel reads without bounds checks: a slice outside would be a segfault, not an error
        raise IndexError(f"gather: a slice of {width} bytes outside the buffer of {arr.size}")
    k = compiled_for(positions.size * width)
    if k is not None:
        k.gather(arr, positions, out)
        return out
    out[:] = arr[positions[:, None] + np.arange(width)] if positions.size else out
    return out


def entry_units(units: np.ndarray, rows: np.ndarray, first: int, number: int, prev_term: int) -> np.ndarray | None:
    """Per-unit failure bits of DLedger index units (UNIT_DTYPE records) against the walk's rows (see
    kernel_source._kn_entry_units): one compiled pass; None without the kernels (the caller's numpy checks
    then do it all)."""
    k = compiled()
    if k is None:
        return None
    out = np.empty(len(units), dtype=np.int64)
    k.entry_units(np.ascontiguousarray(units).view(np.uint8), len(units), rows, first, number, prev_term, out)
    return out


VERIFY_COLUMNS = ("physical_offset", "total_size", "queue_id", "queue_offset", "tags_code", "store_timestamp",
                  "keys_start", "keys_count", "topic", "info", "raft_index", "raft_term")
"""Columns of a :class:`VerifyTable`. ``info`` bits: INFO_TAGS (tags_code is the TAGS hashCode, or 0 without
TAGS; unset when TAGS is not ASCII), INFO_UNITS (NOT_TYPE/COMMIT: the record gets a unit), INFO_KEYS
(keys[keys_start : keys_start + keys_count] are the index hashes of topic#UNIQ_KEY and topic#each KEYS
piece; unset when they are not ASCII), INFO_DELAY (a DELAY property), INFO_MULTI (an INNER_MULTI_DISPATCH
property: the record names LMQ queues; a store that shows no other sign of LMQ is searched for them then).
``raft_index``/``raft_term``: a DLedger data file's record: its entry's (the walk checked the rest of the header);
0 in a plain segment."""
INFO_TAGS, INFO_UNITS, INFO_KEYS, INFO_DELAY, INFO_MULTI = 1, 2, 4, 8, 16
_VERIFY_NAMES = [CRC_PROPERTY, b"TAGS", b"DELAY", b"UNIQ_KEY", b"KEYS", INNER_MULTI_DISPATCH.encode()]
_VERIFY_FLAT = np.frombuffer(b"".join(_VERIFY_NAMES), dtype=np.uint8)
_VERIFY_OFFS = np.cumsum([0] + [len(n) for n in _VERIFY_NAMES]).astype(np.int64)


@dataclass
class VerifyTable:
    """What verify's cross-checks need of each clean record of a run, in log order (see VERIFY_COLUMNS)."""

    table: np.ndarray  # (len(VERIFY_COLUMNS), n) int64
    keys: np.ndarray
    topics: dict  # topic code -> name
    low: int  # physical offset range the run covers: [low, high)
    high: int
    dledger: bool = False  # the records of a DLedger data file (raft_index, raft_term filled in)

    def __len__(self) -> int:
        return self.table.shape[1]

    def column(self, name: str) -> np.ndarray:
        return self.table[VERIFY_COLUMNS.index(name)]


_local = threading.local()


def _scratch(max_records: int):
    """Per-thread work arrays of verify_run, reused: fresh big arrays per call would each come from the
    thread's own malloc arena and stay resident after they are freed."""
    have = getattr(_local, "verify", None)
    if have is None or have[0].shape[1] != max_records or have[2].shape[0] != INTERN_SLOTS + 1:
        have = (np.empty((len(VERIFY_COLUMNS), max_records), dtype=np.int64),
                np.empty(max_records * 3 + 64, dtype=np.int64),
                np.empty((INTERN_SLOTS + 1, 4), dtype=np.int64), np.zeros(6, dtype=np.int64))
        _local.verify = have
    return have


def verify_run(buf, start: int, limit: int, *, segment_start: int, stop_at: int | None = None,
               flags: int = CHECK_BODY_CRC | CHECK_CRC_PROPERTY, max_records: int = 1 << 16,
               soft_stop: int | None = None, entry_header: int = 0) -> tuple[Run, VerifyTable | None, bool]:
    """check_run that also tables each record for verify's consume-queue and index cross-checks.

    Returns (run, table, cut): ``cut`` when the run stopped only because the table is full or it reached
    ``soft_stop`` (go on from ``run.end``). Without numba the table is None (the cross-checks then look at
    every unit and item).
    """
    stop_at = limit if stop_at is None else stop_at
    soft_stop = stop_at if soft_stop is None else soft_stop
    k = compiled()
    if k is None:
        run = check_run(buf, start, limit, segment_start=segment_start, stop_at=stop_at, flags=flags,
                        soft_stop=soft_stop, entry_header=entry_header)
        return run, None, soft_stop <= run.end < stop_at
    arr = as_array(buf)
    t, keys, topics, stats = _scratch(max_records)
    topics.fill(-1)
    topics[INTERN_SLOTS, 0] = 0
    n, end = k.verify_run(arr, start, limit, stop_at, soft_stop, segment_start, flags, _VERIFY_FLAT, _VERIFY_OFFS,
                          t, keys, topics, stats, entry_header)
    run = Run(int(n), int(end), int(stats[0]), int(stats[1]), int(stats[2]))
    used = np.flatnonzero(topics[:-1, 1] >= 0).tolist()
    names = {slot: _topic_text(arr[topics[slot, 1] : topics[slot, 1] + topics[slot, 2]].tobytes()) for slot in used}
    table = VerifyTable(t[:, :n].copy(), keys[: int(stats[4])].copy(), names, segment_start + start,
                        segment_start + int(end))
    table.dledger = bool(entry_header)
    return run, table, bool(stats[5])


def index_match(buf, items_at: int, first: int, count: int, table: VerifyTable, ok: np.ndarray,
                stats: np.ndarray) -> int:
    """Check index items ``first``.. (0-based) of an index file (``buf``, items table at ``items_at``) against
    a VerifyTable while they point below ``table.high``: ok[i] = 1 where item i points at a record of the
    table with its key hash among the record's index keys and links to an older item. ``stats``
    [min ts, max ts, any] of those records. Returns the index of the first item not looked at."""
    return int(need_compiled().index_match(as_array(buf), items_at, first, count, table.low, table.high, table.table,
                                           len(table), table.keys, ok, stats))

def mark_queues(table: VerifyTable, codes: np.ndarray, queues: QueueFiles, schedule: int, start: int = 0,
                stop: int | None = None) -> None:
    """Mark, in ``queues.marks``, the consume-queue units that point back at the records of ``table`` (rows
    ``start``..``stop``; same offset and size, and their tagsCode or a ConsumeQueueExt address), in one compiled
    pass. ``codes``: the table's topic codes -> the topic ids of ``queues.keys``; ``schedule``: the topic id
    whose DELAY records are left unmarked (their tagsCode is a delivery time), or -1."""
    rows = table.table if start == 0 and stop is None else np.ascontiguousarray(table.table[:, start:stop])
    need_compiled().mark_queues(rows, rows.shape[1], codes, queues.keys, queues.first_file, queues.file_first,
                                queues.file_count, queues.file_address, queues.file_mark, queues.marks,
                                queues.lowest, schedule, queues.unit)


@dataclass
class QueueFiles:
    """The consume-queue files of many queues, as :func:`mark_queues` looks units up in them: queue q (sorted by
    ``keys``: topic id * 2^33 + queue id + 2^31) has the files first_file[q] .. first_file[q + 1] - 1, each
    holding ``file_count`` units from queue offset ``file_first`` at memory address ``file_address`` (a mapping the
    caller keeps open), its marks at marks[file_mark : file_mark + file_count]; ``lowest`` is the lowest unit
    index of each file looked at since the caller last reset it."""

    keys: np.ndarray
    first_file: np.ndarray
    file_first: np.ndarray
    file_count: np.ndarray
    file_address: np.ndarray
    file_mark: np.ndarray
    marks: np.ndarray
    lowest: np.ndarray
    unit: np.ndarray  # a 20-byte scratch for the kernel


def index_chains(buf, slots_at: int, slot_count: int, items_at: int, item_count: int, count: int, size: int,
                 written: int, release=None) -> tuple[int, int, bool]:
    """Walk every slot's chain of an index file: (slots in use, items reached, unusual). ``unusual`` means
    something verify reports (a bad slot, link, loop or wrong slot) may be there: walk it one by one.

    A file laid out as ``IndexFile.putKey`` writes it (each item links to the previous item of its slot, each
    slot holds its newest item) is recognised in one sequential pass, ``release(start, end)`` called behind
    it; any other is walked chain by chain."""
    k = need_compiled()
    arr = as_array(buf)
    release = release or (lambda start, end: None)
    step = 1 << 18
    fine = (0 < slot_count and slots_at + slot_count * 4 <= size and items_at + (written + 1) * 20 <= size
            and written < count)
    if fine:
        last = np.zeros(slot_count, dtype=np.int32)
        for first in range(1, written + 1, step):
            stop = min(written + 1, first + step)
            if not k.chain_items(arr, items_at, slot_count, first, stop, last):
                fine = False
                break
            release(items_at + first * 20, items_at + stop * 20)
        used = 0
        for first in range(0, slot_count, step) if fine else ():
            n = k.chain_slots(arr, slots_at, first, min(slot_count, first + step), last)
            if n < 0:
                fine = False
                break
            used += n
            release(slots_at + first * 4, slots_at + min(slot_count, first + step) * 4)
        if fine:
            return int(used), written, False
    reached = np.zeros(max(item_count, 1), dtype=np.uint8)
    used, n, unusual = k.index_chains(arr, slots_at, slot_count, items_at, item_count, count, size, reached)
    return int(used), int(n), bool(unusual)

