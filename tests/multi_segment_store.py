"""A small store of several commitlog segments, for the tests of the shared background walk (engine and web)."""

from __future__ import annotations

from pathlib import Path

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry

GEOMETRY = Geometry(segment_size=64 * 1024, cq_file_size=1000 * 20, index_slots=64, index_items=4000)


def write_multi_segment_store(root: Path) -> Path:
    """~1,500 messages of ~200 bytes: several 64 KiB segments, two queues of three topics, one key each."""
    with StoreWriter(root, GEOMETRY) as w:
        for i in range(1500):
            w.append(MessageSpec(topic=f"T{i % 3}", queue_id=i % 2, body=b"m" * 100, keys=[f"k{i}"],
                                 store_timestamp=1_758_272_400_000 + i))
    return root
