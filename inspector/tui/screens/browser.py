"""Message browser: a virtual list of messages (commitlog order, or one queue through its consume queue),
filters by topic, queue, tag, key and store-time range, and the selected message in full below."""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.widgets import Footer, Header, Label, ProgressBar
from textual.worker import get_current_worker

from inspector.engine import (
    MAX_TIME,
    QUEUE_ID,
    BatchConsumeQueue,
    Message,
    Problem,
    StoreError,
    committed_offsets,
    follow_log,
    is_lmq,
    time_step,
)
from inspector.tui.afterpaint import LatestAfterPaint
from inspector.tui.background import matching_offsets
from inspector.tui.copyout import Command
from inspector.tui.fmt import esc, num, parse_kind, parse_time, when
from inspector.tui.messages import FollowedMessages, RowsFound, WorkerFailed
from inspector.tui.screens.base import ViewScreen
from inspector.tui.timestep import TIME_BINDINGS, step_in_list
from inspector.tui.widgets.forminput import FormInput
from inspector.tui.widgets.messagedetail import MessageDetail
from inspector.tui.widgets.messagelist import (
    BatchPickedRows,
    BatchQueueRows,
    LogRows,
    MessageList,
    OffsetRows,
    QueueRows,
    header_text,
)
from inspector.tui.widgets.navbar import NavBar
from inspector.tui.widgets.safe import SafeStatic

BATCH_SECONDS = 0.1
FOLLOW_SECONDS = 0.5  # follow mode: how often the log is polled for what the broker wrote


def group_marks(store, topic: str, queue_id: int, lo: int, hi: int) -> dict[int, str]:
    """Queue offset -> the marker of that row: the consumer groups committed there (from the source the broker
    uses), on their first pending row ("▶"), or on the last row when they consumed all of [lo, hi) ("◀")."""
    pending: dict[int, list[str]] = {}
    done: list[str] = []
    for group, offset in committed_offsets(store, topic, queue_id):
        if lo <= offset < hi:
            pending.setdefault(offset, []).append(group)
        elif offset == hi > lo:
            done.append(group)
    marks = {offset: f"▶ committed {offset}: {', '.join(groups)}" for offset, groups in pending.items()}
    if done:
        marks[hi - 1] = f"◀ committed {hi}, all consumed: {', '.join(done)}"
    return marks


CLI_LIMIT = 100  # `rmq-inspect messages`' default --limit


def _left_out(filters: list[str]) -> str:
    return f"the {' and '.join(filters)} filter is not in this command: it has no flag for it" if filters else ""


FILTERS = ("topic", "queue", "tag", "key", "from", "to")
# each filter's placeholders, longest first: a field shows the longest it has room for (FormInput's shorter)
PLACEHOLDERS = {"topic": ("any topic", "any"), "queue": ("any",), "tag": ("any tag", "any"),
                "key": ("key or UNIQ_KEY", "key/UNIQ_KEY", "key/UNIQ", "key"),
                "from": ("store time ≥", "stored ≥", "time ≥", "≥"), "to": ("store time ≤", "stored ≤", "time ≤", "≤")}


@dataclass(frozen=True)
class Query:
    topic: str | None = None
    queue: int | None = None
    tag: str | None = None
    key: str | None = None
    begin: int | None = None
    end: int | None = None

    def matches(self, m: Message) -> bool:
        if self.topic is not None and m.topic != self.topic:
            return False
        if self.queue is not None and m.queue_id != self.queue:
            return False
        if self.tag is not None and self.tag not in (m.tags or "").split("||"):
            return False
        if self.key is not None and self.key not in m.keys and self.key != m.unique_key:
            return False
        if self.begin is not None and m.store_timestamp < self.begin:
            return False
        return self.end is None or m.store_timestamp <= self.end

    def describe(self) -> str:
        parts = []
        for name, value in (("topic", self.topic), ("queue", self.queue), ("tag", self.tag), ("key", self.key)):
            if value is not None:
                parts.append(f"{name}={value}")
        if self.begin is not None:
            parts.append(f"from {when(self.begin)}")
        if self.end is not None:
            parts.append(f"to {when(self.end)}")
        return " ".join(parts) or "no filter"


