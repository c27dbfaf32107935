"""Index-chain walker: topic + key → key string, Java hash, slot, and the chain hop by hop in every index file;
any slot of a file browsed directly; the busiest slots of a file."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Header, Label, Select

from inspector.engine import (
    INDEX_SLOT,
    ChainStep,
    ChainWalk,
    StoreError,
    busiest_slots,
    indexed_key,
    item_key_text,
    key_missing_reason,
    walk_slot,
)
from inspector.tui.copyout import Command
from inspector.tui.fmt import esc, num, parse_kind, plain, when
from inspector.tui.messages import BusiestReady, ChainReady, SlotReady, WorkerFailed
from inspector.tui.screens.base import NARROW_LAYOUT, ViewScreen
from inspector.tui.widgets.forminput import FormInput
from inspector.tui.widgets.navbar import NavBar
from inspector.tui.widgets.safe import SafeLabel, SafeStatic, SafeTable

STEP_COLUMNS = ("file", "item", "stored hash", "phy offset", "stored at", "prev", "verdict", "indexed key")
# below NARROW_LAYOUT columns (80: the verdict column needed scrolling sideways, the fields showed `OrderE`): the
# verdict as its symbol (the legend names them), no stored hash or prev, the time without year and zone; the
# detail line under the table gives the highlighted hop whole at every width
NARROW_STEP_COLUMNS = ("file", "item", "offset", "stored", "", "indexed key")
LEGEND = ("✔ match: the message has this key   ✘ collision: same hash, another key   "
          "· other hash: another key in the same slot")
BUSIEST = 20


def verdict(step: ChainStep) -> Text:
    if not step.hash_matches:
        t = Text("· other hash", style="dim")
    elif step.key_matches is None:
        t = Text("? unreadable", style="bold red")
    elif step.key_matches:
        t = Text("✔ match", style="bold green")
    else:
        t = Text("✘ collision", style="bold yellow")
    if not step.in_time_range:
        t.append(" (outside time window)", style="dim")
    return t


def verdict_mark(step: ChainStep) -> Text:
    """The verdict's symbol alone (the narrow table's), in the verdict's colour."""
    full = verdict(step)
    return Text(full.plain[0], style=full.style)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


@dataclass(frozen=True)
class StepRow:
    """One row of the steps table, whatever its width: a hop of a walk, an item of a browsed slot, or a walk with
    no hop (``key`` None: ``verdict`` says why)."""

    key: str | None
    name: str
    item: str
    key_hash: str
    offset: str
    time: str  # when(..., "s"): '2025-09-19 16:54:08 +00:00'
    prev: str
    verdict: Text
    mark: Text
    indexed: str

    def cells(self, narrow: bool) -> tuple:
        if narrow:
            if self.key is None:
                return self.name, "-", "-", "-", "", self.verdict
            return self.name, self.item, self.offset, self.time[5:19], self.mark, self.indexed
        return (self.name, self.item, self.key_hash, self.offset, self.time, self.prev, self.verdict, self.indexed)

    def detail(self) -> Text:
        """The hop whole, on the line under the table: verdict, key, item and where it links, offset, time."""
        t = Text()
        if self.key is None:
            return t.append(f"{self.name} ").append_text(self.verdict)
        t.append_text(self.verdict)
        t.append("  ")
        t.append(esc(self.indexed) or "-", style="cyan")
        t.append(f"  · item {self.item} → prev {self.prev} · stored hash {self.key_hash} · phy offset {self.offset}"
                 f" · stored {self.time}", style="dim")
        return t


