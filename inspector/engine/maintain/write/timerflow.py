"""What the broker writes for a message with a delivery time (``MessageSpec.deliver_ms``), 5.x:

* the producer's ``Message.setDeliverTimeMs`` puts ``TIMER_DELIVER_MS``;
* ``HookUtils.transformTimerMessage`` (when the time is still ahead of the broker's clock, here the record's
  store time): ``TIMER_OUT_MS`` = the time rounded down to timerPrecisionMs (an exact multiple one step
  earlier), ``REAL_TOPIC`` / ``REAL_QID``, and the record goes to ``rmq_sys_wheel_timer`` queue 0; a time
  more than ``timerMaxDelaySec`` ahead is refused (WHEEL_TIMER_MSG_ILLEGAL), as is a TIMER_DEL_UNIQKEY message
  already due;
* the timer store enqueues the record (a timerlog unit, its slot) and, once the slot's time has passed, puts
  the delivered copy into the real topic and queue (``convert``/``convertMessage``: the same body, flags,
  born time and hosts, properties + ``TIMER_ENQUEUE_MS`` (the unit's write time) and ``TIMER_DEQUEUE_MS``, less
  REAL_TOPIC/REAL_QID), or, for a ROLL unit, back into ``rmq_sys_wheel_timer`` with ``TIMER_ROLL_TIMES`` + 1;
  a timer whose UNIQ_KEY a DELETE timer of the same slot names is dropped.

The writer's "now" for the timer store is ``timer_now`` (default: the last store time written): slots before
it are dequeued, the rest stay pending. :class:`~inspector.engine.maintain.write.writer.StoreWriter` mixes this in.
"""

from __future__ import annotations

from pathlib import Path

from inspector.engine.maintain.rebuild.timer_builder import (
    DEFAULT_MAX_DELAY_SEC,
    Timer,
    TimerBuilder,
    timer_out_ms,
)
from inspector.engine.maintain.write.encode import _prepare, _Prepared
from inspector.engine.maintain.write.messagespec import AppendResult
from inspector.engine.model.errors import BadInput
from inspector.engine.model.systopics import TIMER_TOPIC
from parsers.commitlog import Properties

P_TIMER_DELIVER_MS, P_TIMER_OUT_MS = "TIMER_DELIVER_MS", "TIMER_OUT_MS"
P_TIMER_ENQUEUE_MS, P_TIMER_DEQUEUE_MS, P_TIMER_ROLL_TIMES = "TIMER_ENQUEUE_MS", "TIMER_DEQUEUE_MS", "TIMER_ROLL_TIMES"
P_TIMER_DEL_UNIQKEY = "TIMER_DEL_UNIQKEY"
TIMER_PROPERTIES = frozenset({P_TIMER_DELIVER_MS, P_TIMER_OUT_MS, P_TIMER_ENQUEUE_MS, P_TIMER_DEQUEUE_MS,
                              P_TIMER_ROLL_TIMES, "TIMER_DELAY_SEC", "TIMER_DELAY_MS"})


