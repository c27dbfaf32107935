"""Story of a message (issue 30 item 1): every record the store holds for one message in store-time order, each
with its role (original, scheduled, retry, dead letter, half, commit, trace ...), each consumer group's progress
over the queues involved, and what was searched. Reached with ``s`` from any message (message browser, hex view,
a message window, the msgId screen) and from the command palette; enter on a record opens it, ``x`` shows its
bytes. The engine's ``story_of`` runs in a thread worker; everything from the store is shown escaped."""

from __future__ import annotations

import threading

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Header, ProgressBar

from inspector.engine import Budget, Message, StoreError, Story, StoryRecord, story_of, trace_record_view
from inspector.tui.copyout import Command
from inspector.tui.fmt import clip, esc, middle_clip, num, plain, when
from inspector.tui.messages import StoryTold, WorkerFailed
from inspector.tui.screens.base import NARROW_LAYOUT, ViewScreen
from inspector.tui.widgets.safe import SafeStatic, SafeTable

RECORD_COLUMNS = ("time", "role", "@ offset", "topic", "queue", "q offset", "facts")
FACTS_WIDTH = 26  # the facts cell is cut here (with "…"): the panel below the table shows them in full
GROUP_COLUMNS = ("group", "topic", "queue", "message at", "committed", "consumed", "client", "cost ms", "success")
# below NARROW_LAYOUT columns (80: the facts column showed `f`, the groups lost client, cost ms and success): the
# time without date and zone, queue and offset in one cell, no facts; the groups without client, cost and success.
# The line under each table gives its highlighted row whole at every width
NARROW_RECORD_COLUMNS = ("stored", "role", "@ offset", "topic", "q/offset")
NARROW_GROUP_COLUMNS = ("group", "topic", "queue", "at", "committed", "consumed")
IDLE = "no story yet: s on a message (messages, hex view, msgId), or s here to type an offset, msgId or UNIQ_KEY"


def record_facts(record: StoryRecord) -> str:
    """The record's facts on one line, an expired record's reason first (raw store text: callers escape)."""
    facts = "; ".join(f"{name} {value}" for name, value in record.facts)
    if record.expired:
        facts = record.expired + (f"; {facts}" if facts else "")
    return facts


