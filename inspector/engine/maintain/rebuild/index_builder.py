"""Index files as the broker writes them: ``IndexBuilder`` (spec §5, §11).

``IndexService.buildIndex`` + ``IndexFile.putKey``: header counters, the beginTimestamp edge case of a
successor file, rollover mid-message, checkpoint semantics. Files go under ``<root>/index/`` and nowhere else;
each is created at its full configured size (sparse) and filled through ``mmap``, so a 420 MB index file
costs only the bytes actually written.
"""

from __future__ import annotations

import datetime as dt
import mmap
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from inspector.engine.maintain.rebuild.dispatch import DispatchRequest
from inspector.engine.model.errors import BadInput
from inspector.engine.model.geometry import Geometry
from parsers.commitlog import TRANSACTION_ROLLBACK_TYPE
from parsers.indexfile import (
    INDEX_HEADER_SIZE,
    INDEX_ITEM_SIZE,
    INDEX_SLOT_SIZE,
    IndexHeader,
    IndexItem,
    index_file_size,
)
from parsers.java import INT32_MAX, index_key, index_key_hash

__all__ = ["IndexBuilder", "WrittenIndexFile", "index_file_name", "index_item_bytes"]

KEY_SEPARATOR = " "  # MessageConst.KEY_SEPARATOR

# Hot-loop packers, checked byte for byte against their construct schemas (IndexItem, IndexSlot) in
# tests/inspector/engine/maintain/rebuild/test_dispatch.py.
_INDEX_ITEM = struct.Struct(">iqii")
_INDEX_SLOT = struct.Struct(">i")


def index_item_bytes(key_hash: int, phy_offset: int, time_diff: int, prev_index: int) -> bytes:
    """One 20-byte index item (fast path of ``IndexItem.build``)."""
    return _INDEX_ITEM.pack(key_hash, phy_offset, time_diff, prev_index)


