"""An index file's header range against its items: what ``IndexFile.putKey`` writes there (spec §5.2).

On the first put the broker sets beginPhyOffset/beginTimestamp to that message's offset and STORETIMESTAMP; on
every put endPhyOffset/endTimestamp to the message just indexed. So with items, begin is item 1's message and
end the last item's, exactly. A file without items holds what its constructor set: begin = end = the previous
file's end (both left 0 when that was 0). Four reads per file (the first and last items, their records'
STORETIMESTAMP), never a pass over the items.

A range that is not what the broker wrote matters beyond verify: a query picks files by [begin, end] and
dates each item as ``beginTimestamp + timeDiff * 1000``, so a wrong range can hide messages that are there.
"""

from __future__ import annotations

from collections.abc import Callable

from inspector.engine.model.records import IndexItem, Problem
from inspector.engine.read.index.indexfile import IndexFileReader

StoredAt = Callable[[int], "int | None"]
"""The STORETIMESTAMP of the record at a physical offset, None when no readable record is there."""


def header_range_problems(reader: IndexFileReader, stored_at: StoredAt,
                          bounds: tuple[int, int] | None = None) -> list[Problem]:
    """Findings (``index-header``, at the field's byte offset) where the header's begin/end timestamp or phy
    offset is not what the broker wrote for these items. ``bounds``: (oldest, newest) STORETIMESTAMP of the
    indexed messages, compared with the header where the first or last item's record cannot be read."""
    h, rel = reader.header, reader.rel
    written = reader.written_items
    if not written:
        if not reader.trusted or h.index_count > 1:
            return []  # the counters' findings say it; what the items were is unknown
        found = []
        if h.begin_timestamp != h.end_timestamp:
            found.append(Problem(rel, 8, f"endTimestamp {h.end_timestamp} but beginTimestamp {h.begin_timestamp} "
                                 "in a file without items: the broker sets both to the previous file's end",
                                 "index-header"))
        if h.begin_phy_offset != h.end_phy_offset:
            found.append(Problem(rel, 24, f"endPhyOffset {h.end_phy_offset} but beginPhyOffset {h.begin_phy_offset} "
                                 "in a file without items: the broker sets both to the previous file's end",
                                 "index-header"))
        return found
    first, last = reader.item(1), reader.item(written)
    assert first is not None and last is not None  # written counts the items the file holds
    found = _edge(reader, "begin", first, stored_at, bounds[0] if bounds else None)
    # a file cut short (index-truncated) lost its last items: its end cannot be compared with them
    if written == min(reader.effective_index_count, reader.item_count) - 1:
        found += _edge(reader, "end", last, stored_at, bounds[1] if bounds else None)
    return found


# which end -> (phy offset field's position, timestamp field's position, the item it names, the fallback's words)
_EDGES = {"begin": (16, 0, "first", "after the oldest"), "end": (24, 8, "last", "before the newest")}


def _edge(reader: IndexFileReader, which: str, item: IndexItem, stored_at: StoredAt,
          bound: int | None) -> list[Problem]:
    """The header's ``which``PhyOffset and ``which``Timestamp against ``item`` (the first or the last) and its
    record; ``bound``: the oldest (begin) or newest (end) indexed store time, used when the record is unreadable."""
    phy_at, ts_at, nth, beyond = _EDGES[which]
    phy, ts = getattr(reader.header, f"{which}_phy_offset"), getattr(reader.header, f"{which}_timestamp")
    found = []
    if phy != item.phy_offset:
        found.append(Problem(reader.rel, phy_at, f"{which}PhyOffset {phy} but the {nth} item points at "
                             f"{item.phy_offset}", "index-header"))
    stored = stored_at(item.phy_offset)
    if stored is not None and ts != stored:
        found.append(Problem(reader.rel, ts_at, f"{which}Timestamp {ts} but the {nth} item's message was stored at "
                             f"{stored}", "index-header"))
    elif stored is None and bound is not None and (ts > bound if which == "begin" else ts < bound):
        found.append(Problem(reader.rel, ts_at, f"{which}Timestamp {ts} is {beyond} indexed message ({bound})",
                             "index-header"))
    return found
