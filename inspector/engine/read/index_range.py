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

from inspector.engine.model.records import Problem
from inspector.engine.read.indexfile import IndexFileReader

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
    # a file cut short (index-truncated) lost its last items: its end cannot be compared with them
    whole = written == min(reader.effective_index_count, reader.item_count) - 1
    found = []
    if h.begin_phy_offset != first.phy_offset:
        found.append(Problem(rel, 16, f"beginPhyOffset {h.begin_phy_offset} but the first item points at "
                             f"{first.phy_offset}", "index-header"))
    begin = stored_at(first.phy_offset)
    if begin is not None and h.begin_timestamp != begin:
        found.append(Problem(rel, 0, f"beginTimestamp {h.begin_timestamp} but the first item's message was stored "
                             f"at {begin}", "index-header"))
    elif begin is None and bounds is not None and h.begin_timestamp > bounds[0]:
        found.append(Problem(rel, 0, f"beginTimestamp {h.begin_timestamp} is after the oldest indexed message "
                             f"({bounds[0]})", "index-header"))
    if not whole:
        return found
    if h.end_phy_offset != last.phy_offset:
        found.append(Problem(rel, 24, f"endPhyOffset {h.end_phy_offset} but the last item points at "
                             f"{last.phy_offset}", "index-header"))
    end = stored_at(last.phy_offset)
    if end is not None and h.end_timestamp != end:
        found.append(Problem(rel, 8, f"endTimestamp {h.end_timestamp} but the last item's message was stored "
                             f"at {end}", "index-header"))
    elif end is None and bounds is not None and h.end_timestamp < bounds[1]:
        found.append(Problem(rel, 8, f"endTimestamp {h.end_timestamp} is before the newest indexed message "
                             f"({bounds[1]})", "index-header"))
    return found
