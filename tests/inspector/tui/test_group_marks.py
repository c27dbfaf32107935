"""The TUI's queue listing marks each consumer group's committed offset (issue 30 item 2): on the first pending row,
or on the last row when the group consumed them all; the group name (store text) escaped. The groups screen (0)."""

from __future__ import annotations

from tui_helpers import drive, screen_text, settle

from inspector.engine import Store
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.tui.app import create_app
from inspector.tui.widgets.messagelist import MessageList

T0 = 1_700_000_000_000


def _store(root, offsets):
    """T queue 0: m0..m5; the groups' offsets as given."""
    with StoreWriter(root, clock=lambda: T0, consumer_offsets=offsets) as w:
        for i in range(6):
            w.append(MessageSpec(topic="T", body=f"m{i}".encode(), keys=[f"k{i}"], store_timestamp=T0 + i))
    return root


async def _queue_t0(app, pilot) -> MessageList:
    """The message browser on queue T/0, settled: its list (both tests read it)."""
    browser = app.view("messages")
    browser.apply(topic="T", queue=0)
    await settle(pilot)
    return browser.query_one(MessageList)


def test_queue_listing_marks_each_group(tmp_path):
    root = _store(tmp_path / "s", {("T", "late"): {0: 2}, ("T", "done"): {0: 6}, ("T", "e\x1b[2J"): {0: 2}})
    with Store(root) as store:
        app = create_app(store, screen="messages")

        async def script(pilot):
            lst = await _queue_t0(app, pilot)
            rows = [lst.row_text(i, 160) for i in range(len(lst.source))]
            return rows, [lst.source.offset(i) for i in range(len(lst.source))], screen_text(app)

        rows, offsets, screen = drive(app, script)
        expected = [m.physical_offset for _, m in store.queue_messages("T", 0)]
    assert offsets == expected and len(rows) == 6  # the marks add no row: one a unit
    marked = {i: r for i, r in enumerate(rows) if "committed" in r}
    assert set(marked) == {2, 5}
    assert "▶ committed 2: e\\x1b[2J, late │ k2" in marked[2]  # the keys still shown after the marker
    assert "◀ committed 6, all consumed: done │ k5" in marked[5]
    assert "\x1b" not in "".join(rows) + screen and "▶ committed 2: e\\x1b[2J, late" in screen


def test_no_marks_on_a_queue_no_group_reads(tmp_path):
    root = _store(tmp_path / "s", {("Other", "g"): {0: 1}})
    with Store(root) as store:
        app = create_app(store, screen="messages")

        async def script(pilot):
            lst = await _queue_t0(app, pilot)
            return [lst.marker(i) for i in range(len(lst.source))]

        assert drive(app, script) == [None] * 6


def test_groups_screen_lists_groups_and_opens_a_queue_at_the_committed_offset(tmp_path):
    root = _store(tmp_path / "s", {("T", "late"): {0: 2}, ("T", "done"): {0: 6}})
    with Store(root) as store:
        app = create_app(store, screen="overview")

        async def script(pilot):
            await pilot.press("0")
            await settle(pilot)
            screen = app.screen
            groups = screen.query_one("#groups-table")
            listed = [groups.get_row_at(i)[:4] for i in range(groups.row_count)]
            groups.move_cursor(row=1)  # "late" (groups by name: done, late)
            await pilot.press("enter")
            await settle(pilot)
            queues = screen.query_one("#group-queues")
            row = queues.get_row_at(0)
            text = screen_text(app)
            await pilot.press("enter")  # the queue: the browser at the committed offset, marked there
            await settle(pilot)
            lst = app.screen.query_one(MessageList)
            return listed, [str(c) for c in row], text, app.current_mode, lst.cursor, lst.row_text(2, 200)

        listed, row, text, mode, cursor, marked = drive(app, script)
    assert [[str(c) for c in r] for r in listed] == [["done", "1", "0", "-"], ["late", "1", "4", "-"]]
    assert row[:6] == ["T", "0", "2", "0", "6", "4"] and row[7].startswith("1 @ ") and row[8].startswith("2 @ ")
    assert "late: lag 4, 4 pending" in text
    assert mode == "messages" and cursor == 1 and "▶ committed 2: late" in marked
