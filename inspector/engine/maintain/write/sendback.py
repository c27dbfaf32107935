"""What the broker writes when a consumer sends a message back, and when the schedule service delivers a parked
record: the retry, dead-letter and delivered copies of a message (spec §9.1, §10.2).

* :meth:`SendBackFlow.send_back` is ``SendMessageProcessor.consumerSendMsgBack`` (4.9.8; 5.3.1 keeps the rules
  in ``AbstractSendMessageProcessor`` / ``ConsumerSendMsgBackProcessor``): the consumed record is looked up by
  its offset, ``RETRY_TOPIC`` is set to its topic when absent, ``ORIGIN_MESSAGE_ID`` to its offset msgId unless
  it has one (so every later copy names the first record), reconsume times + 1, WAIT=false, the broker's store
  host; when the record's reconsume times reached ``maxReconsumeTimes`` (``retryMaxTimes``, 16) the copy goes
  to ``%DLQ%group`` queue 0, else it is parked with delay level ``3 + reconsume times`` (or the request's) in
  ``SCHEDULE_TOPIC_XXXX`` with ``REAL_TOPIC=%RETRY%group`` (``CommitLog.putMessage`` /
  ``HookUtils.transformDelayLevelMessage`` do that for any DELAY level).
* :meth:`SendBackFlow.deliver` is ``ScheduleMessageService.DeliverDelayedMessageTimerTask.messageTimeUp``: a
  parked record's copy into its REAL_TOPIC / REAL_QID, the DELAY property cleared, everything else kept.

Both name the record they start from by its ``AppendResult.index``; the writer remembers the last
``RECENT_RECORDS`` records (``RECENT_BYTES`` of bodies) it wrote for this (a store of millions of messages does not keep every body).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspector.engine.maintain.write.encode import _prepare, _Prepared
from inspector.engine.maintain.write.messagespec import AppendResult, _typed
from inspector.engine.model.arguments import INT32_MAX, INT64_MAX
from inspector.engine.model.errors import BadInput
from inspector.engine.model.systopics import DLQ_PREFIX, RETRY_PREFIX, SCHEDULE_TOPIC
from parsers.commitlog import Properties

__all__ = ["DEFAULT_MAX_RECONSUME_TIMES", "RECENT_RECORDS", "CopySpec", "SendBackFlow"]

RECENT_RECORDS = 4096
RECENT_BYTES = 64 << 20  # and at most this many body bytes (a store of 4 MiB bodies keeps fewer records)
DEFAULT_MAX_RECONSUME_TIMES = 16  # SubscriptionGroupConfig.retryMaxTimes


MAX_REF_TEXT = 128  # a UNIQ_KEY is 32 hex digits (56 with an IPv6 host): a longer REF is no key of a record


@dataclass(frozen=True)
class CopySpec:
    """A JSON Lines record of ``rmq-inspect write`` that is no message but a copy the broker makes of one written
    before (``of``): ``{"send_back": REF, "group": G}`` is :meth:`SendBackFlow.send_back` (optional
    ``delay_level``: 0 the broker's 3 + reconsume times, > 0 that level, -1 straight to the DLQ;
    ``max_reconsume_times``, default 16: at that many the copy is the dead letter; ``store_timestamp``), and
    ``{"deliver": REF}`` is :meth:`SendBackFlow.deliver` of a parked record (optional ``store_timestamp``).
    REF is the record's number among the input's records, from 0 (blank lines not counted: its place in
    ``write --json``'s records), or a UNIQ_KEY: the latest record written with it (every copy keeps it, so a
    chain of send-backs and deliveries can name the message each time)."""

    kind: str  # "send_back" or "deliver"
    of: int | str
    group: str | None = None
    delay_level: int = 0
    max_reconsume_times: int = DEFAULT_MAX_RECONSUME_TIMES
    store_timestamp: int | None = None

    _FIELDS = {"send_back": ("send_back", "group", "delay_level", "max_reconsume_times", "store_timestamp"),
               "deliver": ("deliver", "store_timestamp")}

    @classmethod
    def from_json(cls, obj: object) -> CopySpec | None:
        """The copy a JSON Lines object asks for; None when it is a message (neither key). BadInput naming the
        field for anything else: both kinds, an unknown field, a REF or value of the wrong type or range."""
        if not isinstance(obj, Mapping):
            return None
        kinds = [k for k in cls._FIELDS if k in obj]
        if not kinds:
            return None
        if len(kinds) > 1:
            raise BadInput("give either send_back or deliver, not both")
        kind = kinds[0]
        unknown = sorted(set(obj) - set(cls._FIELDS[kind]))
        if unknown:
            raise BadInput(f"unknown field(s) of a {kind} record: {', '.join(str(u)[:40] for u in unknown)} "
                           f"(it takes {', '.join(cls._FIELDS[kind])})")
        of = obj[kind]
        if isinstance(of, bool) or not isinstance(of, int | str) or (isinstance(of, int) and not 0 <= of <= INT64_MAX) \
                or (isinstance(of, str) and not 0 < len(of) <= MAX_REF_TEXT):
            shown = repr(of)[:40]
            raise BadInput(f"field {kind} must be a record's number (an integer in [0, {INT64_MAX}]) or a UNIQ_KEY "
                           f"(a string of 1 to {MAX_REF_TEXT} characters), not {shown}")
        store_timestamp = _typed(obj, "store_timestamp", int, None, nullable=True)
        if kind == "deliver":
            return cls(kind, of, store_timestamp=store_timestamp)
        group = _typed(obj, "group", str)
        if not group:
            raise BadInput("field group must name the consumer group, not be empty")
        delay_level = obj.get("delay_level", 0)  # not _typed: a message's delay_level range starts at 0
        if isinstance(delay_level, bool) or not isinstance(delay_level, int) or not -1 <= delay_level <= INT32_MAX:
            raise BadInput(f"field delay_level must be an integer in [-1, {INT32_MAX}] (-1: the dead letter at "
                           f"once), not {delay_level!r:.40}")
        max_times = _typed(obj, "max_reconsume_times", int, DEFAULT_MAX_RECONSUME_TIMES)
        if not 0 <= max_times <= INT32_MAX:
            raise BadInput(f"field max_reconsume_times must be an integer in [0, {INT32_MAX}], not {max_times}")
        return cls(kind, of, group, delay_level, max_times, store_timestamp)

    def write(self, flow: SendBackFlow, index_of: Mapping[str, int]) -> AppendResult:
        """The copy, written by ``flow`` (a StoreWriter); ``index_of``: each UNIQ_KEY's latest record."""
        of: Any = self.of
        if isinstance(of, str):
            if of not in index_of:
                raise BadInput(f"{self.kind}: no record with UNIQ_KEY {of[:40]!r} was written before this one "
                               "(give the record's number, or its unique_key)")
            of = index_of[of]
        if self.kind == "deliver":
            return flow.deliver(of, store_timestamp=self.store_timestamp)
        return flow.send_back(of, self.group or "", delay_level=self.delay_level,
                              max_reconsume_times=self.max_reconsume_times, store_timestamp=self.store_timestamp)


