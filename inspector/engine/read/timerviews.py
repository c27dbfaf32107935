"""The timer store as plain values: unit rows (JSON Lines in bulk), wheel slots, a slot's chain, the summary.

Field names are shared by the CLI (``rmq-inspect timer``), the web viewer and the TUI. ``size`` is the record's
size (the unit's sizePy) and ``unit_size`` the unit's own size field (52); times are epoch ms with a UTC date
beside them (``write_date``, ``delivery_date``).

Bulk JSON Lines are made a chunk of units at a time from numpy columns (dates by ``datetime_as_string``):
a record is read only for units whose commitlog offset lies inside the log.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import numpy as np

from inspector.engine.model.records import Message
from inspector.engine.read.timerlinks import (
    P_DEL_UNIQKEY,
    P_TIMER_OUT_MS,
    P_UNIQ_KEY,
    RecordLink,
    SlotChain,
    TimerStore,
    unit_row,
)
from inspector.engine.read.timerstore import magic_names
from parsers.timer import TIMER_WHEEL_SLOT_SIZE

CHUNK = 1 << 16


def ms_date(ms: int | None) -> str | None:
    """Epoch ms as an ISO UTC date with ms (None for None or a time no calendar holds)."""
    if ms is None:
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
    except (OverflowError, OSError, ValueError):
        return None


def _dates(ms: np.ndarray) -> list[str]:
    """Many ms times as ISO dates at once (numpy; a time out of its range becomes 'NaT')."""
    text = np.datetime_as_string(ms.astype("datetime64[ms]"), unit="ms")
    return [t + "Z" for t in text.tolist()]


def record_view(link: RecordLink) -> dict | None:
    """The linked rmq_sys_wheel_timer record, compact: ids, TIMER_OUT_MS, real topic and queue."""
    msg: Message | None = link.message
    if msg is None:
        return None
    props = msg.properties
    return {"physical_offset": msg.physical_offset, "topic": msg.topic, "queue_id": msg.queue_id,
            "queue_offset": msg.queue_offset, "msg_id": msg.msg_id, "unique_key": props.get(P_UNIQ_KEY),
            "timer_out_ms": _int_or_none(props.get(P_TIMER_OUT_MS)), "real_topic": props.get("REAL_TOPIC"),
            "real_queue_id": _int_or_none(props.get("REAL_QID")), "del_unique_key": props.get(P_DEL_UNIQKEY),
            "store_timestamp": msg.store_timestamp}


def _int_or_none(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def timer_unit_view(timer: TimerStore, row: int, *, link: bool = True, pending: bool | None = None) -> dict:
    """One unit with its magic bits, dates, real topic, pending state and (``link``) its record."""
    view = unit_row(timer, row)
    view["magic_names"] = magic_names(view["magic"])
    view["write_date"] = ms_date(view["write_time"])
    view["delivery_date"] = ms_date(view["delivery_time"])
    found = timer.record(view["commitlog_offset"], view["size"]) if link else None
    view["topic"] = timer.topic_of(view["topic_hash"], found)
    if pending is None and timer.check is not None:
        pending = view["delivery_time"] >= timer.check.last_read_time_ms
    view["pending"] = pending
    view["slot"] = timer.slot_of_time(view["delivery_time"])
    if link:
        view["record"] = record_view(found)
        view["record_problem"] = found.problem
    return view


def timer_unit_lines(timer: TimerStore, start: int = 0, limit: int | None = None) -> Iterator[str]:
    """JSON Lines of units ``start`` .. ``start + limit`` (rows of the log, in log order), made in bulk."""
    units = timer.units()
    stop = len(units) if limit is None else min(len(units), start + limit)
    pending = timer.pending_mask()
    linkable = timer.linkable()
    names = timer.topic_names()
    size = timer.log.file_size
    for at in range(start, stop, CHUNK):
        end = min(stop, at + CHUNK)
        u = units.units[at:end]
        offsets = units.offset[at:end]
        write = u["write_time"].astype(np.int64)
        delivery = write + u["delay"].astype(np.int64)
        hashes = u["topic_hash"]
        topic_json = {int(h): json.dumps(names[int(h)][0]) if len(names.get(int(h), ())) == 1 else "null"
                      for h in np.unique(hashes)}
        magic_json = {int(m): json.dumps(magic_names(int(m)), separators=(",", ":")) for m in np.unique(u["magic"])}
        pend = ["null"] * (end - at) if pending is None else \
            np.where(pending[at:end], "true", "false").tolist()
        cols = zip(offsets.tolist(), (offsets % size).tolist(), u["size"].tolist(), u["prev_pos"].tolist(),
                   u["magic"].tolist(), write.tolist(), _dates(write), u["delay"].tolist(), delivery.tolist(),
                   _dates(delivery), u["commitlog_offset"].tolist(), u["record_size"].tolist(), hashes.tolist(),
                   pend, linkable[at:end].tolist(), strict=True)
        for (off, pos, usize, prev, magic, wt, wd, delay, dt, dd, clo, rsize, th, pd, can_link) in cols:
            topic, record, problem = topic_json[th], "null", "null"
            if can_link:
                found = timer.record(clo, rsize)
                record = json.dumps(record_view(found))
                problem = json.dumps(found.problem)
                named = timer.topic_of(th, found)
                topic = json.dumps(named) if named is not None else "null"
            else:
                problem = '"commitlog offset outside the commitlog"'
            yield (f'{{"offset":{off},"file":"timerlog/{off - pos:020d}","position":{pos},"unit_size":{usize},'
                   f'"prev_pos":{prev},"magic":{magic},"magic_names":{magic_json[magic]},"write_time":{wt},'
                   f'"write_date":"{wd}","delay_time":{delay},"delivery_time":{dt},"delivery_date":"{dd}",'
                   f'"commitlog_offset":{clo},"size":{rsize},"topic_hash":{th},"topic":{topic},"pending":{pd},'
                   f'"record":{record},"record_problem":{problem}}}')


def timer_slot_view(timer: TimerStore, slot: int) -> dict | None:
    stored = timer.slot(slot)
    if stored is None:
        return None
    time_ms = int(stored["time"]) * timer.settings.precision_ms
    return {"slot": slot, "position": slot * TIMER_WHEEL_SLOT_SIZE, "time": time_ms, "date": ms_date(time_ms),
            "first_pos": int(stored["first_pos"]), "last_pos": int(stored["last_pos"]), "num": int(stored["num"]),
            "magic": int(stored["magic"]),
            "pending": None if timer.check is None else time_ms >= timer.check.last_read_time_ms}


def timer_slot_views(timer: TimerStore, start: int = 0, limit: int | None = None) -> Iterator[dict]:
    """The non-empty slots in slot order, from the ``start``-th."""
    numbers = list(timer.slot_numbers())
    stop = len(numbers) if limit is None else min(len(numbers), start + limit)
    for slot in numbers[start:stop]:
        yield timer_slot_view(timer, slot)


def timer_chain_view(timer: TimerStore, chain: SlotChain, *, link: bool = True) -> dict:
    """A slot's chain hop by hop, each hop's unit (and record), hops against num."""
    hops = []
    for n, hop in enumerate(chain.hops):
        entry = {"hop": n, "offset": hop.log_offset, "unit": None}
        if hop.row is not None:
            entry["unit"] = timer_unit_view(timer, hop.row, link=link)
            entry["in_slot"] = entry["unit"]["slot"] == chain.slot
        hops.append(entry)
    return {"slot": chain.slot, "time": chain.time_ms, "date": ms_date(chain.time_ms), "num": chain.num,
            "hops": len(chain.hops), "counted": chain.counted, "num_matches": chain.counted == chain.num,
            "truncated": chain.truncated, "chain": hops,
            "problems": [{"file": p.file, "offset": p.offset, "reason": p.reason, "code": p.code}
                         for p in chain.problems]}


def timer_summary(timer: TimerStore) -> dict:
    """What the timer store holds, in one object: files, settings, checkpoint, metrics, counts, histogram."""
    units = timer.units()
    check = timer.check
    pending = timer.pending_mask()
    return {
        "present": timer.present,
        "timerlog_files": [f"timerlog/{p.name}" for _, p in timer.log.files],
        "timerlog_end": units.end,
        "units": len(units),
        "pending": None if pending is None else int(pending.sum()),
        "settings": {"timerPrecisionMs": timer.settings.precision_ms,
                     "timerPrecisionMs_source": timer.settings.precision_source,
                     "mappedFileSizeTimerLog": timer.settings.file_size,
                     "mappedFileSizeTimerLog_source": timer.settings.file_size_source},
        "wheel": None if timer.wheel is None else {
            "file": timer.wheel.file, "size": timer.wheel.size, "sized": timer.wheel.size != 0,
            "non_empty_slots": len(timer.wheel.index)},
        "timercheck": None if check is None else {
            "last_read_time_ms": check.last_read_time_ms, "last_read_date": ms_date(check.last_read_time_ms),
            "last_timer_log_flush_pos": check.last_timer_log_flush_pos,
            "last_timer_queue_offset": check.last_timer_queue_offset,
            "master_timer_queue_offset": check.master_timer_queue_offset,
            "data_version": {"state_version": check.state_version, "timestamp": check.data_version_timestamp,
                             "counter": check.data_version_counter}},
        "timermetrics": timer.metrics(),
        "histogram": timer.histogram(),
        "problems": [{"file": p.file, "offset": p.offset, "reason": p.reason, "code": p.code,
                      "severity": p.severity} for p in timer.problems()],
    }
