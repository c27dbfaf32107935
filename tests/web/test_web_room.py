"""A workshop room's state (web/room.py): distinct participants per exercise, a version that wakes waiting
streams, and close."""

from __future__ import annotations

import threading

from web import room as room_module
from web.room import Room, TallyRow


def test_the_tally_counts_distinct_ids_tried_and_solved():
    room = Room()
    room.record("01-a", "p1", False)
    room.record("01-a", "p1", True)
    room.record("01-a", "p1", True)
    room.record("01-a", "p2", False)
    room.record("02-b", "p2", True)
    assert room.state().tally == (TallyRow("01-a", 2, 1), TallyRow("02-b", 1, 1))


def test_only_changes_move_the_version():
    room = Room()
    v0 = room.state().version
    assert room.set_step(1).version == v0  # already there
    assert room.set_step(2).version == v0 + 1
    v1 = room.record("e", "p", False).version
    assert room.record("e", "p", False).version == v1  # the same participant again: nothing new


def test_wait_returns_at_a_change_or_after_the_timeout():
    room = Room()
    seen = room.state().version
    assert room.wait(seen, 0.01).version == seen  # nothing happened
    got = []
    waiter = threading.Thread(target=lambda: got.append(room.wait(seen, 30)))
    waiter.start()
    room.set_step(5)
    waiter.join(30)
    assert got and got[0].step == 5


def test_close_wakes_every_waiter():
    room = Room()
    got = []
    waiter = threading.Thread(target=lambda: got.append(room.wait(room.state().version, 30)))
    waiter.start()
    room.close()
    waiter.join(30)
    assert got and got[0].closed


def test_the_ids_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(room_module, "MAX_PARTICIPANTS", 3)
    room = Room()
    for i in range(10):
        room.record("e", f"p{i}", True)
    assert room.state().tally == (TallyRow("e", 3, 3),)
