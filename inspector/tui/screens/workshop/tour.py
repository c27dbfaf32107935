"""The guided tour: one step of ``inspector.engine.workshop.tour_steps`` at a time, its text above and its view below.

Hex targets (and the recovery step's bytes) are shown in an embedded hex view with the step's spans tinted and
the cursor on the field the text is about; every other target is a small panel. ``o`` opens the step's view
in its own screen (the hex view at the same offset, or the index-chain walker on the step's key). A step's
text quotes the store (topics, keys, file names): every string is escaped (``fmt.esc``) and shown as a Text.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import ContentSwitcher, Footer, Header, OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from inspector.engine import cursor_offset
from inspector.tui.copyout import Command
from inspector.tui.fmt import clip, esc, num, plain, with_keys
from inspector.tui.screens.base import ViewScreen
from inspector.tui.widgets.hexview import HexView
from inspector.tui.widgets.navbar import NavBar
from inspector.tui.widgets.safe import SafeStatic

HEX_KINDS = ("hex", "recovery")


@dataclass
class TourReady(Message):
    """The tour's steps, computed in a worker (``error`` when the store could not be read)."""

    steps: list
    error: str | None = None


def tour_of(app) -> list:
    """The tour of the app's store, computed once per app (it reads a few thousand records)."""
    steps = getattr(app, "_tour_steps", None)
    if steps is None:
        from inspector.engine import tour_steps

        steps = app._tour_steps = tour_steps(app.store)
    return steps



def step_views(step) -> list:
    """The target and the extra views of a step (what ``v`` cycles through)."""
    if not step.available or step.target is None:
        return []
    return [step.target, *step.extra]


class TourHexView(HexView):
    """The hex view with the tour step's spans tinted (``spans``; the focused one brighter)."""

    COMPONENT_CLASSES = HexView.COMPONENT_CLASSES | {"hexview--tour", "hexview--tour-focus"}

    def __init__(self, store, *, id: str | None = None) -> None:
        super().__init__(store, id=id)
        self.spans: tuple = ()
        self.focus_name: str | None = None

    def show(self, target) -> None:
        self.spans = tuple(target.highlights)
        self.focus_name = getattr(target, "focus", None)
        self._strips.clear()
        self.goto(cursor_offset(target))

    def _overlay(self, offset: int) -> str | None:
        # the hex view composes (and caches) the byte's style with this tint on top
        for s in self.spans:
            if s.start <= offset < s.end:
                focused = self.focus_name is not None and s.label.endswith(self.focus_name)
                return "tour-focus" if focused else "tour"
        return None


