"""A workshop room's live state (``rmq-inspect web --workshop``): the trainer's tour step and the anonymous tally
of the exercises, in memory only (nothing is written anywhere; a restart starts a fresh room).

One ``Room`` per app, shared by the server's threads: every change happens under its ``Condition`` and wakes the
event streams (``web.live``), which then send what changed. The tally keeps, per exercise id, the sets of random
participant ids (a cookie, ``web.live``) that tried it and that solved it: only their sizes ever leave this
object, so nobody is named, and a participant who submits twice counts once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

MAX_PARTICIPANTS = 10_000  # ids kept per exercise: a room is ~30; past this a set stops growing (memory bound)


@dataclass(frozen=True)
class TallyRow:
    """One exercise's counts: distinct participants who submitted an answer / a correct one."""

    exercise: str
    tried: int
    solved: int


@dataclass(frozen=True)
class RoomState:
    """What the room looks like at one moment: ``version`` grows with every change."""

    version: int
    step: int
    tally: tuple[TallyRow, ...] = field(default=())
    closed: bool = False


class Room:
    """The trainer's step and the tally, thread-safe; ``wait`` blocks a stream until something changes."""

    def __init__(self, step: int = 1) -> None:
        self._cond = threading.Condition()
        self._version = 0
        self._step = step
        self._tried: dict[str, set[str]] = {}
        self._solved: dict[str, set[str]] = {}
        self._closed = False

    def set_step(self, step: int) -> RoomState:
        with self._cond:
            if step != self._step:
                self._step = step
                self._changed()
            return self._state()

    def record(self, exercise: str, participant: str, correct: bool) -> RoomState:
        """An answer to ``exercise`` from ``participant`` (a random id): counted as tried, and solved if correct."""
        with self._cond:
            grew = _add(self._tried.setdefault(exercise, set()), participant)
            if correct:
                grew = _add(self._solved.setdefault(exercise, set()), participant) or grew
            if grew:
                self._changed()
            return self._state()

    def state(self) -> RoomState:
        with self._cond:
            return self._state()

    def wait(self, seen: int, timeout: float) -> RoomState:
        """The state once its version is past ``seen`` (or the room closes), or after ``timeout`` seconds."""
        with self._cond:
            self._cond.wait_for(lambda: self._version != seen or self._closed, timeout)
            return self._state()

    def close(self) -> None:
        """Wake every stream to end (the server is stopping)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _changed(self) -> None:
        self._version += 1
        self._cond.notify_all()

    def _state(self) -> RoomState:
        rows = tuple(TallyRow(e, len(self._tried.get(e, ())), len(self._solved.get(e, ())))
                     for e in sorted(self._tried))
        return RoomState(self._version, self._step, rows, self._closed)


def _add(ids: set[str], participant: str) -> bool:
    if participant in ids or len(ids) >= MAX_PARTICIPANTS:
        return False
    ids.add(participant)
    return True
