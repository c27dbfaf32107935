"""Key lookups past an index file that cannot be trusted: scan the commitlog range the file covered.

An index file whose header counters do not fit its geometry (``IndexFileReader.trusted`` is False: indexCount
-1, say) cannot have its chains followed, yet the messages it indexed are still in the log. The broker's query
would answer "not found"; we read the records the file covered instead, and every hit says how it was found.
"""

from __future__ import annotations

from collections.abc import Iterator

from inspector.engine.model.records import Message
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.index.indexfile import IndexFileReader


def covered_range(reader: IndexFileReader, newer: IndexFileReader | None, older: IndexFileReader | None,
                  log_start: int, log_end: int) -> tuple[int, int]:
    """[start, end] of the physical offsets ``reader`` indexed: its header's begin/end phy offsets when they
    make sense; otherwise from where the older file's range ended to where the newer file's begins (the whole
    log at the edges). Files are written one after the other, so the neighbours bound it either way."""
    h = reader.header
    if log_start <= h.begin_phy_offset <= h.end_phy_offset <= log_end:
        return h.begin_phy_offset, h.end_phy_offset
    start = older.header.end_phy_offset if older is not None and older.trusted else log_start
    end = newer.header.begin_phy_offset if newer is not None and newer.trusted else log_end
    start = min(max(start, log_start), log_end)
    return start, max(start, min(end, log_end))


def scan_for_key(log: CommitLog, topic: str | None, key: str, begin: int, end: int, start: int, stop: int) -> Iterator[Message]:
    """Messages of ``topic`` (None: of any topic) with ``key`` (a KEYS piece or the UNIQ_KEY) stored in [begin, end] (ms) whose
    record starts in [start, stop] of the log. Walks from the start of the segment holding ``start``, so
    ``start`` need not be a record boundary."""
    seg = log.segment_for(start)
    for entry in log.entries(seg.start_offset if seg is not None else start, check_crc=False):
        if not isinstance(entry, Message):
            continue
        if entry.physical_offset > stop:
            return
        if (entry.physical_offset >= start and (topic is None or entry.topic == topic) and begin <= entry.store_timestamp <= end
                and (key == entry.unique_key or key in entry.keys)):
            yield entry
