"""How the broker turns a topic and a key into what an index file holds (spec §5.2): the key string
``topic#key`` (``IndexService.buildKey``), its Java ``String.hashCode()``, the key hash (``indexKeyHashMethod``)
and its slot; and, going back, which key of a message an index item was made from."""

from __future__ import annotations

from dataclasses import dataclass

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import IndexItem
from inspector.engine.read.commitlog.commitlog import CommitLog
from parsers.java import index_key, index_key_hash, index_slot, java_string_hash


@dataclass(frozen=True)
class IndexedKey:
    """``topic#key`` as the index files see it."""

    text: str  # IndexService.buildKey: the topic as stored in the record, '#', the key
    java_hash: int  # String.hashCode() of text (UTF-16 code units), signed 32-bit
    key_hash: int  # IndexFile.indexKeyHashMethod: abs(hashCode), 0 for Integer.MIN_VALUE

    def slot(self, slot_count: int) -> int:
        """The slot of this key in a table of ``slot_count`` slots."""
        return index_slot(self.key_hash, slot_count)


def indexed_key(topic: str, key: str) -> IndexedKey:
    text = index_key(topic, key)
    return IndexedKey(text, java_string_hash(text), index_key_hash(text))


def indexed_key_text(log: CommitLog, item: IndexItem) -> str:
    """Which key string of the message at the item's offset in ``log`` has the item's hash (what was indexed)."""
    try:
        msg = log.message_at(item.phy_offset)
    except StoreError:
        return "(message unreadable)"
    candidates = ([msg.unique_key] if msg.unique_key else []) + msg.keys
    for k in candidates:
        key = indexed_key(msg.topic, k)
        if key.key_hash == item.key_hash:
            return key.text
    return f"{msg.topic}#? (no key of the message has this hash)"
