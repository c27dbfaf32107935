"""Diff (``rmq-inspect tui A --compare B``, or the command palette): the two stores compared as ``rmq-inspect
diff A B`` compares them: the first divergence, commitlog ranges, records, queues, index items, DLedger terms and
config fields, one table row each. The comparison runs once, in a background worker (both logs read whole);
Enter on a row with an offset opens A's hex view there. Without a second store the screen says how to give one."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Header

from inspector.engine import diff_view, store_diff
from inspector.tui.fmt import esc, num
from inspector.tui.messages import WorkerFailed
from inspector.tui.screens.base import ViewScreen
from inspector.tui.widgets.safe import SafeStatic, SafeTable

LIMIT = 100  # per section, as `diff --limit`: the summary says what was left out


class DiffScreen(ViewScreen):
    BINDINGS = [Binding("enter", "open_row", "Hex at offset"), Binding("question_mark", "app.help", "Help")]

    def __init__(self) -> None:
        super().__init__()
        self.view_data: dict | None = None
        self.offsets: dict[str, int] = {}  # row key -> the log offset Enter opens

    def compose(self) -> ComposeResult:
        yield Header()
        yield SafeStatic(Text("Diff of two stores  (Enter: hex at the row's offset; 0-9: the other screens)",
                              style="bold"), id="diff-title")
        yield SafeStatic(Text("", style="dim"), id="diff-summary")
        yield SafeTable(id="diff-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        other = getattr(self.app, "compare", None)
        summary = self.query_one("#diff-summary", SafeStatic)
        if other is None:
            summary.update(Text("No second store: start with `rmq-inspect tui STORE --compare B` "
                                "(or run `rmq-inspect diff STORE B`).", style="yellow"))
            self.ready()
            return
        summary.update(Text(f"comparing {esc(str(self.app.store.root))} (A) with {esc(str(other.root))} (B)…",
                            style="dim"))
        self._compare()

    def focus_main(self) -> None:
        self.query_one("#diff-table", DataTable).focus()

    @work(thread=True, exclusive=True, group="diff", exit_on_error=False)
    def _compare(self) -> None:
        try:
            view = diff_view(store_diff(self.app.store, self.app.compare, LIMIT))
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("the diff", str(e)))
            self.app.call_from_thread(self.ready)
            return
        self.app.call_from_thread(self._show, view)

    def _row(self, table: DataTable, section: str, what: str, detail: str, offset: int | None = None) -> None:
        key = f"r{table.row_count}"
        if offset is not None:
            self.offsets[key] = offset
        table.add_row(section, what, detail, key=key)

    def _show(self, v: dict) -> None:
        self.view_data = v
        t = Text()
        if v["identical"]:
            t.append("the stores are identical (commitlog, consume queues, index items, checkpoint, config"
                     + (", DLedger terms)" if v["dledger_terms"] else ")"), style="green")
        elif v["first_divergence"] is not None:
            t.append(f"the commitlogs first diverge at offset {num(v['first_divergence'])}", style="bold")
        else:
            t.append("the commitlogs agree; other parts differ", style="bold")
        for note in v["left_out"]:
            t.append(f"\na partial answer: {esc(note)}", style="yellow")
        self.query_one("#diff-summary", SafeStatic).update(t)
        table = self.query_one("#diff-table", DataTable)
        table.clear(columns=True)
        table.add_columns("section", "what", "detail")
        for key, label in (("only_in_a", "only in A"), ("only_in_b", "only in B"), ("differing", "bytes differ")):
            for r in v[key]:
                self._row(table, "commitlog", f"{label} {num(r['start'])}..{num(r['end'])}",
                          f"{num(r['end'] - r['start'])} bytes", r["start"])
        for r in v["records"]:
            self._row(table, "record", f"offset {num(r['offset'])}", ", ".join(r["fields"]) or r["note"], r["offset"])
        for q in v["queues"]:
            self._row(table, "queue", f"{q['topic']}#{q['queue_id']}",
                      f"A {q['min_a']}..{q['max_a']}, B {q['min_b']}..{q['max_b']}, first differing unit "
                      f"{q['first_differing_unit']}")
        if v["index_only_in_a"] or v["index_only_in_b"]:
            self._row(table, "index", "items in one store only",
                      f"A {num(v['index_only_in_a'])}, B {num(v['index_only_in_b'])}")
        for i in v["index_items"]:
            self._row(table, "index item", f"only in {i['side']}: {i['key']}",
                      f"{i['file']} keyHash {i['key_hash']} -> {num(i['phy_offset'])}",
                      i["phy_offset"] if i["side"] == "A" else None)
        terms = v["dledger_terms"]
        if terms and not terms["same"]:
            at = terms["diverges_at"]
            self._row(table, "DLedger terms", "diverge" if at is not None else "one log runs on",
                      (f"at Raft index {at}: term {terms['term_a']} in A, {terms['term_b']} in B; " if at is not None
                       else "") + f"A ends at {terms['last_index_a']} (term {terms['last_term_a']}), B at "
                      f"{terms['last_index_b']} (term {terms['last_term_b']})")
        for f in v["files"]:
            self._row(table, "config", f"{f['file']}: {f['field']}", f"A {f['a']}, B {f['b']}")
        self.focus_main()
        self.ready()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row (the table's own binding)."""
        event.stop()
        self._open(event.row_key.value)

    def action_open_row(self) -> None:
        table = self.query_one("#diff-table", DataTable)
        if table.row_count:
            self._open(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def _open(self, key: str | None) -> None:
        offset = self.offsets.get(key or "")
        if offset is None:
            self.app.notify("this row names no offset of A's log", severity="warning")
            return
        self.app.view("hex").goto(offset)
