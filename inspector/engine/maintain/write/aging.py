"""A store with a past: what a 4.9.8 / 5.3.1 broker's own cleanup and a crash leave on a store the writer wrote.

:class:`Aging` says what happened after the writer's day; :func:`age_store` applies it to the store on disk
(:meth:`StoreWriter.close <inspector.engine.maintain.write.writer.StoreWriter.close>` calls it when the writer
was given ``aging=``; tests call it on a store already written). Each step is a rule of the broker, cited where
it is applied:

- retention (``DefaultMessageStore.CleanCommitLogService`` -> ``CommitLog.deleteExpiredFile`` ->
  ``MappedFileQueue.deleteExpiredFileByTime``): whole commitlog segments, oldest first, never the last one;
- the cleanup that follows it (``CleanConsumeQueueService``: ``ConsumeQueue.deleteExpiredFile`` and
  ``IndexService.deleteExpiredFile``): consume-queue and index files wholly below the log's new first offset;
  a file straddling it stays with its units or items below it (``ConsumeQueue.correctMinOffset`` skips them
  at load);
- a crash: the ``abort`` file stays (the next start runs the abnormal recovery, and ``IndexService.load(false)``
  destroys the index files ending after the checkpoint's ``indexMsgTimestamp``), and optionally the last record
  was torn (its tail never reached the disk);
- an abnormal restart after the crash (apache/rocketmq#8007): ``IndexService.load(false)`` destroyed those index
  files, ``CommitLog.recoverAbnormally`` dispatched the records again from the newest segment older than the
  checkpoint (``isMappedFileMatchedRecover``), so only those records were indexed again, and the broker then
  shut down cleanly.
"""

from __future__ import annotations

import datetime as dt
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.maintain.rebuild.dispatch import dispatch_request
from inspector.engine.maintain.rebuild.index_builder import IndexBuilder
from inspector.engine.model.errors import BadInput
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.records import Message
from inspector.engine.read.store.store import Store
from parsers.checkpoint import CHECKPOINT_FILE_SIZE, Checkpoint
from parsers.consumequeue import CQ_UNIT_SIZE
from parsers.indexfile import INDEX_HEADER_SIZE, IndexHeader

__all__ = ["Aged", "Aging", "age_store"]

FILE_RESERVED_MS = 72 * 3600 * 1000  # MessageStoreConfig.fileReservedTime: 72 hours
DELETE_FILES_BATCH_MAX = 10  # MappedFileQueue.DELETE_FILES_BATCH_MAX: files one cleanup run deletes at most
_CQ_UNIT = struct.Struct(">qiq")  # fast path of parsers.consumequeue.ConsumeQueueUnit


@dataclass(frozen=True)
class Aging:
    """What the broker did to the store after the writer's day (all optional; the default changes nothing).

    * ``retention_now``: the wall clock (ms) of the last ``CleanCommitLogService`` run: a segment whose last
      write (the store time of its last record, which is when the broker last touched the mapped file) is
      ``file_reserved_ms`` or more before it is expired. Needs each segment's last write time (the writer has
      them; see :func:`age_store`).
    * ``expired_segments``: instead of a clock, delete exactly this many oldest segments (tests).
    * ``cleanup``: the consume-queue and index cleanup ran after the segments went (the broker runs it every
      ``cleanResourceInterval``; False models the seconds between the two).
    * ``crashed``: the broker did not shut down cleanly: the ``abort`` file it creates at start stays.
    * ``torn_tail``: bytes at the end of the last record that never reached the disk (zeros); implies a crash.
    * ``restarted_at``: after a crash, the broker was started again at this wall-clock time (ms; it names the
      index file the restart creates), ran the abnormal start (index files past the checkpoint destroyed, the
      records from the recovery's first segment indexed again) and shut down cleanly: no ``abort`` afterwards
      unless ``crashed`` (a second crash). Applied after retention. Needs the geometry (:func:`age_store`).
    """

    retention_now: int | None = None
    file_reserved_ms: int = FILE_RESERVED_MS
    expired_segments: int | None = None
    cleanup: bool = True
    crashed: bool = False
    torn_tail: int = 0
    restarted_at: int | None = None

    def __post_init__(self) -> None:
        if self.retention_now is not None and self.expired_segments is not None:
            raise BadInput("aging: give retention_now or expired_segments, not both")
        if self.expired_segments is not None and self.expired_segments < 0:
            raise BadInput(f"aging: expired_segments must be 0 or more, not {self.expired_segments}")
        if self.file_reserved_ms < 0 or self.torn_tail < 0:
            raise BadInput("aging: file_reserved_ms and torn_tail must be 0 or more")