class BrowserScreen(ViewScreen):
    NARROW_HIDDEN = frozenset({"clear", "body", "story", "app.reload"})
    BINDINGS = [
        Binding("slash", "filters", "Filter"),
        Binding("f", "follow", "Follow"),  # the app's `f` (search) is ctrl+p or the tab here
        Binding("R", "app.reload", "Reload"),
        Binding("c", "clear", "Clear filters"),
        Binding("x", "hex", "Hex"),
        Binding("b", "body", "Body view"),
        Binding("s", "story", "Story"),
        Binding("escape", "cancel", "Cancel scan"),
        Binding("question_mark", "app.help", "Help"),
        *TIME_BINDINGS,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.generation = 0
        self.query_state = Query()
        self.mode_text = ""
        self._scanning = False
        self.following = False  # follow mode (f): new messages of the log appended as the broker writes them
        self.follow_generation = 0
        self._wanted: tuple[int, int | None] | None = None  # a reload's place: (row, offset) to select again
        # the detail pane (a table laid out twice by Textual) follows once the list has painted, and only for
        # the last of several quick moves: paging is one paint of the list, the pane comes in the next frame
        self._detail_follows: LatestAfterPaint[int] = LatestAfterPaint(self, self._show)

    @property
    def scanning(self) -> bool:
        return self._scanning

    @scanning.setter
    def scanning(self, value: bool) -> None:
        if value != self._scanning:
            self._scanning = value
            self.refresh_bindings()  # `esc Cancel scan` in the footer only while a scan runs
            if self._ready:
                self.fit_footer(self.app.size.width)  # and room for it

    def narrow_below(self) -> int:
        # the whole footer needs 103 columns, 120 with `esc Cancel scan`
        return 120 if self.scanning else 105

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides the binding: esc does nothing once the scan is done (issue 33: offered after it)
        if action == "cancel":
            return self.scanning
        return True

    def compose(self) -> ComposeResult:
        yield Header()
        yield NavBar("messages")
        with Horizontal(id="browser-filters"):
            for name in FILTERS:
                yield Label(name, classes="filter-label")
                yield FormInput(placeholder=PLACEHOLDERS[name][0], shorter=PLACEHOLDERS[name][1:], id=f"f-{name}",
                                classes=f"filter filter-{name}")
        with Horizontal(id="browser-statusbar"):
            yield SafeStatic("", id="browser-status")
            yield ProgressBar(total=100, show_eta=False, id="browser-progress")
        yield SafeStatic(header_text(120), id="browser-header")
        yield MessageList(self.app.store, id="browser-list")
        yield MessageDetail(id="browser-detail")
        yield Footer()

    def focus_main(self) -> None:
        self.query_one(MessageList).focus()

    def on_mount(self) -> None:
        if self.focused is None:  # a key typed while mounting may have focused a field
            self.query_one(MessageList).focus()
        if not self.has_pending:
            self._run(Query())
        self.ready()

    def on_resize(self) -> None:
        self.query_one("#browser-header", SafeStatic).update(header_text(self.query_one(MessageList).size.width or 120))

    @property
    def message_list(self) -> MessageList:
        return self.query_one(MessageList)

    # -- filters ----------------------------------------------------------------------------------------------

    def apply(self, *, topic: str | None = None, queue: int | None = None, tag: str | None = None,
              key: str | None = None, begin: int | None = None, end: int | None = None, start: int | None = None) -> None:
        """Show the messages matching these filters (all in commitlog order when none is given)."""
        if self.later(lambda: self.apply(topic=topic, queue=queue, tag=tag, key=key, begin=begin, end=end, start=start)):
            return
        values = {"topic": topic or "", "queue": "" if queue is None else str(queue), "tag": tag or "",
                  "key": key or "", "from": when(begin) if begin else "", "to": when(end) if end else ""}
        for name, value in values.items():
            self.query_one(f"#f-{name}", FormInput).value = value
        self._run(Query(topic or None, queue, tag or None, key or None, begin, end), start=start)
        self.message_list.focus()

    def _read_filters(self) -> Query | None:
        raw = {name: self.query_one(f"#f-{name}", FormInput).value.strip() for name in FILTERS}
        try:
            queue = parse_kind(raw["queue"], QUEUE_ID, "queue") if raw["queue"] else None
            begin = parse_time(raw["from"]) if raw["from"] else None
            end = parse_time(raw["to"]) if raw["to"] else None
        except ValueError as e:
            self.notify(str(e), title="filter", severity="error")
            return None
        return Query(raw["topic"] or None, queue, raw["tag"] or None, raw["key"] or None, begin, end)

    @on(FormInput.Submitted, ".filter")
    def _submitted(self, event: FormInput.Submitted) -> None:
        event.stop()
        query = self._read_filters()
        if query is not None:
            self._run(query)
            self.message_list.focus()

    def action_filters(self) -> None:
        if self.later(self.action_filters):
            return
        self.query_one("#f-topic", FormInput).focus()

    def action_clear(self) -> None:
        self.apply()

    def action_body(self) -> None:
        if self.later(self.action_body):
            return
        self.query_one(MessageDetail).cycle_body()

    def current_message(self) -> Message | None:
        lst = self.message_list
        got = lst.message(lst.cursor) if len(lst.source) else None
        return got if isinstance(got, Message) else None

    def command(self) -> Command:
        """The listing as ``messages`` (topic, queue, time window) or, for a topic and key, ``key``; a filter the
        command has no flag for is named in the note."""
        q = self.query_state
        window: list[str] = []
        if q.begin is not None:
            window += ["--since", str(q.begin)]
        if q.end is not None:
            window += ["--until", str(q.end + 1)]  # the list's "to" is inclusive, --until is not
        if q.key is not None and q.topic is not None and q.queue is None:
            left = ["tag"] if q.tag is not None else []
            return Command("key", (q.topic, q.key, *window), _left_out(left))
        args = [*(["--topic", q.topic] if q.topic is not None else []),
                *(["--queue", str(q.queue)] if q.queue is not None else []), *window]
        left = [name for name, value in (("tag", q.tag), ("key", q.key)) if value is not None]
        note = _left_out(left)
        listed = self._listed()
        if listed > CLI_LIMIT:  # the command prints what the list shows, not the first 100 (issue 33)
            args += ["--limit", str(listed)]
            if self.scanning:
                note = "; ".join(filter(None, [note, f"the scan is still running: --limit {listed} is what it "
                                                     "has listed so far"]))
        return Command("messages", tuple(args), note)

    def _listed(self) -> int:
        """How many messages the list shows (a batch record's inner rows, expanded with space, not counted)."""
        try:
            source = self.message_list.source
        except NoMatches:  # not mounted (asked after the app ended): no list
            return 0
        inner = getattr(source, "inner", None)
        return len(source) - (0 if inner is None else sum(1 for i in inner if i >= 0))

    def action_hex(self) -> None:
        lst = self.message_list
        offset = lst.source.offset(lst.cursor) if len(lst.source) else None
        if offset is not None:
            self.app.show_hex(offset)

    def action_story(self) -> None:
        """The story of the selected message (every copy, retry, dead letter, trace record, group)."""
        lst = self.message_list
        offset = lst.source.offset(lst.cursor) if len(lst.source) else None
        if offset is None:
            self.notify("no message selected", severity="warning")
            return
        self.app.show_story(str(offset))

    def action_time_step(self, step: int) -> None:
        """From the selected row, to the first row stored at or after its store time + ``step`` ms (back: the last
        at or before it): in a queue-filtered list among that queue's units, else in the log; past the list's
        ends it stays and says so."""
        lst = self.message_list
        got = lst.message(lst.cursor) if len(lst.source) else None
        origin = getattr(got, "store_timestamp", None)
        if origin is None:
            self.notify("no message selected" if got is None else f"the selected row cannot be read: {got}",
                        title="time step", severity="warning")
            return
        q = self.query_state
        queued = q.topic is not None and q.queue is not None
        try:
            moved = time_step(self.app.store, origin, step, topic=q.topic if queued else None,
                              queue=q.queue if queued else None)
        except StoreError as e:
            self.notify(str(e), title="time step", severity="error")
            return
        placed = step_in_list(lst, moved, f"queue {q.topic}/{q.queue}" if queued else "the log")
        if placed.row is not None:
            lst.cursor = placed.row
        self.notify(placed.note, title="time step", severity="warning" if placed.warning else "information")

    def action_cancel(self) -> None:
        if self.scanning:
            self.app.workers.cancel_group(self, "rows")

    # -- a live store: reload keeps the place, follow mode appends ---------------------------------------------

    def place(self) -> tuple[Query, int, int | None, bool]:
        """The filters, the selected row and its offset, and follow mode (a reload restores them)."""
        lst = self.message_list
        return self.query_state, lst.cursor, lst.source.offset(lst.cursor) if len(lst.source) else None, \
            self.following

    def restore(self, place: tuple[Query, int, int | None, bool]) -> None:
        if self.later(lambda: self.restore(place)):
            return
        query, row, offset, following = place
        self.apply(topic=query.topic, queue=query.queue, tag=query.tag, key=query.key, begin=query.begin,
                   end=query.end)
        self._wanted = (row, offset)
        self._place_wanted([])
        if following:
            self.action_follow()

    def _place_wanted(self, added: list[int]) -> None:
        """Select the reload's row again once its offset is listed (or, the list complete without it, the same
        row number if there is one)."""
        if self._wanted is None:
            return
        lst = self.message_list
        row, offset = self._wanted
        source = lst.source
        complete = not isinstance(source, OffsetRows) or source.complete
        if offset is not None and offset in added:
            lst.cursor = len(source) - len(added) + added.index(offset)
        elif complete and row < len(source):
            lst.cursor = row
        elif not complete:
            return
        self._wanted = None

    def action_follow(self) -> None:
        """Follow mode on or off: the log polled every FOLLOW_SECONDS, the new messages matching the filters
        appended at the bottom (the cursor follows them when it is on the last row), like `messages --follow`."""
        if self.later(self.action_follow):
            return
        if self.following:
            self.following = False
            self.follow_generation += 1
            self.app.workers.cancel_group(self, "follow")
            self.notify("follow mode off")
            self._status("following stopped", len(self.message_list.source), finished=True)
            return
        if not isinstance(self.message_list.source, LogRows):
            self.notify("follow mode follows the log in commitlog order: clear the queue and key filters (c), "
                        "or give the topic alone", title="follow", severity="warning")
            return
        self.following = True
        self.notify("follow mode: new messages appear at the bottom (f stops)")
        if not self.scanning:  # else it starts where the scan ends (no row listed twice)
            self._start_follow()

    def _start_follow(self) -> None:
        source = self.message_list.source
        start = self.app.store.max_offset()  # the log's end as opened: what came after is new to this list
        self.follow_generation += 1
        self._status("following: waiting for new messages", len(source), finished=True)
        self._follow(self.follow_generation, start, self.query_state)

    @work(thread=True, exclusive=True, group="follow", exit_on_error=False)
    def _follow(self, generation: int, start: int, query: Query) -> None:
        worker = get_current_worker()
        found: list[Message] = []
        notes: list[str] = []
        position = [start]

        def hand_over() -> bool:  # called after each poll: what it found goes to the list
            if found or notes:
                self.post_message(FollowedMessages(generation, list(found), position[0], "; ".join(notes)))
                found.clear()
                notes.clear()
            return worker.is_cancelled

        try:
            for item in follow_log(self.app.store, start, interval=FOLLOW_SECONDS, stop=hand_over):
                if isinstance(item, Problem):  # damage past the end (a record being written is no Problem here)
                    notes.append(f"{item.file} at {item.offset:,}: {item.reason}")
                    continue
                position[0] = item.end_offset
                if query.matches(item):
                    found.append(item)
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("follow", str(e)))

    def on_followed_messages(self, message: FollowedMessages) -> None:
        message.stop()
        if message.generation != self.follow_generation or not self.following:
            return
        lst = self.message_list
        source = lst.source
        if not isinstance(source, LogRows):
            return
        last = source.offsets[-1] if len(source) else -1
        fresh = [m for m in message.messages if m.physical_offset > last]  # never a row twice
        at_bottom = lst.cursor >= len(source) - 1
        for m in fresh:
            source.followed[m.physical_offset] = m
        source.extend([m.physical_offset for m in fresh])
        lst.rows_added()
        if fresh and at_bottom:
            lst.cursor = len(source) - 1
        if fresh:
            self._status(f"following: +{num(len(fresh))} new", len(source), finished=True)
        if message.note:
            self.notify(message.note, title="follow", severity="warning")

    # -- running a query ------------------------------------------------------------------------------------------

    def _run(self, query: Query, start: int | None = None) -> None:
        store = self.app.store
        self.generation += 1
        self.follow_generation += 1  # following goes on from the end of the new list's scan (on_rows_found)
        self.app.workers.cancel_group(self, "follow")
        self.query_state = query
        self.app.workers.cancel_group(self, "rows")
        lst = self.message_list
        if query.queue is not None:
            if query.topic is None:
                self.notify("a queue needs a topic", title="filter", severity="error")
                return
            try:
                cq = store.queue(query.topic, query.queue)
                info = cq.info()
                lo, hi = info.min_offset, info.max_offset
                if query.begin is not None:
                    lo = max(lo, store.queue_offset_by_time(query.topic, query.queue, query.begin))
                if query.end is not None:
                    hi = min(hi, store.queue_offset_by_time(query.topic, query.queue, query.end + 1))
            except StoreError as e:
                self.notify(str(e), title="queue", severity="error")
                lst.set_source(OffsetRows())
                self._status(f"queue {query.topic}/{query.queue}: {e.reason}", 0, finished=True)
                return
            self.mode_text = f"queue {query.topic}/{query.queue} through its consume queue"
            by_queue_offset = isinstance(cq, BatchConsumeQueue) or is_lmq(query.topic)
            if query.tag is None and query.key is None:
                # batch and LMQ queues: rows by queue offset, each message read through the queue (an inner
                # message; a record at its INNER_MULTI_QUEUE_OFFSET in that LMQ)
                source = (BatchQueueRows(store, cq, lo, hi) if by_queue_offset else
                          QueueRows(cq, lo, hi, group_marks(store, query.topic, query.queue, lo, hi)))
                lst.set_source(source, cursor=0 if start is None else start - lo)
                self.scanning = False
                self._status(f"queue offsets {num(lo)}…{num(hi)}", len(source), finished=True)
                self._show_current()
                return
            self._start_scan("queue", query, lo, hi,
                             BatchPickedRows(store, cq) if by_queue_offset else None)
        elif query.key is not None and query.topic is not None:
            self.mode_text = f"index lookup {query.topic}#{query.key}"
            self._start_scan("key", query)
        else:
            self.mode_text = "commitlog order"
            self._start_scan("log", query, source=LogRows(store))  # inner batches expand (space)

    def _start_scan(self, mode: str, query: Query, lo: int = 0, hi: int = 0, source: OffsetRows | None = None) -> None:
        source = source if source is not None else OffsetRows()
        self.message_list.set_source(source)
        self.scanning = True
        self._status("scanning…", 0)
        self.query_one(MessageDetail).show(None, "scanning…")
        self._scan(self.generation, mode, query, lo, hi)

    @work(thread=True, exclusive=True, group="rows", exit_on_error=False)
    def _scan(self, generation: int, mode: str, query: Query, lo: int, hi: int) -> None:
        worker = get_current_worker()
        store = self.app.store
        batch: list[int] = []
        last = time.monotonic()
        try:
            if mode == "key":
                hits = store.lookup_key(query.topic, query.key, query.begin or 0,
                                        MAX_TIME if query.end is None else query.end)
                offsets = sorted({h.message.physical_offset for h in hits if query.matches(h.message)})
                # the CLI warns the same: where an index file cannot be trusted the lookup scanned the log instead
                notes = [f"{p.file}: {p.reason}" for p in store.index_trust_problems()]
                note = f"index not trusted, searched past it: {'; '.join(notes)}" if notes else ""
                # the log no index file covers was scanned (the CLI and web say the same): which hits came from there
                by_scan = sorted({h.note for h in hits if h.note and h.note.startswith("found by scan")})
                coverage = "; ".join(by_scan) if by_scan else store.index_coverage_note()
                note = "; ".join(n for n in (note, coverage) if n)
                self.post_message(RowsFound(generation, offsets, 1, 1, True, note=note))
                return
            if mode == "queue":
                total = max(1, hi - lo)
                # a batch queue's rows are its inner messages: found by queue offset (see BatchPickedRows)
                by_queue_offset = isinstance(store.queue(query.topic, query.queue), BatchConsumeQueue) or \
                    is_lmq(query.topic)
                for unit, m in store.queue_messages(query.topic, query.queue, lo):
                    if unit is not None and unit.queue_offset >= hi:
                        break
                    if unit is not None and isinstance(m, Message) and query.matches(m):
                        batch.append(unit.queue_offset if by_queue_offset else unit.physical_offset)
                    now = time.monotonic()
                    if now - last > BATCH_SECONDS:
                        last = now
                        done = (unit.queue_offset - lo) if unit is not None else 0
                        self.post_message(RowsFound(generation, batch, done, total))
                        batch = []
                        if worker.is_cancelled:
                            self.post_message(RowsFound(generation, [], done, total, True, True))
                            return
                self.post_message(RowsFound(generation, batch, total, total, True))
                return
            total = max(1, sum(s.file_size for s in store.segments))
            needs_properties = query.tag is not None or query.key is not None
            for offsets, done in matching_offsets(store, query.matches, topic=query.topic, queue=query.queue,
                                                  begin=query.begin, end=query.end,
                                                  needs_properties=needs_properties):
                batch.extend(offsets)
                now = time.monotonic()
                if now - last > BATCH_SECONDS:
                    last = now
                    self.post_message(RowsFound(generation, batch, done, total))
                    batch = []
                    if worker.is_cancelled:
                        self.post_message(RowsFound(generation, [], done, total, True, True))
                        return
            self.post_message(RowsFound(generation, batch, total, total, True))
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(RowsFound(generation, batch, 0, 1, True, True))
            self.post_message(WorkerFailed("scan", str(e)))

    def on_worker_failed(self, message: WorkerFailed) -> None:
        message.stop()
        self.notify(message.error, title=message.what, severity="error")

    def on_rows_found(self, message: RowsFound) -> None:
        message.stop()
        if message.generation != self.generation:
            return
        lst = self.message_list
        source = lst.source
        if isinstance(source, OffsetRows):
            source.extend(message.offsets)
            if message.finished:
                source.complete = True
            lst.rows_added()
        if message.finished:
            self.scanning = False
            self._place_wanted(message.offsets)
            word = "stopped" if message.cancelled else "done"
            self._status(f"{word} · {message.note}" if message.note else word, len(source), finished=True)
            if message.note:
                self.notify(message.note, title="key lookup", severity="warning")
            if message.cancelled:
                self.notify(f"scan stopped: {num(len(source))} messages listed", severity="warning")
        else:
            self._status(f"scanning {100 * message.done // max(1, message.total)}% (escape cancels)", len(source),
                         message.done, message.total)
            self._place_wanted(message.offsets)
        if len(source) and lst.cursor == 0:
            self._show_current()
        if message.finished and self.following:
            if isinstance(source, LogRows) and not message.cancelled:
                self._start_follow()
            else:
                self.following = False
                self.notify("follow mode off: it follows the log in commitlog order", title="follow",
                            severity="warning")

    def _status(self, state: str, count: int, done: int = 1, total: int = 1, finished: bool = False) -> None:
        t = Text()
        t.append(esc(self.mode_text or "commitlog order"), style="bold")  # topic, tag, key: the store's or typed
        t.append(f" · {esc(self.query_state.describe())} · ")
        t.append(f"{num(count)} messages", style="bold cyan")
        t.append(f" · {esc(state)}", style="dim" if finished else "yellow")
        self.query_one("#browser-status", SafeStatic).update(t)
        bar = self.query_one("#browser-progress", ProgressBar)
        bar.update(total=max(1, total), progress=total if finished else done)

    # -- selection ---------------------------------------------------------------------------------------------

    def _show_current(self) -> None:
        lst = self.message_list
        self._show(lst.cursor)

    def _show(self, index: int) -> None:
        detail = self.query_one(MessageDetail)
        got = self.message_list.message(index)
        if got is None:
            detail.show(None, "no message")
        elif isinstance(got, str):
            detail.show(None, got)
        else:
            detail.show(got)

    def on_message_list_highlighted(self, event: MessageList.Highlighted) -> None:
        event.stop()
        self._detail_follows.post(event.index)

    def on_message_list_selected(self, event: MessageList.Selected) -> None:
        event.stop()
        if event.offset is not None:
            self.app.show_hex(event.offset)
