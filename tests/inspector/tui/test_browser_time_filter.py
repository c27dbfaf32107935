"""The message browser's store-time filters read what ``--since``/``--until`` read (the engine's STORE_TIME): an
ISO time (local; UTC here), epoch ms, a time before now; a time without a date is refused with its one line."""

from __future__ import annotations

from tui_helpers import drive, settle

from inspector.engine import Message
from inspector.tui.app import create_app
from inspector.tui.widgets.forminput import FormInput

FROM, TO = 1_758_289_689_632, 1_758_294_000_000


def _listed(app) -> list[int]:
    source = app.views["messages"].message_list.source
    return [source.offset(i) for i in range(len(source))]


def test_typed_times_filter_the_list(store):
    app = create_app(store, background_scan=False, screen="messages")
    every = [m for m in store.entries() if isinstance(m, Message)]

    async def script(pilot):
        await settle(pilot)
        screen = app.views["messages"]
        screen.query_one("#f-from", FormInput).value = "2025-09-19 13:48:09.632"
        screen.query_one("#f-to", FormInput).value = str(TO)
        screen.query_one("#f-to", FormInput).focus()
        await pilot.press("enter")
        await settle(pilot)
        windowed = _listed(app)
        screen.query_one("#f-from", FormInput).value = "13:48"
        screen.query_one("#f-from", FormInput).focus()
        await pilot.press("enter")
        await settle(pilot)
        return windowed, _listed(app), [n.message for n in app._notifications]

    windowed, after_bad, notes = drive(app, script)
    assert windowed == [m.physical_offset for m in every if FROM <= m.store_timestamp <= TO]
    assert after_bad == windowed  # the refused time changed nothing
    assert any("time must be a store time" in n and "'13:48'" in n for n in notes)
