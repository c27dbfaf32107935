"""The broker's dispatch (reput) path: commitlog record -> consume queue unit + index items (spec §4.1, §5, §11).

Shared by :mod:`inspector.engine.maintain.writer` (which dispatches every record it appends, as the broker's
``ReputMessageService`` would) and by rebuild-from-commitlog. Both builders reproduce the broker's own
algorithms, including their quirks, because the point is byte-identical output:

* :class:`ConsumeQueueBuilder` is ``CommitLogDispatcherBuildConsumeQueue`` + ``ConsumeQueue.putMessagePositionInfo``
  (pre-blank units, idempotence, units appended at the queue's write position).
* :class:`IndexBuilder` is ``IndexService.buildIndex`` + ``IndexFile.putKey`` (header counters, the
  beginTimestamp edge case of a successor file, rollover mid-message, checkpoint semantics).

Both write under a store root they are given (``<root>/consumequeue/...`` and ``<root>/index/...``) and
nowhere else. Files are created at their full configured size (sparse zero tail, like a freshly mapped
file) and filled with positioned writes / ``mmap``, so a 6 MB consume-queue file or a 420 MB index file
costs only the bytes actually written.
"""

from __future__ import annotations

import datetime as dt
import functools
import mmap
import os
import re
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.model.errors import BadInput
from inspector.engine.model.geometry import Geometry, parse_delay_levels
from inspector.engine.model.systopics import SCHEDULE_TOPIC
from parsers.commitlog import (
    TRANSACTION_COMMIT_TYPE,
    TRANSACTION_NOT_TYPE,
    TRANSACTION_ROLLBACK_TYPE,
    transaction_type,
)
from parsers.consumequeue import CQ_UNIT_SIZE, PRE_BLANK_SIZE, ConsumeQueueUnit, cq_file_size
from parsers.indexfile import (
    INDEX_HEADER_SIZE,
    INDEX_ITEM_SIZE,
    INDEX_SLOT_SIZE,
    IndexHeader,
    IndexItem,
    index_file_size,
)
from parsers.java import INT32_MAX, INT32_MIN, index_key, index_key_hash, java_string_hash

__all__ = [
    "ConsumeQueueBuilder",
    "DispatchRequest",
    "IndexBuilder",
    "WrittenIndexFile",
    "check_path_component",
    "cq_unit_bytes",
    "dispatch_request",
    "file_name_for_offset",
    "index_file_name",
    "index_item_bytes",
]

PROPERTY_KEYS = "KEYS"
PROPERTY_TAGS = "TAGS"
PROPERTY_UNIQ_KEY = "UNIQ_KEY"
PROPERTY_DELAY = "DELAY"
KEY_SEPARATOR = " "  # MessageConst.KEY_SEPARATOR

# Hot-loop packers. Each one is checked byte for byte against its construct schema in
# tests/inspector/engine/maintain/test_dispatch.py (ConsumeQueueUnit, IndexItem, IndexSlot).
_CQ_UNIT = struct.Struct(">qiq")
_INDEX_ITEM = struct.Struct(">iqii")
_INDEX_SLOT = struct.Struct(">i")
_JAVA_INT = re.compile(r"[+-]?[0-9]+")

# A consume queue keeps at most this many unwritten bytes per queue before a positioned write.
_CQ_FLUSH_BYTES = 1 << 16


@dataclass(frozen=True)
class DispatchRequest:
    """What ``CommitLog.checkMessageAndReturnSize`` hands to the dispatchers for one record (spec §11).

    ``physical_offset`` is the record's PHYSICALOFFSET field (not the read position); ``keys`` is the raw
    KEYS property or ``""``; ``unique_key`` the UNIQ_KEY property or None; ``properties`` the parsed map
    (RocketMQ's reading rules, i.e. ``Properties.as_map()``).
    """

    topic: str
    queue_id: int
    physical_offset: int
    total_size: int
    tags_code: int
    store_timestamp: int
    queue_offset: int
    keys: str
    unique_key: str | None
    sys_flag: int
    prepared_transaction_offset: int
    properties: Mapping[str, str] = field(default_factory=dict, hash=False)

    @property
    def transaction_type(self) -> int:
        return transaction_type(self.sys_flag)


@functools.lru_cache(maxsize=16)
def _delay_table(delay_levels: str) -> tuple[int, ...]:
    """``Geometry.delay_ms`` for every level, parsed once per configuration (this runs per record)."""
    return tuple(parse_delay_levels(delay_levels))


def _parse_java_int(text: str, what: str) -> int:
    """``Integer.parseInt``: optional sign, ASCII digits, int32 range; anything else is an error."""
    if not _JAVA_INT.fullmatch(text):
        raise BadInput(f"{what} is not a Java int: {text!r}")
    value = int(text)
    if not INT32_MIN <= value <= INT32_MAX:
        raise BadInput(f"{what} is out of the int range: {text!r}")
    return value


