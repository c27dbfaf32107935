"""A store as retention leaves it: the oldest commitlog segments deleted, then the broker's cleanup of the
consume-queue and index files wholly below the new first offset (a model of the 4.9.8 / 5.3.1 broker).

Each rule is the broker's:
- ``DefaultMessageStore.CleanCommitLogService`` -> ``CommitLog.deleteExpiredFile`` ->
  ``MappedFileQueue.deleteExpiredFileByTime``: whole segments, oldest first, never the last one
  (``mfsLength = mappedFiles.size() - 1``); the log's first offset becomes the first remaining segment's name.
- ``DefaultMessageStore.CleanConsumeQueueService.deleteExpiredFiles`` -> ``ConsumeQueue.deleteExpiredFile`` ->
  ``MappedFileQueue.deleteExpiredFileByOffset(minOffset, CQ_STORE_UNIT_SIZE)``: a consume-queue file (never the
  last) goes when its last unit's physical offset is below the log's first offset; a file straddling it stays,
  with its units below it (``ConsumeQueue.correctMinOffset`` skips them at load).
- ``IndexService.deleteExpiredFile(minPhyOffset)``: index files (never the last) whose ``endPhyOffset`` is below
  the first offset go; one straddling it stays with its items below.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

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


@dataclass
class Aged:
    first_offset: int  # the log's first offset after retention
    deleted_segments: list[str] = field(default_factory=list)
    deleted_cq: list[str] = field(default_factory=list)  # relative to the root
    deleted_index: list[str] = field(default_factory=list)


def _units(path: Path) -> list[int]:
    """Physical offsets of a consume-queue file's written units (zero units end it)."""
    data = path.read_bytes()
    out = []
    for pos in range(0, len(data) - CQ_UNIT + 1, CQ_UNIT):
        phy, size, _ = struct.unpack_from(">qiq", data, pos)
        if phy == 0 and size == 0:
            break
        out.append(phy)
    return out


def age_store(root: Path, segments: int = 1, *, cleanup: bool = True) -> Aged:
    """Delete the ``segments`` oldest commitlog segments of ``root`` (in place), then, with ``cleanup``, the
    consume-queue and index files the broker would delete below the new first offset."""
    segs = sorted((root / "commitlog").iterdir())
    assert segments < len(segs), "retention never deletes the last segment (deleteExpiredFileByTime)"
    for seg in segs[:segments]:
        seg.unlink()
    aged = Aged(int(segs[segments].name), [s.name for s in segs[:segments]])
    if not cleanup:
        return aged
    for qdir in sorted((root / "consumequeue").glob("*/*")):
        files = sorted(qdir.iterdir())
        for f in files[:-1]:  # deleteExpiredFileByOffset: never the last file
            units = _units(f)
            if units and units[-1] < aged.first_offset:
                f.unlink()
                aged.deleted_cq.append(str(f.relative_to(root)))
            else:
                break  # the broker stops at the first file it keeps
    index = sorted((root / "index").iterdir()) if (root / "index").is_dir() else []
    for f in index[:-1]:
        end_phy = struct.unpack_from(">q", f.read_bytes(), 24)[0]  # IndexHeader endPhyOffset
        if end_phy < aged.first_offset:
            f.unlink()
            aged.deleted_index.append(str(f.relative_to(root)))
        else:
            break
    return aged


def tree_digest(root: Path) -> str:
    """One hash of every file's path and bytes under ``root``: equal before and after = nothing was written."""
    import hashlib

    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()
