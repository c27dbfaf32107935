"""The terminal UI's statistics screen (issue 31 item 4) on the committed sample store: ``%`` opens it, the worker
counts the log (the same figures as ``store_stats``), the sparklines hold the rate and the size histogram, ``b``
counts by the next key; hostile store text is shown escaped. And a snapshot of the screen."""

from __future__ import annotations

from hostile_tui import ESCAPED_TAG, painted, write_hostile_store
from textual.widgets import DataTable, Sparkline
from tui_helpers import SIZE, drive, settle, static_text

from inspector.engine import Store, store_stats
from inspector.tui.app import create_app
from inspector.tui.screens.dialogs import help_text


def test_percent_opens_the_counts_of_the_log(store):
    expected = store_stats(store, "topic")

    async def script(pilot):
        await pilot.press("percent_sign")
        await settle(pilot)
        screen = pilot.app.views["stats"]
        table = screen.query_one("#stats-table", DataTable)
        rows = [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]
        rate = list(screen.query_one("#stats-rate", Sparkline).data)
        sizes = list(screen.query_one("#stats-sizes", Sparkline).data)
        summary = static_text(screen.query_one("#stats-summary"))
        retention = static_text(screen.query_one("#stats-retention"))
        await pilot.press("b")
        await settle(pilot)
        by_queue = screen.query_one("#stats-table", DataTable).row_count
        return rows, rate, sizes, summary, retention, by_queue, screen.by

    rows, rate, sizes, summary, retention, by_queue, by = drive(create_app(store), script)
    assert [r[0] for r in rows] == list(expected.rows)
    assert [int(r[1].replace(",", "")) for r in rows] == [c.messages for c in expected.rows.values()]
    assert sum(rate) == expected.total.messages == 402 and len(rate) == 9  # 09:00 .. 17:00
    assert sum(sizes) == 402 and sizes[:3] == [3, 396, 3]
    assert "402 records" in summary and "retry 1.2%" in summary
    assert "stock-consumer" in retention
    assert by == "queue" and by_queue == len(store_stats(store, "queue").rows)
    assert "statistics" in help_text().plain


def test_hostile_store_text_is_escaped(tmp_path):
    root = tmp_path / "s"
    write_hostile_store(root)

    async def script(pilot):
        await pilot.press("percent_sign")
        await settle(pilot)
        by_topic = painted(pilot.app)  # asserts no control character reaches the terminal
        await pilot.press("b", "b")
        await settle(pilot)
        return by_topic, painted(pilot.app), pilot.app.views["stats"].by

    with Store(root) as s:
        by_topic, by_tag, by = drive(create_app(s), script, SIZE)
    assert "T\\x1b]0;PWNED" in by_topic and by == "tag" and ESCAPED_TAG in by_tag


def test_snapshot(snap_compare, store):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("percent_sign")
        await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(create_app(store), terminal_size=SIZE, run_before=run_before)