class TimerFlow:
    """Timer messages for :class:`~inspector.engine.maintain.write.writer.StoreWriter`, which provides ``_write``,
    ``_last_store_timestamp`` and ``_note_topic`` and sets ``timer_now`` and ``timers``."""

    timers: TimerBuilder
    timer_now: int | None
    timer_max_delay_sec: int = DEFAULT_MAX_DELAY_SEC
    _last_store_timestamp: int

    def _timer_transform(self, deliver_ms: int, extra: dict[str, str], store_timestamp: int
                         ) -> tuple[list[tuple[str, str]], int | None]:
        """(producer entries to add, TIMER_OUT_MS or None when the broker does not transform it)."""
        if not isinstance(deliver_ms, int) or isinstance(deliver_ms, bool) or not 0 <= deliver_ms < 1 << 63:
            raise BadInput(f"deliver_ms must be epoch ms, an integer in [0, 2^63-1], not {deliver_ms!r}")
        given = sorted(TIMER_PROPERTIES & set(extra))
        if given:
            raise BadInput(f"property {given[0]} is set by the writer for a timer; give deliver_ms instead")
        entries = [(P_TIMER_DELIVER_MS, str(deliver_ms))]
        if deliver_ms <= store_timestamp:  # due already: stored as sent, in its own topic
            if P_TIMER_DEL_UNIQKEY in extra:
                raise BadInput("a TIMER_DEL_UNIQKEY message whose deliver_ms is not after its store time is refused "
                               "by the broker (WHEEL_TIMER_MSG_ILLEGAL)")
            return entries, None
        if deliver_ms - store_timestamp > self.timer_max_delay_sec * 1000:
            raise BadInput(f"deliver_ms is {deliver_ms - store_timestamp} ms after the store time, past "
                           f"timerMaxDelaySec {self.timer_max_delay_sec} s: the broker refuses it "
                           "(WHEEL_TIMER_MSG_ILLEGAL)")
        return entries, timer_out_ms(deliver_ms, self.timers.precision_ms)

    def _timer_enqueue(self, result: AppendResult, prepared: _Prepared, out_ms: int) -> None:
        """The timer store reads the new record from the timer topic's queue and enqueues it."""
        props = prepared.properties.as_map()
        timer = Timer(result.physical_offset, result.total_size, out_ms, props.get("REAL_TOPIC"),
                      props.get("UNIQ_KEY"), props.get(P_TIMER_DEL_UNIQKEY), prepared)
        self.timers.enqueue(timer, result.store_timestamp)

    def _timer_deliver(self, now_ms: int) -> None:
        """Dequeue every slot due by ``now_ms``: write the delivered copies and the rolled re-puts."""
        while (d := self.timers.due(now_ms)) is not None:
            for timer in d.deliver:
                self._timer_copy(timer, d.dequeue_ms, roll=False)
            for timer in d.roll:
                self._timer_copy(timer, d.dequeue_ms, roll=True)

    def _timer_copy(self, timer: Timer, dequeue_ms: int, *, roll: bool) -> None:
        record: _Prepared = timer.ref
        entries = [(k, v) for k, v in record.properties.entries
                   if k not in (P_TIMER_ENQUEUE_MS, P_TIMER_ROLL_TIMES, P_TIMER_DEQUEUE_MS)]
        props = dict(record.properties.entries)
        added = [(P_TIMER_ENQUEUE_MS, str(timer.write_time))]
        if roll:
            added.append((P_TIMER_ROLL_TIMES, str(int(props.get(P_TIMER_ROLL_TIMES, "0")) + 1)))
            topic, queue_id = TIMER_TOPIC, 0
        else:
            topic, queue_id = props["REAL_TOPIC"], int(props["REAL_QID"])
            entries = [(k, v) for k, v in entries if k not in ("REAL_TOPIC", "REAL_QID")]
        added.append((P_TIMER_DEQUEUE_MS, str(dequeue_ms)))
        store_timestamp = max(dequeue_ms, self._last_store_timestamp)
        prepared = _prepare(topic=topic, body=record.body, properties=Properties(entries + added, True),
                            queue_id=queue_id, flag=record.flag, sys_flag=record.sys_flag,
                            born_timestamp=record.born_timestamp, born_host=record.born_host,
                            store_timestamp=store_timestamp, store_host=record.store_host,
                            reconsume_times=record.reconsume_times, prepared_transaction_offset=0,
                            body_crc=record.body_crc)
        result = self._write(prepared, -1)
        if roll:
            self._timer_enqueue(result, prepared, timer.out_ms)

    def _timer_close(self, root: Path) -> None:
        """At close: deliver what is due by the timer store's now and write its files (only when a timer was
        enqueued: a 4.x-shaped store gets no timer files)."""
        if not self.timers.timers:
            return
        now = self.timer_now if self.timer_now is not None else self._last_store_timestamp
        self._timer_deliver(now)
        self.timers.write(root, now)
