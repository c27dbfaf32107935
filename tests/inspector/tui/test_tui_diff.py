"""The Diff screen (``rmq-inspect tui STORE --compare B``, issue 32's TUI view): it opens first, lists what
``store_diff`` finds (one row each), Enter on a row with an offset opens A's hex view there; without a second
store it says how to give one; store text from B (a config key that is a terminal escape) is shown escaped."""

from __future__ import annotations

import shutil
from pathlib import Path

from hostile_tui import painted
from textual.widgets import DataTable
from tui_helpers import drive, settle, static_text

from inspector.engine import Store, diff_view, store_diff
from inspector.tui.app import create_app
from inspector.tui.screens.dialogs import help_text

SAMPLE = Path(__file__).resolve().parents[3] / "sample_store"


def _changed(tmp_path: Path) -> Path:
    b = Path(shutil.copytree(SAMPLE, tmp_path / "b"))
    seg = sorted((b / "commitlog").iterdir())[0]
    data = bytearray(seg.read_bytes())
    data[300] ^= 0x55
    seg.write_bytes(bytes(data))
    (b / "config" / "delayOffset.json.bak").write_text('{"offsetTable": {"\\u001b]0;PWNED\\u0007": 1}}')
    return b


def test_the_diff_screen_lists_the_differences_and_opens_the_hex_view(store, tmp_path):
    with Store(_changed(tmp_path)) as other:
        expected = diff_view(store_diff(store, other, 100))

        async def script(pilot):
            await settle(pilot)
            screen = pilot.app.views["diff"]
            table = screen.query_one("#diff-table", DataTable)
            rows = [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]
            summary = static_text(screen.query_one("#diff-summary"))
            shown = painted(pilot.app)  # asserts no control character reaches the terminal
            await pilot.press("enter")  # the first row: the differing byte range
            await settle(pilot)
            return rows, summary, shown, pilot.app.current_mode, pilot.app.views["hex"].hex_view.cursor

        rows, summary, shown, mode, cursor = drive(create_app(store, compare=other, screen="diff"), script)
    first = expected["first_divergence"]
    assert f"first diverge at offset {first:,}" in summary
    assert rows[0][0] == "commitlog" and rows[0][1].startswith(f"bytes differ {first:,}")
    assert [r[0] for r in rows].count("record") == len(expected["records"]) == 1
    assert any(r[0] == "config" and "PWNED" in r[1] for r in rows) and "\\x1b]0;PWNED" in shown
    assert (mode, cursor) == ("hex", first)
    assert "--compare B" in help_text().plain


def test_without_a_second_store_it_says_how(store):
    async def script(pilot):
        await pilot.app.run_action("go('diff')")
        await settle(pilot)
        return static_text(pilot.app.views["diff"].query_one("#diff-summary"))

    assert "--compare B" in drive(create_app(store, background_scan=False), script)
