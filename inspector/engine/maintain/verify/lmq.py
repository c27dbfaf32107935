"""verify's record-side check of LMQ multi-dispatch: a record whose ``INNER_MULTI_DISPATCH`` and
``INNER_MULTI_QUEUE_OFFSET`` the broker cannot dispatch as written, whether or not an LMQ unit points at it.

What rocketmq-all-5.3.1 does with such a record (``ConsumeQueue.multiDispatchLmqQueue``, after the record's own
unit, when ``MultiDispatchUtils.checkMultiDispatchQueue`` holds; see ``model/multidispatch.py``):

* the two lists, split like Java's ``String.split``, differ in length: it logs ``[bug]
  queues.length!=queueOffsets.length`` and dispatches to **none** of the queues (``lmq-offsets-mismatch``);
* an offset that is no Java long: ``Long.parseLong`` throws, and that queue and the ones after it get no unit
  (``lmq-bad-offset``). ``MultiDispatch.wrapMultiDispatch`` itself writes an empty offset for every name that is
  not ``%LMQ%`` (its ``queueOffsets[i]`` stays null, joined as ""), so a broker-written record naming a plain
  queue ends up here (or, as the last name, in a length mismatch: the trailing empty piece is dropped);
* a name that is not ``%LMQ%`` but has an offset: a unit in ``consumequeue/<name>/<the record's queue id>`` at
  that offset, a plain topic's queue written behind its own broker's back (``lmq-not-lmq``, a warning);
* a name holding ``/``: skipped (``lmq-skipped-name``, a warning).

Cost: only a store that can hold multi-dispatched records (``may_multi_dispatch``), or whose walk met a record
holding ``INNER_MULTI_DISPATCH`` (``QueueCoverage.saw_multi_dispatch``: the walk's kernels parse each record's
properties anyway, so noticing one more name costs nothing), is searched; its segments are searched for the property name (the C library's ``memmem``, else ``mmap.find``);
only a segment holding it is walked again, in columnar batches, and only the records whose properties hold it
are decoded. A store without multi-dispatched records pays one search per segment: 0.02 s of CPU per 64 MiB
(``mmap.find``: 0.04 s), against 0.7 s for the rest of verify.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Iterator

import numpy as np

from inspector.engine.model.multidispatch import (
    INNER_MULTI_DISPATCH,
    INNER_MULTI_QUEUE_OFFSET,
    is_lmq,
    java_long,
    java_split,
    needs_multi_dispatch,
)
from inspector.engine.model.records import Message, Problem
from inspector.engine.scan.batch import MessageBatch
from parsers.commitlog import NAME_VALUE_SEPARATOR

_NEEDLE = (INNER_MULTI_DISPATCH + NAME_VALUE_SEPARATOR).encode()
_SHOWN = 80  # characters of a queue name or offset quoted in a finding


def multi_dispatch_problems(msg: Message) -> list[Problem]:
    """What the broker's dispatch does not do as the record's two properties say (see the module doc); [] for
    a record it does not multi-dispatch (no properties, a retry, ``rmq_sys_`` or SCHEDULE_TOPIC_XXXX topic)."""
    queues, offsets = msg.properties.get(INNER_MULTI_DISPATCH), msg.properties.get(INNER_MULTI_QUEUE_OFFSET)
    if not needs_multi_dispatch(msg.topic) or not queues or not queues.strip() or not offsets or not offsets.strip():
        return []
    names, values = java_split(queues), java_split(offsets)
    where = (msg.file, msg.position)
    if len(names) != len(values):
        return [Problem(*where, f"{INNER_MULTI_DISPATCH} names {len(names)} queue(s) ({queues[:_SHOWN]!r}) but "
                        f"{INNER_MULTI_QUEUE_OFFSET} has {len(values)} offset(s) ({offsets[:_SHOWN]!r}): the broker "
                        "logs '[bug] queues.length!=queueOffsets.length' and dispatches the record to none of them "
                        "(ConsumeQueue.multiDispatchLmqQueue)", "lmq-offsets-mismatch")]
    found = []
    for position, (name, value) in enumerate(zip(names, values, strict=True)):
        shown = repr(name[:_SHOWN])
        if "/" in name:
            found.append(Problem(*where, f"{INNER_MULTI_DISPATCH} queue {position} {shown} holds '/': the broker "
                                 "skips it (no unit)", "lmq-skipped-name", "warning"))
            continue
        if not java_long(value):
            rest = len(names) - position - 1
            found.append(Problem(*where, f"{INNER_MULTI_QUEUE_OFFSET} offset {value[:_SHOWN]!r} of queue {position} "
                                 f"{shown} is no Java long: the broker's Long.parseLong throws, so this queue"
                                 + (f" and the {rest} after it get" if rest else " gets") + " no unit"
                                 + ("" if is_lmq(name) else f" ({shown} is no %LMQ% queue: MultiDispatch gives "
                                    "such a name no offset)"), "lmq-bad-offset"))
            break
        if not is_lmq(name):
            found.append(Problem(*where, f"{INNER_MULTI_DISPATCH} queue {position} {shown} is no %LMQ% queue: the "
                                 f"broker writes a unit for it in consumequeue/{name[:_SHOWN]}/{msg.queue_id} at "
                                 f"offset {value}, a plain queue's unit its own producers did not send",
                                 "lmq-not-lmq", "warning"))
    return found


def may_multi_dispatch(store) -> bool:
    """Whether the store can hold records a broker multi-dispatched: ``%LMQ%`` consume queues, the offsets file an
    ``enableLmq`` broker keeps, or ``enableLmq`` in the given broker.conf. A broker without LMQ assigns no
    ``INNER_MULTI_QUEUE_OFFSET`` (nothing to check), and searching every segment of a store that has none costs a
    second pass over the whole log (a 4 GiB store: verify 2.8 -> 1.1 GB/s, 4.5 GB of pages resident)."""
    config = getattr(store, "broker_config", None)
    if config is not None and config.enableLmq:
        return True
    if (store.root / "config" / "lmqConsumerOffset.json").exists():
        return True
    return any(is_lmq(topic) for topic, _ in store.queue_ids())


def lmq_record_problems(store, coverage=None) -> Iterator[Problem]:
    """``multi_dispatch_problems`` of every record whose properties hold ``INNER_MULTI_DISPATCH``, in log order
    (nothing searched in a store that cannot hold such records, :func:`may_multi_dispatch`, unless ``coverage``
    saw such a record in the walk); each such record also goes to ``coverage`` (a QueueCoverage: its LMQ units must be there, as a record's own unit must)."""
    may = may_multi_dispatch(store)  # once: a file stat and every queue name (20,000 segments asked it 20,000 times)
    for seg in store.commitlog.segments:
        yield from segment_lmq_problems(store, seg, coverage, may=may)


def segment_lmq_problems(store, seg, coverage=None, *, may: bool | None = None) -> list[Problem]:
    """``multi_dispatch_problems`` of the records of one segment whose properties hold ``INNER_MULTI_DISPATCH``
    (the Spark verify job checks segment by segment), each record also given to ``coverage`` when one is;
    ``may``: :func:`may_multi_dispatch` of the store when the caller knows it."""
    if may is None:
        may = may_multi_dispatch(store)
    if not may and not (coverage is not None and coverage.saw_multi_dispatch):
        return []
    commitlog = store.commitlog
    try:
        mf = commitlog.map(seg)
        buf = mf.buf
    except Exception:  # noqa: BLE001 - an unreadable segment is the walk's finding, not this check's
        return []
    held = _holds(mf, buf)
    mf.release(0, mf.size)  # the search touched every page: none need stay resident
    if not held:
        return []
    found: list[Problem] = []
    for item in commitlog.segment_batches(seg, check_crc=False):
        if isinstance(item, MessageBatch):
            messages = [item.message(row) for row in _rows_with_needle(buf, item)]
        elif isinstance(item, Message) and INNER_MULTI_DISPATCH in item.properties:
            messages = [item]
        else:
            continue
        for msg in messages:
            odd = multi_dispatch_problems(msg)
            found += odd
            if coverage is not None and not odd:  # an odd pair is said once, by its own finding
                coverage.add_multi_dispatch(msg)
    return found


def _libc_memmem():
    """glibc's (or the platform C library's) ``memmem``, twice as fast as ``mmap.find`` here; None without one."""
    try:
        name = ctypes.util.find_library("c")
        memmem = ctypes.CDLL(name).memmem if name else None
    except (OSError, AttributeError):
        return None
    if memmem is not None:
        memmem.restype = ctypes.c_void_p
        memmem.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
    return memmem


_MEMMEM = _libc_memmem()


def _holds(mf, buf) -> bool:
    """Whether the segment's bytes hold the property name anywhere."""
    if _MEMMEM is not None and mf.size:
        arr = mf.array
        return bool(_MEMMEM(arr.ctypes.data, arr.size, _NEEDLE, len(_NEEDLE)))
    return buf.find(_NEEDLE) >= 0


def _rows_with_needle(buf, batch: MessageBatch) -> list[int]:
    """The rows of ``batch`` whose properties hold the property name: memmem over the batch's bytes, each hit
    placed in its record by the properties' positions (segment positions, as ``buf``'s)."""
    at = batch.column("properties_position")
    if not len(at):
        return []
    ends = at + batch.column("properties_length")
    high = int(ends[-1])
    rows: list[int] = []
    hit = buf.find(_NEEDLE, int(at[0]), high)
    while hit >= 0:
        row = int(np.searchsorted(at, hit, side="right")) - 1
        if hit + len(_NEEDLE) <= int(ends[row]) and (not rows or rows[-1] != row):
            rows.append(row)  # in the record's properties (not its body)
        hit = buf.find(_NEEDLE, hit + 1, high)
    return rows
