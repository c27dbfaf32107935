"""The rmq-inspect terminal UI: one app factory (``create_app``) used by the command and by the tests.

The app holds the open ``Store``, one screen per view (each a Textual mode, so every view keeps its state),
the problems found so far (from the store, the background walk of the commitlog, and ``verify``), and the
actions every key binding and every command-palette entry calls.
"""

from __future__ import annotations

import bisect
import gc
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from inspector.engine import INDEX_SLOT, OFFSET, Message, Problem, SegmentScan, Store, open_store, store_file
from inspector.tui.copyout import Command, Launch, message_yanks, why_not
from inspector.tui.fmt import commitlog_offset, esc, is_number, parse_kind
from inspector.tui.messages import ScanProgress, SegmentScanned, StoreReloaded
from inspector.tui.prefs import load_prefs, save_pref
from inspector.tui.reload import StoreShape, changes, new_records, shape_of
from inspector.tui.screennames import SCREEN_NAMES
from inspector.tui.screens.browser import BrowserScreen
from inspector.tui.screens.chain import ChainScreen
from inspector.tui.screens.copydialogs import (
    COMMAND_KEY,
    SAVE_KEY,
    ConfirmScreen,
    YankScreen,
    refuse_path,
    write_body,
)
from inspector.tui.screens.dialogs import HelpScreen, MessageScreen, PromptScreen
from inspector.tui.screens.diff import DiffScreen
from inspector.tui.screens.groups import GroupsScreen
from inspector.tui.screens.hexscreen import HexScreen
from inspector.tui.screens.overview import OverviewScreen
from inspector.tui.screens.problems import ProblemsScreen
from inspector.tui.screens.resolver import ResolverScreen
from inspector.tui.screens.salvage import SalvageScreen
from inspector.tui.screens.search import SearchScreen
from inspector.tui.screens.stats import StatsScreen
from inspector.tui.screens.story import StoryScreen
from inspector.tui.screens.timer import TimerScreen
from inspector.tui.screens.workshop.exercises import ExercisesScreen
from inspector.tui.screens.workshop.tour import TourScreen
from inspector.tui.widgets.safe import ControlNet

SCREEN_CLASSES = {
    "overview": OverviewScreen,
    "hex": HexScreen,
    "messages": BrowserScreen,
    "chain": ChainScreen,
    "ids": ResolverScreen,
    "problems": ProblemsScreen,
    "tour": TourScreen,
    "exercises": ExercisesScreen,
    "timer": TimerScreen,
    "story": StoryScreen,
    "groups": GroupsScreen,
    "search": SearchScreen,
    "stats": StatsScreen,
    "diff": DiffScreen,
    "salvage": SalvageScreen,
}
assert tuple(SCREEN_CLASSES) == SCREEN_NAMES  # --screen is checked against the names before Textual loads
SCREEN_TITLES = {"overview": "Overview", "hex": "CommitLog hex view", "messages": "Message browser",
                 "chain": "Index-chain walker", "ids": "msgId resolver", "problems": "Problems",
                 "tour": "Guided tour", "exercises": "Exercises", "timer": "Timer wheel",
                 "story": "Story of a message", "groups": "Consumer groups",
                 "search": "Search the log",
                 "stats": "Statistics", "diff": "Diff of two stores",
                 "salvage": "Salvage plan"}


def store_name(store: Store) -> str:
    """The store's directory name (never an absolute path: screenshots must not depend on the machine)."""
    root = Path(store.root)
    return root.name or root.resolve().name or str(root)


