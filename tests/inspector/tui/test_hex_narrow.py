"""The hex screen's breakpoint (issue 33): below 110 columns the field panel sits under the hex view with room
for the field names (at 80x24 it got 0 columns beside it); at 120 it stays beside, as before."""

from __future__ import annotations

from textual.widgets import OptionList
from tui_helpers import drive, settle

from inspector.engine.model.records import Message
from inspector.engine.present.layout import message_fields
from inspector.tui.app import create_app
from inspector.tui.widgets.hexview import HexView


def _layout(store, size):
    last = [e for e in store.entries() if isinstance(e, Message)][-1]
    topic = next(f for f in message_fields(last) if f.name == "TOPIC")

    async def script(pilot):
        pilot.app.show_hex(topic.start + 2)
        await settle(pilot)
        screen = pilot.app.screen
        fields = screen.query_one("#hex-fields", OptionList)
        names = [str(fields.get_option_at_index(i).prompt) for i in range(fields.option_count)]
        return screen.has_class("narrow"), screen.query_one(HexView).region, fields.region, names

    return drive(create_app(store, background_scan=False), script, size)


def test_at_80x24_the_fields_are_under_the_hex_and_named(store):
    narrow, hexr, fieldr, names = _layout(store, (80, 24))
    assert narrow and fieldr.width >= 70 and fieldr.height >= 3 and fieldr.y > hexr.y
    assert any("TOPIC" in n for n in names)


def test_at_120_columns_the_panel_stays_beside(store):
    narrow, hexr, fieldr, _ = _layout(store, (120, 36))
    assert not narrow and fieldr.x >= hexr.right - 1 and fieldr.width > 20
