"""Tables of thousands of rows (``group``/``info`` of 16,000 queues: 25 s of CPU in Rich measuring 144,000
cells) are drawn line by line past BIG_TABLE rows, looking as Rich draws them: the same text for the same rows."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

import inspector.cli.output as output


def _render(monkeypatch, big_after: int, rows: list[list]) -> str:
    monkeypatch.setattr(output, "BIG_TABLE", big_after)
    t = output.table("Queues", "topic", "queue", "lag", "stored")
    for r in rows:
        t.add_row(*r)
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(t)
    return console.file.getvalue()


def test_the_line_by_line_table_reads_as_richs(monkeypatch):
    rows = [["T1", "0", "12", "2025-09-19 09:00:00.000 +00:00"], [Text("Topic-long", style="bold"), "11", "3", "x"],
            ["T\\x1b[2J", "2", "0", "-"]]  # store text arrives escaped, and stays so
    assert _render(monkeypatch, 0, rows) == _render(monkeypatch, 10**9, rows)


def test_many_rows_are_drawn_fast_and_whole(monkeypatch):
    rows = [[f"Topic{i:05d}", str(i % 8), str(i), "-"] for i in range(20_000)]
    text = _render(monkeypatch, output.BIG_TABLE, rows)
    lines = text.splitlines()
    assert len(lines) == 20_000 + 5 and lines[-2].startswith("│ Topic19999 │ 7 ")