def _with(entries: list[tuple[str, str | None]], name: str, value: str) -> list[tuple[str, str | None]]:
    """``putProperty``: the value replaced in place, or appended when the name is new."""
    if any(k == name for k, _ in entries):
        return [(k, value if k == name else v) for k, v in entries]
    return [*entries, (name, value)]


class SendBackFlow:
    """The send-back and delivery paths of :class:`~inspector.engine.maintain.write.writer.StoreWriter`, which
    provides ``_write``, ``_count``, ``_clock_now``, ``_note_topic``, ``store_host`` and the delay levels."""

    store_host: str
    _count: int
    _max_delay_level: int
    _delay_levels: set[int]
    _recent: OrderedDict[int, tuple[AppendResult, _Prepared]]
    _recent_bytes: int

    def _remember(self, result: AppendResult, prepared: _Prepared) -> None:
        old = self._recent.pop(result.index, None)
        self._recent_bytes = getattr(self, "_recent_bytes", 0) - (len(old[1].body) if old else 0)
        self._recent[result.index] = (result, prepared)
        self._recent_bytes += len(prepared.body)
        while len(self._recent) > 1 and (len(self._recent) > RECENT_RECORDS or self._recent_bytes > RECENT_BYTES):
            self._recent_bytes -= len(self._recent.popitem(last=False)[1][1].body)

    def _recalled(self, of: int, what: str) -> tuple[AppendResult, _Prepared]:
        found = self._recent.get(of) if isinstance(of, int) and not isinstance(of, bool) else None
        if found is None:
            raise BadInput(f"{what}: no record {of!r} among the last {RECENT_RECORDS} this writer wrote "
                           "(give an AppendResult.index)")
        return found

    def send_back(self, of: int, group: str, *, delay_level: int = 0,
                  max_reconsume_times: int = DEFAULT_MAX_RECONSUME_TIMES,
                  store_timestamp: int | None = None) -> AppendResult:
        """The copy ``consumerSendMsgBack`` writes when ``group`` fails to consume the record ``of`` (an
        original, or a retry copy delivered to ``%RETRY%group``): parked for a retry, or the dead letter."""
        if not isinstance(group, str) or not group:
            raise BadInput("send_back needs the consumer group")
        result, rec = self._recalled(of, "send_back")
        index = self._count
        when = store_timestamp if store_timestamp is not None else self._clock_now()
        entries = list(rec.properties.entries)
        if not any(k == "RETRY_TOPIC" for k, _ in entries):
            entries = _with(entries, "RETRY_TOPIC", rec.topic)
        entries = _with(entries, "WAIT", "false")  # msgExt.setWaitStoreMsgOK(false)
        origin = next((v for k, v in entries if k == "ORIGIN_MESSAGE_ID" and v and v.strip()), None)
        entries = _with(entries, "ORIGIN_MESSAGE_ID", origin or result.msg_id)
        retry_topic = f"{RETRY_PREFIX}{group}"
        if rec.reconsume_times >= max_reconsume_times or delay_level < 0:
            topic, queue_id = f"{DLQ_PREFIX}{group}", 0  # DLQ_NUMS_PER_GROUP = 1
        else:
            level = min(delay_level or 3 + rec.reconsume_times, self._max_delay_level)
            entries = _with(entries, "DELAY", str(level))
            entries = _with(entries, "REAL_TOPIC", retry_topic)  # the retry topic's one queue (retryQueueNums 1)
            entries = _with(entries, "REAL_QID", "0")
            topic, queue_id = SCHEDULE_TOPIC, level - 1
            self._delay_levels.add(level)
            self._note_topic(retry_topic, 0)
        prepared = _prepare(topic=topic, body=rec.body, properties=Properties(entries, True), queue_id=queue_id,
                            flag=rec.flag, sys_flag=rec.sys_flag, born_timestamp=rec.born_timestamp,
                            born_host=rec.born_host, store_timestamp=when, store_host=self.store_host,
                            reconsume_times=rec.reconsume_times + 1, prepared_transaction_offset=0, body_crc=None)
        written = self._write(prepared, index)
        self._count += 1
        return written

    def deliver(self, of: int, *, store_timestamp: int | None = None) -> AppendResult:
        """``messageTimeUp``'s copy of the parked record ``of`` (a SCHEDULE_TOPIC_XXXX record) into its
        REAL_TOPIC / REAL_QID: DELAY cleared, REAL_TOPIC / REAL_QID and every other property kept."""
        _, rec = self._recalled(of, "deliver")
        props = dict(rec.properties.entries)
        if rec.topic != SCHEDULE_TOPIC or not props.get("REAL_TOPIC"):
            raise BadInput(f"deliver: record {of} is no parked record of {SCHEDULE_TOPIC} with a REAL_TOPIC")
        try:
            queue_id = int(props.get("REAL_QID") or "0")
        except ValueError:
            raise BadInput(f"deliver: record {of} has REAL_QID {props.get('REAL_QID')!r}") from None
        index = self._count
        when = store_timestamp if store_timestamp is not None else self._clock_now()
        entries = [(k, v) for k, v in rec.properties.entries if k != "DELAY"]
        prepared = _prepare(topic=props["REAL_TOPIC"], body=rec.body, properties=Properties(entries, True),
                            queue_id=queue_id, flag=rec.flag, sys_flag=rec.sys_flag,
                            born_timestamp=rec.born_timestamp, born_host=rec.born_host, store_timestamp=when,
                            store_host=rec.store_host, reconsume_times=rec.reconsume_times,
                            prepared_transaction_offset=0, body_crc=None)
        written = self._write(prepared, index)
        self._count += 1
        return written

    def _write(self, prepared: _Prepared, index: int, messages: int = 1) -> AppendResult:  # pragma: no cover
        raise NotImplementedError

    def _clock_now(self) -> int:  # pragma: no cover - provided by StoreWriter
        raise NotImplementedError

    def _note_topic(self, topic: str, queue_id: int) -> None:  # pragma: no cover - provided by StoreWriter
        raise NotImplementedError
