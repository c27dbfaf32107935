"""Real hash collisions in the index files: items whose key hashes are equal but whose key strings differ.

A general analysis of a store's index (no front end, no teaching): the tour shows the first collision it finds
and the exercises ask about them. Reads a bounded sample (``max_items`` index items, ``budget`` messages).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from inspector.engine.model.budget import Budget, budget_or_none
from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.index.indexfile import IndexFileReader
from inspector.engine.read.index.slots import items_array
from parsers.java import index_key, index_key_hash

MAX_MESSAGES = 5000  # messages read while looking for a hash collision
MAX_ITEMS = 1_000_000  # index items whose hashes are compared while looking for a collision


@dataclass(frozen=True)
class Collision:
    file: str
    key_hash: int
    keys: tuple[tuple[str, int, int], ...]  # (index key string, item number, physical offset), oldest first


def index_collisions(readers: list[IndexFileReader], log: CommitLog, limit: int = 1, budget: int = MAX_MESSAGES, *,
                     max_items: int = MAX_ITEMS, time_budget: Budget | None = None) -> list[Collision]:
    """Index items of ``readers`` whose hashes are equal but whose key strings differ (real collisions), per
    index file; the keys are read from the records in ``log``.

    Reads at most ``max_items`` index items (the first ones, file by file; their hashes in one numpy pass) and
    the messages of items that share a hash, at most ``budget`` of them; ``time_budget`` raises
    ``BudgetExceeded`` when it runs out.
    """
    stop = budget_or_none(time_budget)
    found: list[Collision] = []
    cache: dict[int, Message | None] = {}
    reads = 0
    left = max_items
    for reader in readers:
        if left <= 0:
            break
        stop.check("reading index files")
        groups = _shared_hashes(reader, left)
        left -= groups.read
        for key_hash, numbers in groups.items:
            items = [reader.item(n) for n in numbers]
            if len({i.phy_offset for i in items}) < 2:
                continue
            keys: dict[str, tuple[int, int]] = {}
            for item in items:
                if item.phy_offset not in cache:
                    reads += 1
                    if reads % 256 == 0:
                        stop.check("reading messages of index items")
                    try:
                        cache[item.phy_offset] = log.message_at(item.phy_offset)
                    except StoreError:
                        cache[item.phy_offset] = None
                msg = cache[item.phy_offset]
                if msg is None:
                    continue
                for k in [*msg.keys, *([msg.unique_key] if msg.unique_key else [])]:
                    s = index_key(msg.topic, k)
                    if index_key_hash(s) == key_hash and s not in keys:
                        keys[s] = (item.number, item.phy_offset)
            if len(keys) >= 2:
                found.append(Collision(reader.rel, key_hash, tuple((s, n, p) for s, (n, p) in keys.items())))
                if len(found) >= limit:
                    return found
            if reads >= budget:
                return found
    return found


@dataclass(frozen=True)
class _Groups:
    read: int  # items read
    items: list[tuple[int, list[int]]]  # (key hash, item numbers) of hashes held by 2+ items, by first item


def _shared_hashes(reader, max_items: int) -> _Groups:
    """The key hashes that two or more of the first ``max_items`` written items share (items 1 .. indexCount-1,
    bounded by the file, as ``IndexFileReader.items``), in the order of their first item."""
    written = items_array(reader)[:max_items]
    n = len(written)
    if n < 2:
        return _Groups(n, [])
    hashes = written["key_hash"]
    values, first_at, inverse, counts = np.unique(hashes, return_index=True, return_inverse=True, return_counts=True)
    shared = np.flatnonzero(counts >= 2)
    if not len(shared):
        return _Groups(n, [])
    shared = shared[np.argsort(first_at[shared], kind="stable")]
    by_group = np.argsort(inverse.ravel(), kind="stable")  # item indexes grouped by hash, in item order
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    groups = [(int(values[g]), (by_group[starts[g]:starts[g] + counts[g]] + 1).tolist()) for g in shared]
    return _Groups(n, groups)