def dispatch_request(
    topic: str,
    queue_id: int,
    physical_offset: int,
    total_size: int,
    store_timestamp: int,
    queue_offset: int,
    sys_flag: int,
    prepared_transaction_offset: int,
    properties: Mapping[str, str],
    geometry: Geometry,
) -> DispatchRequest:
    """Build the :class:`DispatchRequest` of one record, computing tagsCode as the broker does (spec §11).

    tagsCode = TAGS.hashCode() sign-extended (0 without TAGS); for a ``SCHEDULE_TOPIC_XXXX`` record with a
    DELAY property the level is clamped to the max level and, if > 0, tagsCode = store timestamp + that
    level's delay. A DELAY that ``Integer.parseInt`` rejects makes the broker drop the record as unreadable;
    here it raises :class:`BadInput`.
    """
    tags = properties.get(PROPERTY_TAGS)
    tags_code = java_string_hash(tags) if tags else 0
    delay = properties.get(PROPERTY_DELAY)
    if topic == SCHEDULE_TOPIC and delay is not None:
        delays = _delay_table(geometry.delay_levels)
        level = min(_parse_java_int(delay, "DELAY"), len(delays))
        if level > 0:
            # DefaultMessageStore.computeDeliverTimestamp; every clamped level is in the table
            tags_code = store_timestamp + delays[level - 1]
    return DispatchRequest(
        topic=topic,
        queue_id=queue_id,
        physical_offset=physical_offset,
        total_size=total_size,
        tags_code=tags_code,
        store_timestamp=store_timestamp,
        queue_offset=queue_offset,
        keys=properties.get(PROPERTY_KEYS) or "",
        unique_key=properties.get(PROPERTY_UNIQ_KEY),
        sys_flag=sys_flag,
        prepared_transaction_offset=prepared_transaction_offset,
        properties=dict(properties),
    )


def file_name_for_offset(offset: int) -> str:
    """``UtilAll.offset2FileName``: the 20-digit zero-padded start offset of a mapped file."""
    return f"{offset:020d}"


def check_path_component(name: str, what: str) -> str:
    """Refuse a topic (or other name) that would leave the directory it is joined to."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name:
        raise BadInput(f"{what} cannot be used as a directory name: {name!r}")
    return name


def cq_unit_bytes(physical_offset: int, size: int, tags_code: int) -> bytes:
    """One 20-byte consume-queue unit (fast path of ``ConsumeQueueUnit.build``)."""
    return _CQ_UNIT.pack(physical_offset, size, tags_code)


def index_item_bytes(key_hash: int, phy_offset: int, time_diff: int, prev_index: int) -> bytes:
    """One 20-byte index item (fast path of ``IndexItem.build``)."""
    return _INDEX_ITEM.pack(key_hash, phy_offset, time_diff, prev_index)


# --- consume queue -----------------------------------------------------------------------------------------


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


class ConsumeQueueBuilder:
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

    def _queue(self, topic: str, queue_id: int) -> _Queue:
        key = (topic, queue_id)
        queue = self._queues.get(key)
        if queue is None:
            check_path_component(topic, "topic")
            queue = _Queue(self.root / "consumequeue" / topic / str(queue_id))
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
                "consume queue unit past the end of its file"
            )  # file sizes are multiples of 20
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
        """Every consume-queue file written, in (topic, queue id, offset) order."""
        return [m.path for key in sorted(self._queues) for m in self._queues[key].files]

    @property
    def max_offsets(self) -> dict[tuple[str, int], int]:
        """Per (topic, queue id): the exclusive max queue offset, (last file start + write position) / 20."""
        return {
            key: (q.files[-1].start + q.files[-1].wrote) // CQ_UNIT_SIZE
            for key, q in sorted(self._queues.items())
            if q.files
        }


# --- index -------------------------------------------------------------------------------------------------


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
    ) -> None:
        self.directory = Path(root) / "index"
        self.slots = geometry.index_slots
        self.items = geometry.index_items
        if self.slots <= 0 or self.items <= 1:
            raise BadInput(f"index geometry needs slots > 0 and items > 1, not {self.slots}/{self.items}")
        self.clock = clock
        self.tz = tz
        self._closed_files: list[WrittenIndexFile] = []
        self._current: _IndexFile | None = None
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
        end_phy, end_ts = 0, 0
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
    """Import-time guard: the struct packers have the schema's sizes."""
    assert _CQ_UNIT.size == ConsumeQueueUnit.sizeof() == CQ_UNIT_SIZE
    assert _INDEX_ITEM.size == IndexItem.sizeof() == INDEX_ITEM_SIZE


_schema_check()
