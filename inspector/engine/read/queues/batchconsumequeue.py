"""Batch consume queues: ``batchconsumequeue/<topic>/<queueId>/<byte offset>`` of 46-byte units (spec §4.3),
and the inner messages of an inner-batch record (spec §2.10).

A unit is valid iff ``phyOffset >= 0 && size > 0 && msgBaseOffset >= 0 && batchSize > 0``
(``BatchConsumeQueue.recover``); queue offsets are message offsets: min = first unit's base, max (exclusive) =
last unit's base + batch size; the unit holding message offset ``q`` is found by binary search on the bases.
Units are read once per queue into arrays (a batch queue holds one unit per record, not per message). An
all-zero unit is the unwritten tail; any other unit that is not valid is a finding (``bcq-bad-unit``) naming
its file and byte position, stepped over when valid units follow.
"""

from __future__ import annotations

import os
import struct
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from inspector.engine.model.bounds import int64_sum, misalignment, whole_units
from inspector.engine.model.errors import NotFound, StoreError
from inspector.engine.model.records import (
    QUEUE_KIND_BATCH,
    BatchUnit,
    InnerMessage,
    Message,
    Problem,
    QueueInfo,
)
from inspector.engine.read.commitlog.body import decompress_body
from inspector.engine.read.commitlog.mapped import MappedFile, allocated_end, data_end, offset_named_files
from inspector.engine.read.queues.consumequeue import (
    file_size_problem,
    misaligned_name_problem,
    queue_file_size,
)
from parsers.commitlog import (
    COMPRESSED_FLAG,
    COMPRESSION_TYPE_MASK,
    INNER_BATCH_FLAG,
    INNER_ITEM_HEAD_FORMAT,
    INNER_ITEM_PROPERTIES_LENGTH_FORMAT,
    Properties,
)
from parsers.consumequeue import BCQ_DEFAULT_FILE_SIZE, BCQ_UNIT_SIZE

__all__ = ["BatchConsumeQueue", "inner_messages", "is_inner_batch"]

BATCH_DIR = "batchconsumequeue"
BCQ_UNIT_DTYPE = np.dtype([
    ("physical_offset", ">i8"), ("size", ">i4"), ("tags_code", ">i8"), ("store_timestamp", ">i8"),
    ("msg_base_offset", ">i8"), ("batch_size", ">i2"), ("compacted_offset", ">i4"), ("reserved", ">i4"),
])
"""A 46-byte unit as a numpy structured type (checked against BatchConsumeQueueUnit in the tests)."""

# the item frame as parsers.commitlog.InnerBatchItem declares it (the fast decoder below; a test holds them equal)
_ITEM_HEAD = struct.Struct(INNER_ITEM_HEAD_FORMAT)  # item total size, magic, body CRC, flag, body length
_ITEM_PROPS_LENGTH = struct.Struct(INNER_ITEM_PROPERTIES_LENGTH_FORMAT)
_ITEM_MIN = _ITEM_HEAD.size + _ITEM_PROPS_LENGTH.size


def inner_item_frame(body: bytes, at: int) -> tuple[int, int, int, int, int, int]:
    """(total size, magic, body CRC, flag, body length, properties length) of the inner-batch item at ``at`` of a
    body :func:`inner_messages` accepted (the hex views name these fields)."""
    head = _ITEM_HEAD.unpack_from(body, at)
    return (*head, _ITEM_PROPS_LENGTH.unpack_from(body, at + _ITEM_HEAD.size + head[4])[0])


@dataclass(frozen=True)
class _Table:
    """The valid units of a queue, in order, as Python lists (bisect on ``bases``), and the findings."""

    units: list[BatchUnit]
    bases: list[int]
    problems: list[Problem]


