"""The problems screen with nothing found: paging the empty table highlights no row, and the app stays up
(it raised AttributeError on the missing row key)."""

from __future__ import annotations

from tui_helpers import drive, settle


def test_pagedown_in_an_empty_problems_table(store):
    from inspector.tui.app import create_app

    app = create_app(store, background_scan=False, screen="problems")

    async def script(pilot):
        await pilot.press("pagedown", "pageup", "end")
        await settle(pilot)
        return app.is_running, len(app.all_problems())

    assert drive(app, script) == (True, 0)
