"""``salvage --from-replica B``: a lost span taken from another copy of the store (a slave, an older backup) when
that copy holds whole records exactly there and agrees with this store around the span."""

from __future__ import annotations

from inspector.engine.model.records import Blank, Message, Problem

__all__ = ["replica_bytes"]

AROUND = 4096  # bytes compared on each side of the span (fewer where the segment or the log's data ends)


def replica_bytes(store, replica, start: int, end: int, layout) -> bytes | str:
    """The replica's bytes for [start, end), or why they cannot be taken: its records there must read whole (CRC
    checked) from ``start`` and end exactly at ``end`` (or at a BLANK that ends the segment where the span does),
    and the intact bytes just before and after the span must be equal in both stores."""
    rlog = replica.commitlog
    seg = rlog.segment_for(start)
    if seg is None:
        return "the replica has no segment there"
    size = layout.segment_size
    seg_start = start - start % size
    seg_end = seg_start + size
    at = start
    for item in rlog.entries(start, check_crc=True):
        if at >= end:
            break
        if isinstance(item, Problem):
            if item.severity != "error":
                continue
            return f"the replica is damaged there too ({item.code} at {item.file} @ {item.offset})"
        if isinstance(item, Message):
            if item.physical_offset != at:
                return f"the replica's records do not start at {at:,}"
            at = item.end_offset
        elif isinstance(item, Blank):
            if item.physical_offset != at or end != seg_end:
                return "the replica's segment ends inside the span"
            at = seg_end
    if at != end:
        return f"the replica's records end at {at:,}, not at the span's end {end:,}"
    compared = 0
    for lo, hi in ((max(seg_start, start - AROUND), start), (end, min(seg_end, end + AROUND, layout.data_end))):
        if hi <= lo or any(d.start < hi and lo < d.end for d in layout.damage if (d.start, d.end) != (start, end)):
            continue
        try:
            mine, theirs = store.commitlog.read(lo, hi - lo), rlog.read(lo, hi - lo)
        except Exception as e:  # noqa: BLE001 - a side that cannot be read is not compared
            return f"cannot compare around the span: {e}"
        if mine != theirs:
            return f"the replica differs from this store at {lo:,}..{hi:,} (not a copy of this log there)"
        compared += hi - lo
    if not compared:
        return "no intact bytes around the span to compare with the replica"
    try:
        return rlog.read(start, end - start)
    except Exception as e:  # noqa: BLE001
        return f"cannot read the replica: {e}"
