"""Live stores (issue 33): the reload key opens the store again keeping the place, and follow mode (f on the
Messages screen) lists what the broker writes while the app runs."""

from __future__ import annotations

import asyncio

from live_store import append_messages, live_copy
from test_app import record_notifications
from tui_helpers import screen_text, settle, until

from inspector.engine import Store
from inspector.tui.app import create_app
from inspector.tui.widgets.messagelist import MessageList

HOSTILE = "[b]x[/b]\x1b[31m"  # a topic with markup and an ESC sequence: shown as text, never interpreted


def run(root, script, screen: str = "messages", size=(120, 36)):
    store = Store(root)
    app = create_app(store, screen=screen, background_scan=False)

    async def main():
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            return await script(app, pilot)

    try:
        return asyncio.run(main())
    finally:
        store.close()


def test_reload_shows_new_records_keeps_the_selected_row_and_says_what_changed(tmp_path):
    root = live_copy(tmp_path)

    async def script(app, pilot):
        seen = record_notifications(app)
        lst = app.screen.query_one(MessageList)
        before = len(lst.source)
        lst.cursor = 7
        await pilot.pause()
        selected = lst.source.offset(7)
        added = append_messages(root, "OrderEvents", 0, [b"one", b"two", b"three"])
        await pilot.press("R")
        await settle(pilot, 5)
        lst = app.screen.query_one(MessageList)  # the screen was made again on the re-opened store
        assert lst.source.offset(lst.cursor) == selected
        assert len(lst.source) == before + 3
        assert [lst.source.offset(i) for i in range(before, before + 3)] == added
        return [text for text, _ in seen]

    notes = run(root, script)
    assert "reloaded: commitlog +3 records (+356 bytes), 1 queue grew" in notes, notes


def test_ctrl_r_on_the_hex_screen_keeps_the_cursor_and_nothing_changed_says_so(tmp_path):
    root = live_copy(tmp_path)

    async def script(app, pilot):
        seen = record_notifications(app)
        app.show_hex(14924)
        await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot, 5)
        return app.views["hex"].hex_view.cursor, app.store, [text for text, _ in seen]

    cursor, store, notes = run(root, script, screen="hex")
    assert cursor == 14924
    assert "reloaded: nothing changed" in notes
    assert store.root == root


def test_follow_lists_new_messages_as_they_are_written_and_a_torn_tail_is_no_error(tmp_path):
    root = live_copy(tmp_path)

    async def script(app, pilot):
        seen = record_notifications(app)
        lst = app.screen.query_one(MessageList)
        before = len(lst.source)
        await pilot.press("end")  # on the last row: the cursor follows the new rows
        await pilot.press("f")
        await pilot.pause(0.3)  # not settle: the follower is a worker that runs until f stops it
        added = append_messages(root, "OrderEvents", 1, [b"live-1", b"live-2"], torn=b"x" * 300)
        assert await until(pilot, lambda: len(lst.source) == before + 2)
        await pilot.pause(1.2)  # two more polls find the torn record and wait at it
        assert len(lst.source) == before + 2
        assert [lst.source.offset(i) for i in range(before, before + 2)] == added
        assert lst.cursor == before + 1
        shown = screen_text(app)
        # the record being written is finished: it comes too
        done = append_messages(root, "OrderEvents", 1, [b"x" * 300])
        assert await until(pilot, lambda: len(lst.source) == before + 3)
        assert lst.source.offset(before + 2) == done[0]
        await pilot.press("f")  # off
        await settle(pilot)
        return shown, seen

    shown, seen = run(root, script)
    assert "live-39" in shown and "following: +" in shown
    assert not [text for text, severity in seen if severity in ("warning", "error")], seen


def test_follow_with_a_topic_filter_shows_a_hostile_topic_escaped(tmp_path):
    root = live_copy(tmp_path)
    append_messages(root, HOSTILE, 0, [b"first"])

    async def script(app, pilot):
        app.show_messages(topic=HOSTILE)
        await settle(pilot)
        lst = app.screen.query_one(MessageList)
        assert len(lst.source) == 1
        await pilot.press("f")
        await pilot.pause(0.3)
        append_messages(root, "OrderEvents", 2, [b"not this topic"])
        append_messages(root, HOSTILE, 0, [b"second \x1b[2J"])
        assert await until(pilot, lambda: len(lst.source) == 2)
        await pilot.pause(0.6)
        assert len(lst.source) == 2  # the other topic's record is not listed
        shown = screen_text(app)
        await pilot.press("f")
        return shown

    shown = run(root, script)
    assert "[b]x[/b]\\x1b[31m" in shown and "\x1b" not in shown


def test_follow_refuses_a_queue_list_and_says_why(tmp_path):
    root = live_copy(tmp_path)

    async def script(app, pilot):
        seen = record_notifications(app)
        app.show_messages(topic="OrderEvents", queue=0)
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        return app.views["messages"].following, seen

    following, seen = run(root, script)
    assert not following
    assert any("follow mode follows the log in commitlog order" in text for text, _ in seen)


def test_reload_on_the_overview_keeps_the_node_under_the_cursor(tmp_path):
    root = live_copy(tmp_path)

    async def script(app, pilot):
        from textual.widgets import Tree

        tree = app.screen.query_one(Tree)
        node = next(n for n in _walk(tree.root) if getattr(n.data, "value", None) == "PaymentEvents")
        tree.move_cursor(node)
        await pilot.pause()
        append_messages(root, "PaymentEvents", 0, [b"paid"])
        await pilot.press("ctrl+r")
        await settle(pilot, 5)
        fresh = app.screen.query_one(Tree)
        return tree is fresh, fresh.cursor_node.data, str(fresh.cursor_node.label)

    same, data, label = run(root, script, screen="overview")
    assert not same  # the overview was made again on the re-opened store
    assert data.kind == "topic" and data.value == "PaymentEvents"
    assert "110 messages" in label  # 109 before the record the broker wrote


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)
