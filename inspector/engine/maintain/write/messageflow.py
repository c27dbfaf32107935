"""What the broker writes for one sent message: the records of an ordinary, delayed or transactional send
(spec §9.1, §10.1), each with its properties in a fixed order.

:class:`MessageFlow` is the half of :class:`~inspector.engine.maintain.write.writer.StoreWriter` that turns a
:class:`MessageSpec` into validated records (producer and broker properties, delay parking in
``SCHEDULE_TOPIC_XXXX``, half / COMMIT / op records); the writer itself appends them, dispatches them and keeps
the files. Split off because these rules are the broker's message semantics, read on their own.

Property order
--------------
A broker writes properties in Java ``HashMap`` order, which depends on map capacity and insertion history;
we use this fixed, documented order instead (it matches the record of spec §14.7), leaving out absent ones:

 1. ``TAGS``            2. ``KEYS``            3. ``WAIT``            4. ``DELAY`` (clamped level)
 5. the spec's extra user properties, in the order given
 6. ``TRAN_MSG``        7. ``PGROUP``          8. ``UNIQ_KEY``        9. ``CLUSTER``
10. ``REAL_TOPIC``     11. ``REAL_QID``       12. ``__transactionId__``
13. ``INNER_NUM``      14. ``INNER_BASE``     (an inner-batch record, see ``_append_batch``)

i.e. what the producer's ``Message`` constructor sets, then user properties, then what the producer adds
at send time, then what the broker adds. A transaction COMMIT record copies its half message's properties
in the half's order; an op record has ``TAGS=d``, ``WAIT=true`` (see :meth:`StoreWriter.append`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from inspector.engine.maintain.rebuild.dispatch import check_path_component
from inspector.engine.maintain.write.encode import (
    _INT64,
    COMPRESSION_TYPES,
    _check_int,
    _prepare,
    compress_body,
    encode_inner_batch,
    format_host,
)
from inspector.engine.maintain.write.messagespec import AppendResult, MessageSpec, _Half
from inspector.engine.model.errors import BadInput
from inspector.engine.model.multidispatch import (
    INNER_MULTI_DISPATCH,
    INNER_MULTI_QUEUE_OFFSET,
    SPLITTER,
    is_lmq,
    needs_multi_dispatch,
)
from inspector.engine.model.systopics import HALF_TOPIC, LMQ_PREFIX, OP_TOPIC, SCHEDULE_TOPIC, TIMER_TOPIC
from parsers.commitlog import (
    COMPRESSED_FLAG,
    INNER_BATCH_FLAG,
    NEED_UNWRAP_FLAG,
    TRANSACTION_COMMIT_TYPE,
    TRANSACTION_MASK,
    TRANSACTION_NOT_TYPE,
    TRANSACTION_PREPARED_TYPE,
    TRANSACTION_ROLLBACK_TYPE,
    Properties,
)
from parsers.java import INT32_MAX

__all__ = ["MessageFlow"]

REMOVE_TAG = "d"  # TransactionalMessageUtil.REMOVE_TAG
DEFAULT_PRODUCER_GROUP = "DEFAULT_PRODUCER"  # MixAll.DEFAULT_PRODUCER_GROUP

_RAW_TYPES = {
    "raw_prepared": TRANSACTION_PREPARED_TYPE,
    "raw_commit": TRANSACTION_COMMIT_TYPE,
    "raw_rollback": TRANSACTION_ROLLBACK_TYPE,
}

# names the writer manages itself; a spec's extra properties may not set them
P_TAGS, P_KEYS, P_WAIT, P_DELAY = "TAGS", "KEYS", "WAIT", "DELAY"
P_TRAN_MSG, P_PGROUP, P_UNIQ_KEY, P_CLUSTER = "TRAN_MSG", "PGROUP", "UNIQ_KEY", "CLUSTER"
P_REAL_TOPIC, P_REAL_QID, P_TRANSACTION_ID = "REAL_TOPIC", "REAL_QID", "__transactionId__"
MANAGED_PROPERTIES = frozenset(
    {P_TAGS, P_KEYS, P_WAIT, P_DELAY, P_TRAN_MSG, P_PGROUP, P_UNIQ_KEY, P_CLUSTER, P_REAL_TOPIC, P_REAL_QID,
     P_TRANSACTION_ID, "INNER_NUM", "INNER_BASE"}
)  # fmt: skip
# cleared from a half message's properties when its COMMIT record is written (spec §10.1)
COMMIT_CLEARED_PROPERTIES = (P_TRAN_MSG, P_REAL_TOPIC, P_REAL_QID)


P_INNER_NUM, P_INNER_BASE = "INNER_NUM", "INNER_BASE"
INT16_MAX = 32767
# MessageSpec fields a batch (_BATCH_FIXED) or an inner message (_INNER_FIXED) must leave at their defaults
_COMMON_FIXED = (("compression", None), ("transaction", None), ("half_ref", None), ("delay_level", 0),
                 ("producer_group", None), ("prepared_transaction_offset", 0), ("real_topic", None),
                 ("real_queue_id", None), ("deliver_ms", None))
_BATCH_FIXED = (*_COMMON_FIXED, ("body", b""), ("tags", None), ("keys", []), ("properties", {}))
_INNER_FIXED = (*_COMMON_FIXED, ("queue_id", 0), ("born_host", None), ("store_host", None),
                ("born_timestamp", None), ("store_timestamp", None), ("reconsume_times", 0))


def _refuse_set(spec: MessageSpec, what: str, fixed: tuple[tuple[str, object], ...]) -> None:
    given = [name for name, default in fixed if getattr(spec, name) not in (default,) and
             not (name == "keys" and not spec.keys)]
    if given:
        raise BadInput(f"{what} cannot set {', '.join(given)}")


def _user_properties(spec: MessageSpec) -> Mapping[str, str]:
    """The spec's extra properties, checked: strings, non-empty names, none the writer manages."""
    extra = spec.properties
    if not isinstance(extra, Mapping):
        raise BadInput("properties must be a mapping of str to str")
    for name, value in extra.items():
        if not isinstance(name, str) or not isinstance(value, str) or not name:
            raise BadInput(f"bad user property {name!r}: names and values are strings, names non-empty")
        if name in MANAGED_PROPERTIES:
            raise BadInput(f"property {name} is set by the writer; use the MessageSpec field instead")
    return extra


