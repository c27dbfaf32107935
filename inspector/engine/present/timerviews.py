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
from functools import lru_cache

import numpy as np

from inspector.engine.model import meaning
from inspector.engine.model.records import Message
from inspector.engine.read.timer.timerlinks import (
    P_DEL_UNIQKEY,
    P_TIMER_OUT_MS,
    P_UNIQ_KEY,
    RecordLink,
    SlotChain,
    TimerStore,
    unit_row,
)
from inspector.engine.read.timer.timerstore import magic_names
from inspector.engine.scan.kernels import compiled_for
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


def _spread(column: np.ndarray, encode) -> tuple[list[str], np.ndarray]:
    """(``encode(value)`` of each distinct value, each element's index into that list)."""
    values, inverse = np.unique(column, return_inverse=True)
    return [encode(int(v)) for v in values], inverse


def _iso(values: np.ndarray) -> list[str]:
    """ms times as ISO UTC dates with ms (numpy, vectorised)."""
    return [t + "Z" for t in np.datetime_as_string(values.astype("datetime64[ms]"), unit="ms").tolist()]


# the unit line: literal k, then field k: "i" an integer, "s" JSON text as given, "q" a string put in quotes
_FIELDS = (("offset", "i"), ("file", "q"), ("position", "i"), ("unit_size", "i"), ("prev_pos", "i"), ("magic", "i"),
           ("magic_names", "s"), ("write_time", "i"), ("write_date", "q"), ("delay_time", "i"),
           ("delivery_time", "i"), ("delivery_date", "q"), ("commitlog_offset", "i"), ("size", "i"),
           ("topic_hash", "i"), ("topic", "s"), ("pending", "s"), ("record", "s"), ("record_problem", "s"))
_LITERALS = [("{" if n == 0 else '",' if _FIELDS[n - 1][1] == "q" else ",") + f'"{name}":' + '"' * (kind == "q")
             for n, (name, kind) in enumerate(_FIELDS)] + ['"' * (_FIELDS[-1][1] == "q") + "}\n"]
_LINE = "".join(lit + ("%d" if kind == "i" else "%s") for lit, (_, kind) in zip(_LITERALS, _FIELDS, strict=False)) \
    + _LITERALS[-1]
_LIT_BYTES = [lit.encode() for lit in _LITERALS]
_OUTSIDE = json.dumps("commitlog offset outside the commitlog (past its end)")
_EXPIRED = json.dumps("commitlog offset before the commitlog's first offset: the broker's cleanup deleted its record")


@lru_cache(maxsize=64)
def _msg_id_prefix(ip: str, port: int) -> str:
    """The store-host part of an offset msgId (built once per host: the construct build costs ~25 µs)."""
    return meaning.offset_msg_id(ip, port, 0)[:-16]


def _msg_id(msg: Message) -> str:
    """``msg.msg_id`` (store host + physical offset, upper-case hex), the host part cached."""
    return _msg_id_prefix(msg.store_host.ip, msg.store_host.port) + f"{msg.stored_physical_offset & (2**64 - 1):016X}"


