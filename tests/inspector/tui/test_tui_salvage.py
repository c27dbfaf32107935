"""The Salvage plan screen (issue 32's last item): on a store with a zeroed page it names the lost span (its row
in the error colour, its 11 records listed below it), Enter opens the hex view at the span's start, the help lists
it, and `C` copies `rmq-inspect salvage STORE --plan --json`; a hostile topic is shown escaped."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.widgets import DataTable
from tui_helpers import drive, settle, static_text

from inspector.engine import Store
from inspector.tui.app import create_app
from inspector.tui.screens.dialogs import help_text

sys.path.insert(0, str(Path(__file__).parents[2]))
from zeroed_page_store import zeroed_page_store  # noqa: E402


def _rows(table: DataTable) -> list[tuple[str, ...]]:
    return [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


def test_the_salvage_screen_shows_the_lost_span_and_its_records(tmp_path):
    root, _ = zeroed_page_store(tmp_path / "sample_store")
    with Store(root) as store:
        async def script(pilot):
            await settle(pilot, rounds=6)
            screen = pilot.app.views["salvage"]
            spans = screen.query_one("#salvage-spans", DataTable)
            lost_style = str(spans.get_row_at(1)[0].style)
            out = (_rows(spans), _rows(screen.query_one("#salvage-lost", DataTable)),
                   static_text(screen.query_one("#salvage-verdict")),
                   static_text(screen.query_one("#salvage-lost-title")), spans.cursor_row, lost_style,
                   _rows(screen.query_one("#salvage-files", DataTable)), screen.command())
            await pilot.press("enter")
            await settle(pilot)
            return *out, pilot.app.current_mode, pilot.app.views["hex"].hex_view.cursor

        (spans, lost, verdict, title, cursor, style, files, command, mode,
         hex_cursor) = drive(create_app(store, background_scan=False, screen="salvage"), script)
    assert "1 span(s) lost" in verdict and "11 record(s)" in verdict
    assert spans[1][:6] == ("lost", "commitlog/00000000000000000000", "4,000", "8,516", "4,516", "11")
    assert cursor == 1 and "red" in style  # the lost span highlighted first, in the error colour
    assert "length-mismatch" in title and "lost records" in title
    assert len(lost) == 11 and lost[0][:5] == ("PaymentEvents", "3", "0", "4,000", "382")
    assert ("consumequeue/", "rebuilt") == files[0][:2]
    assert (command.sub, command.args) == ("salvage", ("--plan",))
    assert (mode, hex_cursor) == ("hex", 4000)
    assert "--screen salvage" in help_text().plain


def test_a_span_with_more_lost_records_than_listed_says_first_n_of_m(store, monkeypatch):
    import inspector.tui.screens.salvage as salvage_screen

    monkeypatch.setattr(salvage_screen, "LIMIT", 3)

    class Plan:
        def as_dict(self, sample):
            records = [{"physical_offset": 10 * i, "size": 10, "topic": "\x1b]0;PWNED\x07[b]x[/b]", "queue_id": 0,
                        "queue_offset": i, "keys": ["k\x1b[2J"]} for i in range(9)]
            return {"store": "s", "replica": None, "verdict": "0 record(s) intact; 1 span(s) lost", "files": [],
                    "repaired_records": [], "lmq_units_lost": 0, "notes": ["\x1b[31mred"],
                    "spans": [{"start": 0, "end": 90, "bytes": 90, "file": "commitlog/0", "state": "lost",
                               "action": "filled", "reason": "zeros \x07", "records": 9,
                               "lost_records": records[:sample], "lost_records_total": 9,
                               "lost_records_listed": sample, "keys": [], "keys_total": 9,
                               "without_placeholder": 0, "placeholders": 9, "fillers": 0}]}

    monkeypatch.setattr(salvage_screen, "salvage_plan", lambda s: Plan())

    async def script(pilot):
        await settle(pilot, rounds=6)
        screen = pilot.app.views["salvage"]
        return (static_text(screen.query_one("#salvage-lost-title")), _rows(screen.query_one("#salvage-lost")),
                static_text(screen.query_one("#salvage-notes")))

    title, lost, notes = drive(create_app(store, background_scan=False, screen="salvage"), script)
    assert "first 3 of 9" in title and "\\x07" in title
    assert len(lost) == 3 and lost[0][0] == "\\x1b]0;PWNED\\x07[b]x[/b]" and lost[0][5] == "k\\x1b[2J"
    assert "\\x1b[31mred" in notes


def test_the_salvage_screen_at_80x24_shows_the_lost_span_and_help(tmp_path):
    """At 80x24 (a snapshot there depended on when the cursor reached the lost span): the lost span's row, its
    state and the help key are on screen."""
    from tui_helpers import drive, screen_text, settle
    from zeroed_page_store import zeroed_page_store

    from inspector.engine import Store
    from inspector.tui.app import create_app

    root, _ = zeroed_page_store(tmp_path / "s")

    async def script(pilot):
        await settle(pilot, rounds=6)
        return screen_text(pilot.app)

    with Store(root) as store:
        text = drive(create_app(store, background_scan=False, screen="salvage"), script, size=(80, 24))
    assert "lost" in text and "4,000" in text and "8,516" in text and "? Help" in text


def test_the_lost_records_columns_are_as_wide_as_their_widest_cell_when_filled(tmp_path):
    """Issue 33: like the Problems list, each column of the lost records gets its width when the table is filled,
    not later in the table's idle measuring (a snapshot taken before it showed 'Payme' for PaymentEvents)."""
    root, _ = zeroed_page_store(tmp_path / "sample_store")
    with Store(root) as store:
        async def script(pilot):
            await settle(pilot, rounds=6)
            screen = pilot.app.views["salvage"]
            screen._show_span(0)
            screen._show_span(1)  # filled again, and read before any idle handler ran
            table = screen.query_one("#salvage-lost", DataTable)
            return [(c.label.plain, c.width, c.auto_width) for c in table.columns.values()], _rows(table)

        columns, rows = drive(create_app(store, background_scan=False, screen="salvage"), script)
    widest = [max(len(label), *(len(r[i]) for r in rows))
              for i, (label, _, _) in enumerate(columns)]
    assert [(w, auto) for _, w, auto in columns] == [(w, False) for w in widest]
    assert rows and columns[0][1] >= len("PaymentEvents")  # not the 5 of its header


