"""The tour's steps about the index files: from a key to its hash, slot and chain, what the header's
hashSlotCount and indexCount really count, and a real hash collision.
"""

from __future__ import annotations

import numpy as np

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message
from inspector.engine.model.systopics import SYSTEM_PREFIXES
from inspector.engine.read.index.collisions import MAX_ITEMS, MAX_MESSAGES
from inspector.engine.read.index.slots import busiest_slots, walk_slot
from inspector.engine.read.store.answers import find_collisions
from inspector.engine.workshop.tour import SEARCH_INDEX_FILES, Context, Missing
from inspector.engine.workshop.tour_targets import ChainTarget, IndexHeaderTarget, Span
from parsers.indexfile import INDEX_HEADER_SIZE, INDEX_SLOT_SIZE
from parsers.java import index_key, index_key_hash, java_string_hash


def _key_for_hash(msg: Message, key_hash: int) -> str | None:
    """The key of ``msg`` (business keys first, then the unique key) whose index key hashes to ``key_hash``."""
    for k in [*msg.keys, *([msg.unique_key] if msg.unique_key else [])]:
        if index_key_hash(index_key(msg.topic, k)) == key_hash:
            return k
    return None


def _chain_target(ctx: Context, topic: str, key: str, file: str, caption: str, other_key: str | None = None):
    walks = [w for w in ctx.store.chain(topic, key) if w.file == file]
    if not walks:
        raise Missing(f"index file {file} was not searched")
    w = walks[0]
    reader = next(r for r in ctx.store.index_files() if r.rel == file)
    items = tuple(s.item.number for s in w.steps)
    matching = tuple(s.item.number for s in w.steps if s.hash_matches and s.key_matches)
    other = tuple(s.item.number for s in w.steps if not s.hash_matches)
    collide = tuple(s.item.number for s in w.steps if s.hash_matches and s.key_matches is False)
    return ChainTarget(topic, key, w.key, java_string_hash(w.key), w.key_hash, file, reader.slot_count, w.slot,
                       w.slot_position, w.slot_value, items, matching, other, collide, other_key, caption), w


def _key_chain(ctx: Context):
    store = ctx.store
    readers = store.index_files()
    if not readers:
        raise Missing("This store has no index files.")
    for reader in readers[:SEARCH_INDEX_FILES]:
        ctx.budget.check("searching index files")
        for slot, count in busiest_slots(reader, 8):
            if count < 2:
                continue
            chain = walk_slot(reader, slot)
            if not chain.items:
                continue
            newest = chain.items[0]
            try:
                msg = store.message_at(newest.phy_offset)
            except StoreError:
                continue
            key = _key_for_hash(msg, newest.key_hash)
            if key is None or msg.topic.startswith(SYSTEM_PREFIXES):
                continue
            target, walk = _chain_target(ctx, msg.topic, key, reader.rel, f"the chain of slot {slot} in {reader.name}")
            if target.collision_items:
                continue  # the collision has a step of its own
            hc = target.hash_code
            text = (
                f"The index answers 'which messages have key K?'. It does not store keys, only numbers. Take "
                f"the key '{key}' of topic {msg.topic}: the index key is the string '{target.key_string}' "
                f"(topic, '#', key). Java's String.hashCode() of it is {hc}; the index keeps the absolute value, "
                f"{target.key_hash}. With {target.slot_count} slots per file, {target.key_hash} % "
                f"{target.slot_count} = slot {target.slot}, a 4-byte cell at byte {target.slot_position} of "
                f"{reader.name}. The slot holds the number of the newest item of that slot, {target.slot_value}; "
                f"each 20-byte item holds the key hash, the message's physical offset, a time difference and the "
                f"number of the previous (older) item of the same slot. Following those links visits "
                f"{len(target.items)} item(s): {len(target.matching_items)} for this key, "
                f"{len(target.other_hash_items)} for other keys that share the slot, which are skipped because "
                f"their hash differs."
            )
            return text, target, (), (ctx.cmd("chain", msg.topic, key), ctx.cmd("key", msg.topic, key))
    raise Missing("No index slot of this store chains two or more items.")


