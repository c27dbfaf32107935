"""The commitlog as a mapped-file queue being written: fixed-size segments named by start offset, and the
BLANK rule that ends a segment a record does not fit in (spec §2.11, ``DefaultAppendMessageCallback.doAppend``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.engine.maintain.dispatch import file_name_for_offset
from inspector.engine.model.errors import BadInput
from parsers.commitlog import END_FILE_MIN_BLANK_LENGTH, BlankRecord

__all__ = ["SegmentWriter"]

_SEGMENT_FLUSH_BYTES = 4 << 20


class SegmentWriter:
    """The commitlog mapped-file queue: fixed-size segments named by start offset, the BLANK rule."""

    def __init__(self, directory: Path, segment_size: int) -> None:
        self.directory = directory
        self.segment_size = segment_size
        self.segments: list[Path] = []
        self._start = 0
        self._position = 0
        self._file: Any = None
        self._pending = bytearray()
        self._pending_from = 0

    def reserve(self, length: int) -> int:
        """Physical offset for a record of ``length`` bytes (``doAppend``: written only if L + 8 <= remaining)."""
        if length + END_FILE_MIN_BLANK_LENGTH > self.segment_size:
            raise BadInput(f"a {length}-byte record cannot fit in a {self.segment_size}-byte segment")
        if self._file is None:
            self._open(0)
        remaining = self.segment_size - self._position
        if length + END_FILE_MIN_BLANK_LENGTH > remaining:
            # only 8 bytes: int32 remaining + BLANK magic; the rest of the segment keeps its zeros
            self.write(BlankRecord.build({"total_size": remaining}))
            self._close_segment()
            self._open(self._start + self.segment_size)
        return self._start + self._position

    def write(self, data: bytes) -> None:
        if not self._pending:
            self._pending_from = self._position
        self._pending += data
        self._position += len(data)
        if len(self._pending) >= _SEGMENT_FLUSH_BYTES:
            self._flush()

    def _open(self, start: int) -> None:
        path = self.directory / file_name_for_offset(start)
        self._file = open(path, "xb+")  # kept open for the segment's lifetime
        self._file.truncate(self.segment_size)  # a fresh mapped file: zeros
        self.segments.append(path)
        self._start, self._position = start, 0

    def _flush(self) -> None:
        if self._pending:
            self._file.seek(self._pending_from)
            self._file.write(self._pending)
            self._pending = bytearray()

    def _close_segment(self) -> None:
        self._flush()
        self._file.close()

    def close(self) -> None:
        if self._file is not None and not self._file.closed:
            self._close_segment()

    @property
    def max_offset(self) -> int:
        return self._start + self._position if self.segments else 0