@dataclass
class Aged:
    """What :func:`age_store` did, paths relative to the store root."""

    first_offset: int  # the log's first offset afterwards (the first remaining segment's name)
    deleted_segments: list[str] = field(default_factory=list)  # segment names
    expired_before: int | None = None  # retention_now - file_reserved_ms: segments last written before it expired
    deleted_cq: list[str] = field(default_factory=list)
    deleted_index: list[str] = field(default_factory=list)
    abort: bool = False
    torn_record: int | None = None  # physical offset of the torn record
    destroyed_index: list[str] = field(default_factory=list)  # by the abnormal restart (IndexService.load(false))
    reindexed_from: int | None = None  # the restart's recovery start: records from here were indexed again
    new_index: list[str] = field(default_factory=list)  # index files the restart wrote


def _expired_count(segments: list[Path], aging: Aging, last_write: Mapping[str, int] | None) -> int:
    if aging.expired_segments is not None:
        if aging.expired_segments >= len(segments) and segments:
            raise BadInput(f"aging: {aging.expired_segments} segments to delete, but the log has {len(segments)} "
                           "and retention never deletes the last one (deleteExpiredFileByTime)")
        return aging.expired_segments
    if aging.retention_now is None:
        return 0
    if last_write is None:
        raise BadInput("aging: retention_now needs each segment's last write time")
    count = 0
    # deleteExpiredFileByTime: mfsLength = mappedFiles.size() - 1 (never the last file); a file still alive
    # stops the run ("avoid deleting files in the middle"). DELETE_FILES_BATCH_MAX bounds one run only: the
    # service runs again every cleanResourceInterval (10 s), so every expired head segment goes in the end.
    for seg in segments[:-1]:
        if aging.retention_now < last_write[seg.name] + aging.file_reserved_ms:  # liveMaxTimestamp not reached
            break
        count += 1
    return count


def _cq_physical_offsets(path: Path) -> list[int]:
    """Physical offsets of a consume-queue file's written units (a zero-size unit ends them, as at load)."""
    data = path.read_bytes()
    out = []
    for pos in range(0, len(data) - CQ_UNIT_SIZE + 1, CQ_UNIT_SIZE):
        phy, size, _ = _CQ_UNIT.unpack_from(data, pos)
        if size == 0:
            break
        out.append(phy)
    return out


def _clean_consume_queues(root: Path, first_offset: int) -> list[str]:
    deleted = []
    for qdir in sorted((root / "consumequeue").glob("*/*")):
        files = sorted(p for p in qdir.iterdir() if p.is_file())
        # ConsumeQueue.deleteExpiredFile -> MappedFileQueue.deleteExpiredFileByOffset(offset, CQ_STORE_UNIT_SIZE):
        # every file but the last (mfsLength = size - 1) whose last unit's physical offset (maxOffsetInLogicQueue)
        # is below the log's min offset; the first file kept ends the run
        for f in files[:-1]:
            units = _cq_physical_offsets(f)
            if not units or units[-1] >= first_offset:
                break
            f.unlink()
            deleted.append(f.relative_to(root).as_posix())
    return deleted


def _clean_index(root: Path, first_offset: int) -> list[str]:
    deleted = []
    index = sorted(p for p in (root / "index").iterdir() if p.is_file()) if (root / "index").is_dir() else []
    # IndexService.deleteExpiredFile(offset): the files before the last whose header endPhyOffset is below the
    # min offset (a straddling file stays); deletion stops at the first file kept
    for f in index[:-1]:
        with open(f, "rb") as fh:
            header = IndexHeader.parse(fh.read(INDEX_HEADER_SIZE))
        if header.end_phy_offset >= first_offset:
            break
        f.unlink()
        deleted.append(f.relative_to(root).as_posix())
    return deleted


def _tear_last_record(segments: list[Path], max_offset: int, last_record: int, tail: int) -> int:
    seg = [s for s in segments if int(s.name) <= last_record][-1]
    pos, end = last_record - int(seg.name), max_offset - int(seg.name)
    if tail > end - pos:
        raise BadInput(f"aging: torn_tail {tail} is longer than the last record ({end - pos} bytes)")
    # the page cache held the record; a crash before the flush leaves its tail as the file's zeros
    with open(seg, "r+b") as f:
        f.seek(end - tail)
        f.write(bytes(tail))
    return last_record


CHECKPOINT_MIN_SLACK_MS = 3000  # StoreCheckpoint.getMinTimestamp: min(physic, logics) - 3 s


