"""Follow a live commitlog: yield each message once it is completely written, like ``tail -f``.

A running broker writes records into a preallocated segment through mmap and starts a new segment file
when one fills (spec §2.11, §3.1). Each poll opens the commitlog afresh (new segment files appear) and walks
from where the last poll stopped: complete messages are yielded, a record still being written ends the poll
(it is picked up complete by a later one), a BLANK moves on to the next segment. Damage is yielded once as a
Problem and the walk goes on past it, as :meth:`CommitLog.entries` does. Nothing is written or locked.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from inspector.engine.model.arguments import IDLE_TIMEOUT
from inspector.engine.model.records import Blank, Message, Problem
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.commitlog.tail import is_in_progress


class Follower:
    """Polls ``<root>/commitlog`` for new complete messages; :attr:`position` is the next physical offset."""

    def __init__(self, root: str | Path, from_offset: int | None = None, *, segment_size: int | None = None,
                 check_crc: bool = True, from_end: bool = False,
                 directories: Sequence[tuple[Path, str]] | None = None, entry_folders: frozenset[str] = frozenset()):
        self.root = Path(root)
        self.directories = directories  # the commitlog's folders when storePathCommitLog names several
        self.entry_folders = entry_folders  # a DLedger store: the data folder's label (CommitLog.entry_folders)
        self.segment_size = segment_size
        self.check_crc = check_crc
        self.position: int | None = from_offset
        self.waiting: Problem | None = None  # the record being written where the last poll stopped, if any
        self._reported: set[tuple[str, int, str]] = set()
        if from_end and from_offset is None:
            for _ in self.poll():  # skip what is there now
                pass

    def poll(self) -> Iterator[Message | Problem]:
        """Complete messages (and new Problems) written since the last poll, in log order."""
        log = CommitLog(self.root, self.segment_size, directories=self.directories, entry_folders=self.entry_folders)
        try:
            if not log.segments:
                return
            if self.position is None:
                self.position = log.min_offset
            self.waiting = None
            for entry in log.entries(self.position, check_crc=self.check_crc):
                if isinstance(entry, Message):
                    self.position = entry.end_offset
                    yield entry
                elif isinstance(entry, Blank):
                    self.position = entry.physical_offset - entry.position + (log.segment_size or 0)
                elif is_in_progress(entry):
                    self.waiting = entry
                    return  # resume here on the next poll
                else:
                    key = (entry.file, entry.offset, entry.code)
                    if key not in self._reported:
                        self._reported.add(key)
                        yield entry
        finally:
            log.close()


def follow(root: str | Path, from_offset: int | None = None, *, interval: float = 0.2,
           idle_timeout: float | None = None, stop: Callable[[], bool] | None = None,
           segment_size: int | None = None, check_crc: bool = True, from_end: bool = False,
           directories: Sequence[tuple[Path, str]] | None = None,
           entry_folders: frozenset[str] = frozenset()) -> Iterator[Message | Problem]:
    """Yield complete messages as they appear, polling every ``interval`` seconds.

    Ends when ``stop()`` returns True, or after ``idle_timeout`` seconds without a new message (None:
    never; the caller stops it, e.g. with Ctrl-C). ``directories``: ``CommitLog.folders`` of a commitlog
    outside the root or split over several folders; ``entry_folders``: ``CommitLog.entry_folders`` of a DLedger
    store (its data files hold entries).
    """
    IDLE_TIMEOUT.check(idle_timeout, "idle_timeout")  # a Python caller's nan or -1 too: never, or at once
    follower = Follower(root, from_offset, segment_size=segment_size, check_crc=check_crc, from_end=from_end,
                        directories=directories, entry_folders=entry_folders)
    last_new = time.monotonic()
    while True:
        got = False
        for item in follower.poll():
            got = got or isinstance(item, Message)
            yield item
        if got:
            last_new = time.monotonic()
        if stop is not None and stop():
            return
        if idle_timeout is not None and time.monotonic() - last_new >= idle_timeout:
            return
        time.sleep(interval)