def _message_entries(spec: MessageSpec) -> list[tuple[str, str]]:
    """TAGS, KEYS and WAIT as the producer's ``Message`` sets them (keys joined and trimmed like Java)."""
    entries: list[tuple[str, str]] = []
    if spec.tags:
        entries.append((P_TAGS, spec.tags))
    keys = spec.keys if isinstance(spec.keys, str) else _java_trim(" ".join(spec.keys))
    if keys:
        entries.append((P_KEYS, keys))
    if spec.wait_store_msg_ok is not None:
        entries.append((P_WAIT, "true" if spec.wait_store_msg_ok else "false"))
    return entries


def _lmq_queues(spec: MessageSpec) -> list[str]:
    """The spec's LMQ queue names, checked: each an ``%LMQ%`` name usable as a directory, no ``,`` (the
    splitter), no repeats (the broker would give a repeated name one offset and advance it twice), and only on
    an ordinary, non-delayed, non-batch message (the broker multi-dispatches no other)."""
    names = spec.lmq_queues or []
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise BadInput("lmq_queues must be a list of LMQ queue names")
    if not names:
        return []
    if spec.transaction is not None or spec.batch is not None or spec.delay_level:
        raise BadInput("lmq_queues is only for ordinary messages (not transactional, delayed or batched)")
    if not needs_multi_dispatch(spec.topic):
        raise BadInput(f"topic {spec.topic!r} is never multi-dispatched by the broker (retry, rmq_sys_ or "
                       "SCHEDULE_TOPIC_XXXX)")
    for name in names:
        if not is_lmq(name) or name == LMQ_PREFIX or SPLITTER in name:
            raise BadInput(f"lmq_queues: {name!r} is not an LMQ queue name ({LMQ_PREFIX}name, no ',')")
        check_path_component(name, "LMQ queue name")
    if len(set(names)) != len(names):
        raise BadInput("lmq_queues names a queue twice")
    return list(names)


