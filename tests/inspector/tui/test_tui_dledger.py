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


def test_overview_lists_the_term_timeline_and_help_names_dledger() -> None:
    from inspector.tui.screens.dialogs import help_text

    assert "DLedger" in help_text().plain
    with Store(SAMPLE) as store:
        app = create_app(store, screen="overview")

        async def script(pilot):
            await settle(pilot)
            return screen_text(pilot.app)

        text = drive(app, script, size=(140, 60))
        assert "DLedger" in text and "term 2" in text and "from index 120" in text


def test_hex_view_draws_the_entry_header_band() -> None:
    from inspector.tui.widgets.hexview import HexView

    with Store(SAMPLE) as store:
        app = create_app(store, screen="hex")

        async def script(pilot):
            await settle(pilot)
            await pilot.press("g")
            await pilot.pause()
            await pilot.press(*"65560", "enter")
            await settle(pilot)
            view = pilot.app.screen.query_one(HexView)
            found = view.rmap.at(65_560) if hasattr(view, "rmap") else None
            return screen_text(pilot.app), found

        text, found = drive(app, script, size=(160, 40))
        assert "Traceback" not in text
        assert "DLedger entry 0, term 1" in text and "E5 entry pos" in text  # the side panel names the fields
        assert found is None or found[0].kind == "entry"


def test_a_timeline_past_its_cap_says_how_many_more(tmp_path, monkeypatch) -> None:
    import sys

    sys.path.insert(0, str(REPO / "tests"))
    from dledger_terms import TERM_CHANGES, flipping_terms

    from inspector.engine.read.dledger import dledger

    monkeypatch.setattr(dledger, "TERMS_SHOWN", 5)
    with Store(flipping_terms(tmp_path / "store")) as store:
        app = create_app(store, screen="overview")

        async def script(pilot):
            await settle(pilot)
            return screen_text(pilot.app)

        text = drive(app, script, size=(140, 80))
    assert f"and {TERM_CHANGES - 5} more term changes, not listed" in text
