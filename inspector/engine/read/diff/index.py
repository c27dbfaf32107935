"""Index items present in one store only. An item is what it points at, (keyHash, phyOffset): a store and its
rebuilt copy hold the same items in other files, slots and orders, with other timeDiffs (each file's
beginTimestamp is its own), so files of one name are compared byte for byte first, and only the items of the files
left unmatched are compared."""

from __future__ import annotations

import numpy as np

from inspector.engine.model.records import IndexItem
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.diff.result import IndexItemDiff
from inspector.engine.read.index.indexfile import IndexFileReader
from inspector.engine.read.index.keys import indexed_key_text
from inspector.engine.read.index.slots import items_array
from parsers.indexfile import INDEX_HEADER_SIZE, INDEX_ITEM_SIZE, INDEX_SLOT_SIZE


def _same_file(ra: IndexFileReader, rb: IndexFileReader) -> bool:
    """Two files of one name holding the same bytes (a master's and a slave's that rolled together): the same
    items, so neither needs reading item by item."""
    used = _used_bytes(ra)
    if _name(ra) != _name(rb) or ra.mf.size != rb.mf.size or used != _used_bytes(rb):
        return False
    # header, slots and the items up to indexCount: past it a preallocated file holds zeros (often a hole, whose
    # every page a read would make the page cache fill) that IndexFile never reads
    return np.array_equal(np.frombuffer(ra.mf.buf, np.uint8, used), np.frombuffer(rb.mf.buf, np.uint8, used))


def _unmatched(a: list[IndexFileReader], b: list[IndexFileReader]) -> tuple[list[IndexFileReader],
                                                                          list[IndexFileReader]]:
    """Each side's files without a byte-equal file of the same name on the other: only their items are compared
    (a slave whose newest file rolled elsewhere differs in one file, not in all)."""
    in_a, in_b = {_name(r): r for r in a}, {_name(r): r for r in b}
    equal = {name for name, rb in in_b.items() if name in in_a and _same_file(in_a[name], rb)}
    return [r for r in a if _name(r) not in equal], [r for r in b if _name(r) not in equal]


def _name(reader: IndexFileReader) -> str:
    return reader.rel.rsplit("/", 1)[-1]


def _used_bytes(reader: IndexFileReader) -> int:
    return min(reader.mf.size, INDEX_HEADER_SIZE + reader.slot_count * INDEX_SLOT_SIZE
               + max(0, reader.effective_index_count) * INDEX_ITEM_SIZE)


def _items(readers: list[IndexFileReader]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(phyOffset, keyHash, index of the file) of every written item, in file order."""
    arrays = [items_array(r) for r in readers]
    if not arrays:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    phy = np.concatenate([x["phy_offset"].astype(np.int64) for x in arrays])
    key_hash = np.concatenate([x["key_hash"].astype(np.int64) for x in arrays])
    file = np.concatenate([np.full(len(x), i, np.int64) for i, x in enumerate(arrays)])
    return phy, key_hash, file


def diff_index(a: list[IndexFileReader], b: list[IndexFileReader], log_a: CommitLog, log_b: CommitLog,
               limit: int) -> tuple[list[IndexItemDiff], int, int]:
    """Items of A's index files not in B's and of B's not in A's: at most ``limit`` listed (those of A first,
    each with the key the record at its offset was indexed under), and how many there are on each side."""
    a, b = _unmatched(a, b)
    if not a and not b:
        return [], 0, 0
    pa, ha, fa = _items(a)
    pb, hb, fb = _items(b)
    # one int64 a pair: the offset's rank among both sides' offsets (dense, < 2^31 for any index) above the
    # 32 bits of keyHash, so numpy's sorted set operations compare whole pairs
    _, rank = np.unique(np.concatenate([pa, pb]), return_inverse=True)
    ka = (rank[: len(pa)].astype(np.int64) << 32) | (ha & 0xFFFFFFFF)
    kb = (rank[len(pa):].astype(np.int64) << 32) | (hb & 0xFFFFFFFF)
    only_a = np.flatnonzero(~np.isin(ka, kb))
    only_b = np.flatnonzero(~np.isin(kb, ka))
    out: list[IndexItemDiff] = []
    for side, where, phy, hashes, files, readers, log in (("A", only_a, pa, ha, fa, a, log_a),
                                                          ("B", only_b, pb, hb, fb, b, log_b)):
        for i in where[: max(0, limit - len(out))].tolist():
            item = IndexItem(0, int(hashes[i]), int(phy[i]), 0, 0)
            out.append(IndexItemDiff(side, readers[int(files[i])].rel, int(phy[i]), int(hashes[i]),
                                     indexed_key_text(log, item)))
    return out, len(only_a), len(only_b)
