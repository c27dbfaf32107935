"""Consume-queue files as the broker writes them: ``ConsumeQueueBuilder`` (spec §4.1, §11).

``CommitLogDispatcherBuildConsumeQueue`` + ``ConsumeQueue.putMessagePositionInfo``: pre-blank units,
idempotence, units appended at the queue's write position. Files go under ``<root>/consumequeue/...`` and
nowhere else; each is created at its full configured size (sparse zero tail, like a freshly mapped file) and
filled with positioned writes, so a 6 MB consume-queue file costs only the bytes actually written.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from inspector.engine.maintain.rebuild.dispatch import (
    DispatchRequest,
    check_path_component,
    file_name_for_offset,
)
from inspector.engine.model.geometry import Geometry
from parsers.commitlog import TRANSACTION_COMMIT_TYPE, TRANSACTION_NOT_TYPE
from parsers.consumequeue import CQ_UNIT_SIZE, PRE_BLANK_SIZE, ConsumeQueueUnit, cq_file_size

__all__ = ["ConsumeQueueBuilder", "cq_unit_bytes"]

# Hot-loop packer, checked byte for byte against its construct schema (ConsumeQueueUnit) in
# tests/inspector/engine/maintain/rebuild/test_dispatch.py.
_CQ_UNIT = struct.Struct(">qiq")

# A consume queue keeps at most this many unwritten bytes per queue before a positioned write.
_CQ_FLUSH_BYTES = 1 << 16


def cq_unit_bytes(physical_offset: int, size: int, tags_code: int) -> bytes:
    """One 20-byte consume-queue unit (fast path of ``ConsumeQueueUnit.build``)."""
    return _CQ_UNIT.pack(physical_offset, size, tags_code)


class _QueueFile:
    """One consume-queue mapped file: its start (byte offset in the queue) and write position."""

    __slots__ = ("first_create_in_queue", "path", "pending", "pending_from", "start", "wrote")

    def __init__(self, path: Path, start: int, first_create_in_queue: bool) -> None:
        self.path = path
        self.start = start
        self.wrote = 0
        self.first_create_in_queue = first_create_in_queue
        self.pending = bytearray()
        self.pending_from = 0


class _Queue:
    __slots__ = ("directory", "files", "max_physic_offset")

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.files: list[_QueueFile] = []
        self.max_physic_offset = -1  # ConsumeQueue.maxPhysicOffset starts at -1


class _QueueFiles:
    """The files of the queues a builder writes (``MappedFileQueue``): one directory per (topic, queue id)
    under ``root/directory``, full-size sparse files named by their byte offset, units appended with
    positioned writes. Shared by :class:`ConsumeQueueBuilder` and the batch consume-queue builder."""

    directory = "consumequeue"
    root: Path
    file_size: int
    _queues: dict[tuple[str, int], _Queue]
    _closed: bool

    def _queue(self, topic: str, queue_id: int) -> _Queue:
        key = (topic, queue_id)
        queue = self._queues.get(key)
        if queue is None:
            check_path_component(topic, "topic")
            queue = _Queue(self.root / self.directory / topic / str(queue_id))
            self._queues[key] = queue
        return queue

    # MappedFileQueue.getLastMappedFile(startOffset, needCreate=true)
    def _last_file(self, queue: _Queue, start_offset: int) -> _QueueFile:
        last = queue.files[-1] if queue.files else None
        if last is not None and last.wrote < self.file_size:
            return last
        if last is None:
            create = start_offset - start_offset % self.file_size
        else:
            self._flush(last)
            create = last.start + self.file_size
        queue.directory.mkdir(parents=True, exist_ok=True)
        path = queue.directory / file_name_for_offset(create)
        with open(path, "xb") as f:
            f.truncate(self.file_size)  # a new mapped file: all zeros
        mapped = _QueueFile(path, create, first_create_in_queue=last is None)
        queue.files.append(mapped)
        return mapped

    def _append(self, mapped: _QueueFile, unit: bytes) -> None:
        if mapped.wrote + len(unit) > self.file_size:
            raise AssertionError(
                "queue unit past the end of its file"
            )  # file sizes are multiples of the unit size
        if not mapped.pending:
            mapped.pending_from = mapped.wrote
        mapped.pending += unit
        mapped.wrote += len(unit)
        if len(mapped.pending) >= _CQ_FLUSH_BYTES:
            self._flush(mapped)

    @staticmethod
    def _flush(mapped: _QueueFile) -> None:
        if mapped.pending:
            with open(mapped.path, "r+b") as f:
                f.seek(mapped.pending_from)
                f.write(mapped.pending)
            mapped.pending = bytearray()

    def close(self) -> None:
        """Write every pending unit. The builder cannot be used afterwards."""
        if self._closed:
            return
        for queue in self._queues.values():
            for mapped in queue.files:
                self._flush(mapped)
        self._closed = True

    @property
    def files(self) -> list[Path]:
        """Every queue file written, in (topic, queue id, offset) order."""
        return [m.path for key in sorted(self._queues) for m in self._queues[key].files]


class ConsumeQueueBuilder(_QueueFiles):
    """Writes ``consumequeue/<topic>/<queueId>/<20-digit byte offset>`` files like ``ConsumeQueue`` does.

    * Only NOT_TYPE and COMMIT records get a unit (``CommitLogDispatcherBuildConsumeQueue``).
    * Files are exactly ``cq_file_size`` bytes (rounded up to a multiple of 20 as the broker does), named by
      the byte offset of their first unit; the first file of a queue is the one holding ``queue_offset * 20``.
    * The first file of a queue whose first unit has a non-zero queue offset is padded with pre-blank units
      ``(0, 0x7FFFFFFF, 0)`` from its start up to that unit (``fillPreBlank``).
    * Idempotent like the broker: a request whose ``physical_offset + size`` is not past the queue's max
      physical offset, or whose queue offset is below the write position, is ignored.
    * Like ``putMessagePositionInfo``, a unit is appended at the queue's write position. For consecutive
      queue offsets (every correct commitlog) that is exactly ``(q*20) % size`` of file ``(q*20)//size*size``;
      a gap in queue offsets is not filled (the broker logs "[BUG]logic queue order maybe wrong" and appends
      anyway); such cases are listed in :attr:`warnings`.
    """

    def __init__(self, root: str | os.PathLike[str], geometry: Geometry) -> None:
        self.root = Path(root)
        self.file_size = cq_file_size(geometry.cq_file_size)
        self._queues: dict[tuple[str, int], _Queue] = {}
        self._pending_bytes = 0
        self.last_store_timestamp = 0  # checkpoint.logicsMsgTimestamp: store time of the last unit written
        self.warnings: list[str] = []
        self._closed = False

    # ConsumeQueue.putMessagePositionInfo
    def put(self, request: DispatchRequest) -> bool:
        """Dispatch one record; True if a unit was written."""
        if self._closed:
            raise ValueError("ConsumeQueueBuilder is closed")
        if request.transaction_type not in (TRANSACTION_NOT_TYPE, TRANSACTION_COMMIT_TYPE):
            return False
        queue = self._queue(request.topic, request.queue_id)
        offset, size = request.physical_offset, request.total_size
        if offset + size <= queue.max_physic_offset:
            return False  # "Maybe try to build consume queue repeatedly"
        expect = request.queue_offset * CQ_UNIT_SIZE
        mapped = self._last_file(queue, expect)
        if mapped.first_create_in_queue and request.queue_offset != 0 and mapped.wrote == 0:
            blank = _CQ_UNIT.pack(0, PRE_BLANK_SIZE, 0)
            for _ in range(0, expect % self.file_size, CQ_UNIT_SIZE):
                self._append(mapped, blank)
        if request.queue_offset != 0:
            current = mapped.start + mapped.wrote
            if expect < current:
                return False  # "Build consume queue repeatedly"
            if expect != current:
                self.warnings.append(
                    f"{request.topic}/{request.queue_id}: queue offset {request.queue_offset} written at "
                    f"{current // CQ_UNIT_SIZE} (logic queue order maybe wrong)"
                )
        queue.max_physic_offset = offset + size
        self._append(mapped, _CQ_UNIT.pack(offset, size, request.tags_code))
        self.last_store_timestamp = request.store_timestamp
        return True

    @property
    def max_offsets(self) -> dict[tuple[str, int], int]:
        """Per (topic, queue id): the exclusive max queue offset, (last file start + write position) / 20."""
        return {
            key: (q.files[-1].start + q.files[-1].wrote) // CQ_UNIT_SIZE
            for key, q in sorted(self._queues.items())
            if q.files
        }


def _schema_check() -> None:
    """Import-time guard: the struct packer has the schema's size."""
    assert _CQ_UNIT.size == ConsumeQueueUnit.sizeof() == CQ_UNIT_SIZE


_schema_check()
