"""Timer wheel (5.x timer store): the wheel's non-empty slots; a slot's chain drawn like the index chain
(last_pos -> prev_pos ... -> -1, each hop's timer-log unit and its rmq_sys_wheel_timer record, hops against
num); enter on a hop opens its record. A second teaching subject beside the index chain."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Header

from inspector.engine import (
    TIMER_SLOT,
    open_timer,
    timer_chain_view,
    timer_slot_views,
    timer_summary,
    zone_label,
)
from inspector.tui.copyout import Command
from inspector.tui.fmt import esc, num, parse_kind, plain, when
from inspector.tui.messages import WorkerFailed
from inspector.tui.screens.base import ViewScreen
from inspector.tui.widgets.safe import SafeStatic, SafeTable

SLOT_ROWS = 2000  # slots listed at most (a busy wheel has up to 1,209,600): the summary says when cut
HOP_ROWS = 1000  # hops of one chain drawn at most (a hot second can hold 100,000 timers): the verdict says so
HOP_COLUMNS = ("hop", "timer-log offset", "magic", "delivery", "in slot", "topic", "commitlog offset", "record")


class TimerScreen(ViewScreen):
    BINDINGS = [
        Binding("s", "slot_prompt", "Walk slot #"),
        Binding("question_mark", "app.help", "Help"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._hop_offsets: dict[str, int] = {}
        self.walked: int | None = None  # the slot whose chain is shown (C: `timer STORE --slot N`)

    def compose(self) -> ComposeResult:
        yield Header()
        yield SafeStatic(Text("9 Timer wheel  (1-8: the other screens)", style="bold"), id="timer-title")
        yield SafeStatic(Text("reading the timer store…", style="dim"), id="timer-summary")
        with Horizontal(id="timer-main"):
            yield SafeTable(id="timer-slots", cursor_type="row", zebra_stripes=True)
            yield SafeTable(id="timer-hops", cursor_type="row", zebra_stripes=True)
        yield SafeStatic("", id="timer-verdict")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#timer-slots", DataTable).add_columns("slot", "time", "num", "pending")
        # the delivery cells are cut to the second (the topic column must stay in view): the header names the zone
        zone = zone_label().split()[-1]
        self.query_one("#timer-hops", DataTable).add_columns(
            *(f"{c} {zone}" if c == "delivery" else c for c in HOP_COLUMNS))
        self._load()

    def command(self) -> Command:
        return Command("timer", ("--slot", str(self.walked)) if self.walked is not None else ("--summary",))

    def focus_main(self) -> None:
        self.query_one("#timer-slots", DataTable).focus()

    @work(thread=True, exclusive=True, group="timer", exit_on_error=False)
    def _load(self) -> None:
        try:
            timer = open_timer(self.app.store)
            summary = timer_summary(timer)
            slots = list(timer_slot_views(timer, 0, SLOT_ROWS))
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("timer store", str(e)))
            return
        self.app.call_from_thread(self._show, summary, slots)

    def _show(self, summary: dict, slots: list[dict]) -> None:
        t = Text()
        if not summary["present"]:
            t.append("no timer store here (no timerlog/, timerwheel or config/timercheck): a 4.x store, or a "
                     "broker run with timerWheelEnable=false", style="yellow")
        else:
            wheel = summary["wheel"]
            t.append("timer log ", style="bold")
            t.append(f"{num(summary['units'])} unit(s) in {len(summary['timerlog_files'])} file(s), ends at "
                     f"{num(summary['timerlog_end'])}; pending {num(summary['pending'])}")
            t.append("\nwheel ", style="bold")
            t.append("none" if wheel is None else "0 bytes: not yet sized" if not wheel["sized"]
                     else f"{num(wheel['non_empty_slots'])} non-empty slot(s)")
            shown = len(slots)
            if wheel is not None and wheel["non_empty_slots"] > shown:
                t.append(f" (the first {shown} listed)", style="yellow")
            check = summary["timercheck"]
            if check is not None:
                t.append("\ntimercheck ", style="bold")
                t.append(f"lastReadTimeMs {when(check['last_read_time_ms'])}, lastTimerQueueOffset "
                         f"{num(check['last_timer_queue_offset'])}")
            for p in summary["problems"][:3]:
                t.append(f"\n{p['severity']}: {esc(p['file'])} @ {p['offset']}: {esc(p['reason'])}", style="red")
            t.append("\nenter on a slot walks its chain (last_pos → prev_pos …); enter on a hop opens its record",
                     style="dim")
        self.query_one("#timer-summary", SafeStatic).update(t)
        table = self.query_one("#timer-slots", DataTable)
        table.clear()
        for s in slots:
            table.add_row(str(s["slot"]), when(s["time"], "s"), str(s["num"]),
                          {True: "yes", False: "no", None: "?"}[s["pending"]], key=f"slot:{s['slot']}")
        self.focus_main()
        self.ready()

    def action_slot_prompt(self) -> None:
        def walk(text: str) -> None:
            try:
                self.walk(parse_kind(text, TIMER_SLOT, "slot"))
            except ValueError as e:
                self.notify(str(e), severity="error")

        self.app.ask("Walk a slot of the timer wheel", "slot number (0 … 1209599)", walk)

    def walk(self, slot: int) -> None:
        """Slot ``slot``'s chain into the hop table (also called by the command palette)."""
        if self.later(lambda: self.walk(slot)):
            return
        timer = open_timer(self.app.store)
        if timer.slot(slot) is None:
            self.notify(f"slot {slot} of the timer wheel is empty", severity="warning")
            return
        view = timer_chain_view(timer, timer.walk(slot, limit=HOP_ROWS))
        self.walked = slot
        table = self.query_one("#timer-hops", DataTable)
        table.clear()
        self._hop_offsets.clear()
        for hop in view["chain"]:
            u = hop["unit"]
            key = f"hop:{hop['hop']}"
            if u is None:
                table.add_row(str(hop["hop"]), num(hop["offset"]), Text("no unit here", style="red"), "", "", "", "",
                              "", key=key)
                continue
            rec = u["record"]
            if rec is not None:
                self._hop_offsets[key] = rec["physical_offset"]
                record = Text(f"{esc(rec['unique_key'] or rec['msg_id'])}  TIMER_OUT_MS {esc(str(rec['timer_out_ms']))}")
                if rec["del_unique_key"]:
                    record.append(f"  cancels {esc(rec['del_unique_key'])}", style="yellow")
            else:
                record = plain(u["record_problem"], "red")
            table.add_row(str(hop["hop"]), num(hop["offset"]), "|".join(u["magic_names"]),
                          when(u["delivery_time"], "s")[:19], "yes" if hop["in_slot"] else Text("no", style="yellow"),
                          u["topic"] or f"hash {u['topic_hash']}", num(u["commitlog_offset"]), record, key=key)
        verdict = Text(f"slot {slot}: time {when(view['time'])}, num {view['num']}; {view['hops']} hop(s) counting "
                       f"{view['counted']} (+1 per unit, -1 per DELETE): ")
        word, style = {True: ("matches", "bold green"), False: ("does not match", "bold red"),
                       None: ("not known", "bold yellow")}[view["num_matches"]]
        verdict.append(word, style=style)
        if view["truncated"]:
            verdict.append(f"  (the first {HOP_ROWS} hops only: `rmq-inspect timer STORE --slot {slot}` walks all)",
                           style="yellow")
        for p in view["problems"]:
            verdict.append(f"  {esc(p['reason'])}", style="red")
        self.query_one("#timer-verdict", SafeStatic).update(verdict)
        table.focus()

    @on(DataTable.RowSelected, "#timer-slots")
    def _open_slot(self, event: DataTable.RowSelected) -> None:
        event.stop()
        value = str(event.row_key.value)
        if value.startswith("slot:"):
            self.walk(int(value[5:]))

    @on(DataTable.RowSelected, "#timer-hops")
    def _open_hop(self, event: DataTable.RowSelected) -> None:
        event.stop()
        offset = self._hop_offsets.get(str(event.row_key.value))
        if offset is not None:
            self.app.show_message(offset)

    def on_worker_failed(self, message: WorkerFailed) -> None:
        message.stop()
        self.notify(message.error, title=message.what, severity="error")
