"""A store as retention leaves it: the oldest commitlog segments deleted, then the broker's cleanup of the
consume-queue and index files wholly below the new first offset (a model of the 4.9.8 / 5.3.1 broker).

The model is the engine's (``inspector.engine.maintain.write.aging``, which cites each rule of the broker:
``CleanCommitLogService`` / ``MappedFileQueue.deleteExpiredFileByTime``, ``CleanConsumeQueueService`` /
``ConsumeQueue.deleteExpiredFile``, ``ConsumeQueue.correctMinOffset``, ``IndexService.deleteExpiredFile``);
this module writes the test stores it is applied to.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from inspector.engine.maintain.write.aging import Aged, Aging
from inspector.engine.maintain.write.aging import age_store as apply_aging
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry

CQ_UNIT = 20
# small files so retention has something to clean: 64 KiB segments (~245 records each), 40-unit consume-queue
# files, 400-item index files (each record has two index items: its unique key and its key)
GEOMETRY = Geometry(segment_size=64 * 1024, cq_file_size=40 * CQ_UNIT, index_slots=100, index_items=400)


@dataclass(frozen=True)
class Written:
    topic: str
    queue_id: int
    queue_offset: int
    physical_offset: int


def write_store(root: Path, messages: int = 1500) -> list[Written]:
    """Records of ~270 bytes in three topics of two queues (seven segments for 1,500): where each one went."""
    out = []
    seen: dict[tuple[str, int], int] = {}
    with StoreWriter(root, GEOMETRY) as w:
        for i in range(messages):
            topic, qid = f"T{i % 3}", i % 2
            got = w.append(MessageSpec(topic=topic, queue_id=qid, body=b"m" * 100, keys=[f"k{i}"],
                                       store_timestamp=1_758_272_400_000 + i))
            q = seen.get((topic, qid), 0)
            seen[(topic, qid)] = q + 1
            out.append(Written(topic, qid, q, got.physical_offset))
    return out


def age_store(root: Path, segments: int = 1, *, cleanup: bool = True) -> Aged:
    """Delete the ``segments`` oldest commitlog segments of ``root`` (in place), then, with ``cleanup``, the
    consume-queue and index files the broker would delete below the new first offset: the engine's model of
    the broker's cleanup (inspector/engine/maintain/write/aging.py, each rule cited there)."""
    return apply_aging(root, Aging(expired_segments=segments, cleanup=cleanup))