def _salvage_text(tmp_path, size, resize_to=None):
    from tui_helpers import screen_text

    root, _ = zeroed_page_store(tmp_path / "s")

    async def script(pilot):
        await settle(pilot, rounds=6)
        if resize_to:
            await pilot.resize_terminal(*resize_to)
            await settle(pilot)
        return screen_text(pilot.app)

    with Store(root) as store:
        return drive(create_app(store, background_scan=False, screen="salvage"), script, size=size)


@pytest.mark.parametrize(("size", "resize_to"), [((80, 24), None), ((120, 40), (80, 24))], ids=["80x24", "120 to 80"])
def test_the_salvage_plan_is_readable_at_80_columns(tmp_path, size, resize_to):
    """Issue 33: at 80 columns the spans' action column showed two letters ('ke', 'fi') and the other files' why
    was cut ('from the salvaged commitlog (rmq'). The narrow table names the segment and has no action column;
    the highlighted span's action is whole on its detail line; the why folds over lines in the room it has."""
    lines = [line.rstrip() for line in _salvage_text(tmp_path, size, resize_to).splitlines()]
    assert next(line for line in lines if line.lstrip().startswith("state")).split() == [
        "state", "segment", "start", "end", "bytes", "records"]
    assert any(line.split()[:3] == ["lost", "00000000000000000000", "4,000"] for line in lines)
    assert " span 4,000..8,516 (lost) → filled with placeholder and filler records" in lines
    assert any(line.startswith(" why: length-mismatch") for line in lines)
    row = next(i for i, line in enumerate(lines) if line.startswith(" consumequeue/"))
    assert lines[row].split()[1:6] == ["rebuilt", "from", "the", "salvaged", "commitlog"]  # then the scrollbar
    assert lines[row + 1].strip() == "(rmq-inspect rebuild)"


def test_the_salvage_plan_at_120_columns_keeps_the_action_column(tmp_path):
    lines = _salvage_text(tmp_path, (120, 40)).splitlines()
    assert next(line for line in lines if line.lstrip().startswith("state")).split()[-1] == "action"
    assert any(line.split()[:2] == ["lost", "commitlog/00000000000000000000"]
               and line.rstrip().endswith("filled with placeholder and filler records") for line in lines)
    assert any(line.startswith(" consumequeue/") and line.rstrip().endswith("(rmq-inspect rebuild)")
               for line in lines)
