"""Exercise kinds about the index and the ids: a key's physical offset and slot, an offset msgId decoded, what
an index header counts, a real hash collision, and telling an offset msgId from a unique key.
"""

from __future__ import annotations

import ipaddress

from inspector.engine.read.store.answers import find_collisions
from inspector.engine.read.store.store import decode_id
from inspector.engine.workshop.exercise_facts import Facts, Unavailable, variant
from inspector.engine.workshop.exercise_model import INT_HINT, draft
from inspector.engine.workshop.tour import is_system
from parsers.java import index_key, index_key_hash, java_string_hash


def _key_offset(f: Facts, seed: int, r: int):
    pool = sorted((t, k) for (t, k), offs in f.keys.items() if len(offs) == 1 and not is_system(t))
    choice = variant(pool, "key-offset", seed, r)
    if choice is None:
        raise Unavailable
    topic, key = choice
    hits = f.store.lookup_key(topic, key)
    if len(hits) != 1:
        raise Unavailable
    msg = hits[0].message
    return draft(
        question=f"Which physical offset holds the message of topic {topic} with the key '{key}'?",
        answer=str(msg.physical_offset), answer_type="int", expected=(msg.physical_offset,), format_hint=INT_HINT,
        explanation=(f"The index maps '{topic}#{key}' to item {hits[0].item_number} of {hits[0].index_file}, whose "
                     f"physical offset is {msg.physical_offset}; the record there has the key in its KEYS property."),
        hints=((( msg.queue_offset,), f"{msg.queue_offset} is its queue offset (its number in queue {msg.queue_id}); "
                                      "the physical offset is its byte position in the commitlog."),),
        command=f.cmd("key", topic, key),
    )


def _key_slot(f: Facts, seed: int, r: int):
    readers = f.store.index_files()
    if not readers or not readers[0].slot_count:
        raise Unavailable
    slots = readers[0].slot_count
    pool = sorted({(t, k) for (t, k) in f.keys if not is_system(t)})
    choice = variant(pool, "key-slot", seed, r)
    if choice is None:
        raise Unavailable
    topic, key = choice
    s = index_key(topic, key)
    h = java_string_hash(s)
    kh = index_key_hash(s)
    slot = kh % slots
    hints = []
    bare = index_key_hash(key) % slots
    if bare != slot:
        hints.append(((bare,), f"{bare} is the slot of '{key}' alone; the index hashes the string '{s}'."))
    if h < 0 and h % slots != slot:
        hints.append(((h % slots,), "that is the signed hashCode taken modulo the slots; the index first takes "
                                    "the absolute value."))
    return draft(
        question=f"The index files of this store have {slots} slots. In which slot does the key '{key}' of topic "
                 f"{topic} land?",
        answer=str(slot), answer_type="int", expected=(slot,), format_hint=INT_HINT, hints=tuple(hints),
        explanation=(f"The index key is '{s}'; its Java hashCode is {h}, the absolute value {kh}, and "
                     f"{kh} % {slots} = {slot}."),
        command=f.cmd("chain", topic, key),
    )


def _decode_msgid(f: Facts, seed: int, r: int):
    pool = sorted({m.physical_offset for m in f.messages})
    off = variant(pool, "decode-msgid", seed, r)
    if off is None:
        raise Unavailable
    msg = f.store.message_at(off)
    host = msg.store_host
    ip = str(ipaddress.ip_address(host.ip))
    return draft(
        question=f"Decode the offset msgId {msg.msg_id}: which broker address (ip:port) and which physical offset "
                 f"does it hold?",
        answer=f"{host} {msg.stored_physical_offset}", answer_type="host-offset",
        expected=(ip, host.port, msg.stored_physical_offset),
        format_hint="an address and an offset, e.g. 10.0.0.1:10911 4096",
        explanation=(f"The first {len(msg.msg_id) - 24} hex characters are the address ({ip}), the next 8 the "
                     f"port ({host.port}), the last 16 the physical offset ({msg.stored_physical_offset})."),
        command=f"rmq-inspect decode-id {msg.msg_id} --store {f.store.root}",
    )


def _index_file_pick(f: Facts, kind: str, seed: int, r: int):
    readers = f.store.index_files()
    pick = variant(sorted(range(len(readers))), kind, seed, r)
    if pick is None:
        raise Unavailable
    return readers[pick]


def _index_items(f: Facts, seed: int, r: int):
    reader = _index_file_pick(f, "index-items", seed, r)
    h = reader.header
    return draft(
        question=f"The header of index file {reader.name} says indexCount = {h.index_count}. How many items does the "
                 f"file hold?",
        answer=str(h.items_written), answer_type="int", expected=(h.items_written,), format_hint=INT_HINT,
        hints=(((h.index_count,), "indexCount is the number the next item will get, not the count."),),
        explanation=("indexCount starts at 1 and item 0 is never written, so the items are 1 .. indexCount - 1: "
                     f"{h.index_count} - 1 = {h.items_written}."),
        command=f.cmd("info"),
    )


