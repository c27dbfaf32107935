"""The overview's root line ends with the engine's preflight banner (what the next broker start does)."""

from __future__ import annotations

from textual.widgets import Tree
from tui_helpers import drive

from inspector.engine import Store, preflight
from inspector.tui.app import create_app
from tests.aged_store import write_store


def _root_label(app) -> str:
    return str(app.screen.query_one(Tree).root.label)


def test_a_start_that_loses_data_is_said_on_the_overview(tmp_path):
    written = write_store(tmp_path, 300)
    seg = sorted((tmp_path / "commitlog").iterdir())[-1]
    raw = bytearray(seg.read_bytes())
    raw[written[-1].physical_offset - int(seg.name) + 120] ^= 0xFF  # a body byte: the CRC fails on recovery
    seg.write_bytes(bytes(raw))
    with Store(tmp_path) as store:
        expected = preflight(store).banner
        app = create_app(store)

        async def script(pilot):
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            return _root_label(app)

        label = drive(app, script)
    assert "loses 1 record(s)" in expected
    # said early, after the store's name and its shutdown in two words (issue 33: 80 columns cut the line's end)
    assert label.startswith(f"{tmp_path.name}  last shutdown: clean  {expected}  ")
