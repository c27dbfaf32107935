"""Search the log (issue 31 item 1; key ``f``, or the command palette): the messages whose body (decompressed),
keys, tags or properties match a regex or a fixed string, as ``rmq-inspect grep`` finds them (the engine's
``grep``), listed as they come with the match highlighted in its context; a progress bar, escape cancels; enter
opens a message, ``x`` shows its bytes, ``s`` its story.

The topic field completes from the store's topics (→ accepts), and a topic the store does not know is said with
the names it may have meant ("did you mean OrderEvents?"; the log is searched all the same: a topic with no queue
can still have records). A key search (a fixed string, in keys only, case-sensitive) without a topic asks every
topic's index for that exact key first, and scans the log only when asked (``r``). What cuts an answer short (the
limit, escape, a body searched only partly, a file that could not be read) is said under the hits. Store text is
escaped (``fmt.esc``/``fmt.plain``), never markup.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.suggester import SuggestFromList
from textual.widgets import Checkbox, DataTable, Footer, Header, Label, ProgressBar
from textual.worker import get_current_worker

from inspector.engine import (
    LIMIT,
    BadInput,
    Budget,
    GrepEnd,
    GrepHit,
    Problem,
    SearchPattern,
    check_window,
    compile_pattern,
    grep,
    hit_context,
    parse_fields,
    unknown_topic_note,
)
from inspector.tui.background import key_hits
from inspector.tui.copyout import Command
from inspector.tui.fmt import esc, num, parse_kind, parse_time, plain, size, when
from inspector.tui.messages import SearchFound, WorkerFailed
from inspector.tui.screens.base import FIELD_QUIT, ViewScreen
from inspector.tui.widgets.forminput import FormInput
from inspector.tui.widgets.safe import SafeStatic, SafeTable

DEFAULT_LIMIT = 1000  # hits listed at most unless the limit field says otherwise (a cut list says so)
CONTEXT = 28  # characters of context shown each side of the match
BATCH_SECONDS = 0.1  # hits are posted to the table at most this often
SHOWN_PROBLEMS = 5  # problems listed under the hits (the count says how many more)
COLUMNS = ("offset", "topic", "queue", "q offset", "store time", "in", "match in its context")
# each field's placeholders, longest first: a field shows the longest it has room for (80 columns: 'text o')
FORM = (("pattern", ("text or regex: order-\\d+", "text or regex", "regex", "text")),
        ("topic", ("any topic (→ completes)", "any topic", "any")), ("tag", ("any tag", "any")),
        ("in", ("body,keys,tags,props", "all")), ("limit", (str(DEFAULT_LIMIT),)))
WINDOW = (("since", ("stored at or after: 2025-09-19 13:48, -2h, epoch ms", "at or after: 2025-09-19 13:48, -2h",
                     "at or after: -2h, 2025-09-19", "e.g. -2h")), ("until", ("stored before", "before")))
IDLE = ("type a pattern and enter: bodies (decompressed), keys, tags and properties searched as `rmq-inspect grep` "
        "does; escape cancels a search")


@dataclass(frozen=True)
class SearchForm:
    """What the form asks, read and checked (BadInput before any reading)."""

    pattern: SearchPattern
    fields: tuple[str, ...] | None
    topic: str | None
    tag: str | None
    limit: int
    since: int | None = None
    until: int | None = None

    @property
    def key_search(self) -> bool:
        """A fixed, case-sensitive string in keys only, with no topic: every topic's index can answer it."""
        p = self.pattern
        return p.fixed and not p.ignore_case and self.fields == ("keys",) and self.topic is None and \
            self.since is None and self.until is None


