"""Paste and focus (issue 33): the msgId screen's id field has focus on entry, so a typed id is not taken as
screen keys; a bracketed paste goes to that field; in the hex screen a paste opens the jump prompt holding it."""

from __future__ import annotations

from textual import events
from tui_helpers import drive, settle


def test_typed_id_goes_to_the_field(store):
    from inspector.tui.app import create_app

    app = create_app(store, background_scan=False, screen="ids")

    async def script(pilot):
        await pilot.press(*"7F000001")
        await settle(pilot)
        return type(app.screen).__name__, app.screen.query_one("#r-id").value

    name, value = drive(app, script)
    assert name == "ResolverScreen" and value == "7F000001"


def test_paste_on_the_ids_screen_fills_the_field(store):
    from inspector.tui.app import create_app

    app = create_app(store, background_scan=False, screen="ids")

    async def script(pilot):
        app.screen.query_one("#resolver-readings").focus()
        app.screen.post_message(events.Paste("  0A14000500002A9F0000000000000000\n"))
        await settle(pilot)
        field = app.screen.query_one("#r-id")
        return field.value, app.screen.focused is field

    assert drive(app, script) == ("0A14000500002A9F0000000000000000", True)


def test_paste_on_the_hex_screen_opens_the_jump_prompt(store):
    from inspector.tui.app import create_app
    from inspector.tui.screens.dialogs import PromptScreen

    app = create_app(store, background_scan=False, screen="hex")

    async def script(pilot):
        app.screen.post_message(events.Paste("14,924"))
        await settle(pilot)
        return type(app.screen).__name__, app.screen.query_one("#prompt-input").value

    assert drive(app, script) == (PromptScreen.__name__, "14,924")
