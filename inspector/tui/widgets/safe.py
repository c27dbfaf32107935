"""Widgets that show store text safely whatever they are given (the rule is in :mod:`inspector.tui.fmt`), and
the app's last net, ``ControlNet``.

Each passes a str or a Text through ``fmt.safe``: a str is plain text, never Textual or Rich markup, and a control
character left in a Text is shown escaped. Other renderables (a Rich ``Table``, a ``Group``) pass unchanged: whoever
builds one builds its cells and titles as escaped Texts (``fmt.plain``).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.segment import Segment
from rich.text import Text
from textual.color import Color
from textual.filter import LineFilter
from textual.widgets import DataTable, Label, Static, Tree
from textual.widgets.data_table import CellType, ColumnKey, RowKey

from inspector.engine import has_terminal_controls
from inspector.tui.fmt import esc, safe


def _safe_content(content):
    return safe(content) if isinstance(content, str | Text) else content


class SafeStatic(Static):
    """A Static whose str or Text content is shown escaped and never as markup."""

    def __init__(self, content="", **kwargs) -> None:
        kwargs.setdefault("markup", False)
        super().__init__(_safe_content(content), **kwargs)

    def update(self, content="", *, layout: bool = True) -> None:
        super().update(_safe_content(content), layout=layout)


class SafeLabel(SafeStatic, Label):
    """A Label whose str or Text content is shown escaped and never as markup."""


def _safe_cell(cell):
    """A DataTable cell: a str that markup could change (Rich reads ``[`` as a tag, ``:name:`` as an emoji) or
    that holds a control character becomes an escaped Text; any other str stays a str (what it shows is what it
    is, and callers reading the table back get their str)."""
    if isinstance(cell, str):
        return safe(cell) if "[" in cell or ":" in cell or has_terminal_controls(cell) else cell
    return safe(cell) if isinstance(cell, Text) else cell


class SafeTable(DataTable):
    """A DataTable whose str cells are plain text (DataTable reads a str cell as markup) and escaped."""

    def add_row(self, *cells: CellType, height: int | None = 1, key: str | None = None,
                label: str | Text | None = None) -> RowKey:
        return super().add_row(*(_safe_cell(c) for c in cells), height=height, key=key,
                               label=None if label is None else safe(label))

    def update_cell(self, row_key: RowKey | str, column_key: ColumnKey | str, value: CellType, *,
                    update_width: bool = False) -> None:
        super().update_cell(row_key, column_key, _safe_cell(value), update_width=update_width)


def fill_fitted(table: DataTable, labels: Sequence[str], rows: Sequence[Sequence[CellType]],
                keys: Sequence[str] | None = None) -> None:
    """``table`` emptied (columns too) and filled with ``rows``, each column as wide as its widest cell (its label
    included), given when the column is made. A DataTable left to measure its rows does so later, in its idle
    handler: a list refilled as rows arrive was drawn (a CI snapshot) with a column as wide as its header or its
    first row ('cq-dangli'). Cells go through the SafeTable's escaping first, so the widths are those shown."""
    shown = [[_safe_cell(c) for c in row] for row in rows]
    table.clear(columns=True)
    for i, label in enumerate(labels):
        table.add_column(label, width=max([cell_len(label), *(cell_len(_plain(r[i])) for r in shown)]))
    for n, row in enumerate(shown):
        table.add_row(*row, key=None if keys is None else keys[n])


def _plain(cell) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


class SafeTree(Tree):
    """A Tree whose str labels are plain text (Tree reads a str label as markup) and escaped."""

    def process_label(self, label: str | Text) -> Text:
        return super().process_label(safe(label))


class ControlNet(LineFilter):
    """The last net (a line filter over every painted line of every widget): a control character still in a
    line is escaped there, the line cut back to its width, and ``hits`` counts the lines so mended.

    Rich gives a control character no width, so a missed one reaches the terminal raw: ``ESC [ 2 J`` clears the
    screen. Escaped here, the line keeps its width (its tail is cut), which is why the views escape first, with
    the layout right (``fmt.esc``), and the tests hold ``hits`` at zero. A line is filtered once (Textual caches
    a filtered strip), so the cost is one search of each new line's text: ~30 us for a hex row of 100 segments,
a tenth of what Textual's own colour filter takes for it.
    """

    def __init__(self) -> None:
        super().__init__()
        self.hits = 0

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        # one search over the line's text (a hex row is ~100 segments: a search each cost 5x more)
        if not has_terminal_controls("".join([text for text, _, control in segments if not control])):
            return segments
        self.hits += 1
        width = Segment.get_line_length(segments)
        mended = [s if s.control else Segment(esc(s.text), s.style, s.control) for s in segments]
        return Segment.adjust_line_length(mended, width)
