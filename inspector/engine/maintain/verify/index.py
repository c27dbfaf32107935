"""verify's index-file checks: header counters and time ranges, every item against its message's keys, and
the slot chains (spec §5).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future
from typing import TYPE_CHECKING

import numpy as np

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import IndexItem, Message, Problem
from inspector.engine.read.commitlog.mapped import first_nonzero
from inspector.engine.read.index.index_range import header_range_problems
from inspector.engine.read.index.indexfile import IndexFileReader
from inspector.engine.read.store.answers import first_offset
from inspector.engine.read.store.retention import ExpiredRange
from inspector.engine.scan.verify_kernels import index_chains
from parsers.java import index_key, index_key_hash

if TYPE_CHECKING:
    from inspector.engine.maintain.verify.crosschecks import CrossChecks

__all__ = ["ITEM_DTYPE", "check_index"]

ITEM_DTYPE = np.dtype([("key_hash", ">i4"), ("phy_offset", ">i8"), ("time_diff", ">i4"), ("prev_index", ">i4")])


RECHECKED = 10_000  # items of one index file no record vouched for that are looked at one by one


def _highest_before(items: np.ndarray, todo, chunk: int = 1 << 20) -> dict[int, int]:
    """For each item index in ``todo`` (ascending), the highest phyOffset of the items before it: one pass over
    the items up to the last of them, a chunk at a time (on a sound file ``todo`` is empty: every item was
    vouched for, in order)."""
    todo = np.asarray(list(todo), dtype=np.int64)
    found: dict[int, int] = {}
    carry = -1
    for start in range(0, int(todo[-1]) + 1 if len(todo) else 0, chunk):
        phy = items["phy_offset"][start : start + chunk].astype(np.int64)
        before = np.maximum(np.concatenate([[carry], np.maximum.accumulate(phy)[:-1]]), carry)
        mine = todo[(todo >= start) & (todo < start + len(phy))]
        found.update(zip(mine.tolist(), before[mine - start].tolist(), strict=True))
        carry = max(carry, int(phy.max())) if len(phy) else carry
    return found


def _first_unset(bits: np.ndarray, count: int, wanted: int, chunk: int = 1 << 20) -> tuple[list[int], int]:
    """The first ``wanted`` item numbers (0-based) whose bit is not set among ``count`` little-endian bits, and how
    many are not set in all; a piece at a time (a full index file has 20,000,000 items)."""
    first: list[int] = []
    total = 0
    for start in range(0, count, chunk):
        n = min(chunk, count - start)
        piece = np.unpackbits(bits[start // 8 : (start + n + 7) // 8], count=n, bitorder="little")
        unset = n - int(np.count_nonzero(piece))
        total += unset
        if unset and len(first) < wanted:
            first.extend((np.flatnonzero(piece == 0)[: wanted - len(first)] + start).tolist())
    return first, total


def _message_index_hashes(msg: Message) -> set[int]:
    keys = ([msg.unique_key] if msg.unique_key else []) + msg.keys
    return {index_key_hash(index_key(msg.topic, k)) for k in keys}


def chain_summary(reader: IndexFileReader) -> tuple[int, int, bool]:
    """(slots in use, items reached, unusual) of ``reader``'s chains, from the compiled pass check_index takes
    with the walk's tables (:func:`index_chains`); the file's pages are given back after. It reads the index
    file alone, so verify runs it beside the queue checks (the kernel releases the GIL)."""
    try:
        return index_chains(reader.mf.array, 40, reader.slot_count, 40 + reader.slot_count * 4, reader.item_count,
                            reader.effective_index_count, reader.mf.size, reader.written_items, reader.mf.release)
    finally:
        reader.mf.release(0, reader.mf.size)


def wants_chain_summary(reader: IndexFileReader) -> bool:
    """Whether check_index (with the walk's tables) takes :func:`chain_summary` of ``reader``."""
    return bool(reader.slot_count) and reader.written_items > 0


def check_index(store, reader: IndexFileReader, cross: CrossChecks | None = None,
                chains: Future | None = None) -> tuple[list[Problem], int]:
    """(problems, items checked) of one index file. ``chains``: :func:`chain_summary` of it already under way
    (verify starts it in a thread), else taken here when the walk's tables (``cross``) are there."""
    problems: list[Problem] = []
    h = reader.header
    rel = reader.rel
    count = reader.effective_index_count
    if count - 1 > reader.item_count - 1:
        problems.append(Problem(rel, 36, f"indexCount {h.index_count} exceeds the item table ({reader.item_count})",
                                "index-header"))
    written = reader.written_items
    if written != count - 1:
        problems.append(Problem(rel, 36, f"indexCount {h.index_count} promises {count - 1} items, the file holds "
                                f"{written}", "index-truncated"))
    if not written:
        return problems + header_range_problems(reader, store.stored_at), 0
    base = 40 + reader.slot_count * 4
    items = np.frombuffer(reader.mf.buf, dtype=ITEM_DTYPE, count=written, offset=base + 20)
    marks = cross.indexes.get(rel) if cross is not None else None
    # items below the log's first offset are retention's leftovers in a file straddling it (IndexService.deleteExpiredFile
    # deletes only files wholly below): one info finding, not checked one by one
    floor = first_offset(store)
    expired = ExpiredRange(floor)
    gone = None
    if floor:
        # reductions over one native column, no index array: half of an aged store's items can be expired
        phys = items["phy_offset"].astype(np.int64)
        gone = phys < floor
        n_gone = int(np.count_nonzero(gone))
        if n_gone:
            low, high = int(gone.argmax()), written - 1 - int(gone[::-1].argmax())
            expired.add_many(rel, base + (low + 1) * 20, low + 1, high + 1, n_gone,
                             int(phys.min(where=gone, initial=floor)), int(phys.max(where=gone, initial=-1)))
        else:
            gone = None
    # item -> message key hashes; items the commitlog walk vouched for need nothing more
    cache: dict[int, set[int] | str] = {}  # phy offset -> its key hashes, or why it is unreadable
    min_ts = max_ts = None
    if marks is not None and marks.stats[2]:
        min_ts, max_ts = int(marks.stats[0]), int(marks.stats[1])
    unchecked = 0
    if marks is not None:
        # an index file from another store, or a zeroed commitlog under a full index: millions of items no record
        # vouches for, each a Python look at its record (~8 us): the first RECHECKED are looked at and named one by
        # one, the rest are counted in one finding (a full file took 158 s of CPU before)
        bits = marks.ok
        if gone is not None:  # expired items count as vouched for: they are named in the info finding
            bits = np.array(bits, dtype=np.uint8, copy=True)
            packed = np.packbits(gone, bitorder="little")
            n = min(len(bits), len(packed))
            bits[:n] |= packed[:n]
        unvouched, total = _first_unset(bits, written, RECHECKED + 1)
        todo = unvouched[:RECHECKED]
        unchecked = total - len(todo)
    else:
        todo = range(written) if gone is None else np.flatnonzero(~gone).tolist()
    # the highest offset an earlier item points at: for the items no record vouched for (at most RECHECKED), or
    # kept as the loop goes when every item is looked at (no walk tables)
    highest = _highest_before(items, todo) if marks is not None else None
    running = -1
    for i in todo:
        k_hash, phy, diff, prev = (int(x) for x in items[i].tolist())
        item = IndexItem(i + 1, k_hash, phy, diff, prev)
        pos = base + item.number * 20
        above = highest[i] if highest is not None else running
        running = max(running, phy)
        if phy < above:
            problems.append(Problem(rel, pos + 4, f"item {item.number} points at {phy}, below an earlier item's "
                                    f"{above}: the broker adds items in log order (IndexService.buildIndex skips "
                                    "a record below the file's endPhyOffset)", "index-order"))
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
                                    "index-dangling", points_at=item.phy_offset))
        elif item.key_hash not in hashes_of:
            problems.append(Problem(rel, pos, f"item {item.number}: the message at {item.phy_offset} has no key "
                                    f"with hash {item.key_hash}", "index-key-mismatch",
                                    points_at=item.phy_offset))
        if item.prev_index < 0 or item.prev_index >= item.number:
            problems.append(Problem(rel, pos + 16, f"item {item.number} links to {item.prev_index}, which is not "
                                    "an older item", "index-bad-link"))
    if unchecked:
        first = unvouched[RECHECKED] + 1
        problems.append(Problem(rel, base + first * 20, f"{unchecked} more item(s), from item {first} on, point at no "
                                f"record with their key (dangling, or another key's record): only the first {RECHECKED} "
                                "of this file are named one by one", "index-unvouched"))
    # header phy offsets and times: the first and last items' (their records' times: two reads, or the
    # oldest and newest the walk saw when those records cannot be read)
    bounds = (min_ts, max_ts) if min_ts is not None and max_ts is not None else None
    problems.extend(header_range_problems(reader, store.stored_at, bounds))
    problems = expired.before(problems, "item(s)", "index-expired", "IndexService.deleteExpiredFile")
    # slots: chains, counters, items reachable from the right slot
    walked = None
    if cross is not None and wants_chain_summary(reader):
        used, reached_n, unusual = chains.result() if chains is not None else chain_summary(reader)
        if not unusual:
            walked = (used, reached_n)
    if walked is None:
        used_slots, reached_count = _walk_chains(reader, count, rel, problems, written)
    else:
        used_slots, reached_count = walked
    if used_slots != h.hash_slot_count:
        problems.append(Problem(rel, 32, f"hashSlotCount {h.hash_slot_count} but {used_slots} slots are in use",
                                "index-header"))
    unreached = written - reached_count
    if unreached:
        problems.append(Problem(rel, base, f"{unreached} item(s) are in no slot's chain", "index-orphan-items"))
    return problems, written