class BatchConsumeQueue:
    """One (topic, queue id) of ``batchconsumequeue/``: its files, units, min/max message offsets."""

    kind = QUEUE_KIND_BATCH

    def __init__(self, root: Path, topic: str, queue_id: int, file_size: int | None = None,
                 log_min_offset: int = 0):
        self.root = Path(root)
        self.topic = topic
        self.queue_id = queue_id
        self.log_min_offset = log_min_offset
        self.rel_dir = f"{BATCH_DIR}/{topic}/{queue_id}"
        self.files = offset_named_files(Path(os.path.join(root, BATCH_DIR, topic, str(queue_id))))
        sizes = {}
        for start, path in self.files:
            try:
                sizes[start] = os.stat(path).st_size
            except OSError:
                sizes[start] = 0
        self.file_sizes = sizes
        self.file_size = file_size or _common_size(list(sizes.values()))
        self._table: _Table | None = None
        self._info: QueueInfo | None = None

    def close(self) -> None:
        self._table = None

    def release_pages(self) -> None:
        """Nothing stays mapped here (each read maps its file and unmaps it): the table is dropped as by close."""
        self._table = None

    # -- units ------------------------------------------------------------------------------------------------

    def table(self) -> _Table:
        if self._table is None:
            self._table = self._read()
        return self._table

    def _read(self) -> _Table:
        units: list[BatchUnit] = []
        problems: list[Problem] = []
        prev_start = None
        for start, _ in self.files:
            rel = f"{self.rel_dir}/{start:020d}"
            off_grid = misaligned_name_problem(rel, start, self.file_size)
            if off_grid is not None:
                problems.append(off_grid)
            elif prev_start is not None and start != prev_start + self.file_size and not misalignment(
                    prev_start, self.file_size):
                problems.append(Problem(rel, 0, "missing batch consume-queue file before this one", "missing-cq-file"))
            prev_start = start
            size = self.file_sizes[start]
            wrong = file_size_problem(rel, size, self.file_size, start == self.files[-1][0])
            if wrong is not None:
                problems.append(wrong)
            if size < BCQ_UNIT_SIZE:
                continue
            try:
                raw = self.file_units(start)
            except StoreError as e:
                problems.append(Problem(e.file or rel, e.offset or 0, e.reason, "unreadable-file"))
                continue
            written, tail = len(raw), size % BCQ_UNIT_SIZE
            columns = {name: raw[name].astype(np.int64).tolist() for name in BCQ_UNIT_DTYPE.names}
            for i in range(written):
                phy, sz, base, batch = (columns["physical_offset"][i], columns["size"][i],
                                        columns["msg_base_offset"][i], columns["batch_size"][i])
                position = i * BCQ_UNIT_SIZE
                past = int64_sum(base, batch) is None or int64_sum(phy, sz) is None
                if phy >= 0 and sz > 0 and base >= 0 and batch > 0 and not past:
                    units.append(BatchUnit(self.topic, self.queue_id, base, phy, sz, columns["tags_code"][i], rel,
                                           position, columns["store_timestamp"][i], base, batch,
                                           columns["compacted_offset"][i], columns["reserved"][i]))
                elif past:  # recover takes it; the queue's max offset (base + batchSize) wraps negative in Java
                    which = (f"msgBaseOffset {base} + batchSize {batch}" if int64_sum(base, batch) is None
                             else f"physical offset {phy} + size {sz}")
                    problems.append(Problem(rel, position, f"unit {start // BCQ_UNIT_SIZE + i}: {which} is past the "
                                            "largest Java long (the broker's sum wraps negative): not read as a "
                                            "unit", "bcq-bad-unit"))
                else:
                    problems.append(Problem(rel, position, f"unit {start // BCQ_UNIT_SIZE + i} is not valid "
                                            f"(physical offset {phy}, size {sz}, msgBaseOffset {base}, batchSize "
                                            f"{batch}; BatchConsumeQueue.recover needs all > 0, the offsets >= 0)",
                                            "bcq-bad-unit"))
            if tail:
                problems.append(Problem(rel, size - tail, f"file ends with a partial unit of {tail} bytes",
                                        "partial-cq-unit"))
        return _Table(units, [u.msg_base_offset for u in units], problems)

    def file_units(self, start: int) -> np.ndarray:
        """The units of the file named ``start`` as they lie (valid or not), up to its last written one: a
        copy (BCQ_UNIT_DTYPE); the zero tail past it, often a hole, is not read. Raises StoreError."""
        rel = f"{self.rel_dir}/{start:020d}"
        path = self.root / rel
        with MappedFile(path, rel) as mf:
            count = whole_units(mf.size, BCQ_UNIT_SIZE)
            allocated = allocated_end(path)
            end = count * BCQ_UNIT_SIZE if allocated is None else min(count * BCQ_UNIT_SIZE, allocated)
            written = -(-data_end(mf, 0, end) // BCQ_UNIT_SIZE)  # past it: the zero tail
            return np.frombuffer(mf.buf, dtype=BCQ_UNIT_DTYPE, count=written).copy()

    def units(self, from_offset: int = 0) -> Iterator[BatchUnit | Problem]:
        """Every valid unit holding a message offset >= ``from_offset``, in order, with the findings about the
        queue's files first (bad units, wrong sizes)."""
        table = self.table()
        yield from table.problems
        i = max(0, bisect_right(table.bases, from_offset) - 1)
        for unit in table.units[i:]:
            if unit.msg_base_offset + unit.batch_size > from_offset:
                yield unit

    def unit(self, queue_offset: int) -> BatchUnit:
        """The unit holding message offset ``queue_offset``, its ``queue_offset`` set to that offset."""
        table = self.table()
        i = bisect_right(table.bases, queue_offset) - 1
        if queue_offset < 0 or i < 0 or queue_offset >= table.units[i].msg_base_offset + table.units[i].batch_size:
            raise NotFound(f"no batch consume-queue unit holds queue offset {queue_offset}", self.rel_dir)
        return replace(table.units[i], queue_offset=queue_offset)

    def info(self) -> QueueInfo:
        """Min message offset (first unit still in the commitlog), max (exclusive: last base + batch size)."""
        if self._info is None:
            table = self.table()
            files = tuple(f"{self.rel_dir}/{start:020d}" for start, _ in self.files)
            live = [u for u in table.units if u.physical_offset >= self.log_min_offset]
            if not table.units:
                self._info = QueueInfo(self.topic, self.queue_id, 0, 0, files, 0, QUEUE_KIND_BATCH, 0)
            else:
                last = table.units[-1]
                max_offset = last.msg_base_offset + last.batch_size
                min_offset = live[0].msg_base_offset if live else max_offset
                self._info = QueueInfo(self.topic, self.queue_id, min_offset, max_offset, files,
                                       last.physical_offset + last.size, QUEUE_KIND_BATCH, len(table.units))
        return self._info


def _common_size(sizes: list[int]) -> int:
    """The queue's file size from its own files (``mapperFileSizeBatchConsumeQueue`` is not rounded to 46)."""
    return queue_file_size(sizes, unit=None, default=BCQ_DEFAULT_FILE_SIZE)


# -- inner-batch records -----------------------------------------------------------------------------------------


def is_inner_batch(msg: Message) -> bool:
    """Whether a record carries several messages in its body (sysFlag INNER_BATCH_FLAG, spec §2.3). An inner
    message unwrapped from such a record keeps the record's sysFlag but is one message, not a batch: False (a
    queue-order listing of a BatchCQ queue, which gives inner messages, must not split their bodies again)."""
    return bool(msg.sys_flag & INNER_BATCH_FLAG) and not isinstance(msg, InnerMessage)


def inner_messages(msg: Message, base_queue_offset: int | None = None) -> list[InnerMessage]:
    """The messages of an inner-batch record, as the consumer unwraps them (``MessageDecoder.decodeMessage``):
    the i-th has queue offset ``base + i`` (``base``: the record's QUEUEOFFSET unless given, e.g. a unit's
    msgBaseOffset). Raises :class:`StoreError` naming the record's file and position (and the item's offset in
    the body) when the body is not a sequence of well-formed items (spec §2.10)."""
    base = msg.queue_offset if base_queue_offset is None else base_queue_offset
    body = decompress_body(msg)
    sys_flag = msg.sys_flag & ~(COMPRESSED_FLAG | COMPRESSION_TYPE_MASK) if msg.compressed else msg.sys_flag
    items: list[tuple[int, int, int, bytes, Properties]] = []
    at = 0
    while at < len(body):
        if len(body) - at < _ITEM_MIN:
            raise StoreError(f"inner-batch body: {len(body) - at} bytes left at body byte {at}, less than an "
                             f"item's {_ITEM_MIN}-byte frame", msg.file, msg.position)
        total, _magic, crc, flag, body_length = _ITEM_HEAD.unpack_from(body, at)
        body_at = at + _ITEM_HEAD.size
        if body_length < 0 or body_at + body_length + _ITEM_PROPS_LENGTH.size > len(body):
            raise StoreError(f"inner-batch item at body byte {at}: body length {body_length} runs past the "
                             "record's body", msg.file, msg.position)
        props_length = _ITEM_PROPS_LENGTH.unpack_from(body, body_at + body_length)[0]
        props_at = body_at + body_length + _ITEM_PROPS_LENGTH.size
        end = props_at + props_length
        if props_length < 0 or end > len(body):
            raise StoreError(f"inner-batch item at body byte {at}: properties length {props_length} runs past "
                             "the record's body", msg.file, msg.position)
        if total != end - at:
            raise StoreError(f"inner-batch item at body byte {at}: total size {total}, its fields take "
                             f"{end - at}", msg.file, msg.position)
        text = body[props_at:end].decode("utf-8", "surrogateescape")
        items.append((at, crc, flag, body[body_at : body_at + body_length], Properties.from_text(text)))
        at = end
    out = []
    for i, (item_at, crc, flag, item_body, props) in enumerate(items):
        out.append(InnerMessage(
            msg.file, msg.position, msg.physical_offset, msg.total_size, msg.magic_code, crc, msg.queue_id, flag,
            base + i, msg.stored_physical_offset, sys_flag, msg.born_timestamp, msg.born_host,
            msg.store_timestamp, msg.store_host, msg.reconsume_times, msg.prepared_transaction_offset, item_body,
            msg.topic, tuple(props.entries), props.terminated,
            inner_index=i, inner_count=len(items), base_queue_offset=base, item_position=item_at,
            record_body_crc_ok=msg.body_crc_ok, raft_index=msg.raft_index, raft_term=msg.raft_term,
        ))
    return out
