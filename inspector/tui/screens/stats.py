"""Statistics (key %, or the command palette): the log's records counted by one key (``b`` cycles topic, queue,
tag, host, producer group, minute, hour, size), with the rate over store time and the size histogram as
sparklines, the shares line and the retention preview. The count runs in a background worker (escape stops
nothing here: one pass of the bulk kernel, about 1 s per GiB); ``rmq-inspect stats STORE --by KEY`` prints the
same figures."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Header, Sparkline

from inspector.engine import BY, SIZE_LABELS, StoreStats, store_stats
from inspector.tui.copyout import Command
from inspector.tui.fmt import esc, num, when
from inspector.tui.messages import WorkerFailed
from inspector.tui.screens.base import ViewScreen
from inspector.tui.widgets.safe import SafeStatic, SafeTable

ROWS = 2000  # rows drawn at most (--by minute on a long log has many): the summary says when cut


class StatsScreen(ViewScreen):
    BINDINGS = [Binding("b", "next_key", "Next --by"), Binding("question_mark", "app.help", "Help")]

    def __init__(self) -> None:
        super().__init__()
        self.by = "topic"
        self.stats: StoreStats | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield SafeStatic(Text("% Statistics  (b: the next key; 0-9: the other screens)", style="bold"),
                         id="stats-title")
        yield SafeStatic(Text("counting the log…", style="dim"), id="stats-summary")
        yield SafeStatic("", id="stats-rate-label")
        yield Sparkline([], id="stats-rate")
        yield SafeStatic("", id="stats-size-label")
        yield Sparkline([], id="stats-sizes")
        yield SafeTable(id="stats-table", cursor_type="row", zebra_stripes=True)
        yield SafeStatic("", id="stats-retention")
        yield Footer()

    def on_mount(self) -> None:
        self._load(self.by)

    def focus_main(self) -> None:
        self.query_one("#stats-table", DataTable).focus()

    def command(self) -> Command:
        return Command("stats", ("--by", self.by))

    def action_next_key(self) -> None:
        self.by = BY[(BY.index(self.by) + 1) % len(BY)]
        self.query_one("#stats-summary", SafeStatic).update(Text(f"counting the log by {self.by}…", style="dim"))
        self._load(self.by)

    @work(thread=True, exclusive=True, group="stats", exit_on_error=False)
    def _load(self, by: str) -> None:
        try:
            stats = store_stats(self.app.store, by)
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("statistics", str(e)))
            self.app.call_from_thread(self.ready)
            return
        self.app.call_from_thread(self._show, stats)

    def _show(self, s: StoreStats) -> None:
        self.stats = s
        total = s.total

        def share(n: int) -> str:
            return f"{n / total.messages:.1%}" if total.messages else "-"

        t = Text(f"{num(total.messages)} records, {num(total.bytes)} bytes by {s.by}; retry {share(total.retry)}, "
                 f"DLQ {share(total.dlq)}, transaction {share(total.transaction)}, delay/timer {share(total.delay)}, "
                 f"compressed {share(total.compressed)}")
        if s.compression_ratio:
            t.append(f" (ratio {s.compression_ratio:.2f}x)")
        if s.timer_units is not None:
            pending = "?" if s.timer_pending is None else num(s.timer_pending)
            t.append(f"\ntimer store: {num(s.timer_units)} unit(s), {pending} pending")
        if s.unread:
            t.append(f"\na partial answer: {s.unread} problem(s) left part of the log unread (Problems, 6)",
                     style="yellow")
        if len(s.rows) > ROWS:
            t.append(f"\nthe first {ROWS} of {num(len(s.rows))} rows listed (`rmq-inspect stats --json` has all)",
                     style="yellow")
        self.query_one("#stats-summary", SafeStatic).update(t)
        unit = "minute" if s.rate_unit == 60_000 else "hour"
        first, last = (s.rate[0][0], s.rate[-1][0]) if s.rate else (0, 0)
        self.query_one("#stats-rate-label", SafeStatic).update(Text(
            f"records per {unit}, store time {when(first, 'min')} .. {when(last, 'min')} "
            f"(peak {num(max((n for _, n in s.rate), default=0))})", style="dim"))
        self.query_one("#stats-rate", Sparkline).data = _filled(s)
        sizes = list(s.sizes)
        used = max((i for i, n in enumerate(sizes) if n), default=0) + 1
        self.query_one("#stats-size-label", SafeStatic).update(Text(
            "sizes: " + ", ".join(f"{SIZE_LABELS[i]} {num(sizes[i])}" for i in range(used)), style="dim"))
        self.query_one("#stats-sizes", Sparkline).data = sizes[:used]
        table = self.query_one("#stats-table", DataTable)
        table.clear(columns=True)
        table.add_columns(s.by, "count", "bytes", "body bytes", "share", "compressed", "retry", "DLQ", "first stored",
                          "last stored")
        for i, (key, c) in enumerate(list(s.rows.items())[:ROWS]):
            table.add_row(key, num(c.messages), num(c.bytes), num(c.body_bytes),
                          f"{c.bytes / total.bytes:.1%}" if total.bytes else "-", num(c.compressed), num(c.retry),
                          num(c.dlq), when(c.first_store_timestamp, "s"), when(c.last_store_timestamp, "s"),
                          key=f"r{i}")
        r = Text("deleting the oldest segments:", style="bold")
        for step in s.retention[:5]:
            behind = ", ".join(f"{esc(g)} ({esc(tp)}#{q}: {c} < {m})" for g, tp, q, c, m in step.groups_behind)
            r.append(f"\n  {step.segments} ({esc(step.last_file)}): drops {num(step.messages)} records; "
                     f"{'leaves behind ' + behind if behind else 'no group left behind'}")
        if not s.retention:
            r.append(" one segment: nothing to preview")
        self.query_one("#stats-retention", SafeStatic).update(r)
        self.focus_main()
        self.ready()


def _filled(s: StoreStats) -> list[int]:
    """Records per bucket from the first to the last, empty buckets as 0 (a gap shows as a gap), at most 2,000
    buckets (wider spans are summed into fewer: the sparkline is a picture, not a table)."""
    if not s.rate:
        return []
    counts = dict(s.rate)
    first, last = s.rate[0][0], s.rate[-1][0]
    n = (last - first) // s.rate_unit + 1
    step = -(-n // 2000)
    out = [0] * (-(-n // step))
    for t, c in counts.items():
        out[(t - first) // s.rate_unit // step] += c
    return out