def index_file_name(timestamp_ms: int, tz: dt.tzinfo) -> str:
    """``UtilAll.timeMillisToHumanString``: ``yyyyMMddHHmmssSSS`` of a wall-clock time in ``tz``."""
    moment = dt.datetime.fromtimestamp(timestamp_ms // 1000, tz)
    return moment.strftime("%Y%m%d%H%M%S") + f"{timestamp_ms % 1000:03d}"


@dataclass(frozen=True)
class WrittenIndexFile:
    """An index file as written: its name and final header values."""

    name: str
    path: Path
    begin_timestamp: int
    end_timestamp: int
    begin_phy_offset: int
    end_phy_offset: int
    hash_slot_count: int
    index_count: int
    full: bool


class _IndexFile:
    """One open index file (``IndexFile``): header values in memory, slots and items in an mmap."""

    def __init__(self, path: Path, slots: int, items: int, end_phy_offset: int, end_timestamp: int) -> None:
        self.path = path
        self.slots = slots
        self.items = items
        size = index_file_size(slots, items)
        with open(path, "xb") as f:
            f.truncate(size)
        self._file = open(path, "r+b")  # closed in close()
        self.mm: mmap.mmap | None = mmap.mmap(self._file.fileno(), size)
        # IndexHeader: counters start at 0 / 1; a successor file starts from its predecessor's end
        self.begin_timestamp = self.end_timestamp = 0
        self.begin_phy_offset = self.end_phy_offset = 0
        if end_phy_offset > 0:
            self.begin_phy_offset = self.end_phy_offset = end_phy_offset
        if end_timestamp > 0:
            self.begin_timestamp = self.end_timestamp = end_timestamp
        self.hash_slot_count = 0
        self.index_count = 1

    def is_write_full(self) -> bool:
        return self.index_count >= self.items

    # IndexFile.putKey
    def put_key(self, key: str, phy_offset: int, store_timestamp: int) -> bool:
        if self.index_count >= self.items:
            return False
        mm = self.mm
        assert mm is not None
        key_hash = index_key_hash(key)
        slot_pos = INDEX_HEADER_SIZE + (key_hash % self.slots) * INDEX_SLOT_SIZE
        (slot_value,) = _INDEX_SLOT.unpack_from(mm, slot_pos)
        if slot_value <= 0 or slot_value > self.index_count:
            slot_value = 0
        if self.begin_timestamp <= 0:
            time_diff = 0
        else:
            diff = store_timestamp - self.begin_timestamp
            time_diff = abs(diff) // 1000 * (1 if diff >= 0 else -1)  # Java long division truncates
            time_diff = min(max(time_diff, 0), INT32_MAX)
        item_pos = INDEX_HEADER_SIZE + self.slots * INDEX_SLOT_SIZE + self.index_count * INDEX_ITEM_SIZE
        _INDEX_ITEM.pack_into(mm, item_pos, key_hash, phy_offset, time_diff, slot_value)
        _INDEX_SLOT.pack_into(mm, slot_pos, self.index_count)
        if self.index_count <= 1:
            self.begin_phy_offset = phy_offset
            self.begin_timestamp = store_timestamp
        if slot_value == 0:
            self.hash_slot_count += 1
        self.index_count += 1
        self.end_phy_offset = phy_offset
        self.end_timestamp = store_timestamp
        return True

    def header_bytes(self) -> bytes:
        return IndexHeader.build(
            {
                "begin_timestamp": self.begin_timestamp,
                "end_timestamp": self.end_timestamp,
                "begin_phy_offset": self.begin_phy_offset,
                "end_phy_offset": self.end_phy_offset,
                "hash_slot_count": self.hash_slot_count,
                "index_count": self.index_count,
            }
        )

    def info(self) -> WrittenIndexFile:
        return WrittenIndexFile(
            name=self.path.name,
            path=self.path,
            begin_timestamp=self.begin_timestamp,
            end_timestamp=self.end_timestamp,
            begin_phy_offset=self.begin_phy_offset,
            end_phy_offset=self.end_phy_offset,
            hash_slot_count=self.hash_slot_count,
            index_count=self.index_count,
            full=self.is_write_full(),
        )

    # IndexFile.shutdown -> flush -> IndexHeader.updateByteBuffer
    def close(self) -> None:
        if self.mm is None:
            return
        self.mm[0:INDEX_HEADER_SIZE] = self.header_bytes()
        self.mm.flush()
        self.mm.close()
        self.mm = None
        self._file.close()


class IndexBuilder:
    """Writes ``index/<yyyyMMddHHmmssSSS>`` files exactly as ``IndexService.buildIndex`` does (spec §5).

    Every dispatched record first gets the current file, creating one if there is none or the last one is
    full (so a successor file appears at the next dispatched record even when that record has no keys).
    ROLLBACK records and records below the current file's endPhyOffset are then skipped; the others put
    ``topic#UNIQ_KEY`` and ``topic#key`` for each non-empty piece of KEYS split on a single space, the topic
    being the one stored in the record. A file that fills up mid-message hands the remaining keys to a new
    one, whose header starts from its predecessor's end (the first item's timeDiff edge case).

    File names are the creation time from ``clock()`` (ms) in ``tz``; without a clock the store timestamp of
    the record that triggers the creation is used, which is deterministic and close to what a live broker
    (dispatching right after the append) would show. If two files would get the same name (same ms, or a
    clock going back), the later one is named 1 ms after its predecessor: a broker would reopen the same
    file, which cannot be reproduced meaningfully.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        geometry: Geometry,
        *,
        clock: Callable[[], int] | None = None,
        tz: dt.tzinfo = dt.UTC,
        after: tuple[int, int] | None = None,
    ) -> None:
        """``after``: (endPhyOffset, endTimestamp) of a full index file already in the directory that the new
        files follow (a broker indexing on after a restart); records below its endPhyOffset are not indexed."""
        self.directory = Path(root) / "index"
        self.slots = geometry.index_slots
        self.items = geometry.index_items
        if self.slots <= 0 or self.items <= 1:
            raise BadInput(f"index geometry needs slots > 0 and items > 1, not {self.slots}/{self.items}")
        self.clock = clock
        self.tz = tz
        self._closed_files: list[WrittenIndexFile] = []
        self._current: _IndexFile | None = None
        self._after = after
        self._last_name_ms: int | None = None
        self.index_msg_timestamp = 0  # checkpoint.indexMsgTimestamp, see the property docs
        self._closed = False

    # IndexService.buildIndex
    def put(self, request: DispatchRequest) -> int:
        """Dispatch one record; returns the number of items written."""
        if self._closed:
            raise ValueError("IndexBuilder is closed")
        index_file = self._get_and_create_last(request.store_timestamp)
        if request.physical_offset < index_file.end_phy_offset:
            return 0
        if request.transaction_type == TRANSACTION_ROLLBACK_TYPE:
            return 0
        written = 0
        if request.unique_key is not None:
            index_file = self._put_key(index_file, request, index_key(request.topic, request.unique_key))
            written += 1
        if request.keys:
            for key in request.keys.split(KEY_SEPARATOR):
                if key:
                    index_file = self._put_key(index_file, request, index_key(request.topic, key))
                    written += 1
        return written

    def _put_key(self, index_file: _IndexFile, request: DispatchRequest, key: str) -> _IndexFile:
        while not index_file.put_key(key, request.physical_offset, request.store_timestamp):
            index_file = self._get_and_create_last(request.store_timestamp)
        return index_file

    # IndexService.getAndCreateLastIndexFile
    def _get_and_create_last(self, record_timestamp: int) -> _IndexFile:
        current = self._current
        if current is not None and not current.is_write_full():
            return current
        end_phy, end_ts = self._after or (0, 0)
        if current is not None:
            end_phy, end_ts = current.end_phy_offset, current.end_timestamp
            # the "FlushIndexFileThread" of the full predecessor records its end in the checkpoint
            if current.end_timestamp > 0:
                self.index_msg_timestamp = current.end_timestamp
            current.close()
            self._closed_files.append(current.info())
        now = self.clock() if self.clock is not None else record_timestamp
        if self._last_name_ms is not None and now <= self._last_name_ms:
            now = self._last_name_ms + 1
        self._last_name_ms = now
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / index_file_name(now, self.tz)
        self._current = _IndexFile(path, self.slots, self.items, end_phy, end_ts)
        return self._current

    def close(self) -> None:
        """Write the headers and close the files (``IndexService.shutdown``)."""
        if self._closed:
            return
        if self._current is not None:
            self._current.close()
            self._closed_files.append(self._current.info())
            self._current = None
        self._closed = True

    @property
    def files(self) -> list[WrittenIndexFile]:
        """Every index file so far, oldest first, with its header values."""
        result = list(self._closed_files)
        if self._current is not None:
            result.append(self._current.info())
        return result

    @property
    def last_full_end_timestamp(self) -> int:
        """endTimestamp of the newest full index file, 0 if none is full."""
        full = [f for f in self.files if f.full]
        return full[-1].end_timestamp if full else 0

    # ``index_msg_timestamp`` (set in _get_and_create_last) is what the broker's checkpoint holds: the end of
    # a full file is recorded only when its successor is created (IndexService.flush in the flush thread);
    # a newest file that is full but has no successor yet is not in the checkpoint (shutdown does not record
    # it). It equals last_full_end_timestamp except in that case.


def _schema_check() -> None:
    """Import-time guard: the struct packer has the schema's size."""
    assert _INDEX_ITEM.size == IndexItem.sizeof() == INDEX_ITEM_SIZE


_schema_check()
