"""A record still being written at the end of the log (or cut short by a crash), recognised from its bytes.

A broker copies each record into its mapped segment front to back, so a reader may meet the first part
of a record with zeros after it; a crash leaves the same. The careful step reports that as a warning
(:func:`in_progress`), ``message_at`` as :class:`RecordInProgress`, and ``follow`` waits there
(:func:`is_in_progress`) instead of calling it damage.
"""

from __future__ import annotations

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Problem
from inspector.engine.read.commitlog.mapped import is_all_zero
from inspector.engine.scan.decode import MIN_RECORD_SIZE
from parsers import commitlog as cl

MAGIC_PATTERNS = {
    "v1": cl.MAGIC_V1.to_bytes(4, "big", signed=True),
    "v2": cl.MAGIC_V2.to_bytes(4, "big", signed=True),
    "blank": cl.MAGIC_BLANK.to_bytes(4, "big", signed=True),
}


IN_PROGRESS = "end of data: a record is being written by a running broker, or was cut short by a crash"
_MAGIC_PREFIXES = {m[:k] + bytes(4 - k) for m in (MAGIC_PATTERNS["v1"], MAGIC_PATTERNS["v2"]) for k in range(5)}


def in_progress(file: str, position: int, why: str, code: str) -> Problem:
    """The warning for the end of a log whose last record is still being written (or was cut by a crash)."""
    return Problem(file, position, f"{why} (torn tail: the log ends here; {IN_PROGRESS})", code, "warning")


def is_in_progress(problem: Problem) -> bool:
    """Whether ``problem`` is that warning: the tail a follower waits at rather than damage."""
    return problem.severity == "warning" and IN_PROGRESS in problem.reason


class RecordInProgress(StoreError):
    """The record at this offset is not completely written yet (the active segment's tail)."""


def unfinished(buf, end: int, limit: int) -> bool:
    """A decoded record ending at ``end`` whose last byte is still zero, zeros after it: being written."""
    return end > 0 and buf[end - 1] == 0 and is_all_zero(buf, end, limit)


def tail_unfinished(buf, pos: int, limit: int) -> bool:
    """The record at ``pos`` says it ends at a byte still zero, with only zeros after it (cheap when not)."""
    if limit - pos < 8:
        return False
    if bytes(buf[pos + 4 : pos + 8]) not in _MAGIC_PREFIXES:
        return False  # a BLANK, or not a record at all
    total = int.from_bytes(buf[pos : pos + 4], "big", signed=True)
    return 8 <= total <= limit - pos and unfinished(buf, pos + total, limit)


def record_in_progress(buf, pos: int, limit: int) -> bool:
    """True when the bytes at ``pos`` are the first part of a record written front to back, zeros after it.

    That is what a reader sees while a broker copies a record into its mapped segment (and what a crash
    leaves). The TOTALSIZE read may itself be partly written (its low bytes still zero): it is never larger
    than the true size, which fits in the segment with room for a BLANK.
    """
    head = bytes(buf[pos : pos + 8]).ljust(8, b"\0")
    if head[4:8] not in _MAGIC_PREFIXES:
        return False
    if head[4:8] != MAGIC_PATTERNS["v1"] and head[4:8] != MAGIC_PATTERNS["v2"]:
        return is_all_zero(buf, pos + 8, limit)  # the header itself is unfinished
    total = int.from_bytes(head[:4], "big", signed=True)
    if total < MIN_RECORD_SIZE or total + 8 > limit - pos:
        return False
    return unfinished(buf, pos + total, limit)  # its last byte, and all after it, still zero

