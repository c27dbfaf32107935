"""The look of every screen at 120x36, fixed by pytest-textual-snapshot.

Update the baselines with ``pytest tests/inspector/tui --snapshot-update`` after a deliberate change, look at
them (``snapshot_report.html`` when a test fails), and copy the hex view's to ``docs/tui-screenshot.svg``.
"""

from __future__ import annotations

import re

from tui_helpers import REPO, SIZE, settle, until

from inspector.engine.model.records import Message
from inspector.engine.present.layout import message_fields
from inspector.tui.app import create_app

SNAPSHOTS = REPO / "tests" / "inspector" / "tui" / "__snapshots__" / "test_snapshots"
README_SCREENSHOT = REPO / "docs" / "tui-screenshot.svg"


async def _quiet(pilot) -> None:
    await settle(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def test_overview(snap_compare, store):
    assert snap_compare(create_app(store), terminal_size=SIZE, run_before=_quiet)


def test_overview_broker_settings(snap_compare, store):
    """The Broker settings node opened, its delay table too: each level inferred from SCHEDULE_TOPIC_XXXX or
    default, each size inferred from the files."""

    async def open_settings(pilot) -> None:
        await _quiet(pilot)
        from textual.widgets import Tree

        tree = pilot.app.screen.query_one(Tree)
        node = next(n for n in tree.root.children if n.data is not None and n.data.kind == "settings")
        node.expand()
        delay = next(c for c in node.children if c.data.value == "messageDelayLevel")
        delay.expand()
        await pilot.pause()
        tree.move_cursor(delay)
        tree.scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(create_app(store), terminal_size=SIZE, run_before=open_settings)


def _on_the_last_topic(store):
    """run_before: the hex view with its cursor on the last message's topic field."""
    last = [e for e in store.entries() if isinstance(e, Message)][-1]
    topic = next(f for f in message_fields(last) if f.name == "TOPIC")

    async def run_before(pilot):
        await settle(pilot)
        pilot.app.show_hex(topic.start + 2)
        await _quiet(pilot)

    return run_before


def test_hex_view(snap_compare, store):
    """The end of the log: the last message (cursor on its topic field) and the folded zero tail after it."""
    assert snap_compare(create_app(store), terminal_size=SIZE, run_before=_on_the_last_topic(store))


def test_hex_view_at_80x24(snap_compare, store):
    """Issue 33's smallest terminal: the field panel under the hex (beside it, it got 0 columns), its field named."""
    assert snap_compare(create_app(store), terminal_size=(80, 24), run_before=_on_the_last_topic(store))


def test_message_browser(snap_compare, store):
    async def run_before(pilot):
        await settle(pilot)
        pilot.app.show_messages(topic="InventoryEvents")
        await settle(pilot)
        await pilot.press("down", "down", "down")
        await _quiet(pilot)

    assert snap_compare(create_app(store), terminal_size=SIZE, run_before=run_before)


def test_chain_walker_with_a_collision(snap_compare, store):
    async def run_before(pilot):
        await settle(pilot)
        pilot.app.show_chain("OrderEvents", "coupon-Aa7K")
        await _quiet(pilot)

    assert snap_compare(create_app(store), terminal_size=SIZE, run_before=run_before)


def test_msgid_resolver(snap_compare, store):
    first = next(e for e in store.entries() if isinstance(e, Message))

    async def run_before(pilot):
        await settle(pilot)
        pilot.app.resolve(first.unique_key)
        await _quiet(pilot)

    assert snap_compare(create_app(store), terminal_size=SIZE, run_before=run_before)


def test_problems_after_verify(snap_compare, damaged_store):
    store, _ = damaged_store

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        await pilot.press("v")
        screen = pilot.app.screen
        # verify's findings and the background walk's reach the list by messages: wait for both to be handled
        assert await until(pilot, lambda: screen.verified is not None and not pilot.app.scan_running, 60)
        await settle(pilot)
        await _quiet(pilot)

    assert snap_compare(create_app(store), terminal_size=SIZE, run_before=run_before)


def test_help(snap_compare, store):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("question_mark")
        await _quiet(pilot)

    assert snap_compare(create_app(store), terminal_size=SIZE, run_before=run_before)


def _normalized(svg: str) -> str:
    return re.sub(r"terminal-\d+-", "terminal-", svg)


def test_readme_screenshot_is_the_hex_view_snapshot():
    """docs/tui-screenshot.svg is a copy of the hex view's snapshot, so the README shows the real thing."""
    snapshot = SNAPSHOTS / "test_hex_view.svg"
    assert snapshot.exists() and README_SCREENSHOT.exists()
    assert _normalized(README_SCREENSHOT.read_text()) == _normalized(snapshot.read_text())


def _salvage_app(tmp_path):
    """The Salvage plan screen on the sample store with one page zeroed (same directory name: the header shows it)."""
    import sys

    sys.path.insert(0, str(REPO / "tests"))
    from zeroed_page_store import zeroed_page_store

    from inspector.engine import Store

    root, _ = zeroed_page_store(tmp_path / "sample_store")
    return create_app(Store(root), background_scan=False, screen="salvage")


async def _planned(pilot) -> None:
    """Until the plan is on screen, the cursor on its lost span and the table focused (a loaded machine's
    CI rehearsal took the picture while the cursor was still on the first row)."""
    from textual.widgets import DataTable

    await settle(pilot, rounds=6)

    def planned() -> bool:
        screen = pilot.app.screen
        table = screen.query_one("#salvage-spans", DataTable) if screen.query("#salvage-spans") else None
        lost = [i for i in range(table.row_count) if str(table.get_row_at(i)[0]) == "lost"] if table else []
        return bool(lost) and table.cursor_row == lost[0] and table.has_focus

    await until(pilot, planned, 30)
    await _quiet(pilot)


def test_salvage_plan_at_120x40(snap_compare, tmp_path):
    assert snap_compare(_salvage_app(tmp_path), terminal_size=(120, 40), run_before=_planned)


