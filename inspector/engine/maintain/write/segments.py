"""The commitlog as a mapped-file queue being written: fixed-size segments named by start offset, and the
BLANK rule that ends a segment a record does not fit in (spec §2.11, ``DefaultAppendMessageCallback.doAppend``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspector.engine.maintain.rebuild.dispatch import file_name_for_offset
from inspector.engine.model.errors import BadInput
from parsers.commitlog import END_FILE_MIN_BLANK_LENGTH, BlankRecord

__all__ = ["SegmentWriter"]

_SEGMENT_FLUSH_BYTES = 4 << 20


def _blank(remaining: int) -> bytes:
    return BlankRecord.build({"total_size": remaining})


class SegmentWriter:
    """The commitlog mapped-file queue: fixed-size segments named by start offset, the BLANK rule."""

    def __init__(
        self,
        directory: Path,
        segment_size: int,
        *,
        start: int = 0,
        spare: int = END_FILE_MIN_BLANK_LENGTH,
        end_marker: Callable[[int], bytes] = _blank,
    ) -> None:
        """``start``: the first file's offset (DLedger data begins at dividedCommitlogOffset); ``spare``: bytes a
        write must leave free in its file, else ``end_marker(remaining)`` ends the file (8 and a BLANK for the
        commitlog, 8 and DLedger's -1 marker for its data files; 0 for DLedger's index, which never pads)."""
        self.directory = directory
        self.segment_size = segment_size
        self.segments: list[Path] = []
        self._first = start
        self._spare = spare
        self._end_marker = end_marker
        self._start = 0
        self._position = 0
        self._file: Any = None
        self._pending = bytearray()
        self._pending_from = 0

    def reserve(self, length: int) -> int:
        """Physical offset for a record of ``length`` bytes (``doAppend``: written only if L + 8 <= remaining)."""
        if length + self._spare > self.segment_size:
            raise BadInput(f"a {length}-byte record cannot fit in a {self.segment_size}-byte segment")
        if self._file is None:
            self._open(self._first)
        remaining = self.segment_size - self._position
        if length + self._spare > remaining:
            self.pad_to_end()
            self._open(self._start + self.segment_size)
        return self._start + self._position

    def pad_to_end(self) -> None:
        """End the current file: only the marker's 8 bytes (int32 remaining + magic) are written, the rest of
        the file keeps its zeros. DLedgerCommitLog pads the last pre-DLedger segment the same way."""
        remaining = self.segment_size - self._position
        if remaining:
            self.write(self._end_marker(remaining))
        self._close_segment()
        self._position = self.segment_size  # the file is full: max_offset is its end

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

    def open_first(self) -> None:
        """Create the first file now, empty (DLedger creates its first data file before any entry)."""
        if self._file is None:
            self._open(self._first)

    @property
    def max_offset(self) -> int:
        return self._start + self._position if self.segments else 0
