"""Problems as a worklist (issue 33): ``g`` groups the findings under the log damage they point into (a zeroed
page of the sample store: one row explaining 46), ``s`` shows one severity at a time, and Enter on a queue
unit's finding opens the log offset it points at (it said "not in the commitlog")."""

from __future__ import annotations

from textual.widgets import DataTable
from tui_helpers import drive, settle, static_text
from zeroed_page_store import zeroed_page_store

from inspector.engine import Store
from inspector.tui.app import create_app


def test_group_filter_and_open_the_offset_a_unit_points_at(tmp_path):
    root, _ = zeroed_page_store(tmp_path / "s")

    async def script(pilot):
        await pilot.press("6", "v")
        await settle(pilot, rounds=6)
        screen = pilot.app.views["problems"]
        table = screen.query_one("#problems-table", DataTable)

        def rows():
            return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]

        flat = rows()
        await pilot.press("g")
        grouped, status = rows(), static_text(screen.query_one("#problems-status"))
        await pilot.press("g", "s", "s")  # flat again; errors only, then warnings only
        warnings = rows()
        await pilot.press("s", "s")  # info, then all
        unit = next(i for i, r in enumerate(rows()) if r[1] == "cq-dangling")
        table.move_cursor(row=unit)
        target = screen._rows[f"p{unit}"].points_at
        await pilot.press("enter")
        await settle(pilot)
        return flat, grouped, status, warnings, pilot.app.current_mode, pilot.app.views["hex"].hex_view.cursor, target

    with Store(root) as store:
        flat, grouped, status, warnings, mode, cursor, target = drive(create_app(store), script)
    assert len(flat) >= 47 and len(grouped) == len(flat) - 46
    root_row = next(r for r in grouped if r[1] == "length-mismatch")
    assert "(+46 caused)" in root_row[3] and "grouped by cause" in status
    assert all(r[0] == "warning" for r in warnings)
    assert (mode, cursor) == ("hex", target) and target is not None
