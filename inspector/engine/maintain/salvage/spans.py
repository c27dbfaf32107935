"""Where a store's commitlog is damaged, as salvage sees it: spans of physical offsets.

Damage is what verify finds in the commitlog (an error whose walk skipped ``length`` bytes, a record the broker's
recovery would stop at: its CRC, a body that does not decompress), the segment grid's holes (a missing segment, a
directory where a segment belongs), a segment file shorter than the others (the rest of it is gone) and a torn
tail (bytes after the last whole record of the log: the broker's recovery cuts them, ``CommitLog.recoverNormally``).
Everything else between a segment's start and its data's end is intact.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from inspector.engine.model.records import Blank, Message, Problem
from inspector.engine.read.commitlog.mapped import data_end
from inspector.engine.scan.batch import MessageBatch
from parsers.commitlog import END_FILE_MIN_BLANK_LENGTH

__all__ = ["Damage", "Layout", "RECORD_CODES", "layout_of"]

# verify's findings at one record the broker's recovery stops at or a consumer cannot read (the record is whole:
# its size says how far the damage goes): CommitLog.checkMessageAndReturnSize checks the body CRC
# (checkCRCOnRecover); a body whose sysFlag says compressed and does not decompress fails every consumer
RECORD_CODES = {"crc-mismatch", "body-undecompressable", "crc-property-mismatch"}
# findings about a record that reads while its properties say something impossible (multi-dispatch, an inner
# batch, a DELAY the dispatch cannot parse, a malformed __CRC32#): the record is kept as it reads, and said
KEPT_CODES = {"lmq-offsets-mismatch", "lmq-bad-offset", "bad-inner-batch", "undispatchable", "bad-crc-property"}
# recovery does not compare PHYSICALOFFSET with the position: the record is kept, its field rewritten
REPAIRED_CODES = {"offset-mismatch"}
# the grid's holes are found from the segment names, not from these findings
HOLE_CODES = {"missing-segment", "not-a-segment-file"}
# a record that reads whole while its queue unit or index items say something else (its tag or keys changed
# since it was dispatched): kept as it reads, and said; a replica that holds it whole restores it
SUSPECT_CODES = {"cq-mismatch", "index-key-mismatch"}
_SIZE = struct.Struct(">i")


@dataclass(frozen=True)
class Damage:
    """A damaged span [start, end) of physical offsets inside one segment, and why."""

    start: int
    end: int
    code: str
    reason: str


@dataclass(frozen=True)
class Suspect:
    """Why a record that reads is suspect, and (topic, queue id, queue offset) of the queue unit that points at
    it when a consume-queue finding named one (the broker wrote the unit from the record: the unit says what the
    record's queue fields were)."""

    why: str
    unit: tuple[str, int, int] | None


def _unit_of(p: Problem) -> tuple[str, int, int] | None:
    """The (topic, queue id, queue offset) of the consume-queue unit a finding is at."""
    parts = p.file.split("/")
    if len(parts) != 4 or parts[0] != "consumequeue" or not parts[2].isdigit() or not parts[3].isdigit():
        return None
    return parts[1], int(parts[2]), (int(parts[3]) + p.offset) // 20


@dataclass
class Layout:
    """The log as salvage writes it: the segment grid, the damage, the record walk's figures."""

    segment_size: int
    starts: list[int]  # every segment of the grid, holes included, in order
    present: dict[int, object]  # start -> Segment of the files that exist
    damage: list[Damage]
    repairs: list[tuple[int, int]]  # (physical offset of a record, its PHYSICALOFFSET field as stored)
    data_end: int  # one past the last record kept or span lost: where the log ends after salvage
    record_starts: np.ndarray  # the physical offset of every record the walk read, sorted (for counts)
    suspects: dict[int, Suspect]  # offset of a record that reads but its queue unit or index items disagree


def layout_of(store, findings: list[Problem]) -> Layout:
    """The grid, the damage and the runs of readable records of ``store``'s commitlog (``findings``: verify's)."""
    log = store.commitlog
    size = log.segment_size
    present = {s.start_offset: s for s in log.segments}
    starts = sorted(present)
    if starts and size:
        starts = list(range(starts[0], starts[-1] + size, size))
    damage: list[Damage] = []
    repairs: list[tuple[int, int]] = []
    suspects: dict[int, Suspect] = {}
    for p in findings:
        if p.code in SUSPECT_CODES and p.points_at is not None and p.severity == "error":
            why = f"{p.code}: {p.reason} ({p.file} @ {p.offset})"
            unit = _unit_of(p) if p.code == "cq-mismatch" else None
            known = suspects.get(p.points_at)
            if known is None or (known.unit is None and unit is not None):
                suspects[p.points_at] = Suspect(why, unit)
            continue
        if not p.file.startswith("commitlog/") or p.severity != "error" or p.code in HOLE_CODES:
            continue
        name = p.file.rsplit("/", 1)[-1]
        seg = present.get(int(name)) if name.isdigit() else None
        if seg is None:
            continue
        at = seg.start_offset + p.offset
        if p.code in REPAIRED_CODES:
            repairs.append((at, p.offset))
        elif p.length:
            damage.append(Damage(at, at + p.length, p.code, p.reason))
        elif p.code in RECORD_CODES:
            n = _record_size(log, seg, p.offset)
            if n:
                damage.append(Damage(at, at + n, p.code, p.reason))
        elif p.code in KEPT_CODES:  # a record that reads whose properties say something impossible: kept, said
            suspects.setdefault(at, Suspect(f"{p.code}: {p.reason}", None))
        elif p.code == "no-blank" and p.offset < seg.file_size:  # a segment that ends without its BLANK: one
            damage.append(Damage(at, seg.start_offset + size, p.code, p.reason))  # is written (nothing lost)
    for start in starts:
        seg = present.get(start)
        if seg is None:
            damage.append(Damage(start, start + size, "missing-segment",
                                 "no segment file holds these offsets (deleted, or not a file)"))
        elif seg.file_size < size:
            damage.append(Damage(start + seg.file_size, start + size, "wrong-segment-size",
                                 f"the segment file is {seg.file_size:,} bytes of {size:,}: the rest is gone"))
    last_end, record_starts = _runs(log)
    end = last_end
    # a torn tail: non-zero bytes after the last whole record (a record the broker died writing)
    tail_seg = _last_data_segment(log)
    if tail_seg is not None:
        mf = log.map(tail_seg)
        tail = tail_seg.start_offset + data_end(mf, 0, mf.size)
        if tail > end and not any(d.start <= end < d.end for d in damage):
            damage.append(Damage(end, tail, "torn-tail", "the bytes after the last whole record: a record the "
                                 "broker did not finish writing (its recovery cuts them)"))
        end = max(end, tail)
    # nothing is lost past the log's end (a short last file's missing rest held no data)
    damage = _merged(sorted((d for d in damage if d.start < end), key=lambda d: d.start), size)
    return Layout(size, starts, present, damage, repairs, end, record_starts,
                  {k: v for k, v in suspects.items() if not any(d.start <= k < d.end for d in damage)})


def _record_size(log, seg, position: int) -> int:
    """The TOTALSIZE of the record at ``position`` when it stays inside its segment, else 0."""
    try:
        raw = log.read(seg.start_offset + position, 4)
    except Exception:  # noqa: BLE001 - unreadable: the finding's own place is all there is
        return 0
    (n,) = _SIZE.unpack(raw)
    return n if 0 < n <= seg.file_size - position else 0


def _last_data_segment(log):
    for seg in reversed(log.segments):
        mf = log.map(seg)
        if data_end(mf, 0, mf.size):
            return seg
    return None


def _runs(log) -> tuple[int, np.ndarray]:
    """The end of the last record the walk reads whole, and every such record's offset (sorted)."""
    offsets: list[np.ndarray] = []
    last = 0
    for item in log.batches(check_crc=False):
        if isinstance(item, MessageBatch):
            if len(item):
                offsets.append(item.physical_offsets.astype(np.int64))
                last = max(last, item.segment_start + item.end)
        elif isinstance(item, Message):
            offsets.append(np.array([item.physical_offset], dtype=np.int64))
            last = max(last, item.end_offset)
        elif isinstance(item, Blank):  # a segment's proper end: its 8 header bytes are the last non-zero ones
            last = max(last, item.physical_offset + END_FILE_MIN_BLANK_LENGTH)
    starts = np.sort(np.concatenate(offsets)) if offsets else np.zeros(0, np.int64)
    return last, starts


def _merged(spans: list[Damage], size: int) -> list[Damage]:
    """Overlapping or touching spans of one segment as one (the first's code and reason, the rest counted)."""
    out: list[Damage] = []
    for d in spans:
        if out and d.start <= out[-1].end and (not size or d.start // size == out[-1].start // size):
            prev = out[-1]
            if d.end > prev.end:
                out[-1] = Damage(prev.start, d.end, prev.code, prev.reason)
            continue
        out.append(d)
    return out