def record_view(link: RecordLink) -> dict | None:
    """The linked rmq_sys_wheel_timer record, compact: ids, TIMER_OUT_MS, real topic and queue."""
    msg: Message | None = link.message
    if msg is None:
        return None
    props = msg.properties
    return {"physical_offset": msg.physical_offset, "topic": msg.topic, "queue_id": msg.queue_id,
            "queue_offset": msg.queue_offset, "msg_id": _msg_id(msg), "unique_key": props.get(P_UNIQ_KEY),
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
    """JSON Lines of units ``start`` .. ``start + limit`` (rows of the log, in log order), one by one."""
    for chunk in timer_unit_chunks(timer, start, limit):
        yield from bytes(chunk).decode().splitlines()


def timer_unit_chunks(timer: TimerStore, start: int = 0, limit: int | None = None) -> Iterator[bytes | memoryview]:
    """The same JSON Lines as UTF-8 bytes (or a memoryview of them) in chunks, each line ending in a newline,
    made in bulk: numpy columns, each distinct date, file, topic and magic encoded once, the lines laid out by a
    compiled kernel (or, for a small log or without numba, one ``%`` template per line: the same text, tests
    hold them equal); a record is read only for units whose commitlog offset lies inside the log."""
    units = timer.units()
    stop = len(units) if limit is None else min(len(units), start + limit)
    if stop <= start:
        return
    whole = _Whole(timer, start, stop)
    kernels = compiled_for((stop - start) * 52)
    for at in range(start, stop, CHUNK):
        end = min(stop, at + CHUNK)
        ints, strings = _columns(timer, whole, at, end)
        yield _kernel_text(kernels, ints, strings, end - at) if kernels is not None else \
            _python_text(ints, strings, end - at).encode()


class _Whole:
    """What the chunks of one listing share: which units are linkable or pending, the dates of every distinct
    write and delivery time (numpy formats each once, not once per chunk)."""

    def __init__(self, timer: TimerStore, start: int, stop: int):
        u = timer.units().units[start:stop]
        self.start = start
        self.linkable = timer.linkable()[start:stop]
        pending = timer.pending_mask()
        self.pending = None if pending is None else pending[start:stop]
        self.write = u["write_time"].astype(np.int64)
        self.delivery = self.write + u["delay"].astype(np.int64)
        self.dates = {}
        for name, values in (("write_date", self.write), ("delivery_date", self.delivery)):
            distinct, inverse = np.unique(values, return_inverse=True)
            self.dates[name] = (_iso(distinct), inverse.reshape(-1))


def _columns(timer: TimerStore, whole: _Whole, at: int, end: int
             ) -> tuple[dict[str, np.ndarray], dict[str, tuple[list[str], np.ndarray]]]:
    """The integer columns, and each text column as (distinct texts, per-row index) of units ``at`` .. ``end``."""
    units = timer.units()
    u = units.units[at:end]
    offsets = units.offset[at:end]
    position = offsets % timer.log.file_size
    lo, hi = at - whole.start, end - whole.start
    write, delivery = whole.write[lo:hi], whole.delivery[lo:hi]
    hashes = u["topic_hash"].astype(np.int64)
    names = timer.topic_names()
    n = end - at
    ints = {"offset": offsets, "position": position, "unit_size": u["size"].astype(np.int64),
            "prev_pos": u["prev_pos"].astype(np.int64), "magic": u["magic"].astype(np.int64), "write_time": write,
            "delay_time": u["delay"].astype(np.int64), "delivery_time": delivery,
            "commitlog_offset": u["commitlog_offset"].astype(np.int64), "size": u["record_size"].astype(np.int64),
            "topic_hash": hashes}
    strings = {
        "file": _spread(offsets - position, lambda f: f"timerlog/{f:020d}"),
        "magic_names": _spread(ints["magic"], lambda m: json.dumps(magic_names(m), separators=(",", ":"))),
        "write_date": (whole.dates["write_date"][0], whole.dates["write_date"][1][lo:hi]),
        "delivery_date": (whole.dates["delivery_date"][0], whole.dates["delivery_date"][1][lo:hi]),
        "topic": _spread(hashes, lambda h: json.dumps(names[h][0]) if len(names.get(h, ())) == 1 else "null"),
    }
    strings["pending"] = (["null"], np.zeros(n, np.int64)) if whole.pending is None else \
        (["false", "true"], whole.pending[lo:hi].astype(np.int64))
    expired = (ints["commitlog_offset"] < timer.commitlog.min_offset).astype(np.int64)
    records, problems = (["null"], np.zeros(n, np.int64)), ([_OUTSIDE, _EXPIRED], expired)
    topic_texts, topic_index = strings["topic"]
    for i in np.flatnonzero(whole.linkable[lo:hi]).tolist():  # a record to read: texts of its own
        found = timer.record(int(ints["commitlog_offset"][i]), int(ints["size"][i]))
        for texts, index, text in ((records[0], records[1], json.dumps(record_view(found), separators=(",", ":"))),
                                   (problems[0], problems[1], json.dumps(found.problem))):
            index[i] = len(texts)
            texts.append(text)
        named = timer.topic_of(int(hashes[i]), found)
        topic_index[i] = len(topic_texts)
        topic_texts.append(json.dumps(named) if named is not None else "null")
    strings["record"], strings["record_problem"] = records, problems
    return ints, strings


def _python_text(ints: dict[str, np.ndarray], strings: dict, n: int) -> str:
    columns = []
    for name, kind in _FIELDS:
        if kind == "i":
            columns.append(ints[name].tolist())
        else:
            texts, index = strings[name]
            columns.append(np.array(texts, dtype=object)[index].tolist())
    return "".join(map(_LINE.__mod__, zip(*columns, strict=True))) if n else ""


def _kernel_text(kernels, ints: dict[str, np.ndarray], strings: dict, n: int) -> memoryview:
    int_names = [name for name, kind in _FIELDS if kind == "i"]
    str_names = [name for name, kind in _FIELDS if kind != "i"]
    int_cols = np.stack([ints[name] for name in int_names]) if n else np.zeros((len(int_names), 0), np.int64)
    pieces: list[bytes] = []
    index_rows = []
    widest = 0
    for name in str_names:
        texts, index = strings[name]
        encoded = [t.encode() for t in texts]
        index_rows.append(index.astype(np.int64) + len(pieces))
        pieces += encoded
        widest += max(map(len, encoded))
    tab = np.frombuffer(b"".join(pieces), np.uint8) if pieces else np.zeros(0, np.uint8)
    tab_offs = np.zeros(len(pieces) + 1, np.int64)
    np.cumsum([len(p) for p in pieces], out=tab_offs[1:])
    lits = np.frombuffer(b"".join(_LIT_BYTES), np.uint8)
    lit_offs = np.zeros(len(_LIT_BYTES) + 1, np.int64)
    np.cumsum([len(p) for p in _LIT_BYTES], out=lit_offs[1:])
    kinds = np.array([0 if kind == "i" else 1 for _, kind in _FIELDS], np.int64)
    cols = np.array([int_names.index(name) if kind == "i" else str_names.index(name) for name, kind in _FIELDS],
                    np.int64)
    out = np.empty(n * (len(lits) + 20 * len(int_names) + widest), np.uint8)
    size = kernels.template_lines(out, lits, lit_offs, kinds, cols, int_cols, tab, tab_offs, np.stack(index_rows))
    return out[:size].data


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
            "hops": len(chain.hops), "counted": chain.counted, "num_matches": None if chain.truncated else chain.counted == chain.num,
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


def timer_line(store) -> str | None:
    """The timer store in one line for an overview (units, pending, non-empty slots, problems); None when the
    store has none."""
    from inspector.engine.read.store.answers import open_timer

    timer = open_timer(store)
    if not timer.present:
        return None
    summary = timer_summary(timer)
    slots = summary["wheel"]["non_empty_slots"] if summary["wheel"] else 0
    pending = "?" if summary["pending"] is None else f"{summary['pending']:,}"
    problems = len(summary["problems"])
    return (f"{summary['units']:,} timer-log unit(s), {pending} pending, {slots:,} non-empty wheel slot(s)"
            + (f", {problems} problem(s)" if problems else ""))
