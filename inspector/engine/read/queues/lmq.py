"""Reading a record through an LMQ queue (spec part 2 §17): its offset in that queue, not its topic's."""

from __future__ import annotations

import dataclasses

from inspector.engine.model.multidispatch import is_lmq, target_for
from inspector.engine.model.records import InnerMessage, LmqMessage, Message

_FIELDS = tuple(f.name for f in dataclasses.fields(Message))  # a Message's own fields, copied into an LmqMessage


def through_queue(msg: Message, queue: str) -> Message:
    """``msg`` as read through queue ``queue``: an :class:`LmqMessage` when ``queue`` is an LMQ the record
    was multi-dispatched to (its offset there from ``INNER_MULTI_QUEUE_OFFSET``), else ``msg`` itself (a record
    of that topic, or one that does not name the queue: verify says so)."""
    if not is_lmq(queue) or msg.topic == queue or isinstance(msg, InnerMessage):
        return msg
    target = target_for(msg.topic, msg.queue_id, msg.properties, queue)
    if target is None:
        return msg
    fields = {name: getattr(msg, name) for name in _FIELDS}
    fields.update(queue_id=target.queue_id, queue_offset=target.queue_offset)
    return LmqMessage(**fields, lmq_queue=queue, record_queue_id=msg.queue_id, record_queue_offset=msg.queue_offset)
