"""A writer-made store with known store times for stepping by store time (the TUI's ±minute/hour/day keys):
records every 20 s from 2025-09-19 00:00:00 UTC for two hours (two of them stored in the same millisecond,
00:01:00.000), nothing stored for three hours, then records every 20 s from 05:00:00 for an hour; one topic of
two queues (record i in queue i % 2), every third record tagged "third"; 64 KiB segments, so the log has three
of them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry

T0 = 1_758_240_000_000  # 2025-09-19 00:00:00.000 UTC
MINUTE, HOUR, DAY = 60_000, 3_600_000, 86_400_000
TOPIC = "Ticks"
GEOMETRY = Geometry(segment_size=64 * 1024, cq_file_size=100 * 20, index_slots=100, index_items=4000)


def store_times() -> list[int]:
    first = [T0 + 20_000 * i for i in range(360)]  # 00:00:00 … 01:59:40
    first.insert(4, T0 + MINUTE)  # a second record at 00:01:00.000: a step lands on the first of the two
    return first + [T0 + 5 * HOUR + 20_000 * i for i in range(180)]  # 05:00:00 … 05:59:40


@dataclass(frozen=True)
class Record:
    store_timestamp: int
    physical_offset: int
    queue_id: int
    queue_offset: int
    tag: str | None


def write_timestep_store(root: Path) -> list[Record]:
    """Write the store at ``root``; its records in log order."""
    out: list[Record] = []
    next_offset = [0, 0]
    with StoreWriter(root, GEOMETRY) as w:
        for i, t in enumerate(store_times()):
            q = i % 2
            tag = "third" if i % 3 == 0 else None
            got = w.append(MessageSpec(topic=TOPIC, queue_id=q, body=b"m" * 100, keys=[f"k{i}"], tags=tag,
                                       store_timestamp=t))
            out.append(Record(t, got.physical_offset, q, next_offset[q], tag))
            next_offset[q] += 1
    return out