class ChainScreen(ViewScreen):
    NARROW_HIDDEN = frozenset({"slot", "busiest"})
    BINDINGS = [
        Binding("slash", "edit", "Edit topic/key"),
        Binding("w", "walk", "Walk key"),
        Binding("s", "slot", "Browse slot"),
        Binding("t", "busiest", "Busiest slots"),
        Binding("question_mark", "app.help", "Help"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._row_offsets: dict[str, int] = {}
        self._slot_counts: dict[str, int] = {}
        self.walked: tuple[str, str] | None = None  # the topic and key walked last (C: `chain STORE TOPIC KEY`)
        self._rows: list[StepRow] = []
        self.narrow: bool | None = None
        self._busiest_file: str | None = None
        self._walked_message: ChainReady | None = None  # the walk shown (its summary is made again on a resize)

    def compose(self) -> ComposeResult:
        files = [(plain(r.name), r.rel) for r in self.app.store.index_files()]  # file names: the store's
        yield Header()
        yield NavBar("chain")
        with Horizontal(id="chain-form"):
            yield Label("topic", classes="filter-label")
            yield FormInput(placeholder="e.g. OrderEvents", id="c-topic", classes="chain-input")
            yield Label("key", classes="filter-label")
            yield FormInput(placeholder="e.g. order-1108", id="c-key", classes="chain-input")
            yield Label("index file", classes="filter-label", id="c-file-label")
            yield Select(files, id="c-file", compact=True, allow_blank=not files,
                         value=files[-1][1] if files else Select.NULL)
            yield Label("slot", classes="filter-label")
            yield FormInput(placeholder="slot #", id="c-slot", classes="chain-input")
        yield SafeStatic(Text("type a topic and a key and press enter (or w); s browses a slot, t lists the busiest slots",
                          style="dim"), id="chain-summary")
        with Horizontal(id="chain-main"):
            with Vertical(id="chain-left"):
                yield SafeTable(id="chain-steps", cursor_type="row", zebra_stripes=True)
                yield SafeStatic("", id="chain-detail")
            with Vertical(id="chain-side"):
                yield SafeLabel("busiest slots", id="chain-busiest-title")
                yield SafeTable(id="chain-busiest", cursor_type="row")
        yield Footer()

    def focus_main(self) -> None:
        self.query_one("#chain-steps", DataTable).focus()

    def on_mount(self) -> None:
        self._slot_counts = {r.rel: r.slot_count for r in self.app.store.index_files()}
        self._fit(self.app.size.width)
        self.query_one("#chain-busiest", DataTable).add_columns("slot", "items")
        if self.focused is None:  # a key typed while mounting may have focused a field
            self.focus_main()
        file = self.selected_file()
        if file is not None:
            self._busiest(file)
        self.ready()

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        """Below NARROW_LAYOUT columns: the narrow steps table, shorter form labels, a narrower side panel."""
        narrow = width < NARROW_LAYOUT
        if narrow == self.narrow:
            return
        self.narrow = narrow
        self.set_class(narrow, "narrow")
        table = self.query_one("#chain-steps", DataTable)
        row = table.cursor_row
        self._fill(keep_row=row)
        self._busiest_title()
        self._chain_summary()

    def _fill(self, keep_row: int = 0) -> None:
        """The steps table made again from ``_rows`` at the current width."""
        table = self.query_one("#chain-steps", DataTable)
        table.clear(columns=True)
        table.add_columns(*(NARROW_STEP_COLUMNS if self.narrow else STEP_COLUMNS))
        for r in self._rows:
            table.add_row(*r.cells(bool(self.narrow)), key=r.key)
        if self._rows:
            table.move_cursor(row=min(keep_row, len(self._rows) - 1))
        self._detail(table.cursor_row)

    def _detail(self, row: int) -> None:
        shown = self._rows[row].detail() if 0 <= row < len(self._rows) else Text("")
        self.query_one("#chain-detail", SafeStatic).update(shown)

    @on(DataTable.RowHighlighted, "#chain-steps")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._detail(event.cursor_row)

    def _busiest_title(self) -> None:
        if self._busiest_file is None:
            return
        name = esc(self._busiest_file.split("/")[-1])
        # narrow: the side panel is 15 columns, the file's 17-digit name is the one in the form's selector
        self.query_one("#chain-busiest-title", SafeLabel).update("busiest slots" if self.narrow
                                                                 else f"busiest slots of\n{name}")

    def command(self) -> Command | None:
        if self.walked is None:
            return None
        return Command("chain", self.walked)

    def selected_file(self) -> str | None:
        value = self.query_one("#c-file", Select).value
        return value if isinstance(value, str) else None

    # -- actions ----------------------------------------------------------------------------------------------

    def action_edit(self) -> None:
        self.query_one("#c-topic", FormInput).focus()

    def action_walk(self) -> None:
        topic = self.query_one("#c-topic", FormInput).value.strip()
        key = self.query_one("#c-key", FormInput).value.strip()
        if not topic or not key:
            self.notify("type a topic and a key", title="chain", severity="error")
            self.query_one("#c-topic" if not topic else "#c-key", FormInput).focus()
            return
        self.walk(topic, key)

    def action_slot(self) -> None:
        text = self.query_one("#c-slot", FormInput).value.strip()
        if not text:
            self.query_one("#c-slot", FormInput).focus()
            return
        try:
            slot = parse_kind(text, INDEX_SLOT, "slot")
        except ValueError as e:
            self.notify(str(e), severity="error")
            return
        self.browse_slot(self.selected_file(), slot)

    def action_busiest(self) -> None:
        if self.later(self.action_busiest):
            return
        self.busiest(self.selected_file())

    @on(FormInput.Submitted, ".chain-input")
    def _submitted(self, event: FormInput.Submitted) -> None:
        event.stop()
        if event.input.id == "c-slot":
            self.action_slot()
        else:
            self.action_walk()

    @on(Select.Changed, "#c-file")
    def _file_changed(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str):
            self._busiest(event.value)

    # -- public API (also used by the overview and the command palette) ------------------------------------------------

    def walk(self, topic: str, key: str) -> None:
        if self.later(lambda: self.walk(topic, key)):
            return
        self.query_one("#c-topic", FormInput).value = topic
        self.query_one("#c-key", FormInput).value = key
        self.query_one("#chain-summary", SafeStatic).update(Text(f"walking {esc(topic)}#{esc(key)}…", style="dim"))
        self.walked = (topic, key)
        self._walk(topic, key)

    def browse_slot(self, file: str | None, slot: int) -> None:
        if self.later(lambda: self.browse_slot(file, slot)):
            return
        if file is None:
            self.notify("the store has no index file", severity="error")
            return
        self.query_one("#c-file", Select).value = file
        self.query_one("#c-slot", FormInput).value = str(slot)
        self._slot(file, slot)

    def busiest(self, file: str | None) -> None:
        if self.later(lambda: self.busiest(file)):
            return
        if file is None:
            self.notify("the store has no index file", severity="error")
            return
        select = self.query_one("#c-file", Select)
        if select.value != file:
            select.value = file  # Select.Changed lists the busiest slots
        else:
            self._busiest(file)
        self.query_one("#chain-busiest", DataTable).focus()

    # -- workers -------------------------------------------------------------------------------------------------

    def _reader(self, file: str):
        for r in self.app.store.index_files():
            if r.rel == file:
                return r
        raise StoreError("no such index file", file)

    @work(thread=True, exclusive=True, group="chain", exit_on_error=False)
    def _walk(self, topic: str, key: str) -> None:
        store = self.app.store
        try:
            walks = store.chain(topic, key)
            keys = {(w.file, s.item.number): item_key_text(store, s.item) for w in walks for s in w.steps}
            found = any(s.hash_matches and s.key_matches for w in walks for s in w.steps)
            unsearched = any(w.skipped_reason for w in walks)
            answer = None if found or unsearched else key_missing_reason(store, topic, key, walks)
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("chain", str(e)))
            return
        self.post_message(ChainReady(topic, key, walks, indexed_key(topic, key).java_hash, keys, answer))

    @work(thread=True, exclusive=True, group="chain", exit_on_error=False)
    def _slot(self, file: str, slot: int) -> None:
        store = self.app.store
        try:
            reader = self._reader(file)
            chain = walk_slot(reader, slot)
            keys = {item.number: item_key_text(store, item) for item in chain.items}
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("slot", str(e)))
            return
        self.post_message(SlotReady(file, slot, chain, reader.header.begin_timestamp, keys))

    @work(thread=True, exclusive=True, group="busiest", exit_on_error=False)
    def _busiest(self, file: str) -> None:
        try:
            slots = busiest_slots(self._reader(file), BUSIEST)
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("busiest slots", str(e)))
            return
        self.post_message(BusiestReady(file, slots))

    # -- results ---------------------------------------------------------------------------------------------------

    def on_worker_failed(self, message: WorkerFailed) -> None:
        message.stop()
        self.notify(message.error, title=message.what, severity="error")

    def on_chain_ready(self, message: ChainReady) -> None:
        message.stop()
        walks: list[ChainWalk] = message.walks
        self._walked_message = message
        self._chain_summary()
        self._row_offsets.clear()
        rows: list[StepRow] = []
        for number, w in enumerate(walks, 1):
            name = f"[{number}]"
            if not w.steps:
                why = plain(w.skipped_reason or w.stop_reason, "dim")
                rows.append(StepRow(None, name, "-", "-", "-", "-", "-", why, why, ""))
                continue
            for n, s in enumerate(w.steps):
                key = f"{w.file}:{s.item.number}"
                self._row_offsets[key] = s.item.phy_offset
                rows.append(StepRow(key, name if n == 0 else "", str(s.item.number), str(s.item.key_hash),
                                    num(s.item.phy_offset), when(s.time_ms, "s"), str(s.item.prev_index), verdict(s),
                                    verdict_mark(s), message.keys_by_item.get((w.file, s.item.number), "")))
        self._rows = rows
        self._fill()
        self.query_one("#chain-steps", DataTable).focus()

    def _chain_summary(self) -> None:
        """The walk's summary over the table; narrow, each file's line fits 78 columns (no slot formula, no byte
        position: the wide layout has them) so the legend stays in the summary's eight lines at 80x24."""
        message = self._walked_message
        if message is None:
            return
        walks: list[ChainWalk] = message.walks
        narrow = bool(self.narrow)
        indexed = indexed_key(message.topic, message.key)
        full = indexed.text
        t = Text()
        t.append("key string  ", style="bold")
        t.append(esc(full), style="cyan")
        t.append("\nJava hash   ", style="bold")
        t.append(f"{'' if narrow else 'String.'}hashCode() = {message.java_hash}")
        key_hash = walks[0].key_hash if walks else indexed.key_hash
        t.append(f"{'  ' if narrow else '   '}keyHash = |hashCode| = {key_hash}")
        if not walks:
            t.append("\nthe store has no index files", style="yellow")
        if message.answer is not None:  # the CLI key's answer: expired (retention) or no such key
            t.append("\n" + esc(message.answer), style="bold yellow")
        for n, w in enumerate(walks, 1):
            slots = self._slot_counts.get(w.file)
            if narrow:
                t.append(f"\n[{n}] {esc(w.file.split('/')[-1])}", style="bold")
                t.append(f" slot {w.slot} → item {w.slot_value}")
            else:
                t.append(f"\n[{n}] {esc(w.file)}", style="bold")
                t.append(f"  slot {w.slot}" + (f" = {key_hash} % {slots}" if slots else ""))
                t.append(f" at byte {w.slot_position} → item {w.slot_value}")
            matches = sum(1 for s in w.steps if s.hash_matches and s.key_matches)
            collisions = sum(1 for s in w.steps if s.hash_matches and s.key_matches is False)
            if narrow:  # '8 hops, 0 matches': the line fits 78 columns with its stop reason
                t.append(f" · {_count(len(w.steps), 'hop', 'hops')}, {_count(matches, 'match', 'matches')}")
            else:
                t.append(f" · {len(w.steps)} hop(s), {matches} match(es)")
            if collisions:
                t.append(f", {collisions} collision(s)", style="bold yellow")
            t.append(f" · {esc(w.skipped_reason or w.stop_reason)}", style="dim")
            if w.note:  # the header range is wrong: walked whole, whatever the time window
                t.append(f"\n    {esc(w.note)}", style="yellow")
        t.append("\n" + LEGEND, style="dim")
        self.query_one("#chain-summary", SafeStatic).update(t)

    def on_slot_ready(self, message: SlotReady) -> None:
        message.stop()
        self._walked_message = None
        chain = message.chain
        t = Text()
        t.append(esc(message.file), style="bold")
        t.append(f"  slot {message.slot} at byte {chain.slot_position} → item {chain.slot_value}")
        t.append(f" · {len(chain.items)} item(s) · {esc(chain.stop_reason)}", style="dim")
        t.append("\nevery item chained from this slot, whatever its key (newest first)", style="dim")
        self.query_one("#chain-summary", SafeStatic).update(t)
        self._row_offsets.clear()
        rows: list[StepRow] = []
        for n, item in enumerate(chain.items):
            key = f"{message.file}:{item.number}"
            self._row_offsets[key] = item.phy_offset
            rows.append(StepRow(key, "slot" if n == 0 else "", str(item.number), str(item.key_hash),
                                num(item.phy_offset), when(item.time_ms(message.begin_timestamp), "s"),
                                str(item.prev_index), Text("in slot", style="dim"), Text(""),
                                message.keys_by_item.get(item.number, "")))
        self._rows = rows
        self._fill()
        self.query_one("#chain-steps", DataTable).focus()

    def on_busiest_ready(self, message: BusiestReady) -> None:
        message.stop()
        self._busiest_file = message.file
        self._busiest_title()
        table = self.query_one("#chain-busiest", DataTable)
        table.clear()
        for slot, items in message.slots:
            table.add_row(str(slot), str(items), key=f"slot:{slot}")

    @on(DataTable.RowSelected, "#chain-steps")
    def _open_step(self, event: DataTable.RowSelected) -> None:
        event.stop()
        offset = self._row_offsets.get(str(event.row_key.value))
        if offset is not None:
            self.app.show_message(offset)

    @on(DataTable.RowSelected, "#chain-busiest")
    def _open_slot(self, event: DataTable.RowSelected) -> None:
        event.stop()
        value = str(event.row_key.value)
        if value.startswith("slot:"):
            self.browse_slot(self.selected_file(), int(value[5:]))