def _index_header(ctx: Context):
    readers = ctx.store.index_files()
    if not readers:
        raise Missing("This store has no index files.")
    full = [r for r in readers if r.effective_index_count >= r.item_count > 0]
    reader = (full or readers)[0]
    h = reader.header
    used = _used_slots(reader)
    values = (("begin_timestamp", h.begin_timestamp), ("end_timestamp", h.end_timestamp),
              ("begin_phy_offset", h.begin_phy_offset), ("end_phy_offset", h.end_phy_offset),
              ("hash_slot_count", h.hash_slot_count), ("index_count", h.index_count))
    target = IndexHeaderTarget(reader.rel, ("hash_slot_count", "index_count"), values,
                               (Span(32, 36, "hashSlotCount"), Span(36, 40, "indexCount")),
                               reader.slot_count, reader.item_count, used, h.items_written,
                               f"the header of {reader.name}")
    full_note = (f" That equals the file's capacity of {reader.item_count} items, so this file is full and the "
                 f"broker moved on to a new index file." if h.index_count >= reader.item_count else "")
    text = (
        f"The first 40 bytes of an index file are its header. Two of its numbers are often misread. "
        f"hashSlotCount is {h.hash_slot_count} here, but the file has {reader.slot_count} slots: it counts the "
        f"slots in use, increased each time an item lands in an empty slot (the slot table here really has "
        f"{used} non-empty slots). The number of slots is broker configuration and is not written anywhere in "
        f"the file; rmq-inspect infers it from the file size. indexCount is {h.index_count}, but the file holds "
        f"{h.items_written} items: it is the number the next item will get, it starts at 1, and item 0 is never "
        f"used.{full_note} The header also keeps the first and last store time and commitlog offset it indexes, "
        f"so a time-bounded query can skip whole files."
    )
    return text, target, (), (ctx.cmd("info"),)


def _used_slots(reader) -> int:
    n = min(reader.slot_count, max(0, (reader.mf.size - INDEX_HEADER_SIZE) // INDEX_SLOT_SIZE))
    if n <= 0:
        return 0
    table = np.frombuffer(reader.mf.buf, dtype=">i4", count=n, offset=INDEX_HEADER_SIZE)
    return int(np.count_nonzero(table))


def _collision(ctx: Context):
    found = find_collisions(ctx.store, time_budget=ctx.budget)
    if not found:
        raise Missing("No two different keys of this store share a hash in the same index file (the search "
                      f"reads up to {MAX_ITEMS} index items and {MAX_MESSAGES} messages). The sample store "
                      "has one: "
                      "OrderEvents#coupon-Aa7K and OrderEvents#coupon-BB7K.")
    c = found[0]
    (s1, n1, p1), (s2, n2, p2) = c.keys[0], c.keys[1]
    topic, key = s1.split("#", 1)
    target, _ = _chain_target(ctx, topic, key, c.file, f"slot chain holding both {s1} and {s2}", other_key=s2.split("#", 1)[1])
    text = (
        f"'{s1}' and '{s2}' are different strings, yet Java's hashCode gives both {java_string_hash(s1)}, so "
        f"their index items carry the same key hash {c.key_hash} and sit in the same slot, {target.slot}, of "
        f"{c.file.rsplit('/', 1)[-1]} (items {n1} and {n2}). The index stores only that 32-bit hash, never the "
        f"key, so a broker asked for '{key}' returns both messages, at {p1} and {p2}. Collisions are rare but "
        f"normal: a client that looks messages up by key must read each result and compare its real keys. "
        f"rmq-inspect does that, and marks the impostor as a hash collision in the chain."
    )
    return text, target, (), (ctx.cmd("chain", topic, key), ctx.cmd("key", topic, key))


BUILDERS = {"key-chain": _key_chain, "index-header": _index_header, "collision": _collision}
