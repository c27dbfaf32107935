"""Consumer groups (key 0, or the command palette): every group with its queues, lag, retry and DLQ counts; enter
on a group shows its queues (committed, min, max, lag, the messages either side) and its pending count; enter on
a queue opens the message browser on that queue at the group's committed offset (marked there)."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Header

from inspector.engine import group_of, group_view, groups_of, groups_view
from inspector.tui.copyout import Command
from inspector.tui.fmt import esc, num, when
from inspector.tui.messages import WorkerFailed
from inspector.tui.screens.base import ViewScreen
from inspector.tui.widgets.safe import SafeStatic, SafeTable

QUEUE_ROWS = 2000  # queue rows of one group drawn at most (a group may read 16,000): the summary says when cut


def _count(count: dict | None) -> str:
    return "-" if count is None else f"{num(count['messages'])} in {count['queues']} q"


def _side(m: dict | None) -> str:
    if m is None:
        return "-"
    if m.get("problem"):
        return f"{m['queue_offset']}: unreadable"
    return f"{m['queue_offset']} @ {m['physical_offset']}, {when(m['store_timestamp'], 's')}"


class GroupsScreen(ViewScreen):
    BINDINGS = [Binding("question_mark", "app.help", "Help")]

    def __init__(self) -> None:
        super().__init__()
        self._queues: dict[str, tuple[str, int, int]] = {}  # row key -> (topic, queue id, committed offset)
        self._details: dict[str, Text] = {}  # row key -> its detail line (the long cells whole)
        self.group: str | None = None  # the group whose queues are shown (C: `group STORE G`)

    def compose(self) -> ComposeResult:
        yield Header()
        yield SafeStatic(Text("0 Consumer groups  (1-9: the other screens)", style="bold"), id="groups-title")
        yield SafeStatic(Text("reading the consumer offsets…", style="dim"), id="groups-summary")
        yield SafeTable(id="groups-table", cursor_type="row", zebra_stripes=True)
        yield SafeStatic("", id="group-summary")
        yield SafeTable(id="group-queues", cursor_type="row", zebra_stripes=True)
        yield SafeStatic("", id="group-queue-detail")
        yield Footer()

    def on_mount(self) -> None:
        # the topics last: a group's list of them is long, and before the counts it pushed lag, retry and DLQ off
        # an 80-column screen
        self.query_one("#groups-table", DataTable).add_columns("group", "queues", "lag", "retry", "DLQ", "config",
                                                                 "topics")
        # the note before the two sides' long cells (80 columns ended at 'last consumed'); the highlighted queue's
        # sides and note are whole on the detail line under the table at every width
        self.query_one("#group-queues", DataTable).add_columns("topic", "queue", "committed", "min", "max", "lag",
                                                                 "note", "last consumed", "first unconsumed")
        self._load()

    def command(self) -> Command:
        return Command("group", (self.group,)) if self.group is not None else Command("groups")

    def focus_main(self) -> None:
        self.query_one("#groups-table", DataTable).focus()

    @work(thread=True, exclusive=True, group="groups", exit_on_error=False)
    def _load(self) -> None:
        try:
            offsets = self.app.store.consumer_offsets()
            data = groups_view(groups_of(self.app.store), offsets.source, offsets.reason)
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("consumer groups", str(e)))
            self.app.call_from_thread(self.ready)
            return
        self.app.call_from_thread(self._show_groups, data)

    def _show_groups(self, data: dict) -> None:
        summary = Text(f"lag from {esc(data['offsets_source'])} ({esc(data['reason'])}); "
                       f"{len(data['groups'])} group(s); enter: the group's queues", style="dim")
        self.query_one("#groups-summary", SafeStatic).update(summary)
        table = self.query_one("#groups-table", DataTable)
        table.clear()
        for i, g in enumerate(data["groups"]):
            lag = num(g["lag"]) + (f" ({g['corrected_queues']} corrected)" if g["corrected_queues"] else "")
            table.add_row(g["group"], str(g["queues"]), lag, _count(g["retry"]), _count(g["dlq"]),
                          "yes" if g["configured"] else "no", ", ".join(g["topics"]) or "-", key=f"g{i}:{g['group']}")
        self.focus_main()
        self.ready()

    def show_group(self, group: str) -> None:
        """One group's queues in the lower table (also from the command palette)."""
        if self.later(lambda: self.show_group(group)):
            return
        self.group = group
        self._load_group(group)

    @work(thread=True, exclusive=True, group="group", exit_on_error=False)
    def _load_group(self, group: str) -> None:
        try:
            data = group_view(group_of(self.app.store, group))
        except Exception as e:  # noqa: BLE001 - an unknown group or an unreadable source: a notice
            self.post_message(WorkerFailed("consumer group", str(e)))
            return
        self.app.call_from_thread(self._show_group, data)

    def _show_group(self, d: dict) -> None:
        t = Text()
        t.append(f"{esc(d['group'])}", style="bold")
        t.append(f": lag {num(d['lag'])}, {num(d['pending_total'])} pending; retry {_count(d['retry'])}, "
                 f"DLQ {_count(d['dlq'])}; offsets from {esc(d['offsets_source'])}")
        if len(d["queues"]) > QUEUE_ROWS:
            t.append(f"  (the first {QUEUE_ROWS} of {num(len(d['queues']))} queues listed: `rmq-inspect group` "
                     "lists all)", style="yellow")
        for p in d["problems"][:3]:
            t.append(f"\n{p['severity']}: {esc(p['file'])}: {esc(p['reason'])}", style="yellow")
        t.append("\nenter on a queue: its messages, the committed offset marked", style="dim")
        self.query_one("#group-summary", SafeStatic).update(t)
        table = self.query_one("#group-queues", DataTable)
        table.clear()
        self._queues.clear()
        self._details.clear()
        for i, q in enumerate(d["queues"][:QUEUE_ROWS]):
            key = f"q{i}"
            self._queues[key] = (q["topic"], q["queue_id"], q["committed_offset"])
            note = [q["note"]] if q["note"] else []
            note += [f"{o['source']} has {o['offset']}" for o in q["other_sources"]]
            table.add_row(q["topic"], str(q["queue_id"]), num(q["committed_offset"]),
                          "-" if q["min_offset"] is None else num(q["min_offset"]),
                          "-" if q["max_offset"] is None else num(q["max_offset"]),
                          "-" if q["lag"] is None else num(q["lag"]), "; ".join(note), _side(q["last_consumed"]),
                          _side(q["first_unconsumed"]), key=key)
            detail = Text(f"{esc(q['topic'])} queue {q['queue_id']}", style="bold")
            detail.append(f"  last consumed {esc(_side(q['last_consumed']))} · first unconsumed "
                          f"{esc(_side(q['first_unconsumed']))}")
            if note:
                detail.append(f"\nnote: {esc('; '.join(note))}", style="yellow")
            self._details[key] = detail
        self._show_detail(table)
        table.focus()

    @on(DataTable.RowHighlighted, "#group-queues")
    def _queue_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.data_table)

    def _show_detail(self, table: DataTable) -> None:
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value if table.row_count else None
        self.query_one("#group-queue-detail", SafeStatic).update(self._details.get(str(key), Text("")))

    @on(DataTable.RowSelected, "#groups-table")
    def _open_group(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.show_group(str(event.row_key.value).split(":", 1)[1])

    @on(DataTable.RowSelected, "#group-queues")
    def _open_queue(self, event: DataTable.RowSelected) -> None:
        event.stop()
        got = self._queues.get(str(event.row_key.value))
        if got is not None:
            topic, queue_id, committed = got
            self.app.show_messages(topic=topic, queue=queue_id, start=max(0, committed - 1))

    def on_worker_failed(self, message: WorkerFailed) -> None:
        message.stop()
        self.notify(message.error, title=message.what, severity="error")
