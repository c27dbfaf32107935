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

CQ_UNIT = 20


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