def _java_trim(text: str) -> str:
    """``String.trim()``: strips code points <= U+0020 at both ends."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


class MessageFlow:
    """The message paths of :class:`~inspector.engine.maintain.write.writer.StoreWriter`, which sets these attributes
    and provides ``_write`` (append + dispatch one record), ``_create_uniq_id`` and ``_note_topic``."""

    producer_ip: str
    store_host: str
    max_message_size: int
    strip_commit_properties: bool
    _max_delay_level: int
    _delay_levels: set[int]
    _halves_by_index: dict[int, _Half]
    _halves_by_key: dict[str, _Half]

    def _append_message(self, spec: MessageSpec, index: int, store_timestamp: int) -> AppendResult:
        lmq = _lmq_queues(spec)
        if spec.batch is not None:
            return self._append_batch(spec, index, store_timestamp)
        kind = spec.transaction
        if spec.half_ref is not None:
            raise BadInput("half_ref is only for transaction='commit' or 'rollback'")
        if spec.prepared_transaction_offset and kind not in _RAW_TYPES:
            raise BadInput("prepared_transaction_offset can only be given for raw_* transaction records")
        _check_int(spec.delay_level, "delay_level", 0, INT32_MAX)
        if spec.delay_level and kind is not None:
            raise BadInput("delay_level is only for ordinary messages (producers clear it on transactions)")
        extra = _user_properties(spec)
        born_timestamp = spec.born_timestamp if spec.born_timestamp is not None else store_timestamp
        _check_int(born_timestamp, "born_timestamp", 0, _INT64[1])
        unique_key = spec.unique_key
        if unique_key is None:
            unique_key = self._create_uniq_id(born_timestamp)
        body = bytes(spec.body) if isinstance(spec.body, bytes | bytearray | memoryview) else spec.body
        if not isinstance(body, bytes):
            raise BadInput(f"body must be bytes, not {type(spec.body).__name__}")
        sys_flag = _RAW_TYPES.get(kind or "", TRANSACTION_NOT_TYPE)
        if spec.compression is not None:
            body = compress_body(body, spec.compression)
            sys_flag |= COMPRESSED_FLAG | (COMPRESSION_TYPES[spec.compression] << 8)
        if len(body) > self.max_message_size:
            raise BadInput(f"body of {len(body)} bytes exceeds max_message_size {self.max_message_size}")

        topic, queue_id = spec.topic, spec.queue_id
        _check_int(queue_id, "queue_id", 0, INT32_MAX)
        producer = _message_entries(spec)
        level = min(spec.delay_level, self._max_delay_level)
        if level > 0:
            producer.append((P_DELAY, str(level)))  # the broker stores the clamped level
        producer.extend(extra.items())
        timer_out = None
        if spec.deliver_ms is not None:  # Message.setDeliverTimeMs, then HookUtils.transformTimerMessage
            if kind is not None or level > 0 or spec.real_topic is not None or lmq:
                raise BadInput("deliver_ms is only for ordinary messages without delay_level, real_topic or "
                               "lmq_queues")
            timer_entries, timer_out = self._timer_transform(spec.deliver_ms, dict(extra), store_timestamp)
            producer.extend(timer_entries)
        if kind is not None:  # half and raw transaction records come from a transactional producer
            producer.append((P_TRAN_MSG, "true"))
            producer.append((P_PGROUP, spec.producer_group or DEFAULT_PRODUCER_GROUP))
        elif spec.producer_group:
            producer.append((P_PGROUP, spec.producer_group))
        if unique_key:
            producer.append((P_UNIQ_KEY, unique_key))
        if lmq:
            producer.append((INNER_MULTI_DISPATCH, SPLITTER.join(lmq)))
        broker: list[tuple[str, str]] = []
        if spec.cluster:
            broker.append((P_CLUSTER, spec.cluster))
        if lmq:  # MultiDispatch.wrapMultiDispatch: each queue's next offset, in the order of the names
            broker.append((INNER_MULTI_QUEUE_OFFSET, SPLITTER.join(str(self._lmq_offset(q)) for q in lmq)))
        real: tuple[str, int] | None = None
        if timer_out is not None:  # HookUtils.transformTimerMessage
            check_path_component(topic, "topic")
            real = (topic, queue_id)
            broker += [("TIMER_OUT_MS", str(timer_out)), (P_REAL_TOPIC, topic), (P_REAL_QID, str(queue_id))]
            topic, queue_id = TIMER_TOPIC, 0
        elif level > 0:  # HookUtils.transformDelayLevelMessage
            check_path_component(topic, "topic")
            real = (topic, queue_id)
            broker += [(P_REAL_TOPIC, topic), (P_REAL_QID, str(queue_id))]
            topic, queue_id = SCHEDULE_TOPIC, level - 1
            self._delay_levels.add(level)
        elif spec.real_topic is not None:  # a delivered copy keeps REAL_TOPIC / REAL_QID (messageTimeUp)
            if kind is not None:
                raise BadInput("real_topic is only for ordinary messages (copies delivered by the schedule service)")
            real_qid = queue_id if spec.real_queue_id is None else spec.real_queue_id
            _check_int(real_qid, "real_queue_id", 0, INT32_MAX)
            broker += [(P_REAL_TOPIC, spec.real_topic), (P_REAL_QID, str(real_qid))]
        elif kind == "half":  # TransactionalMessageBridge.parseHalfMessageInner
            check_path_component(topic, "topic")
            real = (topic, queue_id)
            broker += [(P_REAL_TOPIC, topic), (P_REAL_QID, str(queue_id))]
            if unique_key:
                broker.append((P_TRANSACTION_ID, unique_key))
            topic, queue_id = HALF_TOPIC, 0

        prepared = _prepare(
            topic=topic,
            body=body,
            properties=Properties(producer + broker, True),
            queue_id=queue_id,
            flag=spec.flag,
            sys_flag=sys_flag,
            born_timestamp=born_timestamp,
            born_host=spec.born_host if spec.born_host is not None else format_host(self.producer_ip, 0),
            store_timestamp=store_timestamp,
            store_host=spec.store_host if spec.store_host is not None else self.store_host,
            reconsume_times=spec.reconsume_times,
            prepared_transaction_offset=spec.prepared_transaction_offset,
            body_crc=None,
        )
        result = self._write(prepared, index)
        for queue in lmq:  # MultiDispatch.updateMultiQueueOffset
            self._lmq_advance(queue)
        if real is not None:
            self._note_topic(*real)
        if timer_out is not None:
            self._timer_enqueue(result, prepared, timer_out)
        if kind == "half" and real is not None:
            half = _Half(result, prepared, real[0], real[1])
            self._halves_by_index[index] = half
            if unique_key:
                self._halves_by_key[unique_key] = half
        return result

    def _append_batch(self, spec: MessageSpec, index: int, store_timestamp: int) -> AppendResult:
        """An inner batch: ONE record holding every message of ``spec.batch`` (spec §2.10, §4.3), as 5.x's
        ``SendMessageProcessor`` writes a batch to a BatchCQ topic: sysFlag NEED_UNWRAP|INNER_BATCH, body
        ``encodeMessages`` of the inner messages (each with TAGS, KEYS, WAIT, its user properties and its own
        UNIQ_KEY), and the batch's properties WAIT, UNIQ_KEY, CLUSTER, ``INNER_NUM`` (count) and ``INNER_BASE``
        (queue offset of the first inner message, put by ``BatchConsumeQueue.assignQueueOffset``)."""
        items = spec.batch
        if not isinstance(items, list | tuple) or not items:
            raise BadInput("batch holds at least one message")
        if len(items) > INT16_MAX:
            raise BadInput(f"a batch holds at most {INT16_MAX} messages (INNER_NUM is a short), not {len(items)}")
        topic, queue_id = spec.topic, spec.queue_id
        _check_int(queue_id, "queue_id", 0, INT32_MAX)
        if not self._is_batch_topic(topic):
            raise BadInput(f"topic {topic!r} is not a BatchCQ topic: give the writer "
                           f"topic_attributes={{{topic!r}: {{'queue.type': 'BatchCQ'}}}}")
        _refuse_set(spec, "a batch", _BATCH_FIXED)
        born_timestamp = spec.born_timestamp if spec.born_timestamp is not None else store_timestamp
        _check_int(born_timestamp, "born_timestamp", 0, _INT64[1])
        encoded: list[tuple[int, bytes, Properties]] = []
        inner_keys: list[str | None] = []
        for n, inner in enumerate(items):  # DefaultMQProducer.batch: each message's id, then the batch's
            if not isinstance(inner, MessageSpec):
                raise BadInput(f"batch[{n}] is not a MessageSpec")
            if inner.batch is not None:
                raise BadInput(f"batch[{n}]: an inner message cannot hold a batch")
            if inner.topic not in ("", topic):
                raise BadInput(f"batch[{n}]: topic {inner.topic!r} differs from the batch's {topic!r}")
            _refuse_set(inner, f"batch[{n}]", _INNER_FIXED)
            _user_properties(inner)
            body = inner.body
            if not isinstance(body, bytes | bytearray | memoryview):
                raise BadInput(f"batch[{n}]: body must be bytes, not {type(body).__name__}")
            key = inner.unique_key if inner.unique_key is not None else self._create_uniq_id(born_timestamp)
            entries = _message_entries(inner) + list(inner.properties.items())
            if key:
                entries.append((P_UNIQ_KEY, key))
            encoded.append((inner.flag, bytes(body), Properties(entries, True)))
            inner_keys.append(key or None)
        body = encode_inner_batch(encoded)
        if len(body) > self.max_message_size:
            raise BadInput(f"batch body of {len(body)} bytes exceeds max_message_size {self.max_message_size}")
        unique_key = spec.unique_key if spec.unique_key is not None else self._create_uniq_id(born_timestamp)
        entries = []
        if spec.wait_store_msg_ok is not None:
            entries.append((P_WAIT, "true" if spec.wait_store_msg_ok else "false"))
        if unique_key:
            entries.append((P_UNIQ_KEY, unique_key))
        if spec.cluster:
            entries.append((P_CLUSTER, spec.cluster))
        base = self._next_queue_offset(topic, queue_id)
        entries += [(P_INNER_NUM, str(len(items))), (P_INNER_BASE, str(base))]
        prepared = _prepare(
            topic=topic,
            body=body,
            properties=Properties(entries, True),
            queue_id=queue_id,
            flag=spec.flag,
            sys_flag=NEED_UNWRAP_FLAG | INNER_BATCH_FLAG,
            born_timestamp=born_timestamp,
            born_host=spec.born_host if spec.born_host is not None else format_host(self.producer_ip, 0),
            store_timestamp=store_timestamp,
            store_host=spec.store_host if spec.store_host is not None else self.store_host,
            reconsume_times=spec.reconsume_times,
            prepared_transaction_offset=0,
            body_crc=None,
        )
        result = self._write(prepared, index, messages=len(items))
        return replace(result, inner_unique_keys=tuple(inner_keys))

    def _end_transaction(self, spec: MessageSpec, index: int, store_timestamp: int) -> AppendResult:
        half = self._find_half(spec.half_ref)
        given = [
            name
            for name, value, default in (
                ("body", spec.body, b""), ("tags", spec.tags, None), ("properties", spec.properties, {}),
                ("born_host", spec.born_host, None), ("store_host", spec.store_host, None),
                ("born_timestamp", spec.born_timestamp, None), ("flag", spec.flag, 0),
                ("reconsume_times", spec.reconsume_times, 0), ("compression", spec.compression, None),
                ("delay_level", spec.delay_level, 0), ("unique_key", spec.unique_key, None),
                ("producer_group", spec.producer_group, None), ("wait_store_msg_ok", spec.wait_store_msg_ok, None),
                ("prepared_transaction_offset", spec.prepared_transaction_offset, 0),
                ("queue_id", spec.queue_id, 0), ("deliver_ms", spec.deliver_ms, None),
            )
            if value != default
        ]  # fmt: skip
        if spec.keys:
            given.append("keys")
        if given:
            raise BadInput(
                f"a {spec.transaction} takes everything from its half message; do not set {', '.join(given)}"
            )
        if spec.topic and spec.topic != half.real_topic:
            raise BadInput(f"the half message's topic is {half.real_topic!r}, not {spec.topic!r}")
        commit_result = None
        if spec.transaction == "commit":  # EndTransactionProcessor.endMessageTransaction
            entries = half.record.properties.entries
            if self.strip_commit_properties:
                entries = [(k, v) for k, v in entries if k not in COMMIT_CLEARED_PROPERTIES]
            prepared = _prepare(
                topic=half.real_topic,
                body=half.record.body,
                properties=Properties(list(entries), True),
                queue_id=half.real_queue_id,
                flag=half.record.flag,
                sys_flag=(half.record.sys_flag & ~TRANSACTION_MASK) | TRANSACTION_COMMIT_TYPE,
                born_timestamp=half.record.born_timestamp,
                born_host=half.record.born_host,
                store_timestamp=store_timestamp,
                store_host=half.record.store_host,
                reconsume_times=half.record.reconsume_times,
                prepared_transaction_offset=half.result.physical_offset,
                body_crc=half.record.body_crc,
            )
            commit_result = self._write(prepared, index)
        op = self._write_op(half, index, store_timestamp)
        if commit_result is None:
            return op
        return replace(commit_result, op=op)

    def _write_op(self, half: _Half, index: int, store_timestamp: int) -> AppendResult:
        """The op message of ``TransactionalMessageBridge``: tag ``d``, body = half queue offset + ``,``.

        ``new Message(topic, "d", body)`` sets TAGS and WAIT=true; the properties string is encoded before
        ``makeOpMessageInner`` adds WAIT=false and a UNIQ_KEY to the map, so neither is stored. Born host =
        store host = the broker; born time = store time.
        """
        prepared = _prepare(
            topic=OP_TOPIC,
            body=f"{half.result.queue_offset},".encode("ascii"),
            properties=Properties([(P_TAGS, REMOVE_TAG), (P_WAIT, "true")], True),
            queue_id=half.result.queue_id,
            flag=0,
            sys_flag=0,
            born_timestamp=store_timestamp,
            born_host=self.store_host,
            store_timestamp=store_timestamp,
            store_host=self.store_host,
            reconsume_times=0,
            prepared_transaction_offset=0,
            body_crc=None,
        )
        return self._write(prepared, index)

    def _is_batch_topic(self, topic: str) -> bool:  # pragma: no cover - provided by StoreWriter
        raise NotImplementedError

    def _lmq_offset(self, queue: str) -> int:  # pragma: no cover - provided by StoreWriter
        raise NotImplementedError

    def _lmq_advance(self, queue: str) -> None:  # pragma: no cover - provided by StoreWriter
        raise NotImplementedError

    def _next_queue_offset(self, topic: str, queue_id: int) -> int:  # pragma: no cover - StoreWriter
        raise NotImplementedError

    def _find_half(self, ref: int | str | None) -> _Half:
        if ref is None:
            raise BadInput("a commit or rollback needs half_ref (index or unique key of the half message)")
        half = self._halves_by_index.get(ref) if isinstance(ref, int) else self._halves_by_key.get(ref)
        if half is None:
            raise BadInput(f"no half message {ref!r} was written by this writer")
        return half
