"""Retention: what the broker's cleanup leaves behind, named as normal rather than as damage.

A broker deletes its oldest commitlog segments when their time is up (``DefaultMessageStore.CleanCommitLogService``
-> ``MappedFileQueue.deleteExpiredFileByTime``, 4.9.8 and 5.3.1): whole files, oldest first, never the last, so
the log's first offset becomes the first remaining segment's name. The consume-queue and index files are cleaned
after it only when wholly below that offset (``CleanConsumeQueueService`` -> ``MappedFileQueue.deleteExpiredFileByOffset``,
``IndexService.deleteExpiredFile``): a file straddling it keeps its units and items pointing into the deleted part,
and the broker skips them (``ConsumeQueue.correctMinOffset`` at load sets the queue's min offset past them).

So an offset below the log's first offset is *expired*; an offset in a gap between two present segments is not:
retention never deletes a segment in the middle, and such a hole stays an error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from inspector.engine.model.records import ChainWalk, Problem
from parsers.msgid import MsgIdError, decode_offset_msg_id

__all__ = ["ExpiredRange", "expired_reason", "id_expired_reason", "is_expired", "key_expired_reason"]


def is_expired(floor: int, offset: int) -> bool:
    """Whether ``offset`` is below the log's first offset ``floor`` (``CommitLog.retention_floor``, 0: nothing was
    removed): its record was removed by retention."""
    return 0 <= offset < floor


def expired_reason(offset: int, first: int) -> str:
    """The answer for a lookup of an offset retention removed (distinct from "no such message")."""
    return f"expired: physical offset {offset} is below the log's first offset {first} (removed by retention)"


def id_expired_reason(floor: int, text: str) -> str | None:
    """For an id no message answered: "expired: ..." when, read as an offset msgId, its offset is below the log's
    first offset ``floor`` (retention removed its record); None otherwise (no such message, or not an offset msgId)."""
    try:
        offset = decode_offset_msg_id(text.strip().upper()).offset
    except MsgIdError:
        return None
    if not is_expired(floor, offset):
        return None
    return f"message id {text.strip()}: {expired_reason(offset, floor)}"


@dataclass
class ExpiredRange:
    """Units (or items) of one file or queue that point below the log's first offset, counted into one info
    finding at the first of them: retention's leftovers, never an error."""

    first_offset: int  # the log's first offset
    count: int = 0
    file: str = ""
    position: int = 0
    low_label: int = 0  # the first and last unit's queue offset (or item number)
    high_label: int = 0
    low_phy: int = 0
    high_phy: int = 0

    def add(self, file: str, position: int, label: int, phy: int) -> None:
        self.add_many(file, position, label, label, 1, phy, phy)

    def add_many(self, file: str, position: int, low_label: int, high_label: int, count: int, low_phy: int,
                 high_phy: int) -> None:
        """``count`` of them, the first at ``file``/``position`` (a run of units counted on arrays)."""
        if not count:
            return
        if not self.count:
            self.file, self.position, self.low_label, self.low_phy, self.high_phy = (file, position, low_label,
                                                                                     low_phy, high_phy)
        self.high_label = high_label
        self.low_phy, self.high_phy = min(self.low_phy, low_phy), max(self.high_phy, high_phy)
        self.count += count

    def problem(self, what: str, code: str, why: str) -> Problem | None:
        """``what``: "unit(s)" or "item(s)"; ``why``: the broker method that skips them."""
        if not self.count:
            return None
        which = (f"{self.low_label}" if self.low_label == self.high_label
                 else f"{self.low_label}..{self.high_label}")
        return Problem(self.file, self.position,
                       f"{self.count} {what} {which} point below the log's first offset "
                       f"{self.first_offset} (at {self.low_phy}..{self.high_phy}): expired by retention, "
                       f"skipped by the broker ({why})", code, "info")

    def before(self, problems: list[Problem], what: str, code: str, why: str) -> list[Problem]:
        """``problems`` with this range's one info finding (:meth:`problem`) first, when there is one: it names
        the file's first units (or items), so it comes first in file order."""
        info = self.problem(what, code, why)
        return problems if info is None else [info, *problems]


def key_expired_reason(floor: int, walks: Iterable[ChainWalk], topic: str, key: str) -> str | None:
    """Why a key lookup found nothing when items of the key's hash (``walks``: topic#key's chains) point below the
    log's first offset ``floor`` (an index file straddling it keeps them: ``IndexService.deleteExpiredFile``):
    "expired: ..."; None when none does. Their records are gone, so their keys cannot be read: the items match
    by hash only, and the answer says so."""
    if not floor:
        return None
    gone = sorted({step.item.phy_offset for walk in walks for step in walk.steps
                   if step.hash_matches and 0 <= step.item.phy_offset < floor})
    if not gone:
        return None
    shown = ", ".join(str(o) for o in gone[:5]) + (f" and {len(gone) - 5} more" if len(gone) > 5 else "")
    return (f"expired: {len(gone)} index item(s) of {topic}#{key}'s hash point below the log's first offset "
            f"{floor} (at {shown}): their records were removed by retention")
