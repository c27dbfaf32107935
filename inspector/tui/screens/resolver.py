"""msgId resolver: both readings of a 32/56-hex id, whether its host is this store's broker, and its message."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Header, Label

from inspector.engine import IdReading, Message, StoreError, resolve_message_id
from inspector.tui.background import store_hosts
from inspector.tui.copyout import Command
from inspector.tui.fmt import esc, num, plain, when
from inspector.tui.messages import IdResolved, WorkerFailed
from inspector.tui.screens.base import FIELD_QUIT, ViewScreen
from inspector.tui.widgets.forminput import FormInput
from inspector.tui.widgets.navbar import NavBar
from inspector.tui.widgets.safe import SafeStatic, SafeTable

KIND_TITLES = {"offset_msg_id": "offset msgId", "unique_key": "unique key (UNIQ_KEY)"}


class ResolverScreen(ViewScreen):
    BINDINGS = [
        Binding("slash", "edit", "Edit id"),
        Binding("s", "story", "Story"),
        Binding("question_mark", "app.help", "Help"),
        Binding("f1", "app.help", "Help"),  # shown: while the field has focus `?` types into it
        FIELD_QUIT,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.result: IdResolved | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield NavBar("ids")
        with Horizontal(id="resolver-form"):
            yield Label("message id", classes="filter-label")
            yield FormInput(placeholder="paste an offset msgId or a unique key (32 or 56 hex digits) and press enter",
                            shorter=("paste an offset msgId or a unique key (32 or 56 hex digits), enter",
                                     "paste a msgId or UNIQ_KEY and press enter", "msgId or UNIQ_KEY"), id="r-id")
        yield SafeStatic(Text("An id of 32 hex digits reads two ways: as an offset msgId (store host + physical offset) "
                          "and as a producer's unique key. Both readings are tried against this store.", style="dim"),
                     id="resolver-summary")
        yield SafeTable(id="resolver-readings", cursor_type="row")
        yield SafeStatic("", id="resolver-detail")
        yield Footer()

    def focus_main(self) -> None:
        self.query_one(DataTable).focus()  # escape from the field lands here, where q, ? and 1-8 work again

    def on_paste(self, event: events.Paste) -> None:
        """A paste anywhere on the screen is an id: it goes to the id field (the field handles its own pastes)."""
        event.stop()
        field = self.query_one("#r-id", FormInput)
        field.value = event.text.strip()
        field.focus()

    def on_mount(self) -> None:
        if self.focused is None:  # a key typed while mounting may have focused a field
            # the id field on entry: an id typed here went to the screen keys (7F000001 opened screens 7 and 1)
            self.query_one("#r-id", FormInput).focus()
        self.query_one(DataTable).add_columns("reading", "in this store", "host", "our broker?", "decoded")
        self.ready()

    def action_edit(self) -> None:
        self.query_one("#r-id", FormInput).focus()

    def current_message(self) -> Message | None:
        """The message the id found (the highlighted reading when it found one, else the first that did)."""
        if self.result is None:
            return None
        found = [r for r in self.result.readings if r.found and r.physical_offset is not None]
        row = self.query_one(DataTable).cursor_row
        readings = self.result.readings
        if 0 <= row < len(readings) and readings[row] in found:
            found.insert(0, readings[row])
        for r in found:
            try:
                return self.app.store.message_at(r.physical_offset)
            except StoreError:
                continue
        return None

    def command(self) -> Command | None:
        return None if self.result is None else Command("decode-id", (self.result.text,))

    def action_story(self) -> None:
        """The story of the message the id finds (the id itself is the story's REF)."""
        if self.result is None or not any(r.found for r in self.result.readings):
            self.notify("resolve an id that finds a message first", severity="warning")
            return
        self.app.show_story(self.result.text)

    @on(FormInput.Submitted, "#r-id")
    def _submitted(self, event: FormInput.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.resolve(event.value)

    def resolve(self, text: str) -> None:
        if self.later(lambda: self.resolve(text)):
            return
        self.query_one("#r-id", FormInput).value = text.strip()
        self.query_one("#resolver-summary", SafeStatic).update(Text(f"resolving {esc(text.strip())}…", style="dim"))
        self._resolve(text.strip())

    @work(thread=True, exclusive=True, group="resolve", exit_on_error=False)
    def _resolve(self, text: str) -> None:
        store = self.app.store
        try:
            readings, approx, why = resolve_message_id(text, store)
            hosts = store_hosts(store)
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("resolve", str(e)))
            return
        self.post_message(IdResolved(text.upper(), readings, hosts, approx, why))

    def on_worker_failed(self, message: WorkerFailed) -> None:
        message.stop()
        self.query_one("#resolver-summary", SafeStatic).update(plain(message.error, "bold red"))
        self.notify(message.error, title=message.what, severity="error")

    def on_id_resolved(self, message: IdResolved) -> None:
        message.stop()
        self.result = message
        hosts = set(message.store_hosts)
        host_ips = {h.rsplit(":", 1)[0].strip("[]") for h in hosts}
        summary = Text()
        summary.append(esc(message.text), style="bold")
        summary.append(f"  ({len(message.text)} hex digits)\n")
        summary.append("this store's broker: ", style="dim")
        summary.append(esc(", ".join(sorted(hosts))) or "unknown (no readable record)", style="cyan")
        found = [r for r in message.readings if r.found]
        summary.append("\n")
        if found:
            names = " and ".join(KIND_TITLES[r.kind] for r in found)
            summary.append(f"found as {names}", style="bold green")
            summary.append(" · enter opens the message", style="dim")
        else:
            summary.append("neither reading finds a message in this store", style="bold yellow")
        self.query_one("#resolver-summary", SafeStatic).update(summary)
        table = self.query_one(DataTable)
        table.clear()
        for r in message.readings:
            table.add_row(*self._row(r, hosts, host_ips, message), key=r.kind)
        table.move_cursor(row=next((i for i, r in enumerate(message.readings) if r.found), 0))
        table.focus()
        self._detail(message)

    def _row(self, r: IdReading, hosts: set[str], host_ips: set[str], message: IdResolved) -> tuple:
        f = r.fields
        if r.kind == "offset_msg_id":
            host = f"[{f['ip']}]:{f['port']}" if ":" in f["ip"] else f"{f['ip']}:{f['port']}"
            decoded = f"physical offset {num(f['offset'])}"
            ours = Text("yes", style="green") if host in hosts else Text("no (another host)", style="yellow")
        else:
            host = f["ip"]
            decoded = f"pid {f['pid']}, counter {f['counter']}"
            ours = (Text("- (broker's ip)", style="dim") if host in host_ips
                    else Text("- (producer ip)", style="dim"))
        where = (Text(f"yes, at {num(r.physical_offset)}", style="bold green") if r.found
                 else Text("no", style="dim"))
        return Text(KIND_TITLES[r.kind], style="bold"), where, host, ours, decoded

    def _detail(self, message: IdResolved) -> None:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold")
        grid.add_column()
        for r in message.readings:
            f = r.fields
            if r.kind == "offset_msg_id":
                grid.add_row("offset msgId", plain(f"ip {f['ip']}  port {f['port']}  physical offset {num(f['offset'])}"))
            else:
                grid.add_row("unique key", plain(f"ip {f['ip']}  pid {f['pid']}  class-loader hash "
                                                 f"{f['class_loader_hash'] & 0xFFFFFFFF:08X}  counter {f['counter']}"))
                grid.add_row("", plain(f"time since month start {num(f['time_since_month_start'])} ms ≈ "
                                       f"{when(message.approx_time)} ({message.approx_basis})"))
        self.query_one("#resolver-detail", SafeStatic).update(grid)

    @on(DataTable.RowSelected, "#resolver-readings")
    def _open(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if self.result is None:
            return
        for r in self.result.readings:
            if r.kind == event.row_key.value:
                if r.found and r.physical_offset is not None:
                    self.app.show_message(r.physical_offset)
                else:
                    self.notify(f"the {KIND_TITLES[r.kind]} reading finds no message in this store", severity="warning")
