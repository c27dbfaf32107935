"""Salvage plan (the command palette, or ``rmq-inspect tui STORE --screen salvage``): what ``rmq-inspect salvage
STORE --plan`` says, one table row per commitlog span (intact, recoverable, lost) with what salvage does to it, the
lost records of the highlighted span (each kept as a placeholder at its queue offset), the other files and the
notes. The plan runs verify first (seconds on a big store), so it is computed once, in a background worker; Enter
on a span opens the hex view at its start."""

from __future__ import annotations

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Header

from inspector.engine import salvage_plan
from inspector.tui.copyout import Command
from inspector.tui.fmt import esc, num
from inspector.tui.messages import WorkerFailed
from inspector.tui.screens.base import NARROW_LAYOUT, ViewScreen
from inspector.tui.widgets.safe import SafeStatic, SafeTable, fill_fitted

LIMIT = 100  # lost records listed per span, as `salvage --limit`: the line above them says "first N of M"
LOST_COLUMNS = ("topic", "queue", "queue offset", "offset", "size", "keys")
SPAN_COLUMNS = ("state", "file", "start", "end", "bytes", "records", "action")
# below NARROW_LAYOUT columns (80: the action was cut after a word or two): the segment's name alone, no action
# column; the highlighted span's action is whole on its detail line under the table, at every width
NARROW_SPAN_COLUMNS = ("state", "segment", "start", "end", "bytes", "records")
STATE_STYLE = {"intact": "", "recoverable": "yellow", "lost": "bold red"}  # the problems screen's warning / error


