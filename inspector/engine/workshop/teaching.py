"""An index file built step by step from key hashes, for teaching how slots, items and links change (spec §5.3).

Pure: no store involved. Each step is what ``IndexFile.putKey`` does for one key.
"""

from __future__ import annotations

from dataclasses import dataclass

from parsers.java import INT32_MIN, java_string_hash, key_hash_of

DEFAULT_HASHES = (16, 29, 29, 8, 16, 16)  # the seed articles' example
DEFAULT_SLOTS = 32  # large enough that slot == hash, as in the seed article: [29]->3->2, [16]->6->5->1


@dataclass(frozen=True)
class TeachItem:
    number: int
    key_hash: int
    prev_index: int


@dataclass(frozen=True)
class TeachStep:
    """The state after inserting ``key_hash`` as item ``number``."""

    number: int
    key_hash: int
    slot: int
    old_slot_value: int
    slots: tuple[int, ...]
    items: tuple[TeachItem, ...]
    hash_slot_count: int
    index_count: int
    explanation: str
    hash_code: int = 0  # the key's String.hashCode() as given; key_hash is what the broker makes of it


@dataclass(frozen=True)
class TeachLookup:
    key_hash: int
    slot: int
    visited: tuple[int, ...]  # item numbers, newest first
    matches: tuple[int, ...]


def key_hash_steps(key: int | str) -> str:
    """``hashCode h → abs → keyHash k`` for a key string or a hashCode, as ``IndexFile.indexKeyHashMethod``
    (rocketmq-all-4.9.8, IndexFile.java lines 148-154) computes it: ``Math.abs(key.hashCode())``, and 0 when that
    is still negative, which happens for Integer.MIN_VALUE only (its absolute value does not fit an int)."""
    h = java_string_hash(key) if isinstance(key, str) else key
    if h == INT32_MIN:
        return (f"hashCode {h} → Math.abs({h}) = {h} (no positive int holds 2147483648) → still below 0, "
                f"so keyHash 0")
    return f"hashCode {h} → abs → keyHash {key_hash_of(h)}"


def build_steps(hashes: list[int] | tuple[int, ...] = DEFAULT_HASHES, slot_count: int = DEFAULT_SLOTS) -> list[TeachStep]:
    if slot_count <= 0:
        raise ValueError("slot_count must be positive")
    slots = [0] * slot_count
    items: list[TeachItem] = []
    used = 0
    steps = []
    for number, code in enumerate(hashes, start=1):
        h = key_hash_of(int(code))
        slot = h % slot_count
        old = slots[slot]
        items.append(TeachItem(number, h, old))
        slots[slot] = number
        if old == 0:
            used += 1
            why = f"slot {slot} was empty: it now holds item {number}; hashSlotCount becomes {used}"
        else:
            why = (f"slot {slot} already held item {old}: item {number} links back to it (prev = {old}) "
                   f"and the slot now holds {number}, the newest")
        steps.append(TeachStep(number, h, slot, old, tuple(slots), tuple(items), used, number + 1,
                               f"{key_hash_steps(int(code))}; {h} % {slot_count} = slot {slot}; {why}", int(code)))
    return steps


def lookup(steps: list[TeachStep], key_hash: int) -> TeachLookup:
    """How a query walks back from the slot through prev links, keeping items with an equal hash. ``key_hash``
    may be a hashCode: the broker's query makes it a keyHash first, as putKey does."""
    key_hash = key_hash_of(key_hash)
    if not steps:
        return TeachLookup(key_hash, 0, (), ())
    last = steps[-1]
    slot_count = len(last.slots)
    slot = key_hash % slot_count
    by_number = {i.number: i for i in last.items}
    visited, matches = [], []
    number = last.slots[slot]
    while number and number not in visited:
        visited.append(number)
        if by_number[number].key_hash == key_hash:
            matches.append(number)
        number = by_number[number].prev_index
    return TeachLookup(key_hash, slot, tuple(visited), tuple(matches))
