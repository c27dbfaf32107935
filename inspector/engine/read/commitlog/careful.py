"""The careful step: one record, BLANK, zero run or damaged range at a time, with everything wrong reported.

The commitlog walk takes runs of clean records the fast way (:mod:`inspector.engine.scan.walk`) and hands
every other position here: :func:`careful_step` decides what is there (a Message with its CRC and
PHYSICALOFFSET checks, a BLANK, the zero tail, a record still being written, damage) and where the walk
goes on, resyncing past damage at the next plausible record. ``segment_size`` is the configured size
(0: unknown), which a BLANK must fill up to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from inspector.engine.model.records import Blank, Problem, Segment
from inspector.engine.read.commitlog.mapped import first_nonzero, first_nonzero_within, is_all_zero
from inspector.engine.read.commitlog.tail import (
    MAGIC_PATTERNS,
    in_progress,
    record_in_progress,
    tail_unfinished,
    unfinished,
)
from inspector.engine.read.dledger.dledger import (
    header_before,
    header_fault,
    is_end_marker,
    newer_entry,
    read_header,
    with_entry,
)
from inspector.engine.scan.decode import (
    MIN_RECORD_SIZE,
    RecordError,
    decode_message,
    peek_head,
    stored_physical_offset,
)
from inspector.engine.scan.record_layout import as_array
from parsers import commitlog as cl
from parsers.dledger import HEADER_SIZE_FIELD_MIN, MAGIC_1

if TYPE_CHECKING:
    from inspector.engine.read.commitlog.commitlog import Entry


_LOOKS = 3  # how often the last segment's tail is read again while a broker is seen changing it


TAIL_NOT_CHECKED = "tail-not-checked"  # the code of the note a bounded walk (tail_budget) ends the log with


def careful_step(buf, pos: int, limit: int, seg: Segment, is_last: bool, check_crc: bool,
                 segment_size: int, allocated: Callable[[], int | None] | None = None,
                 tail_budget: int | None = None) -> tuple[list[Entry], int | None]:
    """Whatever is at ``pos`` (a record, a BLANK, zeros, damage): its entries and where to go on (None: stop).

    ``allocated`` tells, when asked, where the file's last allocated extent ends (None: unknown): a zero run
    is searched for its end only up to there, as the rest is a hole (a preallocated segment's zero tail is
    not read, so not faulted in). ``tail_budget`` (info's overview, the hex view): the zeros after the end of the
    last segment's data are read only that far (holes are free); past it the log is taken to end there, with a
    TAIL_NOT_CHECKED note (severity "info") instead of the garbage-after-end check, which stays verify's.

    A running broker may write the record at the tail between two of our reads of it (the header read as
    zeros, then the whole record there by the time the bytes after it are looked at): an error at the last
    segment's tail whose first bytes changed meanwhile is no damage, so the position is looked at again."""
    for _ in range(_LOOKS if is_last else 1):
        head = bytes(buf[pos : pos + 8])
        found, nxt = _step(buf, pos, limit, seg, is_last, check_crc, segment_size, allocated, tail_budget)
        ends_in_error = nxt is None and any(isinstance(e, Problem) and e.severity == "error" for e in found)
        if not (is_last and ends_in_error and bytes(buf[pos : pos + 8]) != head):
            break
    return found, nxt


def _step(buf, pos: int, limit: int, seg: Segment, is_last: bool, check_crc: bool, segment_size: int,
          allocated: Callable[[], int | None] | None, tail_budget: int | None = None) -> tuple[list[Entry], int | None]:
    """One look at ``pos`` (see :func:`careful_step`)."""
    if seg.entry_header and limit - pos >= 8 and peek_head(buf, pos) != (0, 0):
        return _entry_step(buf, pos, limit, seg, is_last, check_crc)  # zeros: the end of the log, as below
    if limit - pos < 8:
        if pos < limit and not is_all_zero(buf, pos, limit):
            return [Problem(seg.file, pos, f"{limit - pos} stray bytes at the end of the segment", "trailing-bytes")], None
        if not is_last:
            return [Problem(seg.file, pos, "segment ends without a BLANK record", "no-blank")], None
        return [], None
    total, magic = peek_head(buf, pos)
    if magic == cl.MAGIC_BLANK:
        found: list[Entry] = [Blank(seg.file, pos, seg.start_offset + pos, total)]
        expected = (segment_size or limit) - pos
        if total != expected:
            found.append(Problem(
                seg.file, pos, f"BLANK record says {total} bytes but {expected} remain", "blank-size", "warning"
            ))
        return found, None
    if total == 0 and magic == 0:
        bound = limit
        if allocated is not None:
            end = allocated()
            bound = limit if end is None else max(pos, min(limit, end))
        if is_last and tail_budget is not None:
            nonzero, decided = first_nonzero_within(buf, pos, bound, tail_budget)
            if not decided:
                return [Problem(seg.file, pos, f"end of data at {pos}: the {limit - nonzero:,} bytes from {nonzero} "
                                "on (zeros written out, not a hole) were not checked (verify checks them)",
                                TAIL_NOT_CHECKED, "info")], None
        else:
            nonzero = first_nonzero(buf, pos, bound)
        if nonzero >= bound:
            nonzero = limit
        if nonzero >= limit:
            if not is_last:
                return [Problem(
                    seg.file, pos, f"data ends at {pos} with {limit - pos} zero bytes and no BLANK record",
                    "no-blank",
                )], None
            return [], None  # the normal end of the log (zero tail of the active segment)
        # the first non-zero byte may be inside the next record's TOTALSIZE (its high bytes are zero)
        resync = _resync(buf, max(pos + 1, nonzero - 3), limit, seg, segment_size)
        if resync is None and is_last and record_in_progress(buf, pos, limit):
            # the broker began the next record between our two reads of these bytes
            return [in_progress(seg.file, pos, "a record is starting here", "record-in-progress")], None
        if resync is None:
            return [Problem(
                seg.file, pos,
                f"end of data at {pos}; {limit - nonzero} bytes after it (from {nonzero}) hold no readable record",
                "garbage-after-end" if is_last else "unreadable-bytes", length=limit - pos,
            )], None
        return [Problem(
            seg.file, pos, f"zeroed region of {resync - pos} bytes ({pos}..{resync}); next record at {resync}"
            f"{zeros_in(buf, pos, resync)}", "zeroed-region", length=resync - pos,
        )], resync
    if is_last and tail_unfinished(buf, pos, limit):  # checked before decoding (a broker may be writing it)
        try:
            decode_message(buf, pos, limit, file=seg.file, segment_start=seg.start_offset)
            code, why = "record-in-progress", "the record's last byte is not written yet"
        except RecordError as e:
            code, why = e.code, e.reason
        return [in_progress(seg.file, pos, why, code)], None
    try:
        msg = decode_message(buf, pos, limit, file=seg.file, segment_start=seg.start_offset)
    except RecordError as e:
        resync = _resync(buf, pos + 1, limit, seg, segment_size)
        if resync is None:
            if is_last and record_in_progress(buf, pos, limit):
                # a prefix of a record, zeros after: a broker is writing it (or died writing it)
                return [in_progress(seg.file, pos, e.reason, e.code)], None
            tail = " (torn tail: the log ends here)" if is_last else ""
            return [Problem(seg.file, pos, f"{e.reason}{tail}", e.code, length=limit - pos)], None
        return [Problem(seg.file, pos, f"{e.reason}; skipped {resync - pos} bytes to the next record at {resync}"
                        f"{zeros_in(buf, pos, resync)}", e.code, length=resync - pos)], resync
    found = []
    if msg.stored_physical_offset != msg.physical_offset:
        found.append(Problem(
            seg.file, pos,
            f"PHYSICALOFFSET field is {msg.stored_physical_offset} but the record is at {msg.physical_offset}",
            "offset-mismatch",
        ))
    if check_crc and not msg.body_crc_ok:
        found.append(Problem(seg.file, pos, f"body CRC {msg.body_crc} does not match the body", "crc-mismatch"))
    found.append(msg)
    return found, pos + msg.total_size


def _entry_step(buf, pos: int, limit: int, seg: Segment, is_last: bool, check_crc: bool,
                ) -> tuple[list[Entry], int | None]:
    """A DLedger entry at ``pos``: the -1 end-of-file marker, or a header DLedger's recovery accepts and the
    record after it (every record check, then the record carries the entry's Raft index and term)."""
    if is_end_marker(buf, pos, limit):
        remaining = peek_head(buf, pos)[1]
        found: list[Entry] = [Blank(seg.file, pos, seg.start_offset + pos, remaining)]
        if remaining != limit - pos:
            found.append(Problem(seg.file, pos, f"end-of-file marker says {remaining} bytes but {limit - pos} remain",
                                 "dledger-end-size", "warning"))
        return found, None
    header = read_header(buf, pos, limit)
    if is_last and header is not None and header.magic == MAGIC_1 and (
            HEADER_SIZE_FIELD_MIN < header.size <= limit - pos and unfinished(buf, pos + header.size, limit)):
        return [in_progress(seg.file, pos, "the entry's last byte is not written yet", "record-in-progress")], None
    fault = header_fault(header, pos, limit, seg.start_offset)
    if fault is not None:
        reason, code = fault
        resync = _resync(buf, pos + 1, limit, seg, 0)
        if resync is None:
            tail = " (torn tail: the log ends here)" if is_last else ""
            return [Problem(seg.file, pos, f"{reason}{tail}", code, length=limit - pos)], None
        return [Problem(seg.file, pos, f"{reason}; skipped {resync - pos} bytes to the next entry at {resync}",
                        code, length=resync - pos)], resync
    assert header is not None
    if header.magic != MAGIC_1:  # NOOP / CONFIG_CHANGE (DLedger 0.4+): framed like any entry, but no record
        return [Problem(seg.file, pos, newer_entry(header), "dledger-newer-entry", "warning")], pos + header.size
    record, end = pos + seg.entry_header, pos + header.size
    try:
        msg = decode_message(buf, record, end, file=seg.file, segment_start=seg.start_offset)
    except RecordError as e:  # the entry frames it: the walk goes on at the next entry
        return [Problem(seg.file, record, f"{e.reason} (the record of DLedger entry {header.index} at {pos})",
                        e.code)], end
    found = []
    if msg.total_size != header.body_length:
        found.append(Problem(seg.file, record, f"record TOTALSIZE {msg.total_size} but its entry's body is "
                             f"{header.body_length} bytes", "dledger-body-size"))
    if msg.stored_physical_offset != msg.physical_offset:
        found.append(Problem(
            seg.file, record,
            f"PHYSICALOFFSET field is {msg.stored_physical_offset} but the record is at {msg.physical_offset} "
            f"(entry pos {header.pos} + 48)", "offset-mismatch",
        ))
    if check_crc and not msg.body_crc_ok:
        found.append(Problem(seg.file, record, f"body CRC {msg.body_crc} does not match the body", "crc-mismatch"))
    found.append(with_entry(msg, header))
    return found, end


def record_at_or_after(buf, start: int, limit: int, seg: Segment, segment_size: int) -> int | None:
    """The position of the first plausible record (a DLedger data file: entry) at or after ``start`` in the
    mapped segment ``buf`` (magic, sizes and PHYSICALOFFSET agree, the record decodes), None when none is before
    ``limit``: a binary search by store time lands on a record from any byte (search/window.py)."""
    return _resync(buf, start, limit, seg, segment_size)


def _resync(buf, start: int, limit: int, seg: Segment, segment_size: int) -> int | None:
    """First position >= start where a plausible record begins (bounded: each candidate is checked once); in a
    DLedger data file, where a plausible entry begins (a sound header before a plausible record)."""
    h = seg.entry_header
    nexts = {name: buf.find(p, start + 4 + h, limit) for name, p in MAGIC_PATTERNS.items() if not (h and name == "blank")}
    while True:
        live = {n: i for n, i in nexts.items() if i >= 0}
        if not live:
            return None
        name, idx = min(live.items(), key=lambda kv: kv[1])
        cand = idx - 4
        if h:
            if cand - h >= start and header_before(buf, cand, limit, seg.start_offset) is not None and _plausible(
                    buf, cand, limit, seg, False, segment_size):
                return cand - h
        elif cand >= start and _plausible(buf, cand, limit, seg, name == "blank", segment_size):
            return cand
        nexts[name] = buf.find(MAGIC_PATTERNS[name], idx + 1, limit)


def _plausible(buf, pos: int, limit: int, seg: Segment, blank: bool, segment_size: int) -> bool:
    total, _ = peek_head(buf, pos)
    if blank:
        return total == (segment_size or limit) - pos
    if total < MIN_RECORD_SIZE or total > limit - pos:
        return False
    if stored_physical_offset(buf, pos) != seg.start_offset + pos:
        return False
    try:
        decode_message(buf, pos, limit, file=seg.file, segment_start=seg.start_offset)
    except RecordError:
        return False
    return True


ZERO_RUN = 64  # zero bytes in a row worth naming in damage (fields hold shorter runs: a long's high bytes)
ZEROS_NAMED = 3
ZEROS_BACK = 1 << 20  # how far before the damage a zero run is followed back to its start
ZEROS_AHEAD = 1 << 20  # how much of a damaged span is looked at for zero runs (the note says when cut): a span
# may be a hole of a sparse file, whose every page a read would make the page cache zero-fill
_PAGE = 4096


def zeros_in(buf, start: int, end: int) -> str:
    """`` (zeros at a..b, …)``: the runs of ZERO_RUN or more zero bytes in [start, end) of ``buf``, the first one
    followed back past ``start`` a page at a time while it is zeros (a zeroed page usually begins inside the record
    before the one that fails), so every view that meets the damage names the same zeros, wherever its walk began;
    "" when there are none."""
    arr = as_array(buf)
    cut = end > start + ZEROS_AHEAD
    stop = min(end, start + ZEROS_AHEAD, len(arr))
    lo = start
    while lo > 0 and start - lo < ZEROS_BACK and arr[lo - 1] == 0:
        below = max(0, lo - _PAGE, start - ZEROS_BACK)
        nonzero = np.flatnonzero(arr[below:lo])
        if len(nonzero):
            lo = below + int(nonzero[-1]) + 1
            break
        lo = below
    window = arr[lo:stop] == 0
    if not window.any():
        return ""
    edges = np.flatnonzero(np.diff(np.concatenate(([False], window, [False])).astype(np.int8)))
    runs = [(lo + int(a), lo + int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True) if b - a >= ZERO_RUN]
    if not runs:
        return ""
    shown = ", ".join(f"{a}..{b}" for a, b in runs[:ZEROS_NAMED])
    more = f" and {len(runs) - ZEROS_NAMED} more zero run(s)" if len(runs) > ZEROS_NAMED else ""
    total = sum(b - a for a, b in runs)
    looked = f", in its first {ZEROS_AHEAD >> 20} MiB" if cut else ""
    return f" (zeros at {shown}{more}: {total} zero bytes{looked})"
