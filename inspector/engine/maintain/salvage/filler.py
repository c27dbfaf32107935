"""The records that stand in a lost span so the broker's recovery walks past it and consumers' offsets stay put.

``CommitLog.checkMessageAndReturnSize`` accepts a record when its magic, sizes and body CRC agree; a zero or a
garbled header in the middle of a segment ends the recovery there (``recoverNormally`` truncates the rest), and the
BLANK magic ends a segment, not a span. So a lost span is written as records:

* a **placeholder** for each record a consume-queue unit placed in the span, at the record's offset with the
  record's size, in its topic and queue at its queue offset: the rebuilt queue keeps every unit where it was
  (``ConsumeQueue.putMessagePositionInfo`` appends at the write position; a gap would move every later unit and
  every consumer offset). Its tag is ``RMQ_SALVAGE_LOST``: the unit's tagsCode is that tag's hash, so a consumer
  subscribed to tags skips it at the broker (``ExpressionMessageFilter.isMatchedByConsumeQueue``); one subscribed
  to ``*`` receives it: an empty-looking message whose body and ``RMQ_SALVAGE`` property say what was lost. A
  placeholder in ``SCHEDULE_TOPIC_XXXX`` carries its level (DELAY = queue id + 1) and REAL_TOPIC = the filler
  topic, so the schedule service delivers it where no consumer reads;
* **fillers** (topic ``RMQ_SALVAGE_FILLER``, queue 0) for the bytes no unit names, at most 4 MiB each;
* a **BLANK** from the last record to the segment's end when later segments hold data (as the broker ends a
  segment a record does not fit in: ``DefaultAppendMessageCallback.doAppend``), else zeros (the log's end).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from inspector.engine.maintain.write.encode import encode_record
from parsers.commitlog import END_FILE_MIN_BLANK_LENGTH, BlankRecord

__all__ = ["FILLER_TOPIC", "LOST_TAG", "Piece", "fill_span", "filler_min_size"]

FILLER_TOPIC = "RMQ_SALVAGE_FILLER"
LOST_TAG = "RMQ_SALVAGE_LOST"
SALVAGE_PROPERTY = "RMQ_SALVAGE"
SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX"
MAX_FILLER = 4 << 20  # the broker's default maxMessageSize (MessageStoreConfig): no filler larger
_NOTE = b"rmq-inspect salvage: the record that stood here was lost; this one keeps its place. "


@dataclass(frozen=True)
class Stamp:
    """Times and hosts a stand-in record takes from its intact neighbour (the log stays in time order)."""

    store_timestamp: int = 0
    born_timestamp: int = 0
    store_host: str = "127.0.0.1:0"
    born_host: str = "127.0.0.1:0"


@dataclass(frozen=True)
class Piece:
    """One record (or the BLANK, or zeros) written at ``offset``: ``kind`` placeholder / filler / blank / zeros."""

    offset: int
    size: int
    kind: str
    data: bytes  # empty for zeros


def _record(topic: str, queue_id: int, queue_offset: int, offset: int, size: int, props: dict[str, str],
            stamp: Stamp) -> bytes | None:
    """A message record of exactly ``size`` bytes (its body padded with the note), or None when it cannot be."""
    base = encode_record(topic=topic, body=b"", properties=props, physical_offset=offset,
                         born_timestamp=stamp.born_timestamp, born_host=stamp.born_host,
                         store_timestamp=stamp.store_timestamp, store_host=stamp.store_host,
                         queue_id=queue_id, queue_offset=queue_offset)
    room = size - len(base)
    if room < 0:
        return None
    body = (_NOTE * (room // len(_NOTE) + 1))[:room]
    out = encode_record(topic=topic, body=body, properties=props, physical_offset=offset,
                        born_timestamp=stamp.born_timestamp, born_host=stamp.born_host,
                        store_timestamp=stamp.store_timestamp, store_host=stamp.store_host,
                        queue_id=queue_id, queue_offset=queue_offset)
    return out if len(out) == size else None


def placeholder(rec, stamp: Stamp) -> bytes | None:
    """The stand-in of one lost record (see the module's text); fewer properties when its size is small."""
    note = f"lost at {rec.physical_offset}"
    if rec.topic == SCHEDULE_TOPIC:
        choices = [{"DELAY": str(rec.queue_id + 1), "REAL_TOPIC": FILLER_TOPIC, "REAL_QID": "0",
                    SALVAGE_PROPERTY: note}, {"DELAY": str(rec.queue_id + 1), "REAL_TOPIC": FILLER_TOPIC,
                                               "REAL_QID": "0"}]
    else:
        choices = [{"TAGS": LOST_TAG, SALVAGE_PROPERTY: note}, {"TAGS": LOST_TAG}, {}]
    for props in choices:
        data = _record(rec.topic, rec.queue_id, rec.queue_offset, rec.physical_offset, rec.size, props, stamp)
        if data is not None:
            return data
    return None


@functools.lru_cache(maxsize=1)
def filler_min_size() -> int:
    return len(encode_record(topic=FILLER_TOPIC, body=b"", properties={SALVAGE_PROPERTY: "filler"},
                             physical_offset=0, born_timestamp=0, born_host="127.0.0.1:0", store_timestamp=0,
                             store_host="127.0.0.1:0"))


class FillerCounter:
    """The queue offsets of ``RMQ_SALVAGE_FILLER``/0, in log order across the whole salvage."""

    def __init__(self) -> None:
        self.next = 0


def _fillers(start: int, size: int, stamp: Stamp, counter: FillerCounter) -> list[Piece]:
    """Filler records covering exactly [start, start + size) (size >= filler_min_size())."""
    smallest = filler_min_size()
    out = []
    at, left = start, size
    while left:
        n = min(left, MAX_FILLER)
        if 0 < left - n < smallest:  # the last piece must be a whole record too
            n = left - smallest
        data = _record(FILLER_TOPIC, 0, counter.next, at, n, {SALVAGE_PROPERTY: "filler"}, stamp)
        assert data is not None  # n >= smallest by construction
        counter.next += 1
        out.append(Piece(at, n, "filler", data))
        at, left = at + n, left - n
    return out


def fill_span(start: int, end: int, lost: list, stamp: Stamp, *, after: str,
              counter: FillerCounter) -> tuple[list[Piece], list]:
    """The pieces that fill [start, end) (``lost``: the LostRecords inside it, sorted), and the lost records left
    without a placeholder (a size too small for one, or a gap around it too small for a filler). ``after`` says
    what follows the span: "data" (records of this segment: fillers to its end), "next-segment" (the span ends
    the segment and later segments hold data: a BLANK), "end" (the log ends: zeros)."""
    smallest = filler_min_size()
    chosen: list[tuple[object, bytes]] = []
    dropped = []
    for rec in lost:
        data = placeholder(rec, stamp)
        if data is None:
            dropped.append(rec)
        else:
            chosen.append((rec, data))
    while True:  # drop a placeholder whose gap before it is too small for a filler, until every gap fits
        bad = _first_bad_gap(start, end, chosen, smallest, after)
        if bad is None:
            break
        dropped.append(chosen.pop(bad)[0])
    pieces: list[Piece] = []
    at = start
    for rec, data in chosen:
        if rec.physical_offset > at:
            pieces += _fillers(at, rec.physical_offset - at, stamp, counter)
        pieces.append(Piece(rec.physical_offset, rec.size, "placeholder", data))
        at = rec.physical_offset + rec.size
    if at < end:
        if after == "next-segment":
            pieces.append(Piece(at, end - at, "blank", BlankRecord.build({"total_size": end - at})))
        elif after == "end":
            pieces.append(Piece(at, end - at, "zeros", b""))
        else:
            pieces += _fillers(at, end - at, stamp, counter)
    return pieces, sorted(dropped, key=lambda r: r.physical_offset)


def _first_bad_gap(start: int, end: int, chosen: list, smallest: int, after: str) -> int | None:
    """The index of a placeholder to drop: one whose gap before it (or the span's last gap) cannot be filled."""
    at = start
    for i, (rec, _) in enumerate(chosen):
        gap = rec.physical_offset - at
        if 0 < gap < smallest:
            return i
        at = rec.physical_offset + rec.size
    gap = end - at
    least = {"data": smallest, "next-segment": END_FILE_MIN_BLANK_LENGTH, "end": 1}[after]
    if 0 < gap < least:
        return len(chosen) - 1 if chosen else None
    return None


def span_too_small(start: int, end: int, after: str) -> bool:
    """A span that cannot be filled at all: followed by data and shorter than the smallest filler record, or
    ending a segment in fewer bytes than a BLANK."""
    least = {"data": filler_min_size(), "next-segment": END_FILE_MIN_BLANK_LENGTH, "end": 1}[after]
    return 0 < end - start < least
