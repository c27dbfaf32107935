"""What a lost span held, as far as the store can still tell: the consume-queue units that point into it (topic,
queue, queue offset, the record's offset and size) and, where a record's header still reads, its keys."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from inspector.engine.model.meaning import keys_of, unique_key_of
from inspector.engine.read.queues.consumequeue import ConsumeQueue
from parsers.consumequeue import CQ_UNIT_SIZE, PRE_BLANK_SIZE

__all__ = ["LostRecord", "lost_records"]

LMQ_PREFIX = "%LMQ%"


@dataclass(frozen=True)
class LostRecord:
    """A record a lost span held: where it was, the queue it was in and (when its header reads) its keys."""

    physical_offset: int
    size: int
    topic: str
    queue_id: int
    queue_offset: int
    tags_code: int
    keys: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {"physical_offset": self.physical_offset, "size": self.size, "topic": self.topic,
                "queue_id": self.queue_id, "queue_offset": self.queue_offset, "keys": list(self.keys)}


def lost_records(store, spans: list[tuple[int, int]]) -> tuple[list[LostRecord], int]:
    """Every record a unit of a file consume queue places inside one of ``spans`` ([start, end) pairs, sorted), one
    per physical offset (a %LMQ% unit names a record its own queue already names), and how many %LMQ% units
    pointed into the spans. Units that reach past their span or overlap another are left out: a damaged unit
    cannot say where a record was."""
    if not spans:
        return [], 0
    starts = np.array([s for s, _ in spans], dtype=np.int64)
    ends = np.array([e for _, e in spans], dtype=np.int64)
    found: dict[int, LostRecord] = {}
    lmq = 0
    for topic, qid in store.queue_ids():
        q = store.queue(topic, qid)
        if not isinstance(q, ConsumeQueue):
            continue
        try:
            for start, _ in q.files:
                units = q.file_units(start)
                if not len(units):
                    continue
                phy = units["physical_offset"].astype(np.int64)
                size = units["size"].astype(np.int64)
                k = np.searchsorted(starts, phy, side="right") - 1
                inside = (k >= 0) & (phy >= 0) & (size > 0) & (size != PRE_BLANK_SIZE)
                inside &= phy + size <= np.where(k >= 0, ends[np.maximum(k, 0)], -1)
                for i in np.flatnonzero(inside).tolist():
                    if topic.startswith(LMQ_PREFIX):
                        lmq += 1
                        continue
                    at = int(phy[i])
                    if at not in found:
                        found[at] = LostRecord(at, int(size[i]), topic, qid, start // CQ_UNIT_SIZE + i,
                                               int(units["tags_code"][i]))
        finally:
            q.release_pages()
    out: list[LostRecord] = []
    for rec in sorted(found.values(), key=lambda r: r.physical_offset):
        if out and rec.physical_offset < out[-1].physical_offset + out[-1].size:
            continue  # overlaps the record before it: one of the two units is wrong
        out.append(_with_keys(store, rec))
    return out, lmq


def _with_keys(store, rec: LostRecord) -> LostRecord:
    """The record's UNIQ_KEY and KEYS when its header and properties still read (a CRC mismatch, a torn tail)."""
    try:
        msg = store.commitlog.message_at(rec.physical_offset)
    except Exception:  # noqa: BLE001 - the record does not read: its queue unit is all that is known
        return rec
    if msg.topic != rec.topic or msg.total_size != rec.size:
        return rec
    unique = unique_key_of(msg.properties)
    keys = tuple(([unique] if unique else []) + keys_of(msg.properties))
    return LostRecord(rec.physical_offset, rec.size, rec.topic, rec.queue_id, rec.queue_offset, rec.tags_code, keys)