class RmqInspectApp(App):
    CSS_PATH = "rmq_inspect.tcss"
    TITLE = "rmq-inspect"
    ENABLE_COMMAND_PALETTE = True

    BINDINGS = [
        Binding("1", "go('overview')", "Overview", show=False),
        Binding("2", "go('hex')", "Hex", show=False),
        Binding("3", "go('messages')", "Messages", show=False),
        Binding("4", "go('chain')", "Chain", show=False),
        Binding("5", "go('ids')", "msgId", show=False),
        Binding("6", "go('problems')", "Problems", show=False),
        Binding("7", "go('tour')", "Tour", show=False),
        Binding("8", "go('exercises')", "Exercises", show=False),
        Binding("9", "go('timer')", "Timer wheel", show=False),
        Binding("0", "go('groups')", "Consumer groups", show=False),
        Binding("f", "search", "Search", show=False),
        Binding("percent_sign", "go('stats')", "Statistics", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("f1", "help", "Help", show=False),
        Binding("q", "quit", "Quit"),  # shown: a new user looks for the way out in the footer
        Binding("y", "yank", "Copy", show=False),  # the footers are full at 80 columns: the help lists both
        Binding("C", "copy_command", "Copy as command", show=False),
        # a live store: open it again (ctrl+r; R too, for terminals that keep ctrl+r for themselves)
        Binding("ctrl+r,R", "reload", "Reload", show=False),
    ]

    def __init__(self, store: Store, *, background_scan: bool = True, screen: str = "overview",
                 launch: Launch | None = None, goto: int | None = None,
                 key: tuple[str, str] | None = None, compare: Store | None = None,
                 reopen: Callable[[], Store] | None = None, file: str | None = None) -> None:
        super().__init__()
        if screen not in SCREEN_CLASSES:
            raise ValueError(f"no screen {screen!r}; one of {', '.join(SCREEN_CLASSES)}")
        self.first_screen = screen
        # how the UI was started: what `C` puts before and after each screen's command
        self.launch = launch if launch is not None else Launch(str(store.root))
        self.goto = goto  # --goto: this message's window over the first screen
        self.start_key = key  # --key TOPIC KEY: the chain screen walking it
        self.start_file = file  # --file PATH: the hex screen over that queue or index file
        self.store = store
        # how the reload key opens the store again: the command gives its own opening (every option it was
        # started with); else the same root and broker.conf
        self.reopen = reopen if reopen is not None else (
            lambda: open_store(store.root, broker_config=store.broker_config))
        self.reopened: list[Store] = []  # stores a reload opened: closed when the app ends (workers may read them)
        self.reloading = False
        self.shape: StoreShape | None = None  # the store's ends as opened (taken in a worker): what a reload compares
        self.compare = compare  # a second store (``--compare B``): the Diff screen compares the two
        self.store_name = store_name(store)  # as on disk: every view escapes it when showing it
        self.sub_title = esc(self.store_name)
        self.control_net = ControlNet()  # the last net under every painted line (see inspector.tui.fmt)
        self.background_scan = background_scan
        self.scan_running = background_scan  # until the walk reports it finished (or was stopped)
        self.views: dict[str, Screen] = {}
        self.scans: dict[int, SegmentScan] = {}
        self.scan_complete = False
        self.problem_sources: dict[str, list[Problem]] = {}
        self._heap_frozen = False
        for mode in SCREEN_CLASSES:
            self.add_mode(mode, self._factory(mode))

    def _factory(self, mode: str):
        def make() -> Screen:
            screen = SCREEN_CLASSES[mode]()
            # A new screen is styled when it mounts; without this Textual re-parses every stylesheet on the first
            # switch to each mode (most of the CPU of opening a view, and nothing changed to need it).
            screen._css_update_count = self._css_update_count
            self.views[mode] = screen
            return screen

        return make

    def view(self, mode: str) -> Screen:
        """The screen of ``mode``, made active."""
        self.switch_mode(mode)
        return self.views[mode]

    def on_mount(self) -> None:
        # the theme the user chose last time (ctrl+p "Change theme"), remembered; textual-dark the first time
        chosen = load_prefs().get("theme")
        self.theme = chosen if isinstance(chosen, str) and chosen in self.available_themes else "textual-dark"
        self.theme_changed_signal.subscribe(self, lambda theme: save_pref("theme", theme.name))
        self.switch_mode(self.first_screen)
        if self.start_key is not None:
            self.show_chain(*self.start_key)
        if self.start_file is not None:
            self.show_file_hex(self.start_file)
        if self.goto is not None:
            self.show_message(self.goto)
        try:
            self.problem_sources["store"] = list(self.store.problems())
        except Exception as e:  # noqa: BLE001 - a broken store must still open
            self.notify(f"reading the store's problems failed: {e}", severity="error")
        if self.background_scan:
            self.scan_segments()
        self.take_shape(self.store)
        self.call_after_refresh(self.freeze_heap)

    def freeze_heap(self) -> None:
        """Move every object alive now out of the collector's reach (``gc.freeze``), after a one-time load.

        What is alive once a screen is up or the first walk is done (numba's kernels and types, Textual's CSS
        and widgets, the store's tables: ~200k objects) lives as long as the app. Left to the collector, each
        full pass walked them all and stalled the UI thread 100-200 ms at random moments while paging; frozen,
        a full pass only walks what the session made since (a few ms). Called when the first screen is up,
        when a view first mounts, when the background walk ends and when the hex layout first answers.
        """
        self._heap_frozen = True
        gc.freeze()

    def get_line_filters(self) -> Sequence[LineFilter]:
        return [self.control_net, *super().get_line_filters()]

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Every notification of every screen comes here: its text often quotes the store (a topic, a file name,
        a problem's reason), so it is shown escaped and never as markup (``markup`` is ignored)."""
        super().notify(esc(message, multiline=True), title=esc(title), severity=severity,
                       timeout=timeout, markup=False)

    def on_unmount(self) -> None:
        for opened in self.reopened:
            opened.close()
        self.reopened = []
        if self._heap_frozen:  # give them back to the collector (tests run many apps in one process)
            self._heap_frozen = False
            gc.unfreeze()

    # -- background walk of the commitlog ------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="segment-scan", exit_on_error=False)
    def scan_segments(self) -> None:
        worker = get_current_worker()
        store = self.store  # a reload replaces it: this walk then stops and says nothing more
        segments = store.segments
        total = max(1, sum(s.file_size for s in segments))
        done = 0
        for i, seg in enumerate(segments):
            self.post_message(ScanProgress("segments", f"walking {seg.name} ({i + 1}/{len(segments)})", done, total))
            if store is not self.store:
                return
            try:
                scan = store.scan_segment(i)
            except Exception as e:  # noqa: BLE001 - report, keep the UI alive
                self.post_message(ScanProgress("segments", f"walk failed at {seg.name}: {e}", done, total, True))
                return
            if store is not self.store:
                return
            self.post_message(SegmentScanned(i, scan))
            done += seg.file_size
            if worker.is_cancelled:
                self.post_message(ScanProgress("segments", "walk stopped", done, total, True))
                return
        self.post_message(ScanProgress("segments", "walk complete", total, total, True))

    def cancel_scan(self) -> None:
        cancelled = self.workers.cancel_group(self, "segment-scan")
        if cancelled:
            self.notify("stopped walking the commitlog; segments not walked yet show no valid end", severity="warning")

    def on_segment_scanned(self, message: SegmentScanned) -> None:
        self.scans[message.index] = message.scan
        self.set_problems(f"scan:{message.index}", list(message.scan.problems))
        overview = self.views.get("overview")
        if overview is not None:
            overview.segment_scanned(message.index, message.scan, message.complete)

    def on_scan_progress(self, message: ScanProgress) -> None:
        if message.task == "segments" and message.finished:
            self.scan_complete = message.label == "walk complete"
            self.scan_running = False
            for view in self.views.values():
                view.refresh_bindings()  # `esc Stop walk` leaves the footer once there is no walk to stop
            self.freeze_heap()  # the walk loaded its kernels
        for screen in self.views.values():
            handler = getattr(screen, "scan_progress", None)
            if handler is not None:
                handler(message)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The safety net: a worker that failed in a way it did not report itself becomes a notification."""
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            self.notify(f"{type(error).__name__}: {error}", title=f"{event.worker.name or 'worker'} failed",
                        severity="error")

    # -- reload (a live store) ------------------------------------------------------------------------------------

    def action_reload(self) -> None:
        """Open the store again and rebuild the views on it; the current screen keeps its place where it still
        exists, and a toast says what changed."""
        if self.reloading:
            self.notify("a reload is running", severity="warning")
            return
        self.reloading = True
        self.notify("reloading the store…", timeout=2)
        self._reload(self.store)

    @work(thread=True, exclusive=True, group="shape", exit_on_error=False)
    def take_shape(self, store: Store) -> None:
        """The store's shape as opened, before the broker writes more (a reload says what changed since)."""
        try:
            shape = shape_of(store)
        except Exception:  # noqa: BLE001 - a reload then compares with the store as it is at that moment
            return
        if store is self.store and self.shape is None:
            self.shape = shape

    @work(thread=True, exclusive=True, group="reload", exit_on_error=False)
    def _reload(self, old: Store) -> None:
        try:
            before = self.shape if self.shape is not None else shape_of(old)
            store = self.reopen()
        except Exception as e:  # noqa: BLE001 - the old store stays open and shown
            self.post_message(StoreReloaded(None, f"reload failed, still showing the store as it was: {e}"))
            return
        try:
            after = shape_of(store)
            summary = changes(before, after, new_records(store, before.max_offset, after.max_offset))
        except Exception as e:  # noqa: BLE001 - opened, but not comparable: say so, show it anyway
            summary = f"reloaded (what changed is not known: {e})"
            after = None
        self.post_message(StoreReloaded(store, summary, after))

    def on_store_reloaded(self, message: StoreReloaded) -> None:
        self.reloading = False
        if message.store is None:
            self.notify(message.summary, title="reload", severity="error")
            return
        self.replace_store(message.store)
        self.shape = message.shape
        self.notify(message.summary, title="reload", timeout=8)

    def replace_store(self, store: Store) -> None:
        """Show ``store`` in place of the open one: every built view is made again on it (the current one at
        once, keeping its place; the others when next shown), the walk of the commitlog starts again."""
        current = self.current_mode
        screen = self.views.get(current)
        place = screen.place() if screen is not None and hasattr(screen, "place") else None
        self.workers.cancel_group(self, "segment-scan")
        self.reopened.append(store)  # the old one stays open: a worker of a replaced screen may still read it
        self.store = store
        self.scans = {}
        self.scan_complete = False
        self.problem_sources = {}
        for mode in [m for m in self.views if m != current]:
            del self.views[mode]
            self.remove_mode(mode)
            self.add_mode(mode, self._factory(mode))
        while len(self.screen_stack) > 1:  # a dialog over the view (a message window): it showed the old store
            self.pop_screen()
        fresh = self._factory(current)()
        old = self.screen
        if not old._result_callbacks:  # a mode's first screen has no result callback for switch_screen to drop
            old._push_result_callback(old, None)
        self.switch_screen(fresh)
        if place is not None:
            fresh.restore(place)
        try:
            self.problem_sources["store"] = list(store.problems())
        except Exception as e:  # noqa: BLE001 - a broken store must still open
            self.notify(f"reading the store's problems failed: {e}", severity="error")
        if self.background_scan:
            self.scan_running = True
            self.scan_segments()

    # -- problems ----------------------------------------------------------------------------------------------

    def set_problems(self, source: str, problems: Iterable[Problem]) -> None:
        self.problem_sources[source] = list(problems)
        for screen in self.views.values():
            handler = getattr(screen, "problems_changed", None)
            if handler is not None:
                handler()

    def all_problems(self) -> list[Problem]:
        seen: set[tuple[str, int, str]] = set()
        found = []
        for problems in self.problem_sources.values():
            for p in problems:
                key = (p.file, p.offset, p.code)
                if key not in seen:
                    seen.add(key)
                    found.append(p)
        return found

    def problem_offsets(self) -> list[int]:
        return sorted({o for p in self.all_problems() if (o := commitlog_offset(p)) is not None})

    def next_problem_after(self, offset: int) -> int | None:
        offsets = self.problem_offsets()
        i = bisect.bisect_right(offsets, offset)
        return offsets[i] if i < len(offsets) else None

    # -- navigation (what bindings and commands call) --------------------------------------------------------------

    def action_go(self, mode: str) -> None:
        self.switch_mode(mode)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def show_hex(self, offset: int) -> None:
        self.view("hex").goto(offset)

    def show_file_hex(self, rel: str, position: int = 0) -> None:
        """The hex screen over a consume-queue, batch consume-queue or index file (relative to the store root)."""
        self.view("hex").show_file(rel, position)

    def show_message(self, offset: int) -> None:
        self.push_screen(MessageScreen(offset))

    def show_messages(self, **filters) -> None:
        self.view("messages").apply(**filters)

    def show_chain(self, topic: str, key: str) -> None:
        self.view("chain").walk(topic, key)

    def show_busiest(self, file: str) -> None:
        self.view("chain").busiest(file)

    def show_slot(self, file: str, slot: int) -> None:
        self.view("chain").browse_slot(file, slot)

    def show_story(self, ref: str, key: str | None = None) -> None:
        """The story screen telling the story of ``ref`` (or of topic ``ref`` and ``key``)."""
        self.view("story").tell(ref, key)

    def action_search(self) -> None:
        """The search screen, its pattern field focused."""
        self.view("search").action_edit()

    def show_search(self, pattern: str, **options) -> None:
        """The search screen searching for ``pattern`` (options: SearchScreen.search's topic, tag, fields, regex,
        ignore_case, limit)."""
        self.view("search").search(pattern, **options)

    def resolve(self, text: str) -> None:
        self.view("ids").resolve(text)

    def ask(self, title: str, placeholder: str, then, value: str = "") -> None:
        """Prompt for one value and call ``then(value)`` unless cancelled or empty."""

        def done(value: str | None) -> None:
            if value:
                then(value)

        self.push_screen(PromptScreen(title, placeholder, value), done)

    def action_jump_prompt(self, value: str = "") -> None:
        def jump(text: str) -> None:
            try:
                if is_number(text):  # -1 or 2**64: the range message, as `rmq-inspect hex` gives it
                    offset = parse_kind(text, OFFSET, "offset")
                else:
                    offset = self.store.find(text).physical_offset
            except Exception as e:  # noqa: BLE001 - any failure is the user's to read
                self.notify(str(e), title="jump", severity="error")
                return
            self.show_hex(offset)

        self.ask("Jump to a physical offset (decimal or 0x hex), an offset msgId or a unique key",
                 "e.g. 14924 or 0A14000500002A9F0000000000000000", jump, value)

    def action_chain_prompt(self) -> None:
        def walk(text: str) -> None:
            topic, _, key = text.strip().partition(" ")
            if not key.strip():
                self.notify("type a topic and a key separated by a space", severity="error")
                return
            self.show_chain(topic, key.strip())

        self.ask("Walk an index chain: topic and key", "OrderEvents order-1108", walk)

    def action_resolve_prompt(self) -> None:
        self.ask("Resolve a message id (offset msgId or unique key)", "32 or 56 hex digits", self.resolve)

    def action_story_prompt(self) -> None:
        def tell(text: str) -> None:
            first, _, key = text.strip().partition(" ")
            self.show_story(first, key.strip() or None)  # two words: a topic and a key

        self.ask("Story of a message: a physical offset, an offset msgId, a UNIQ_KEY, or a topic and a key",
                 "e.g. 90151 or 0A1401151E276D06D69C5F7499F40168 or PaymentEvents pay-880571", tell)

    def action_slot_prompt(self) -> None:
        def browse(text: str) -> None:
            screen = self.view("chain")
            try:
                screen.browse_slot(screen.selected_file(), parse_kind(text, INDEX_SLOT, "slot"))
            except ValueError as e:
                self.notify(str(e), severity="error")

        self.ask("Browse a slot of the selected index file", "slot number", browse)

    def action_tour_prompt(self) -> None:
        self.view("tour").action_jump()

    # -- copy out ----------------------------------------------------------------------------------------------

    def copy_text(self, text: str, what: str) -> None:
        """``text`` onto the clipboard (OSC 52: works over ssh and tmux; the app keeps it in ``clipboard``) and a
        toast naming it (``notify`` escapes: the text is often the store's)."""
        self.copy_to_clipboard(text)
        shown = text if len(text) <= 200 else text[:199] + "…"
        self.notify(f"copied {what}: {shown}", title="copy")

    def screen_message(self) -> Message | None:
        """The message the active screen shows or has selected (None: not a message screen, or none yet)."""
        current = getattr(self.screen, "current_message", None)
        return current() if current is not None else None

    def action_yank(self) -> None:
        msg = self.screen_message()
        if msg is None:
            self.notify("no message here to copy from: y works on the messages list, a message window, the msgId "
                        "screen's result and a story's record; C copies this screen as a command",
                        title="copy", severity="warning")
            return
        yanks = message_yanks(msg)

        def chosen(key: str | None) -> None:
            for y in yanks:
                if key == y.key:
                    if y.text is None:
                        self.notify(why_not(y, msg), title="copy", severity="warning")
                    else:
                        self.copy_text(y.text, y.what)
            if key == SAVE_KEY:
                self.save_body_prompt(msg)
            elif key == COMMAND_KEY:
                self.copy_command(Command("show", (str(msg.physical_offset),)))

        self.push_screen(YankScreen(msg, yanks), chosen)

    def action_copy_command(self) -> None:
        """The active screen as the `rmq-inspect … --json` line that prints what it shows."""
        make = getattr(self.screen, "command", None)
        command = make() if make is not None else None
        if command is None:
            self.notify("nothing on this screen to copy as a command yet", title="copy", severity="warning")
            return
        self.copy_command(command)

    def copy_command(self, command: Command) -> None:
        line = self.launch.line(command)
        self.copy_to_clipboard(line)
        note = f"\n({command.note})" if command.note else ""
        self.notify(f"copied: {line}{note}", title="copy as command",
                    severity="warning" if command.note else "information")

    def save_body_prompt(self, msg: Message) -> None:
        """Ask for a path and write the body's bytes as stored there; an existing file is replaced only after a
        yes."""

        def save(path: str, replace: bool = False) -> None:
            try:
                size = write_body(msg, path, replace)
            except FileExistsError:
                self.push_screen(ConfirmScreen(f"{path} exists. Replace it with the body ({len(msg.body):,} bytes)?"),
                                 lambda yes: save(path, True) if yes else self.notify("not saved", title="save body"))
                return
            except OSError as e:
                self.notify(f"{path}: cannot write: {e.strerror or e}", title="save body", severity="error")
                return
            how = f", {msg.compression}-compressed as stored" if msg.compressed else ""
            self.notify(f"saved {size:,} bytes{how} to {path}", title="save body")

        def checked(path: str) -> None:
            path = os.path.expanduser(path)
            refused = refuse_path(path, str(self.store.root))
            if refused is not None:
                self.notify(refused, title="save body", severity="error")
                return
            save(path)

        self.ask(f"Save the body of the message at {msg.physical_offset:,} to a file (bytes as stored)",
                 "e.g. body.bin or ~/message.json", checked, f"body-{msg.physical_offset}.bin")

    # -- command palette ----------------------------------------------------------------------------------------

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for mode, title in SCREEN_TITLES.items():
            yield SystemCommand(f"Go to {title}", f"switch to the {title.lower()} screen",
                                lambda mode=mode: self.switch_mode(mode))
        yield SystemCommand("Help", "keys of every screen", self.action_help)
        yield SystemCommand("Hex: jump to offset / msgId / unique key", "put the hex cursor on a record",
                            self.action_jump_prompt)
        yield SystemCommand("Hex: next message", "cursor to the next record", lambda: self.view("hex").action_next_message())
        yield SystemCommand("Hex: previous message", "cursor to the previous record",
                            lambda: self.view("hex").action_prev_message())
        yield SystemCommand("Hex: next problem", "cursor to the next damaged place",
                            lambda: self.view("hex").action_next_problem())
        yield SystemCommand("Hex: next segment", "start of the next commitlog file", lambda: self.view("hex").action_segment(1))
        yield SystemCommand("Hex: previous segment", "start of the previous commitlog file",
                            lambda: self.view("hex").action_segment(-1))
        yield SystemCommand("Messages: all in commitlog order", "clear the filters",
                            lambda: self.show_messages())
        yield SystemCommand("Messages: edit filters", "topic, queue, tag, key, time range",
                            lambda: self.view("messages").action_filters())
        yield SystemCommand("Messages: cycle body view", "text, pretty JSON, hex",
                            lambda: self.view("messages").action_body())
        yield SystemCommand("Messages: cancel scan", "stop the scan behind the list",
                            lambda: self.view("messages").action_cancel())
        yield SystemCommand("Chain: walk topic + key", "hash, slot and every hop of the chain", self.action_chain_prompt)
        yield SystemCommand("Chain: browse slot", "every item of one slot of the selected index file",
                            self.action_slot_prompt)
        yield SystemCommand("Chain: busiest slots", "slots with the most items in the selected index file",
                            lambda: self.view("chain").action_busiest())
        yield SystemCommand("Resolve message id", "both readings of an offset msgId / unique key",
                            self.action_resolve_prompt)
        yield SystemCommand("Problems: run verify", "check every record and cross-file reference",
                            lambda: self.view("problems").action_verify())
        yield SystemCommand("Problems: cancel verify", "stop a running verify", lambda: self.view("problems").action_cancel())
        yield SystemCommand("Tour: next step", "the next step of the guided tour",
                            lambda: self.view("tour").action_step(1))
        yield SystemCommand("Tour: previous step", "the previous step of the guided tour",
                            lambda: self.view("tour").action_step(-1))
        yield SystemCommand("Tour: jump to step", "any step of the guided tour by number", self.action_tour_prompt)
        yield SystemCommand("Exercises: another seed", "another variant of every question",
                            lambda: self.view("exercises").action_seed())
        yield SystemCommand("Timer: walk slot", "the chain of one slot of the 5.x timer wheel, hop by hop",
                            lambda: self.view("timer").action_slot_prompt())
        yield SystemCommand("Story: of a message", "every record of one message (copies, retries, dead letter, "
                            "trace) and each group's progress", self.action_story_prompt)
        yield SystemCommand("Search: bodies, keys, tags, properties", "a regex or fixed string through the whole "
                            "log (rmq-inspect grep), with topic and tag filters; a key's every-topic index lookup",
                            self.action_search)
        yield SystemCommand("Consumer groups", "every group: queues, lag, retry and DLQ counts; enter: one group",
                            lambda: self.view("groups"))
        yield SystemCommand("Statistics", "the log counted by topic, queue, tag, host, producer group, minute, hour "
                            "or size: rate and size sparklines, shares, retention preview", lambda: self.view("stats"))
        yield SystemCommand("Copy as command", "this screen as the rmq-inspect … --json line that prints it (C)",
                            self.action_copy_command)
        yield SystemCommand("Copy from the message", "msgId, UNIQ_KEY, offset, keys, body; save the body (y)",
                            self.action_yank)
        yield SystemCommand("Stop the commitlog walk", "stop the background walk of the segments", self.cancel_scan)


def create_app(store: Store, *, background_scan: bool = True, screen: str = "overview", launch: Launch | None = None,
               goto: int | None = None, key: tuple[str, str] | None = None,
               compare: Store | None = None, reopen: Callable[[], Store] | None = None,
               file: str | None = None) -> RmqInspectApp:
    """The one factory: ``rmq-inspect STORE`` and the tests build the app here.

    ``screen`` is the first screen shown (overview, hex, messages, chain, ids, problems, tour, exercises, timer,
    story, groups, search, stats, diff, salvage);
    ``background_scan`` walks every commitlog segment in a worker once the app runs (segment ends, BLANKs,
    problems); ``launch``: how it was started (``C`` copies commands with it); ``goto``: a message's physical
    offset, opened over the first screen; ``key``: (topic, key) walked on the chain screen; ``compare``: a second
    store, compared on the Diff screen; ``reopen``: how the reload key opens the store again (default: the same
    root and broker.conf); ``file``: a consume-queue, batch consume-queue or index file (relative to the store
    root) shown on the hex screen.
    """
    return RmqInspectApp(store, background_scan=background_scan, screen=screen, launch=launch, goto=goto, key=key,
                         compare=compare, reopen=reopen, file=file)


def run(store: Store, launch: Launch | None = None, *, screen: str = "overview", goto: str | None = None,
        key: tuple[str, str] | None = None, compare: Store | None = None,
        reopen: Callable[[], Store] | None = None, file: str | None = None) -> int:
    """``rmq-inspect tui``: ``goto`` (an offset, msgId or UNIQ_KEY) is found before the app starts, so a bad one
    is the command's one-line error and exit code (as ``show`` gives it), not a toast. With ``compare``
    (``--compare B``) it opens on the Diff screen."""
    offset = None if goto is None else store.find(goto).physical_offset
    rel = None if file is None else store_file(store, file)  # --file: a bad path is the command's one-line error
    if rel is not None and screen == "overview":
        screen = "hex"
    if compare is not None and screen == "overview":
        screen = "diff"
    app = create_app(store, screen="chain" if key is not None and screen == "overview" else screen,
                     launch=launch, goto=offset, key=key, compare=compare, reopen=reopen, file=rel)
    app.run()
    return app.return_code or 0