_SLOTS_AT_ONCE = 1 << 16


def _used_slots(reader: IndexFileReader) -> Iterator[tuple[int, int]]:
    """(slot, value) of every non-zero slot inside the file, in slot order, found in bulk: the zero stretches of the
    slot table are skipped by ``first_nonzero`` (holes not read, zeros scanned with numpy), the rest read
    _SLOTS_AT_ONCE at a time. A broker's index file has 5,000,000 slots, most of them zero (and a hole): looked at
    one by one in Python they took 40 s."""
    buf = reader.mf.buf
    end = 40 + max(0, min(reader.slot_count, (reader.mf.size - 40) // 4)) * 4
    pos = 40
    while pos < end:
        slot = (first_nonzero(buf, pos, end) - 40) // 4
        at = 40 + slot * 4
        if at >= end:
            return
        values = np.frombuffer(buf, dtype=">i4", count=min(_SLOTS_AT_ONCE, (end - at) // 4), offset=at)
        for i in np.flatnonzero(values).tolist():
            yield slot + i, int(values[i])
        pos = at + values.size * 4


def _walk_chains(reader: IndexFileReader, count: int, rel: str, problems: list[Problem],
                 written: int) -> tuple[int, int]:
    """Every slot's chain, item by item: (slots in use, items 1..written reached); problems appended."""
    used_slots = 0
    reached: set[int] = set()
    for slot, value in _used_slots(reader):
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
