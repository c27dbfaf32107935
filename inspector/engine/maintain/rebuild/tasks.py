"""``rebuild``'s consume queues cut into tasks a parallel runner (the Spark job) schedules: each commitlog
segment's records dispatched to queue units (:func:`dispatch_record`, any partitioning), then each queue written
from its own units in commitlog order (:class:`QueueWrite`), byte-identical to the single-process rebuild.

A queue's units depend only on its own records in commitlog order (a unit's position follows from its queue
offset), so the runner may partition the units by queue as it likes. The runner never builds requests or
builders itself; this module is the only place that does, so the dispatch rules stay rebuild's.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from inspector.engine.maintain.rebuild.bcq_builder import BatchConsumeQueueBuilder
from inspector.engine.maintain.rebuild.cq_builder import ConsumeQueueBuilder
from inspector.engine.maintain.rebuild.dispatch import (
    DispatchRequest,
    check_path_component,
    dispatch_request,
    lmq_requests,
)
from inspector.engine.model.errors import BadInput
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.records import Message, Problem

__all__ = ["QueueUnit", "QueueWrite", "dispatch_record"]


@dataclass(frozen=True)
class QueueUnit:
    """What one record gives one queue (``CommitLogDispatcherBuildConsumeQueue``): the record's own queue or,
    for an ``%LMQ%`` record, one of its multi-dispatch queues. ``read_offset``: where the record is read (the
    commitlog order a queue's writer must see); ``physical_offset``: the PHYSICALOFFSET field the unit stores."""

    topic: str
    queue_id: int
    read_offset: int
    physical_offset: int
    total_size: int
    tags_code: int
    store_timestamp: int
    queue_offset: int
    sys_flag: int
    prepared_transaction_offset: int


def dispatch_record(msg: Message, geometry: Geometry) -> tuple[list[QueueUnit], list[Problem]]:
    """The queue units ``rebuild`` dispatches for one record, and the notes on what it could not: a record
    whose fields the broker's dispatch refuses (``undispatchable``: no unit), or LMQ properties it cannot use
    (``lmq-undispatchable``, a warning: the record's own unit stays)."""
    try:
        request = dispatch_request(msg.topic, msg.queue_id, msg.stored_physical_offset, msg.total_size,
                                   msg.store_timestamp, msg.queue_offset, msg.sys_flag,
                                   msg.prepared_transaction_offset, msg.properties, geometry)
    except BadInput as e:
        return [], [Problem(msg.file, msg.position, f"not dispatched: {e}", "undispatchable")]
    notes: list[Problem] = []
    try:
        lmq = lmq_requests(request)
    except ValueError as e:
        notes.append(Problem(msg.file, msg.position, f"no LMQ unit dispatched: {e}", "lmq-undispatchable",
                             "warning"))
        lmq = []
    units = [QueueUnit(r.topic, r.queue_id, msg.physical_offset, r.physical_offset, r.total_size, r.tags_code,
                       r.store_timestamp, r.queue_offset, r.sys_flag, r.prepared_transaction_offset)
             for r in (request, *lmq)]
    return units, notes


class QueueWrite:
    """One queue's files under ``out`` (``consumequeue/<topic>/<queue>/``, or ``batchconsumequeue/`` for a
    BatchCQ topic), written from its units in commitlog order. Opening it checks the topic is a safe path
    component (BadInput) and removes what an earlier attempt of the task wrote for the queue.

    A batch queue's unit needs the record's INNER_NUM / INNER_BASE, which a :class:`QueueUnit` does not carry:
    ``store`` (an open :class:`~inspector.engine.read.store.store.Store`) is where each record is read again
    (batch topics are few and small)."""

    def __init__(self, out: str | Path, topic: str, queue_id: int, geometry: Geometry, store=None) -> None:
        check_path_component(topic, "topic")
        self.out = Path(out)
        self.topic, self.queue_id, self.geometry, self.store = topic, queue_id, geometry, store
        directory = "consumequeue" if store is None else "batchconsumequeue"
        shutil.rmtree(self.out / directory / topic / str(queue_id), ignore_errors=True)
        self._builder = ConsumeQueueBuilder(out, geometry) if store is None else BatchConsumeQueueBuilder(out)

    def put(self, unit: QueueUnit) -> bool:
        """Write the unit; False when the record gets none (a PREPARED or ROLLBACK transaction)."""
        if self.store is None:
            request = DispatchRequest(self.topic, self.queue_id, unit.physical_offset, unit.total_size,
                                      unit.tags_code, unit.store_timestamp, unit.queue_offset, "", None,
                                      unit.sys_flag, unit.prepared_transaction_offset)
        else:
            msg = self.store.message_at(unit.read_offset)
            request = dispatch_request(msg.topic, msg.queue_id, msg.stored_physical_offset, msg.total_size,
                                       msg.store_timestamp, msg.queue_offset, msg.sys_flag,
                                       msg.prepared_transaction_offset, msg.properties, self.geometry)
        return bool(self._builder.put(request))

    def close(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Flush the files; (their paths relative to ``out``, the builder's warnings)."""
        self._builder.close()
        files = tuple(str(p.relative_to(self.out)) for p in self._builder.files)
        return files, tuple(getattr(self._builder, "warnings", ()))
