"""The terminal UI's timer wheel on a store our writer made: reachable from the overview ('Timer store' node),
key 9 and the command palette; slots listed; a slot's chain walked hop by hop with hops against num; enter on a
hop opens its record. And a snapshot of the screen."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static
from tui_helpers import SIZE, drive, settle, static_text

from inspector.engine import Store
from inspector.tui.app import create_app
from inspector.tui.screens.dialogs import MessageScreen, help_text

sys.path.insert(0, str(Path(__file__).parents[2]))
from timer_store import write_timer_store  # noqa: E402

SLOT = 1_700_000_060 % 1_209_600  # both pending timers: TIMER_OUT_MS 1_700_000_060_000


@pytest.fixture(scope="module")
def timer_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tui-timer") / "store"
    write_timer_store(root)
    return root


def test_the_overview_names_the_timer_store_and_opens_it(timer_root):
    with Store(timer_root) as store:
        from inspector.tui.screens.overview import load_overview

        assert load_overview(store).timer == "3 timer-log unit(s), 2 pending, 2 non-empty wheel slot(s)"
        app = create_app(store, background_scan=False)

        async def script(pilot):
            await settle(pilot)
            overview = app.views["overview"]
            from inspector.tui.screens.overview import Node

            overview.open(Node("timer"))
            await settle(pilot)
            return app.current_mode

        assert drive(app, script) == "timer"


def test_slots_chain_and_record(timer_root):
    with Store(timer_root) as store:
        app = create_app(store, background_scan=False, screen="timer")

        async def script(pilot):
            await settle(pilot)
            screen = app.views["timer"]
            slots = screen.query_one("#timer-slots", DataTable)
            listed = [slots.get_row_at(i)[0] for i in range(slots.row_count)]
            screen.walk(SLOT)
            await settle(pilot)
            hops = screen.query_one("#timer-hops", DataTable)
            rows = [hops.get_row_at(i) for i in range(hops.row_count)]
            verdict = static_text(screen.query_one("#timer-verdict", Static))
            hops.focus()
            hops.move_cursor(row=0)
            await pilot.press("enter")
            await settle(pilot)
            return listed, rows, verdict, isinstance(app.screen, MessageScreen)

        listed, rows, verdict, opened = drive(app, script)
    assert listed == [str(1_700_000_003 % 1_209_600), str(SLOT)]
    assert [r[1] for r in rows] == ["104", "52"]  # last_pos first, then its prev_pos
    assert [r[5] for r in rows] == ["Pay", "Orders"]
    assert "2 hop(s) counting 2" in verdict and "matches" in verdict
    assert opened


def test_key_9_and_the_help_line(timer_root):
    with Store(timer_root) as store:
        app = create_app(store, background_scan=False)

        async def script(pilot):
            await settle(pilot)
            await pilot.press("9")
            await settle(pilot)
            return app.current_mode

        assert drive(app, script) == "timer"
    assert "timer wheel (5.x)" in help_text().plain


def test_timer_screen_snapshot(snap_compare, timer_root):
    store = Store(timer_root)

    async def run_before(pilot):
        await settle(pilot)
        pilot.app.views["timer"].walk(SLOT)
        await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    try:
        assert snap_compare(create_app(store, background_scan=False, screen="timer"), terminal_size=SIZE,
                            run_before=run_before)
    finally:
        store.close()
