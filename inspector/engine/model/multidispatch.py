"""LMQ multi-dispatch (spec part 2 §17): which light queues a record is dispatched to, and at which offsets.

Checked against rocketmq-all-5.3.1 (and 4.9.8, where it began): a producer names the queues in the property
``INNER_MULTI_DISPATCH`` (``MessageConst.PROPERTY_INNER_MULTI_DISPATCH``), comma-separated
(``MixAll.MULTI_DISPATCH_QUEUE_SPLITTER``). On put, ``MultiDispatch.wrapMultiDispatch`` gives each queue named
``%LMQ%...`` (with ``enableLmq``) its next offset, kept under the key ``name-0``, and stores them in the same order
in ``INNER_MULTI_QUEUE_OFFSET``; ``updateMultiQueueOffset`` then adds 1 to each. Across restarts the next offset
is the queue's consume-queue max offset (``QueueOffsetOperator.setLmqTopicQueueTable``), so a store's LMQ
offsets follow each other with no gap.

Dispatch (``ConsumeQueue.multiDispatchLmqQueue``, only after the record's own unit was written and only when
``MultiDispatchUtils.checkMultiDispatchQueue`` holds): both properties non-blank, the topic not a retry topic,
``rmq_sys_`` topic or ``SCHEDULE_TOPIC_XXXX``; both lists split like Java's ``String.split`` (trailing empty
pieces dropped) and of equal length (else nothing is dispatched); a name holding ``/`` is skipped; each other
name gets a unit (the record's physical offset, size and tagsCode) at ``Long.parseLong`` of its offset, in
queue 0 for an ``%LMQ%`` name, else in the record's queue id. ``IndexService`` adds no index item for LMQ
queues (it knows only the record's topic).

4.9.8 differs in two ways, both on records a 5.x broker would not multi-dispatch: its
``DefaultMessageStore.checkMultiDispatchQueue`` excludes no topic (a retry or SCHEDULE_TOPIC_XXXX record with
both properties gets LMQ units too) and its ``multiDispatchLmqQueue`` does not skip names holding ``/``. This
module follows 5.3.1; on a 4.9.8 store such records are the only ones read differently.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from inspector.engine.model.systopics import LMQ_PREFIX, RETRY_PREFIX, SCHEDULE_TOPIC, SYSTEM_PREFIX

INNER_MULTI_DISPATCH = "INNER_MULTI_DISPATCH"  # MessageConst.PROPERTY_INNER_MULTI_DISPATCH
INNER_MULTI_QUEUE_OFFSET = "INNER_MULTI_QUEUE_OFFSET"  # MessageConst.PROPERTY_INNER_MULTI_QUEUE_OFFSET
SPLITTER = ","  # MixAll.MULTI_DISPATCH_QUEUE_SPLITTER
_JAVA_LONG = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True)
class LmqTarget:
    """One queue a record is multi-dispatched to: its name, queue id and the record's offset in it, and where
    the name stands in ``INNER_MULTI_DISPATCH`` (0-based)."""

    queue: str
    queue_id: int
    queue_offset: int
    position: int


class MultiDispatchError(ValueError):
    """The record's two properties are not what the broker's dispatch can use (it dispatches nothing then, or
    fails on ``Long.parseLong``)."""


def is_lmq(name: str) -> bool:
    """``MixAll.isLmq``."""
    return name.startswith(LMQ_PREFIX)


def needs_multi_dispatch(topic: str) -> bool:
    """``MultiDispatchUtils.isNeedHandleMultiDispatch`` (with ``enableMultiDispatch``)."""
    return not topic.startswith((RETRY_PREFIX, SYSTEM_PREFIX)) and topic != SCHEDULE_TOPIC


def java_split(text: str) -> list[str]:
    """``String.split(",")``: trailing empty pieces dropped (``"a,,"`` -> ``["a"]``, ``","`` -> ``[]``)."""
    pieces = text.split(SPLITTER)
    while pieces and pieces[-1] == "":
        pieces.pop()
    return pieces


def java_long(text: str) -> bool:
    """Whether ``Long.parseLong`` takes ``text`` (decimal digits, one optional sign, in range)."""
    return bool(_JAVA_LONG.fullmatch(text)) and -(1 << 63) <= int(text) < (1 << 63)


def _blank(text: str | None) -> bool:
    """``StringUtils.isBlank``."""
    return text is None or not text.strip()


def lmq_targets(topic: str, queue_id: int, properties: Mapping[str, str]) -> list[LmqTarget]:
    """The queues the broker dispatches a record of ``topic``/``queue_id`` to besides its own, in order; [] for
    a record that is not multi-dispatched. MultiDispatchError when the two properties disagree in length (the
    broker logs "[bug]" and dispatches none) or an offset is no Java long (its dispatch fails)."""
    queues, offsets = properties.get(INNER_MULTI_DISPATCH), properties.get(INNER_MULTI_QUEUE_OFFSET)
    if not needs_multi_dispatch(topic) or _blank(queues) or _blank(offsets):
        return []
    names, values = java_split(queues), java_split(offsets)
    if len(names) != len(values):
        raise MultiDispatchError(f"{INNER_MULTI_DISPATCH} names {len(names)} queue(s) but "
                                 f"{INNER_MULTI_QUEUE_OFFSET} has {len(values)} offset(s): the broker dispatches none")
    targets = []
    for position, (name, value) in enumerate(zip(names, values, strict=True)):
        if "/" in name:  # StringUtils.contains(queueName, File.separator): skipped
            continue
        if not java_long(value):
            raise MultiDispatchError(f"{INNER_MULTI_QUEUE_OFFSET} offset {value[:40]!r} of {name[:80]!r} is no "
                                     "Java long: the broker's dispatch fails on it")
        targets.append(LmqTarget(name, 0 if is_lmq(name) else queue_id, int(value), position))
    return targets


def target_for(topic: str, queue_id: int, properties: Mapping[str, str], queue: str) -> LmqTarget | None:
    """The multi-dispatch of a record to ``queue`` (the first naming it), None when it names no such queue or
    its properties are unusable."""
    try:
        return next((t for t in lmq_targets(topic, queue_id, properties) if t.queue == queue), None)
    except MultiDispatchError:
        return None
