"""One version everywhere, from the package metadata: `rmq-inspect --version` (tests/inspector/cli/test_help.py),
the terminal UI's help screen and the web page footer."""

from __future__ import annotations

from importlib.metadata import version as installed
from pathlib import Path

from external_tools import SAMPLE_STORE, need

SAMPLE = Path(__file__).resolve().parents[1] / "sample_store"


def test_the_tui_help_screen_names_the_version():
    from inspector.tui.screens.dialogs import help_text

    assert help_text().plain.startswith(f"rmq-inspect {installed('rmq-inspect')}: ")


def test_every_web_page_footer_names_the_version():
    from inspector.engine import Store
    from web.app import create_app

    need(SAMPLE_STORE)
    footer = f"<footer>rmq-inspect {installed('rmq-inspect')}</footer>"
    with Store(SAMPLE) as store:
        client = create_app(store, {"TESTING": True}).test_client()
        for path in ("/", "/messages", "/no-such-page"):
            assert footer in client.get(path).get_data(as_text=True), path