def _index_used_slots(f: Facts, seed: int, r: int):
    reader = _index_file_pick(f, "index-used-slots", seed, r)
    h = reader.header
    hints = [((reader.slot_count,), f"{reader.slot_count} is the size of the slot table (broker configuration); "
                                    "most files do not fill every slot.")]
    if h.items_written != h.hash_slot_count:
        hints.append(((h.items_written,), f"{h.items_written} is the number of items; items with keys in the same "
                                          "slot share it."))
    return draft(
        question=f"Index file {reader.name} has a table of {reader.slot_count} slots. How many slots are in use "
                 f"(hold at least one item)?",
        answer=str(h.hash_slot_count), answer_type="int", expected=(h.hash_slot_count,), format_hint=INT_HINT,
        hints=tuple(hints),
        explanation=(f"The header field hashSlotCount counts exactly that: {h.hash_slot_count}. It grows when an "
                     "item lands in an empty slot; the slot count itself is not stored in the file."),
        command=f.cmd("info"),
    )


def _collision_item(f: Facts, seed: int, r: int):
    found = f.memo("collisions", lambda: find_collisions(f.store, limit=4, time_budget=f.budget))
    pool = []
    for c in found:
        for i in range(2):
            pool.append((c, i))
    choice = variant(pool, "collision-item", seed, r)
    if choice is None:
        raise Unavailable
    c, i = choice
    (s1, n1, _), (s2, n2, _) = c.keys[0], c.keys[1]
    asked, right = (n1, s1) if i == 0 else (n2, s2)
    wrong = s2 if i == 0 else s1
    choices = tuple((s, (s, s.split("#", 1)[1])) for s in (s1, s2))
    return draft(
        question=f"Items {n1} and {n2} of index file {c.file.rsplit('/', 1)[-1]} both store keyHash {c.key_hash}: one "
                 f"was written for '{s1}', the other for '{s2}'. Which key string does item {asked} belong to?",
        answer=right, answer_type="choice", expected=(right,), choices=choices, case_sensitive=True,
        format_hint=f"'{s1}' or '{s2}'",
        hints=(((wrong,), "the hash cannot tell them apart: read the message the item points at."),),
        explanation=(f"Both strings have Java hashCode {c.key_hash}, so the index cannot tell them apart; item {asked} "
                     f"points at a message whose KEYS contain '{right.split('#', 1)[1]}'."),
        command=f.cmd("chain", right.split("#", 1)[0], right.split("#", 1)[1]),
    )


def _id_pool(f: Facts) -> list[tuple[str, str]]:
    pool = []
    for m in f.messages[:500]:
        pool.append((m.msg_id, "offset msgId"))
        if m.unique_key:
            pool.append((m.unique_key, "unique key"))
    return sorted(set(pool))


def _id_kind(f: Facts, seed: int, r: int):
    choice = variant(f.memo("id-kinds", lambda: _id_pool(f)), "id-kind", seed, r)
    if choice is None:
        raise Unavailable
    text, kind = choice
    readings = decode_id(text, f.store)
    found = [rd.kind for rd in readings if rd.found]
    if found != (["offset_msg_id"] if kind == "offset msgId" else ["unique_key"]):
        raise Unavailable
    choices = (
        ("offset msgId", ("offset msgid", "offset msg id", "offsetmsgid", "offset", "offset id",
                          "offset message id")),
        ("unique key", ("unique key", "uniq_key", "uniq key", "uniqkey", "unique", "uniq", "client id",
                        "client message id", "unique id")),
    )
    other = "unique key" if kind == "offset msgId" else "offset msgId"
    if kind == "offset msgId":
        r0 = readings[0].fields
        why = (f"Read as an offset msgId it names this broker ({r0['ip']}:{r0['port']}) and offset {r0['offset']}, "
               "where a record with exactly this id is stored; read as a unique key it is no message's UNIQ_KEY.")
    else:
        why = ("Read as an offset msgId it points at no record with that id; it is the UNIQ_KEY property of a message "
               "in this store (the producer's address, pid, time and counter).")
    return draft(
        question=f"In this store, is {text} an offset msgId or a unique key (UNIQ_KEY)?",
        answer=kind, answer_type="choice", expected=(kind,), choices=choices,
        format_hint="'offset msgId' or 'unique key'",
        hints=(((other,), "both are 32 hex characters for IPv4 hosts; only trying both readings tells them apart."),),
        explanation=why,
        command=f"rmq-inspect decode-id {text} --store {f.store.root}",
    )


BUILDERS = {
    "key-offset": _key_offset, "key-slot": _key_slot, "decode-msgid": _decode_msgid, "index-items": _index_items,
    "index-used-slots": _index_used_slots, "collision-item": _collision_item, "id-kind": _id_kind,
}