class TourScreen(ViewScreen):
    NARROW_HIDDEN = frozenset({"jump", "next_view"})
    BINDINGS = [
        Binding("n,right", "step(1)", "Next"),
        Binding("p,left", "step(-1)", "Previous"),
        Binding("j", "jump", "Jump to step"),
        Binding("v", "next_view", "Next view"),
        Binding("o", "open", "Open view"),
        Binding("question_mark", "app.help", "Help"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.steps: list = []
        self.index = 0
        self.view_index = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield NavBar("tour")
        yield SafeStatic("", id="tour-head")
        with VerticalScroll(id="tour-text-box"):
            yield SafeStatic(Text("computing the tour of this store…", style="dim"), id="tour-text")
        with Horizontal(id="tour-main"):
            with ContentSwitcher(initial="tour-panel-box", id="tour-view"):
                yield TourHexView(self.app.store, id="tour-hex")
                with VerticalScroll(id="tour-panel-box"):
                    yield SafeStatic("", id="tour-panel")
            with Vertical(id="tour-side"):
                yield SafeStatic(Text("steps (enter jumps)", style="bold"), id="tour-side-title")
                yield OptionList(id="tour-steps")
        yield Footer()

    def command(self) -> Command | None:
        return Command("tour", ("--step", str(self.index + 1))) if self.steps else None

    def on_mount(self) -> None:
        self.query_one("#tour-steps", OptionList).focus()
        self._load()

    def focus_main(self) -> None:
        self.query_one("#tour-steps", OptionList).focus()

    @work(thread=True, exclusive=True, group="tour", exit_on_error=False)
    def _load(self) -> None:
        worker = get_current_worker()
        try:
            steps = tour_of(self.app)
        except Exception as e:  # noqa: BLE001 - a broken store must still show the screen
            self.post_message(TourReady([], f"{type(e).__name__}: {e}"))
            return
        if not worker.is_cancelled:
            self.post_message(TourReady(steps))

    def on_tour_ready(self, message: TourReady) -> None:
        message.stop()
        self.steps = message.steps
        if message.error:
            self.query_one("#tour-text", SafeStatic).update(Text(f"the tour could not be built: {esc(message.error)}",
                                                             style="bold red"))
        options = self.query_one("#tour-steps", OptionList)
        options.clear_options()
        options.add_options([_step_option(s) for s in self.steps])
        if self.steps:
            self._show(min(self.index, len(self.steps) - 1))
        self.ready()

    # -- public API ----------------------------------------------------------------------------------------------

    @property
    def step(self):
        return self.steps[self.index] if self.steps else None

    @property
    def view(self):
        views = step_views(self.step) if self.step else []
        return views[self.view_index] if views else None

    def goto_step(self, number: int) -> None:
        """Show step ``number`` (1-based)."""
        if self.later(lambda: self.goto_step(number)):
            return
        if not 1 <= number <= len(self.steps):
            self.notify(f"there are steps 1 to {len(self.steps)}", severity="warning")
            return
        self._show(number - 1)

    # -- actions ---------------------------------------------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        if self.later(lambda: self.action_step(delta)):
            return
        target = self.index + delta
        if not 0 <= target < len(self.steps):
            self.notify("end of the tour: try the exercises (8)" if delta > 0 else "this is the first step",
                        severity="information")
            return
        self._show(target)

    def action_jump(self) -> None:
        def jump(text: str) -> None:
            if not text.strip().isdigit():
                self.notify(f"not a step number: {text!r}", severity="error")
                return
            self.goto_step(int(text))

        self.app.ask(f"Jump to step (1 to {len(self.steps)})", "step number", jump)

    def action_next_view(self) -> None:
        views = step_views(self.step) if self.step else []
        if len(views) < 2:
            self.notify("this step has one view", severity="information")
            return
        self.view_index = (self.view_index + 1) % len(views)
        self._render_view()

    def action_open(self) -> None:
        """The step's view in its own screen: the hex view, or the chain walker on the step's key."""
        target = self.view
        if target is None:
            self.notify("this step has no view to open", severity="warning")
            return
        if target.kind in HEX_KINDS:
            self.app.show_hex(cursor_offset(target))
        elif target.kind == "chain":
            self.app.show_chain(target.topic, target.key)
        elif target.kind == "cq":
            self.app.show_hex(target.physical_offset)
        elif target.kind == "ids":
            self.app.resolve(target.msg_id)
        elif target.kind == "index-header":
            self.app.show_busiest(target.file)
        else:
            self.app.switch_mode("overview")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._show(event.option_index)

    # -- drawing ------------------------------------------------------------------------------------------------------

    def _update_head(self) -> None:
        step = self.steps[self.index]
        head = Text()
        head.append(f"Step {step.number}/{len(self.steps)}  ", style="bold")
        head.append(esc(step.title), style="bold cyan")
        # the keys on a line of their own where they would be cut (80 columns lost `o open`)
        self.query_one("#tour-head", SafeStatic).update(
            with_keys(head, "n next · p previous · j jump · v next view · o open", self.app.size.width - 2))

    def on_resize(self) -> None:
        if self.steps:
            self._update_head()

    def _show(self, index: int) -> None:
        self.index = index
        self.view_index = 0
        step = self.steps[index]
        self._update_head()
        body = Text(esc(step.text, multiline=True))
        if not step.available:
            body = Text()
            body.append("This store lacks this case: ", style="bold yellow")
            body.append(esc(step.missing_reason, multiline=True))
        elif step.commands:
            body.append("\n\nTry: ", style="bold")
            body.append("\n     ".join(esc(c) for c in step.commands), style="dim")
        self.query_one("#tour-text", SafeStatic).update(body)
        self.query_one("#tour-text-box", VerticalScroll).scroll_home(animate=False)
        options = self.query_one("#tour-steps", OptionList)
        if options.highlighted != index:
            options.highlighted = index
        self._render_view()

    def _render_view(self) -> None:
        target = self.view
        switcher = self.query_one("#tour-view", ContentSwitcher)
        panel = self.query_one("#tour-panel", SafeStatic)
        if target is None:
            switcher.current = "tour-panel-box"
            step = self.step
            panel.update(Text("(no view: " + esc(step.missing_reason) + ")" if step else "", style="yellow"))
            return
        views = step_views(self.step)
        if target.kind in HEX_KINDS:
            hex_view = self.query_one(TourHexView)
            hex_view.border_title = plain(_view_title(target, self.view_index, len(views)))  # a str is markup
            if switcher.current == "tour-hex" and hex_view.size.height:
                hex_view.show(target)
            else:  # a hidden view has no size to centre the cursor in: show it once it is laid out
                switcher.current = "tour-hex"
                hex_view.call_after_refresh(hex_view.show, target)
            return
        switcher.current = "tour-panel-box"
        box = self.query_one("#tour-panel-box", VerticalScroll)
        box.border_title = plain(_view_title(target, self.view_index, len(views)))
        panel.update(render_panel(target))
        box.scroll_home(animate=False)


def _view_title(target, index: int, total: int) -> str:
    more = f" ({index + 1}/{total}, v: next)" if total > 1 else ""
    return clip(esc(target.caption or target.kind) + more, 80)


def _step_option(step) -> Option:
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(f"{step.number:>2} ", style="dim")
    t.append(esc(step.title), style="" if step.available else "dim strike")
    return Option(t, id=f"tour-step-{step.number}")


def _pairs(title: str, rows, highlight: set[str] | tuple = ()) -> Group:
    t = Table(show_header=False, box=None, padding=(0, 1))
    t.add_column(style="bold")
    t.add_column()
    for name, value in rows:
        style = "bold black on yellow" if name in highlight else ""
        t.add_row(plain(str(name), style), plain(str(value), style))
    return Group(plain(title, "bold"), t)


def render_panel(target):
    """A non-hex target as rich renderables (what the TUI shows below the step's text)."""
    kind = target.kind
    if kind == "directory":
        # a Rich Table reads a str cell or title as markup: Texts only
        t = Table(title=plain(f"{target.root}/"), title_justify="left", padding=(0, 1))
        t.add_column("path", style="bold")
        t.add_column("files", justify="right")
        t.add_column("what it holds")
        for e in target.entries:
            t.add_row(plain(e.path), "" if e.count is None else str(e.count), plain(e.role))
        return t
    if kind == "cq":
        raw = target.unit_hex
        t = Table(title=plain(f"{target.file} @ {num(target.position)}: unit {target.queue_offset} of {target.topic} "
                              f"queue {target.queue_id}"), title_justify="left", padding=(0, 1))
        t.add_column("bytes")
        t.add_column("field", style="bold")
        t.add_column("value")
        t.add_row(Text(raw[0:16], style="black on cyan"), "physical offset (8)", num(target.physical_offset))
        t.add_row(Text(raw[16:24], style="black on green"), "size (4)", str(target.size))
        t.add_row(Text(raw[24:40], style="black on cyan"), "tagsCode (8)", plain(f"{target.tags_code}: {target.tags_meaning}"))
        note = Text(f"→ the record at {num(target.physical_offset)} in {esc(target.record_file)} (o opens it in the hex "
                    "view)", style="dim")
        return Group(t, note)
    if kind == "chain":
        head = Text()
        head.append(esc(target.key_string), style="bold")
        head.append(f": hashCode {target.hash_code} → keyHash {target.key_hash} → {target.key_hash} % "
                    f"{target.slot_count} = slot {target.slot} (byte {target.slot_position} of {esc(target.file)})\n")
        if target.other_key:
            head.append("collision: ", style="bold yellow")
            head.append(f"{esc(target.topic)}#{esc(target.other_key)} has the same hash; item(s) "
                        f"{', '.join(map(str, target.collision_items))} are its\n")
        t = Table(title=f"chain of slot {target.slot} = {target.slot_value}, newest first", title_justify="left",
                  padding=(0, 1))
        t.add_column("item", justify="right")
        t.add_column("verdict")
        for item in target.items:
            if item in target.matching_items:
                verdict = Text("✔ match", style="bold green")
            elif item in target.collision_items:
                verdict = Text("✘ collision", style="bold yellow")
            else:
                verdict = Text("· other hash", style="dim")
            t.add_row(str(item), verdict)
        return Group(head, t, Text("o opens the index-chain walker on this key", style="dim"))
    if kind == "index-header":
        rows = [(name, num(value)) for name, value in target.values]
        t = _pairs(f"{target.file}: header (bytes 0-39)", rows, target.fields)
        note = Text(f"slot table: {target.slot_count} slots (configuration), {target.used_slots} in use; item table: "
                    f"{target.item_count} items (configuration), {target.items_written} written")
        return Group(t, note)
    if kind == "ids":
        return Group(_pairs(f"offset msgId {target.msg_id}", target.msg_id_fields),
                     Text(""), _pairs(f"unique key {target.unique_key}", target.unique_key_fields))
    if kind == "rebuild":
        return _pairs("rebuild", (("reads the commitlog from", num(target.min_offset)),
                                  ("to the recovered end", num(target.end_offset)), ("consume queues", target.queues),
                                  ("consume-queue units", num(target.cq_units)), ("index files", target.index_files),
                                  ("index items", num(target.index_items)), ("command", target.command)))
    if kind == "recovery":  # shown as hex; this is its summary
        return _pairs("recovery", (("mode", target.mode), ("log ends at", num(target.end_offset)),
                                   ("why", target.reason)))
    return Content(esc(str(target)))
