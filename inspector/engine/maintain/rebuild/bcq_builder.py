"""Batch consume-queue files as a 5.x broker writes them: ``BatchConsumeQueueBuilder`` (spec §4.3, §11).

``BatchConsumeQueue.putBatchMessagePositionInfo``: one 46-byte unit per dispatched record of a topic whose
``queue.type`` is ``BatchCQ``, appended at the queue's write position (no pre-blank units: a new queue starts
with file ``00000000000000000000``), files named by their byte offset in the queue. Same file handling as
:mod:`~inspector.engine.maintain.rebuild.cq_builder` (full-size sparse files, positioned writes).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from inspector.engine.maintain.rebuild.cq_builder import _QueueFiles
from inspector.engine.maintain.rebuild.dispatch import DispatchRequest
from parsers.commitlog import TRANSACTION_COMMIT_TYPE, TRANSACTION_NOT_TYPE
from parsers.consumequeue import BCQ_DEFAULT_FILE_SIZE, BCQ_UNIT_SIZE, BatchConsumeQueueUnit

__all__ = ["BATCH_CQ_DIR", "BatchConsumeQueueBuilder", "bcq_unit_bytes"]

BATCH_CQ_DIR = "batchconsumequeue"
INVALID_POS = -1  # BatchConsumeQueue.INVALID_POS, written as the compacted offset

# checked byte for byte against BatchConsumeQueueUnit in tests/inspector/engine/maintain/write/test_batch_writer.py
_BCQ_UNIT = struct.Struct(">qiqqqhii")


def bcq_unit_bytes(physical_offset: int, size: int, tags_code: int, store_timestamp: int, msg_base_offset: int,
                   batch_size: int) -> bytes:
    """One 46-byte batch consume-queue unit (fast path of ``BatchConsumeQueueUnit.build``)."""
    return _BCQ_UNIT.pack(physical_offset, size, tags_code, store_timestamp, msg_base_offset, batch_size,
                          INVALID_POS, 0)


class BatchConsumeQueueBuilder(_QueueFiles):
    """Writes ``batchconsumequeue/<topic>/<queueId>/<20-digit byte offset>`` files like ``BatchConsumeQueue``.

    * Only NOT_TYPE and COMMIT records get a unit (``CommitLogDispatcherBuildConsumeQueue``), and only
      requests with ``msg_base_offset >= 0`` and ``batch_size >= 0`` (``putMessagePositionInfoWrapper``).
    * A record at or below the queue's last physical offset is ignored ("Build batch consume queue
      repeatedly").
    * Units are appended in order; files are ``file_size`` bytes (a multiple of 46), the first named 0.
    """

    directory = BATCH_CQ_DIR

    def __init__(self, root: str | os.PathLike[str], file_size: int = BCQ_DEFAULT_FILE_SIZE) -> None:
        if file_size <= 0 or file_size % BCQ_UNIT_SIZE:
            raise ValueError(f"a batch consume-queue file size is a positive multiple of 46, not {file_size}")
        self.root = Path(root)
        self.file_size = file_size
        self._queues = {}
        self._max_offsets: dict[tuple[str, int], int] = {}
        self.last_store_timestamp = 0
        self._closed = False

    def put(self, request: DispatchRequest) -> bool:
        """Dispatch one record; True if a unit was written."""
        if self._closed:
            raise ValueError("BatchConsumeQueueBuilder is closed")
        if request.transaction_type not in (TRANSACTION_NOT_TYPE, TRANSACTION_COMMIT_TYPE):
            return False
        if request.msg_base_offset < 0 or request.batch_size < 0:
            return False  # "[NOTIFYME]unexpected dispatch request in batch consume queue"
        key = (request.topic, request.queue_id)
        queue = self._queue(*key)
        if request.physical_offset <= queue.max_physic_offset:
            return False
        mapped = self._last_file(queue, 0)  # a batch queue starts at byte 0: no pre-blank units
        self._append(mapped, bcq_unit_bytes(request.physical_offset, request.total_size, request.tags_code,
                                            request.store_timestamp, request.msg_base_offset, request.batch_size))
        queue.max_physic_offset = request.physical_offset
        self._max_offsets[key] = request.msg_base_offset + request.batch_size
        self.last_store_timestamp = request.store_timestamp
        return True

    @property
    def max_offsets(self) -> dict[tuple[str, int], int]:
        """Per (topic, queue id): the exclusive max message offset, last base + last batch size."""
        return dict(sorted(self._max_offsets.items()))


assert _BCQ_UNIT.size == BatchConsumeQueueUnit.sizeof() == BCQ_UNIT_SIZE
