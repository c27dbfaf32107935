"""Themes (issue 33): the theme a user picks is remembered for the next run (a small JSON file in the config
folder; an unreadable or foreign file is ignored), textual-dark the first time; in a light theme the hex view's
records are light tints with dark text, not dark islands."""

from __future__ import annotations

import json

from tui_helpers import drive, settle

from inspector.tui.app import create_app
from inspector.tui.prefs import prefs_path
from inspector.tui.widgets.hexview import HexView


def test_the_chosen_theme_is_remembered_and_a_bad_file_ignored(store, tmp_path, monkeypatch):
    monkeypatch.setenv("RMQ_INSPECT_CONFIG_DIR", str(tmp_path))

    async def pick(pilot):
        first = pilot.app.theme
        pilot.app.theme = "textual-light"
        await settle(pilot)
        return first

    assert drive(create_app(store, background_scan=False), pick) == "textual-dark"
    assert json.loads(prefs_path().read_text()) == {"theme": "textual-light"}

    async def light(pilot):
        await pilot.press("2")
        await settle(pilot)
        view = pilot.app.screen.query_one(HexView)
        return pilot.app.theme, view.get_component_rich_style("hexview--msg-a"), \
            view.get_component_rich_style("hexview--offset")

    theme, record, offset = drive(create_app(store, background_scan=False), light)
    assert theme == "textual-light"
    assert record.bgcolor.triplet.red > 200 and record.color.triplet.red < 60  # a light tint, dark text
    assert offset.color.triplet.red < 100  # offsets dark on light (was #7f8c98: 2.6:1)
    prefs_path().write_text("not json")
    assert drive(create_app(store, background_scan=False), _theme) == "textual-dark"


async def _theme(pilot):
    await settle(pilot)
    return pilot.app.theme