class SalvageScreen(ViewScreen):
    BINDINGS = [Binding("enter", "open_row", "Hex at span start"), Binding("question_mark", "app.help", "Help")]

    def __init__(self) -> None:
        super().__init__()
        self.view_data: dict | None = None
        self.error: str | None = None
        self.narrow: bool | None = None  # the spans table's layout last filled (None: not yet)
        self._files_width = 0  # the width the other files' table was last filled for

    def compose(self) -> ComposeResult:
        yield Header()
        yield SafeStatic(Text("Salvage plan  (Enter: hex at the span's start; 0-9: the other screens)",
                              style="bold"), id="salvage-title")
        yield SafeStatic(Text("planning (verify runs first)…", style="dim"), id="salvage-verdict")
        yield SafeTable(id="salvage-spans", cursor_type="row", zebra_stripes=True)
        yield SafeStatic(Text(""), id="salvage-lost-title")
        yield SafeTable(id="salvage-lost", cursor_type="none", zebra_stripes=True)
        yield SafeTable(id="salvage-files", cursor_type="none", zebra_stripes=True)
        yield SafeStatic(Text(""), id="salvage-notes")
        yield Footer()

    def on_mount(self) -> None:
        self._plan()
        self.ready()

    def focus_main(self) -> None:
        self.query_one("#salvage-spans", DataTable).focus()

    def command(self) -> Command:
        return Command("salvage", ("--plan",))

    @work(thread=True, exclusive=True, group="salvage", exit_on_error=False)
    def _plan(self) -> None:
        try:
            view = salvage_plan(self.app.store).as_dict(LIMIT)
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("the salvage plan", str(e)))
            self.app.call_from_thread(self._failed, str(e))
            return
        self.app.call_from_thread(self._show, view)

    def _failed(self, error: str) -> None:
        self.error = error
        self.query_one("#salvage-verdict", SafeStatic).update(Text(f"no plan: {esc(error)}", style="bold red"))

    def _show(self, v: dict) -> None:
        self.view_data = v
        spans = v["spans"]
        lost = any(s["state"] == "lost" for s in spans)
        recoverable = any(s["state"] == "recoverable" for s in spans)
        style = "bold red" if lost else "yellow" if recoverable else "bold green"
        verdict = Text(f"salvage: {esc(v['verdict'])}", style=style)
        if v["replica"]:
            verdict.append(f"  (replica {esc(v['replica'])})", style="dim")
        self.query_one("#salvage-verdict", SafeStatic).update(verdict)
        self.narrow = None
        self._fill_spans(self.app.size.width)
        table = self.query_one("#salvage-spans", DataTable)
        self._fill_files(self.app.size.width)
        self.query_one("#salvage-notes", SafeStatic).update(self._notes(v))
        self._shown = None  # a new plan: its span's records are shown again
        first_lost = next((i for i, s in enumerate(spans) if s["state"] == "lost"), 0)
        if spans:
            table.move_cursor(row=first_lost)  # the damage first: a lost span's records are what a reader wants
        self._show_span(first_lost)
        self.focus_main()

    def on_resize(self, event: events.Resize) -> None:
        if self.view_data is None:
            return
        row = self.query_one("#salvage-spans", DataTable).cursor_row
        if self._fill_spans(event.size.width):
            self.query_one("#salvage-spans", DataTable).move_cursor(row=row)
        self._fill_files(event.size.width)

    def _fill_spans(self, width: int) -> bool:
        """The spans table for ``width`` columns (narrow: no action column, the segment's name); True if refilled."""
        narrow = width < NARROW_LAYOUT
        if narrow == self.narrow or self.view_data is None:
            return False
        self.narrow = narrow
        rows = []
        for s in self.view_data["spans"]:
            cells = [Text(s["state"], style=STATE_STYLE.get(s["state"], "")),
                     esc(s["file"].rsplit("/", 1)[-1] if narrow else s["file"]), num(s["start"]), num(s["end"]),
                     num(s["bytes"]), num(s["records"])]
            rows.append(cells if narrow else [*cells, esc(s["action"])])
        fill_fitted(self.query_one("#salvage-spans", DataTable), NARROW_SPAN_COLUMNS if narrow else SPAN_COLUMNS,
                    rows, keys=[str(i) for i in range(len(rows))])
        return True

    def _fill_files(self, width: int) -> None:
        """The other files, the `why` column given the width the others leave and folded over lines in it (at 80
        columns it was cut: 'from the salvaged commitlog (rmq')."""
        if self.view_data is None or width == self._files_width:
            return
        self._files_width = width
        rows = [(esc(f["file"]), esc(f["action"]), esc(f["reason"]) or "-") for f in self.view_data["files"]]
        labels = ("other file", "action", "why")
        widths = [max([len(label), *(len(r[i]) for r in rows)]) for i, label in enumerate(labels)]
        # each column's padding (two cells), the vertical scrollbar's two and two spare (one less and DataTable
        # showed a horizontal scrollbar)
        room = max(20, width - widths[0] - widths[1] - 3 * 2 - 4)
        files = self.query_one("#salvage-files", DataTable)
        files.clear(columns=True)
        files.add_column(labels[0], width=widths[0])
        files.add_column(labels[1], width=widths[1])
        files.add_column(labels[2], width=min(widths[2], room))
        for r in rows:
            files.add_row(r[0], r[1], Text(r[2]), height=None)

    @staticmethod
    def _notes(v: dict) -> Text:
        t = Text()
        unplaced = sum(s["without_placeholder"] for s in v["spans"])
        lines = [f"{unplaced} lost record(s) got no placeholder: their queues' later offsets move down by one each"
                 ] if unplaced else []
        if v["repaired_records"]:
            lines.append("PHYSICALOFFSET rewritten at " + ", ".join(num(o) for o in v["repaired_records"]))
        if v["lmq_units_lost"]:
            lines.append(f"{v['lmq_units_lost']} %LMQ% unit(s) pointed into lost spans")
        lines += [f"note: {esc(n)}" for n in v["notes"]]
        t.append("\n".join(lines), style="yellow")
        return t

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "salvage-spans" and event.row_key.value is not None:
            self._show_span(int(event.row_key.value))

    def _show_span(self, index: int) -> None:
        """The lost records of span ``index`` under the spans, with its reason."""
        # the plan's first showing asks twice (its cursor's move and the screen): a table cleared and filled again
        # before its first layout kept the columns at their headers' widths ('Payme' for PaymentEvents)
        if getattr(self, "_shown", None) == index:
            return
        self._shown = index
        spans = self.view_data["spans"] if self.view_data else []
        table = self.query_one("#salvage-lost", DataTable)
        table.clear(columns=True)
        title = self.query_one("#salvage-lost-title", SafeStatic)
        if not spans or index >= len(spans):
            title.update(Text(""))
            return
        s = spans[index]
        t = Text(f"span {num(s['start'])}..{num(s['end'])} ({s['state']})", style="bold")
        t.append(f" → {esc(s['action'])}")  # whole here: the narrow table has no action column
        if s["reason"]:
            t.append(f"\nwhy: {esc(s['reason'])}")
        total, listed = s["lost_records_total"], len(s["lost_records"])
        if total:
            t.append("\nlost records (a placeholder keeps each one's queue offset): "
                     + (f"first {num(listed)} of {num(total)}" if listed < total else f"{num(total)}"),
                     style="yellow" if listed < total else "")
        else:
            t.append("\nno lost records in this span", style="dim")
        title.update(t)
        if not total:
            return
        # each column as wide as its widest cell from the start (the Problems list's way): the picture does not
        # wait for the table's idle measuring
        fill_fitted(table, LOST_COLUMNS,
                    [(esc(r["topic"]), str(r["queue_id"]), num(r["queue_offset"]), num(r["physical_offset"]),
                      num(r["size"]), esc(", ".join(r["keys"])) or "-") for r in s["lost_records"]])

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a span (the table's own binding)."""
        event.stop()
        self._open(event.row_key.value)

    def action_open_row(self) -> None:
        table = self.query_one("#salvage-spans", DataTable)
        if table.row_count:
            self._open(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def _open(self, key: str | None) -> None:
        if self.view_data is None or key is None:
            return
        self.app.view("hex").goto(self.view_data["spans"][int(key)]["start"])