class StoryScreen(ViewScreen):
    BINDINGS = [
        Binding("s", "story_prompt", "Story of…"),
        Binding("enter", "open", "Open record", show=False),
        Binding("x", "hex", "Hex"),
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("question_mark", "app.help", "Help"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.story: Story | None = None
        self.ref: str | None = None
        self.ref_args: tuple[str, ...] = ()
        self.generation = 0
        # the telling under way: set, its story_of stops between steps and scan batches (escape, a newer REF)
        self.stop_telling = threading.Event()
        self.cancelled: int | None = None  # the generation escape stopped: its cut answer says where it stopped

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="story-head"):
            yield SafeStatic(Text("Story of a message  (1-9: the other screens)", style="bold"), id="story-title")
            yield ProgressBar(total=None, show_eta=False, show_percentage=False, id="story-progress")
        yield SafeStatic(Text(IDLE, style="dim"), id="story-summary")
        yield SafeTable(id="story-records", cursor_type="row", zebra_stripes=True)
        yield SafeStatic("", id="story-detail")
        yield SafeTable(id="story-groups", cursor_type="row", zebra_stripes=True)
        yield SafeStatic("", id="story-group-detail")
        yield SafeStatic("", id="story-notes")
        yield Footer()

    def on_mount(self) -> None:
        self.narrow: bool | None = None
        self._fit(self.app.size.width)
        self.query_one("#story-progress", ProgressBar).display = False
        self.focus_main()
        self.ready()

    def focus_main(self) -> None:
        self.query_one("#story-records", DataTable).focus()

    # -- telling a story -----------------------------------------------------------------------------------------

    def tell(self, ref: str, key: str | None = None) -> None:
        """The story of ``ref`` (a physical offset, an offset msgId or a UNIQ_KEY; with ``key``: the first message
        indexed under topic ``ref`` and ``key``), read in a worker; the tables fill when it is told."""
        if self.later(lambda: self.tell(ref, key)):
            return
        self.generation += 1
        self.stop_telling.set()  # an older telling still reading stops at its next step
        self.stop_telling = threading.Event()
        self.ref = ref if key is None else f"{ref} {key}"
        self.ref_args = (ref,) if key is None else (ref, key)  # as `story STORE REF [KEY]` takes them
        self.query_one("#story-summary", SafeStatic).update(Text(f"reading the story of {esc(self.ref)}…",
                                                                 style="yellow"))
        self.query_one("#story-progress", ProgressBar).display = True
        self._tell(ref, key, self.generation, Budget(should_stop=self.stop_telling.is_set))

    @work(thread=True, exclusive=True, group="story", exit_on_error=False)
    def _tell(self, ref: str, key: str | None, generation: int, budget: Budget) -> None:
        try:
            story = story_of(self.app.store, ref, key, scan=True, budget=budget)
        except Exception as e:  # noqa: BLE001 - a worker reports (NotFound, BadInput, a damaged record), never crashes
            self.post_message(WorkerFailed("story", str(e)))
            return
        self.post_message(StoryTold(story, generation))

    def action_cancel(self) -> None:
        """Stop reading: the engine's call stops at its next step or scan batch (its budget says stop), and what
        it answers is dropped (a newer generation)."""
        if self.query_one("#story-progress", ProgressBar).display:
            self.stop_telling.set()
            self.cancelled = self.generation
            self.generation += 1
            self.app.workers.cancel_group(self, "story")
            self.query_one("#story-progress", ProgressBar).display = False
            self.query_one("#story-summary", SafeStatic).update(Text(f"stopped reading the story of "
                                                                     f"{esc(self.ref)}", style="yellow"))

    def on_worker_failed(self, message: WorkerFailed) -> None:
        message.stop()
        self.query_one("#story-progress", ProgressBar).display = False
        self.query_one("#story-summary", SafeStatic).update(plain(message.error, "bold red"))
        self.notify(message.error, title=message.what, severity="error")

    def on_story_told(self, message: StoryTold) -> None:
        message.stop()
        if message.generation != self.generation:
            if message.generation == self.cancelled and message.story.cut:  # escape stopped the engine: where
                self.query_one("#story-summary", SafeStatic).update(Text(
                    f"stopped reading the story of {esc(self.ref)}: {esc(message.story.cut)}", style="yellow"))
            return  # an answer cancelled or overtaken by a newer question
        self.query_one("#story-progress", ProgressBar).display = False
        self.show(message.story)

    def show(self, story: Story) -> None:
        self.story = story
        summary = Text()
        summary.append(esc(story.ref), style="bold")
        summary.append(f"  UNIQ_KEY {esc(story.unique_key)}" if story.unique_key else "  (no UNIQ_KEY)")
        summary.append(f"\n{len(story.records)} record(s) in store-time order", style="bold cyan")
        roles: dict[str, int] = {}
        for r in story.records:
            roles[r.role] = roles.get(r.role, 0) + 1
        summary.append(": " + ", ".join(f"{n} {role}" for role, n in roles.items()))
        summary.append("  · enter: open a record, x: its bytes", style="dim")
        self.query_one("#story-summary", SafeStatic).update(summary)
        self._fill()
        self.query_one("#story-notes", SafeStatic).update(self._notes(story))
        table = self.query_one("#story-records", DataTable)
        table.move_cursor(row=0)
        self._detail(0)
        self._group_detail(0)
        table.focus()

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        """Below NARROW_LAYOUT columns: the narrow records and groups tables (their detail lines say the rest)."""
        narrow = width < NARROW_LAYOUT
        if narrow == self.narrow:
            return
        self.narrow = narrow
        self.set_class(narrow, "narrow")
        self._fill()

    def _fill(self) -> None:
        """Both tables made again from the story at the current width, their cursors kept."""
        table = self.query_one("#story-records", DataTable)
        groups = self.query_one("#story-groups", DataTable)
        rows = (table.cursor_row, groups.cursor_row)
        table.clear(columns=True)
        table.add_columns(*(NARROW_RECORD_COLUMNS if self.narrow else RECORD_COLUMNS))
        groups.clear(columns=True)
        groups.add_columns(*(NARROW_GROUP_COLUMNS if self.narrow else GROUP_COLUMNS))
        story = self.story
        if story is None:
            return
        for i, r in enumerate(story.records):
            role = Text(r.role + (" (expired)" if r.expired else ""), style="red" if r.expired else "bold")
            where = "" if r.physical_offset is None else num(r.physical_offset)
            if r.inner_index is not None and r.role == "inner":
                where += f" #{r.inner_index}"
            queue = "" if r.queue_id is None else str(r.queue_id)
            q_offset = "" if r.queue_offset is None else str(r.queue_offset)
            if self.narrow:
                stored = "" if r.time is None else when(r.time, "s")[11:19]
                place = f"{queue}/{q_offset}" if queue or q_offset else ""
                table.add_row(stored, role, where, plain(middle_clip(r.topic, 24)), place, key=f"record:{i}")
            else:
                table.add_row("" if r.time is None else when(r.time, "s"), role, where, plain(r.topic), queue,
                              q_offset, Text(clip(esc(record_facts(r)), FACTS_WIDTH)), key=f"record:{i}")
        for i, p in enumerate(story.groups):
            consumed = "-" if p.consumed is None else "yes" if p.consumed else "no"
            cells = [plain(p.group), plain(p.topic or "(trace records only)"),
                     "" if p.queue_id is None else str(p.queue_id),
                     "" if p.queue_offset is None else str(p.queue_offset),
                     "" if p.committed is None else str(p.committed),
                     Text(consumed, style="green" if p.consumed else "yellow" if p.consumed is False else "")]
            if not self.narrow:
                cells += [plain(p.client or ""), "" if p.cost_ms is None else str(p.cost_ms),
                          "" if p.success is None else "yes" if p.success else Text("NO", style="red")]
            groups.add_row(*cells, key=f"group:{i}")
        if story.records:
            table.move_cursor(row=min(max(rows[0], 0), len(story.records) - 1))
        if story.groups:
            groups.move_cursor(row=min(max(rows[1], 0), len(story.groups) - 1))
        self._detail(table.cursor_row)
        self._group_detail(groups.cursor_row)

    def _group_detail(self, row: int) -> None:
        """The highlighted group's row whole: its queue, the message's place, its progress, the trace's client."""
        t = Text()
        groups = self.story.groups if self.story is not None else []
        if 0 <= row < len(groups):
            p = groups[row]
            t.append(esc(p.group), style="bold")
            t.append(f"  {esc(p.topic or '(trace records only)')}")
            if p.queue_id is not None:
                t.append(f" queue {p.queue_id}")
            if p.queue_offset is not None:
                t.append(f"  message at {p.queue_offset}")
            if p.committed is not None:
                t.append(f"  committed {p.committed}")
            consumed = "-" if p.consumed is None else "yes" if p.consumed else "no"
            t.append(f"  consumed {consumed}", style="green" if p.consumed else "yellow" if p.consumed is False else "")
            if p.client:
                t.append(f"  client {esc(p.client)}")
            if p.cost_ms is not None:
                t.append(f"  cost {p.cost_ms} ms")
            if p.success is not None:
                t.append("  success yes" if p.success else "  success NO", style="" if p.success else "red")
        self.query_one("#story-group-detail", SafeStatic).update(t)

    @on(DataTable.RowHighlighted, "#story-groups")
    def _group_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._group_detail(event.cursor_row)

    def _notes(self, story: Story) -> Text:
        """The groups' source, the ranges searched and not searched, and what a partial answer left out."""
        t = Text()
        t.append("consumer groups ", style="bold")
        t.append(f"(offsets from {esc(story.offsets_source or 'none readable')})")
        if not story.groups:
            t.append(": no consumer group has an offset on a queue of these records", style="dim")
        for line in story.searched:
            t.append("\nsearched: ", style="dim")
            t.append(esc(line))
        for note in story.notes:
            t.append("\nnote: ", style="bold yellow")
            t.append(esc(note), style="yellow")
        return t

    # -- the selected record -------------------------------------------------------------------------------------

    def _record(self, row: int | None = None) -> StoryRecord | None:
        table = self.query_one("#story-records", DataTable)
        if self.story is None or not self.story.records:
            return None
        index = table.cursor_row if row is None else row
        return self.story.records[index] if 0 <= index < len(self.story.records) else None

    def _detail(self, row: int) -> None:
        r = self._record(row)
        t = Text()
        if r is not None and self.narrow:  # the row whole first: its table leaves out the date and the facts
            if r.time is not None:
                t.append(when(r.time, "s") + "  ")
            if r.physical_offset is not None:
                t.append(f"@ {num(r.physical_offset)}  ")
            t.append(esc(r.topic or ""), style="bold")
            if r.queue_id is not None:
                t.append(f" queue {r.queue_id}")
            if r.queue_offset is not None:
                t.append(f" offset {r.queue_offset}")
            facts = record_facts(r)
            if facts:
                t.append("\n" + esc(facts), style="red" if r.expired else "")
            t.append("\n")
        if r is not None:
            t.append(f"{r.role}: ", style="bold")
            t.append(r.rule, style="dim")
            t.append("\nfound by ", style="bold")
            t.append(esc(r.found_by))
            if r.msg_id:
                t.append("  msgId ", style="bold")
                t.append(esc(r.msg_id))
            for name, value in [] if self.narrow else r.facts:  # narrow: on the row's line above
                t.append(f"\n{esc(name)} ", style="bold")
                t.append(esc(value))
            if r.expired and not self.narrow:
                t.append(f"\n{esc(r.expired)}", style="red")
            if r.trace is not None:
                fields = trace_record_view(r.trace.record)
                t.append("\ntrace ", style="bold")
                t.append(esc(" ".join(f"{k}={v}" for k, v in fields.items() if v not in (None, ""))))
        self.query_one("#story-detail", SafeStatic).update(t)

    @on(DataTable.RowHighlighted, "#story-records")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._detail(event.cursor_row)

    @on(DataTable.RowSelected, "#story-records")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._open(event.cursor_row)

    def action_open(self) -> None:
        self._open(None)

    def _open(self, row: int | None) -> None:
        r = self._record(row)
        if r is None:
            return
        if r.expired or r.physical_offset is None:
            self.notify(f"the {r.role} record is not in the store: {r.expired or 'no offset known'}",
                        severity="warning")
            return
        self.app.show_message(r.physical_offset)

    def action_hex(self) -> None:
        r = self._record()
        if r is not None and r.physical_offset is not None and not r.expired:
            self.app.show_hex(r.physical_offset)

    def current_message(self) -> Message | None:
        """The selected record's message (None: no story, or the record is not in the store)."""
        r = self._record()
        if r is None or r.expired or r.physical_offset is None:
            return None
        try:
            return self.app.store.message_at(r.physical_offset)
        except StoreError:
            return None

    def command(self) -> Command | None:
        return Command("story", self.ref_args) if self.ref_args else None

    def action_story_prompt(self) -> None:
        self.app.action_story_prompt()