def _restart(root: Path, aged: Aged, at: int, geometry: Geometry, tz: dt.tzinfo) -> None:
    raw = (root / "checkpoint").read_bytes().ljust(CHECKPOINT_FILE_SIZE, b"\0")
    cp = Checkpoint.parse(raw)
    # IndexService.load(lastExitOK = false): every index file whose endTimestamp is past the checkpoint's
    # indexMsgTimestamp is destroyed (the newest, never flushed as full: apache/rocketmq#8007)
    kept: list[IndexHeader] = []
    for f in sorted(p for p in (root / "index").iterdir() if p.is_file()) if (root / "index").is_dir() else []:
        with open(f, "rb") as fh:
            header = IndexHeader.parse(fh.read(INDEX_HEADER_SIZE))
        if header.end_timestamp > cp.index_msg_timestamp:
            f.unlink()
            aged.destroyed_index.append(f.relative_to(root).as_posix())
        else:
            kept.append(header)
    if kept and kept[-1].index_count < geometry.index_items:
        raise BadInput("aging: the restart's newest kept index file is not full; continuing a file is not modelled")
    bound = max(0, min(cp.physic_msg_timestamp, cp.logics_msg_timestamp) - CHECKPOINT_MIN_SLACK_MS)
    with Store(root, segment_size=geometry.segment_size) as store:
        # CommitLog.recoverAbnormally: from the newest segment whose first record's store time is at or before the
        # checkpoint's bound (isMappedFileMatchedRecover, messageIndexSafe off), else the first segment
        start = store.segments[0].start_offset if store.segments else 0
        for seg in reversed(store.segments):
            first = next(iter(store.entries(seg.start_offset, check_crc=False)), None)
            if isinstance(first, Message) and 0 < first.store_timestamp <= bound:
                start = seg.start_offset
                break
        aged.reindexed_from = start
        after = (kept[-1].end_phy_offset, kept[-1].end_timestamp) if kept else None
        index = IndexBuilder(root, geometry, clock=lambda: at, tz=tz, after=after)
        try:
            # doDispatch of every record from there: IndexService.buildIndex skips those below the last kept
            # file's endPhyOffset (the builder's ``after``) and indexes the rest into new files
            for entry in store.entries(start, check_crc=False):
                if isinstance(entry, Message):
                    index.put(dispatch_request(entry.topic, entry.queue_id, entry.stored_physical_offset,
                                               entry.total_size, entry.store_timestamp, entry.queue_offset,
                                               entry.sys_flag, entry.prepared_transaction_offset, entry.properties,
                                               geometry))
        finally:
            index.close()
    aged.new_index = [f"index/{f.name}" for f in index.files]
    if index.index_msg_timestamp > cp.index_msg_timestamp:  # a new file filled: IndexService.flush records its end
        (root / "checkpoint").write_bytes(raw[:16] + struct.pack(">q", index.index_msg_timestamp) + raw[24:])


def age_store(root: str | os.PathLike[str], aging: Aging, *, last_write: Mapping[str, int] | None = None,
              last_record: tuple[int, int] | None = None, geometry: Geometry | None = None,
              tz: dt.tzinfo = dt.UTC) -> Aged:
    """Apply ``aging`` to the store at ``root`` in place (it changes the store: only for stores we make).

    ``last_write``: segment name -> the store time of its last record (needed for ``retention_now``);
    ``last_record``: (physical offset, max offset) of the last record (needed for ``torn_tail``);
    ``geometry`` and ``tz`` (index file names): needed for ``restarted_at``. The torn tail is applied first (a
    retention run never deletes the last segment, so the order does not matter), the restart after retention.
    """
    root = Path(root)
    segments = sorted(p for p in (root / "commitlog").iterdir() if p.is_file())
    aged = Aged(first_offset=int(segments[0].name) if segments else 0)
    if aging.retention_now is not None:
        aged.expired_before = aging.retention_now - aging.file_reserved_ms
    if aging.torn_tail:
        if last_record is None:
            raise BadInput("aging: torn_tail needs the last record's offset")
        aged.torn_record = _tear_last_record(segments, last_record[1], last_record[0], aging.torn_tail)
    count = _expired_count(segments, aging, last_write)
    if count:
        for seg in segments[:count]:
            seg.unlink()  # MappedFile.destroy
        aged.deleted_segments = [s.name for s in segments[:count]]
        aged.first_offset = int(segments[count].name)  # CommitLog.getMinOffset: the first mapped file's name
        if aging.cleanup:
            aged.deleted_cq = _clean_consume_queues(root, aged.first_offset)
            aged.deleted_index = _clean_index(root, aged.first_offset)
    if aging.restarted_at is not None:
        if geometry is None:
            raise BadInput("aging: restarted_at needs the store's geometry")
        _restart(root, aged, aging.restarted_at, geometry, tz)
    if aging.crashed or aging.torn_tail:
        # DefaultMessageStore.start creates "abort"; only a clean shutdown deletes it
        (root / "abort").write_bytes(b"")
        aged.abort = True
    return aged
