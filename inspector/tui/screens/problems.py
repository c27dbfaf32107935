"""Problems: what the engine found (store layout, the commitlog walk, verify), a worklist: ``g`` groups each
finding under the log damage it points into (one zeroed page: one row that explains the queue units and index
items pointing into it), ``s`` shows one severity at a time; each opens its place in the hex view (a queue unit's
or an index item's: the log offset it points at)."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Header, ProgressBar
from textual.worker import get_current_worker

from inspector.engine import Problem, StoreError, problem_groups, verify
from inspector.tui.background import Cancelled
from inspector.tui.copyout import Command
from inspector.tui.fmt import clip, commitlog_offset, esc, num
from inspector.tui.messages import ScanProgress, VerifyDone, WorkerFailed
from inspector.tui.screens.base import ViewScreen
from inspector.tui.widgets.navbar import NavBar
from inspector.tui.widgets.safe import SafeStatic, SafeTable, fill_fitted

# info findings (retention's expired leftovers) are normal: neither red nor a warning's yellow
_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
COLUMNS = ("severity", "code", "phy offset", "reason", "file @ offset")


class ProblemsScreen(ViewScreen):
    NARROW_HIDDEN = frozenset({"group", "severity"})
    BINDINGS = [
        Binding("v", "verify", "Run verify"),
        Binding("escape", "cancel", "Cancel verify"),
        Binding("g", "group", "Group by cause"),
        Binding("s", "severity", "Severity"),
        Binding("question_mark", "app.help", "Help"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._verifying = False
        self.verified: VerifyDone | None = None
        self._rows: dict[str, Problem] = {}
        self._caused: dict[str, list[Problem]] = {}  # grouped: row key -> the findings its root explains
        self.grouped = False  # g: roots only, each with how many findings it explains
        self.severity: str | None = None  # s: None (all), then error, warning, info

    @property
    def verifying(self) -> bool:
        return self._verifying

    @verifying.setter
    def verifying(self, value: bool) -> None:
        self._verifying = value
        self.refresh_bindings()  # `esc Cancel verify` in the footer only while verify runs

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides the binding: esc does nothing when no verify runs (issue 33: offered before and after)
        if action == "cancel":
            return self.verifying
        return True

    def compose(self) -> ComposeResult:
        yield Header()
        yield NavBar("problems")
        with Horizontal(id="problems-bar"):
            yield SafeStatic("", id="problems-status")
            yield ProgressBar(total=100, show_eta=False, id="problems-progress")
        yield SafeTable(id="problems-table", cursor_type="row", zebra_stripes=True)
        yield SafeStatic("", id="problems-detail")
        yield Footer()

    def command(self) -> Command:
        return Command("verify")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        if self.focused is None:
            table.focus()
        self.ready()
        self.problems_changed()

    # -- the list ----------------------------------------------------------------------------------------------

    def problems_changed(self) -> None:
        if not self._ready:
            return
        problems = self._shown()
        table = self.query_one(DataTable)
        row = table.cursor_row
        self._rows.clear()
        self._caused.clear()
        cells = []
        for i, (p, caused) in enumerate(problems):
            key = f"p{i}"
            self._rows[key] = p
            self._caused[key] = caused
            explains = len(caused)
            phy = _place(p)
            sev = Text(p.severity, style=_STYLE.get(p.severity, "yellow"))
            # a reason quotes the store (a topic, a key, a file name): escaped before it is cut to its column
            reason = clip(esc(p.reason), 60) if not explains else clip(f"(+{explains} caused) {esc(p.reason)}", 60)
            cells.append((sev, p.code, "-" if phy is None else num(phy), reason, f"{esc(p.file)} @ {num(p.offset)}"))
        # each column as wide as its widest cell, given when the column is made (a list refilled as findings
        # arrive was drawn, a CI snapshot, with the code column as wide as the first finding's code)
        fill_fitted(table, COLUMNS, cells, list(self._rows))
        if problems:
            table.move_cursor(row=min(row, len(problems) - 1))
        else:
            # "so far" only while a source is still to come: the walk running or verify not yet run
            final = self.verified is not None and (self.app.scan_complete or not self.app.background_scan)
            said = "nothing found" if final else "nothing found so far"
            self.query_one("#problems-detail", SafeStatic).update(Text(said, style="dim"))
        self._status()

    def _shown(self) -> list[tuple[Problem, list[Problem]]]:
        """The rows: every finding (flat), or each root with the findings it explains (grouped, grouped once per
        refresh: a cursor move reads them from the row); one severity or all."""
        problems = self.app.all_problems()
        rows = ([(g.root, g.caused) for g in problem_groups(problems)] if self.grouped
                else [(p, []) for p in problems])
        return [r for r in rows if self.severity is None or r[0].severity == self.severity]

    def action_group(self) -> None:
        self.grouped = not self.grouped
        self.problems_changed()

    def action_severity(self) -> None:
        order = [None, "error", "warning", "info"]
        self.severity = order[(order.index(self.severity) + 1) % len(order)]
        self.problems_changed()

    @on(DataTable.RowHighlighted, "#problems-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key is None:  # pagedown in an empty table highlights no row (it raised AttributeError)
            return
        p = self._rows.get(str(event.row_key.value))
        if p is None:
            return
        t = Text()
        t.append(f"{p.severity} {p.code}", style="bold " + _STYLE.get(p.severity, "yellow").removeprefix("bold "))
        t.append(f"  {esc(p.file)} @ {num(p.offset)}\n", style="bold")
        t.append(esc(p.reason))
        phy = _place(p)
        caused = self._caused.get(str(event.row_key.value), [])
        if caused:
            t.append(f"\nexplains {num(len(caused))} finding(s) pointing into it: "
                     + ", ".join(sorted({c.code for c in caused})) + " (g lists them all)", style="yellow")
        t.append(("\nenter shows this place in the hex view" if p.points_at is None else
                  f"\nenter shows the log offset it points at ({num(p.points_at)}) in the hex view")
                 if phy is not None else "\nnot in the commitlog: the hex view shows commitlog bytes only", style="dim")
        self.query_one("#problems-detail", SafeStatic).update(t)

    def _status(self, extra: str = "") -> None:
        problems = self.app.all_problems()
        errors = sum(1 for p in problems if p.severity == "error")
        t = Text()
        t.append(f"{num(len(problems))} problem(s)", style="bold red" if errors else "bold green")
        t.append(f", {num(errors)} error(s)")
        if self.grouped or self.severity:
            shown = self._rows  # what problems_changed just listed (not grouped again)
            how = (["grouped by cause"] if self.grouped else []) + ([f"{self.severity}s only"] if self.severity else [])
            t.append(f" · {num(len(shown))} row(s) shown, {', '.join(how)} (g, s)", style="yellow")
        sources = ["store layout"]
        if any(k.startswith("scan:") for k in self.app.problem_sources):
            sources.append("commitlog walk" + ("" if self.app.scan_complete else " (not finished)"))
        if self.verified is not None:
            v = self.verified
            sources.append(f"verify ({num(v.messages)} records, {num(v.cq_units)} queue units, "
                           f"{num(v.index_items)} index items)")
        t.append(" · from " + ", ".join(sources), style="dim")
        if self.verified is None and not self.verifying:
            t.append(" · v runs verify", style="dim")
        if extra:
            t.append(f" · {esc(extra)}", style="yellow")
        self.query_one("#problems-status", SafeStatic).update(t)

    @on(DataTable.RowSelected, "#problems-table")
    def _jump(self, event: DataTable.RowSelected) -> None:
        event.stop()
        p = self._rows.get(str(event.row_key.value))
        if p is None:
            return
        phy = _place(p)
        if phy is None:
            self.notify(f"{esc(p.file)} is not in the commitlog: the hex view shows commitlog bytes only",
                        title=p.code, severity="warning")
            return
        self.app.show_hex(phy)

    # -- verify ------------------------------------------------------------------------------------------------

    def action_verify(self) -> None:
        if self.later(self.action_verify):
            return
        if self.verifying:
            self.notify("verify is already running (escape cancels)", severity="warning")
            return
        self.verifying = True
        self._status("verifying… (escape cancels)")
        self._verify()

    def action_cancel(self) -> None:
        if self.verifying:
            self.app.workers.cancel_group(self, "verify")

    @work(thread=True, exclusive=True, group="verify", exit_on_error=False)
    def _verify(self) -> None:
        worker = get_current_worker()

        def progress(phase: str, done: int, total: int) -> None:
            self.post_message(ScanProgress("verify", phase, done, total))
            if worker.is_cancelled:
                raise Cancelled

        try:
            report = verify(self.app.store, progress=progress)
        except Cancelled:
            self.post_message(VerifyDone(None))
            return
        except StoreError as e:
            self.post_message(WorkerFailed("verify", str(e)))
            return
        except Exception as e:  # noqa: BLE001 - report, never crash the app
            self.post_message(WorkerFailed("verify", f"{type(e).__name__}: {e}"))
            return
        self.post_message(VerifyDone(report.problems, report.messages, report.cq_units, report.index_items))

    def on_scan_progress(self, message: ScanProgress) -> None:
        if message.task != "verify":
            return
        message.stop()
        self.query_one(ProgressBar).update(total=max(1, message.total), progress=message.done)
        self._status(f"verifying {message.label} {100 * message.done // max(1, message.total)}% (escape cancels)")

    def on_verify_done(self, message: VerifyDone) -> None:
        message.stop()
        self.verifying = False
        bar = self.query_one(ProgressBar)
        if message.problems is None:
            self._status("verify cancelled")
            self.notify("verify cancelled", severity="warning")
            return
        bar.update(total=1, progress=1)
        self.verified = message
        self.app.set_problems("verify", message.problems)
        n = len(message.problems)
        self.notify(f"verify found {n} problem(s)" if n else "verify found no problem",
                    severity="warning" if n else "information")

    def on_worker_failed(self, message: WorkerFailed) -> None:
        message.stop()
        self.verifying = False
        self._status(f"{message.what} failed")
        self.notify(message.error, title=message.what, severity="error")


def _place(p: Problem) -> int | None:
    """The log offset a finding opens in the hex view: its own (a commitlog finding), or the one it points at."""
    phy = commitlog_offset(p)
    return phy if phy is not None else p.points_at
