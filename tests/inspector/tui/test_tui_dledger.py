"""The terminal UI on the DLedger sample (issue 19): overview, hex and message screens open and show the DLedger
data files and a record at its pos + 48 offset."""

from __future__ import annotations

from tui_helpers import REPO, drive, screen_text, settle

from inspector.engine import Store
from inspector.tui.app import create_app

SAMPLE = REPO / "sample_store_dledger"


def test_overview_hex_and_messages_open_on_a_dledger_store() -> None:
    with Store(SAMPLE) as store:
        for screen in ("overview", "hex", "messages", "problems"):
            app = create_app(store, screen=screen)

            async def script(pilot):
                await settle(pilot)
                return screen_text(pilot.app)

            text = drive(app, script)
            assert "Traceback" not in text
            if screen == "messages":
                assert "OrderEvents" in text