class SearchScreen(ViewScreen):
    BINDINGS = [
        Binding("slash", "edit", "Edit search"),
        Binding("escape", "cancel", "Cancel"),
        Binding("r", "scan", "Scan the log", show=False),
        Binding("x", "hex", "Hex"),
        Binding("s", "story", "Story"),
        Binding("question_mark", "app.help", "Help"),
        Binding("f1", "app.help", "Help"),  # shown: while the field has focus `?` types into it
        FIELD_QUIT,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.generation = 0
        self.hits: list[GrepHit] = []
        self.problems: list[Problem] = []
        self._searching = False
        self.form: SearchForm | None = None
        self.end: GrepEnd | None = None
        self.index_note = ""  # the answer came from the indexes (a key search): r scans the log
        self.topic_note: str | None = None
        self.topics: list[str] = []  # the store's topics, read once: completion and "did you mean"

    @property
    def running(self) -> bool:
        return self._searching

    @running.setter
    def running(self, value: bool) -> None:
        if value != self._searching:
            self._searching = value
            self.refresh_bindings()  # `esc Cancel` in the footer only while a search runs
            # the bar only while a search runs: idle, its 20 columns cut the status line's hint at 80 (issue 33)
            self.query_one("#search-progress", ProgressBar).display = value

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides the binding: esc cancels nothing when no search runs (issue 33: offered all the time)
        if action == "cancel":
            return self.running
        return super().check_action(action, parameters)

    def compose(self) -> ComposeResult:
        yield Header()
        yield SafeStatic(Text("Search the log  (1-9, 0: the other screens; / edits the search)", style="bold"),
                         id="search-title")
        with Horizontal(id="search-form"):
            for name, placeholder in FORM:
                yield Label(name, classes="filter-label")
                yield FormInput(placeholder=placeholder[0], shorter=placeholder[1:], id=f"s-{name}",
                                classes=f"search-field search-{name}")
        with Horizontal(id="search-window"):
            for name, placeholder in WINDOW:
                yield Label(name, classes="filter-label")
                yield FormInput(placeholder=placeholder[0], shorter=placeholder[1:], id=f"s-{name}",
                                classes=f"search-field search-{name}")
            # on the window's line: on the fields' they left the topic field two columns at 80 ('an')
            yield Checkbox("regex", True, id="s-regex", compact=True)
            yield Checkbox("ignore case", False, id="s-icase", compact=True)
        with Horizontal(id="search-statusbar"):
            yield SafeStatic(Text(IDLE, style="dim"), id="search-status")
            yield ProgressBar(total=100, show_eta=False, id="search-progress")
        yield SafeTable(id="search-hits", cursor_type="row", zebra_stripes=True)
        yield SafeStatic("", id="search-notes")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#search-hits", DataTable).add_columns(*COLUMNS)
        self.query_one("#search-progress", ProgressBar).display = self.running
        try:  # the topic field completes from the topics the store knows (→ or end accepts)
            topics = self.app.store.topics()
        except Exception as e:  # noqa: BLE001 - no completion, the search still works
            topics = []
            self.notify(f"listing the topics failed: {e}", title="search", severity="warning")
        self.topics = topics
        self.query_one("#s-topic", FormInput).suggester = SuggestFromList(topics, case_sensitive=False)
        self.query_one("#s-pattern", FormInput).focus()
        self.ready()

    def focus_main(self) -> None:
        self.query_one("#search-hits", DataTable).focus()

    # -- the form -----------------------------------------------------------------------------------------------

    def search(self, pattern: str, *, topic: str | None = None, tag: str | None = None, fields: str | None = None,
               regex: bool = True, ignore_case: bool = False, limit: int | None = None, since: str | None = None,
               until: str | None = None) -> None:
        """Fill the form with these values and search (what the app and the tests call)."""
        if self.later(lambda: self.search(pattern, topic=topic, tag=tag, fields=fields, regex=regex,
                                          ignore_case=ignore_case, limit=limit, since=since, until=until)):
            return
        values = {"pattern": pattern, "topic": topic or "", "tag": tag or "", "in": fields or "",
                  "limit": "" if limit is None else str(limit), "since": since or "", "until": until or ""}
        for name, value in values.items():
            self.query_one(f"#s-{name}", FormInput).value = value
        self.query_one("#s-regex", Checkbox).value = regex
        self.query_one("#s-icase", Checkbox).value = ignore_case
        self.run_form()

    def _read_form(self) -> SearchForm:
        raw = {name: self.query_one(f"#s-{name}", FormInput).value for name, _ in FORM}
        regex = self.query_one("#s-regex", Checkbox).value
        pattern = compile_pattern(raw["pattern"], fixed=not regex,
                                  ignore_case=self.query_one("#s-icase", Checkbox).value)
        fields = parse_fields(raw["in"]) if raw["in"].strip() else None
        times = {name: self.query_one(f"#s-{name}", FormInput).value.strip() for name, _ in WINDOW}
        try:
            limit = parse_kind(raw["limit"], LIMIT, "limit") if raw["limit"].strip() else DEFAULT_LIMIT
            since, until = (parse_time(times[n], n) if times[n] else None for n, _ in WINDOW)  # as --since/--until
        except ValueError as e:
            raise BadInput(str(e)) from None
        check_window(since, until)
        return SearchForm(pattern, fields, raw["topic"].strip() or None, raw["tag"].strip() or None, limit, since,
                          until)

    @on(FormInput.Submitted, ".search-field")
    def _submitted(self, event: FormInput.Submitted) -> None:
        event.stop()
        self.run_form()

    def run_form(self, scan: bool = False) -> None:
        """Search as the form says: a key search without a topic asks the indexes first (``scan``: the log)."""
        try:
            form = self._read_form()
        except BadInput as e:  # an invalid regex, an unknown --in field, a bad limit: said, nothing run
            self.query_one("#search-status", SafeStatic).update(plain(str(e), "bold red"))
            self.notify(str(e), title="search", severity="error")
            return
        self.generation += 1
        self.app.workers.cancel_group(self, "search")
        self.form, self.hits, self.problems, self.end, self.index_note = form, [], [], None, ""
        self.topic_note = unknown_topic_note(form.topic, self.topics) if form.topic else None
        self.query_one("#search-hits", DataTable).clear()
        self.running = True
        self.query_one("#search-progress", ProgressBar).update(total=100, progress=0)
        if form.key_search and not scan:
            self._status("asking every topic's index for the exact key…")
            self._ask_indexes(self.generation, form.pattern.text)
        else:
            self._status("searching…")
            self._grep(self.generation, form)
        self._notes()
        self.focus_main()

    def command(self) -> Command | None:
        """The search as ``grep`` (what was searched last; the indexes' answer to a key search is grep's too)."""
        f = self.form
        if f is None:
            return None
        args = [f.pattern.text, *(["--fixed"] if f.pattern.fixed else []),
                *(["--ignore-case"] if f.pattern.ignore_case else []),
                *(["--in", ",".join(f.fields)] if f.fields else []), *(["--topic", f.topic] if f.topic else []),
                *(["--tag", f.tag] if f.tag else []), "--limit", str(f.limit),
                *(["--since", str(f.since)] if f.since is not None else []),
                *(["--until", str(f.until)] if f.until is not None else [])]
        return Command("grep", tuple(args))

    def action_edit(self) -> None:
        if self.later(self.action_edit):
            return
        self.query_one("#s-pattern", FormInput).focus()

    def action_scan(self) -> None:
        """After a key search answered by the indexes: search the whole log for the key (a scan)."""
        if self.index_note and not self.running:
            self.run_form(scan=True)

    # -- the workers ---------------------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _grep(self, generation: int, form: SearchForm) -> None:
        worker = get_current_worker()
        budget = Budget(should_stop=lambda: worker.is_cancelled)  # checked by the engine between runs of records
        batch = SearchFound(generation)
        last = time.monotonic()

        def flush(force: bool = False) -> None:
            nonlocal batch, last
            now = time.monotonic()
            if force or now - last > BATCH_SECONDS:
                last = now
                self.post_message(batch)
                batch = SearchFound(generation, done=batch.done, total=batch.total)

        def progress(done: int, total: int) -> None:
            batch.done, batch.total = done, total
            flush()

        kwargs = {} if form.fields is None else {"fields": form.fields}
        if form.since is not None or form.until is not None:
            kwargs.update(since=form.since, until=form.until)
        try:
            for item in grep(self.app.store, form.pattern, topic=form.topic, tag=form.tag, limit=form.limit,
                             budget=budget, progress=progress, **kwargs):
                if isinstance(item, GrepHit):
                    batch.hits.append(item)
                elif isinstance(item, Problem):
                    batch.problems.append(item)
                else:
                    batch.end = item
                flush()
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("search", str(e)))
        batch.finished = True
        flush(force=True)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _ask_indexes(self, generation: int, key: str) -> None:
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            self.post_message(SearchFound(generation, done=done, total=total))

        try:
            hits, note = key_hits(self.app.store, key, cancelled=lambda: worker.is_cancelled, progress=progress)
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("search", str(e)))
            hits, note = [], f"the indexes could not be asked: {e}"
        self.post_message(SearchFound(generation, hits=hits, done=1, total=1, finished=True, note=note))

    def action_cancel(self) -> None:
        if self.running:
            self.app.workers.cancel_group(self, "search")
            # stopped now: a worker cancelled before its thread ran never posts again; one that ran posts what it
            # found and where it stopped (the engine checks the cancel between runs of records), shown then
            self.running = False
            self._status(f"stopped: {num(len(self.hits))} hit(s) so far")
            self._notes()

    def on_worker_failed(self, message: WorkerFailed) -> None:
        message.stop()
        self.notify(message.error, title=message.what, severity="error")

    # -- the answer ----------------------------------------------------------------------------------------------

    def on_search_found(self, message: SearchFound) -> None:
        message.stop()
        if message.generation != self.generation:
            return  # a search overtaken by a newer one
        table = self.query_one("#search-hits", DataTable)
        for hit in message.hits:
            table.add_row(*self._row(hit), key=str(len(self.hits)))
            self.hits.append(hit)
        self.problems += message.problems
        if message.end is not None:
            self.end = message.end
        bar = self.query_one("#search-progress", ProgressBar)
        bar.update(total=max(1, message.total), progress=message.done)
        if message.finished:
            self.running = False
            self.index_note = message.note
            self._status(self._answer())
            self._notes()
        elif self.running:  # (after escape the last batches of a stopping search are listed, the line stays)
            self._status(f"searching {100 * message.done // max(1, message.total)}% (escape cancels)")
            if message.problems:
                self._notes()

    def _row(self, hit: GrepHit) -> tuple:
        m = hit.message
        before, match, after = hit_context(hit, CONTEXT)
        context = Text(before)
        context.append(match, style="bold red")
        context.append(after)
        where = "body" if hit.field == "body" else esc(hit.field)
        return (num(m.physical_offset), plain(m.topic), str(m.queue_id), str(m.queue_offset),
                when(m.store_timestamp), Text(where, style="dim"), context)

    def _answer(self) -> str:
        """The status line once a search ends: how many hits, how the search was done."""
        n = len(self.hits)
        if self.index_note:
            return f"{num(n)} message(s) with this exact key in the indexes"
        end = self.end
        if end is None:
            return f"{num(n)} hit(s); the search failed"
        limited = self.form is not None and n >= self.form.limit
        state = "done" if not end.truncated else "the limit reached" if limited else "stopped"
        return f"{state}: {num(n)} hit(s) · {size(end.searched_bytes)} of {size(end.total_bytes)} searched"

    def _notes(self) -> None:
        """Under the hits: what cut the answer short, the topic it may have meant, the problems met."""
        t = Text()

        def line(label: str, text: str, style: str = "yellow") -> None:
            if t:
                t.append("\n")
            t.append(label, style=f"bold {style}")
            t.append(esc(text), style=style)

        if self.topic_note:
            line("topic: ", self.topic_note)
        if self.end is not None and self.end.truncated:
            more = " (a larger limit lists more: the limit field)" if self.form and \
                len(self.hits) >= self.form.limit else ""
            line("a partial answer: ", self.end.truncated + more)
        if self.index_note:
            line("index: ", self.index_note + "; r searches the whole log for it (a scan)", "cyan")
        for p in self.problems[:SHOWN_PROBLEMS]:
            line(f"{p.severity} ({p.code}): ", f"{p.file} @ {p.offset:,}: {p.reason}",
                 "red" if p.severity == "error" else "yellow")
        if len(self.problems) > SHOWN_PROBLEMS:
            line("", f"and {len(self.problems) - SHOWN_PROBLEMS:,} more problem(s): `rmq-inspect grep` lists them all")
        if self.end is not None and not self.running:
            line("searched by: ", f"{self.end.how}; {num(self.end.records_decoded)} record(s) decoded", "dim")
        if self.hits and not self.running:
            line("", "enter: open the message · x: its bytes · s: its story · /: edit the search", "dim")
        self.query_one("#search-notes", SafeStatic).update(t)

    def _status(self, state: str) -> None:
        t = Text()
        if self.form is not None:  # the search asked (typed text and the store's names: escaped)
            f, p = self.form, self.form.pattern
            said = ("fixed " if p.fixed else "regex ") + p.text
            said += "".join(f" {name}={value}" for name, value in (("topic", f.topic), ("tag", f.tag)) if value)
            said += (f" in {','.join(f.fields)}" if f.fields else "") + (" -i" if p.ignore_case else "")
            said += (f" since {when(f.since)}" if f.since is not None else "") + \
                (f" until {when(f.until)}" if f.until is not None else "")
            t.append(esc(said) + " · ", style="bold")
        t.append(esc(state), style="yellow" if self.running else "dim")
        self.query_one("#search-status", SafeStatic).update(t)

    # -- the selected hit ----------------------------------------------------------------------------------------

    def _selected(self) -> GrepHit | None:
        table = self.query_one("#search-hits", DataTable)
        row = table.cursor_row
        return self.hits[row] if self.hits and 0 <= row < len(self.hits) else None

    @on(DataTable.RowSelected, "#search-hits")
    def _open(self, event: DataTable.RowSelected) -> None:
        event.stop()
        hit = self.hits[event.cursor_row] if 0 <= event.cursor_row < len(self.hits) else None
        if hit is not None:
            self.app.show_message(hit.message.physical_offset)

    def action_hex(self) -> None:
        hit = self._selected()
        if hit is not None:
            self.app.show_hex(hit.message.physical_offset)

    def action_story(self) -> None:
        hit = self._selected()
        if hit is not None:
            self.app.show_story(str(hit.message.physical_offset))
