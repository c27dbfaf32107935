"""CommitLog hex view: the bytes, the field under the cursor, and the decoded record in a side panel."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from inspector.engine import BadInput, Message, NotFound, Region, StoreError, time_step, time_step_note
from inspector.tui.afterpaint import LatestAfterPaint
from inspector.tui.copyout import Command
from inspector.tui.fmt import clip, esc, num
from inspector.tui.screens.base import NARROW_LAYOUT, ViewScreen
from inspector.tui.timestep import TIME_BINDINGS
from inspector.tui.widgets.filehexview import FileCursor, FileHexView
from inspector.tui.widgets.hexview import CursorInfo, HexView
from inspector.tui.widgets.navbar import NavBar
from inspector.tui.widgets.safe import SafeStatic

KIND_NAMES = {"message": "message record", "blank": "BLANK record (end of segment)", "zero": "zero bytes",
              "damaged": "unreadable bytes", "unit": "queue unit", "header": "index header", "slot": "index slot",
              "item": "index item"}
# keys of the commitlog's hex that a queue or index file's hex has no use for (check_action hides them there)
LOG_ONLY = frozenset({"next_problem", "segment", "story", "time_step", "jump"})


_STALE = (-1, -1)  # a panel key no region has: the panel is redrawn at the next update

NARROW = NARROW_LAYOUT  # columns: below this the field panel sits under the hex view


class HexScreen(ViewScreen):
    NARROW_HIDDEN = frozenset({"prev_message", "segment(1)", "story", "step(-1, 'unit')",
                              "step(-1, 'item')"})
    NARROW_BELOW = NARROW  # the whole footer needs 107 columns
    BINDINGS = [
        Binding("g", "jump", "Jump"),
        Binding("n", "next_message", "Next msg"),
        Binding("p", "prev_message", "Prev msg"),
        # over a queue or index file n and p step its units or items (check_action shows the pair that applies)
        Binding("n", "step(1, 'unit')", "Next unit"),
        Binding("p", "step(-1, 'unit')", "Prev unit"),
        Binding("n", "step(1, 'item')", "Next item"),
        Binding("p", "step(-1, 'item')", "Prev item"),
        Binding("e", "next_problem", "Next problem"),
        Binding("right_square_bracket", "segment(1)", "Next seg"),
        Binding("left_square_bracket", "segment(-1)", "Prev seg", show=False),
        Binding("enter", "open_message", "Message"),
        Binding("escape", "leave_file", "Commitlog"),  # shown only over a queue or index file
        Binding("s", "story", "Story"),
        Binding("question_mark", "app.help", "Help"),
        *TIME_BINDINGS,
    ]

    def __init__(self) -> None:
        super().__init__()
        self._panel_region: tuple[int, int] | None = None
        self._panel_follows: LatestAfterPaint[CursorInfo] = LatestAfterPaint(self, self._update_panel)
        self.file_mode: str | None = None  # a queue or index file shown instead of the commitlog (its name)
        self.file_kind: str | None = None  # consumequeue, batchconsumequeue or index (the file_mode's)
        self.file_problem: str | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield NavBar("hex")
        with Horizontal(id="hex-main"):
            yield HexView(self.app.store, id="hex-view")
            yield FileHexView(self.app.store, id="file-hex-view")
            with Vertical(id="hex-side"):
                yield SafeStatic("", id="hex-side-title")
                yield OptionList(id="hex-fields")
        yield SafeStatic("", id="hex-status")
        yield Footer()

    def command(self) -> Command:
        """The record under the cursor as ``hex`` (its start and length), else 256 bytes from the cursor."""
        if self.file_mode is not None:
            at = self.query_one(FileHexView).cursor
            return Command("info", (), f"info lists the queues and index files; no command prints this file's bytes; `xxd -s {at} -l 64 {self.file_mode}` in the store "
                           "shows them")
        info = self.hex_view.cursor_info()
        region = None if info is None else info.region
        if region is not None and region.kind != "beyond" and region.end > region.start:
            return Command("hex", (str(region.start), "--length", str(region.end - region.start)))
        return Command("hex", (str(self.hex_view.cursor), "--length", "256"))

    def current_message(self) -> Message | None:
        """The message record under the cursor (None elsewhere)."""
        info = self.hex_view.cursor_info()
        if info is None or info.region is None or info.region.kind != "message":
            return None
        try:
            return self.app.store.message_at(info.region.start)
        except StoreError:
            return None

    def on_mount(self) -> None:
        self.query_one(FileHexView).display = False
        if self.focused is None:
            self.query_one(HexView).focus()
        self._fit(self.app.size.width)
        self.ready()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        """Below NARROW columns the field panel goes under the hex (beside it, it got 0 columns at 80: the field
        names, the point of the screen, were gone) and the hex takes the whole width (scrolling sideways if the
        terminal is narrower than its 82 columns)."""
        narrow = width < NARROW
        self.set_class(narrow, "narrow")
        # the rows count from their segment's start when the store's offsets make them too wide (11+ digits at
        # 80 columns; the status line names the segment, as 'commitlog/00000000010737418240 + 16')
        self.hex_view.set_relative(narrow and width < self.hex_view.absolute_line_width + 1)
        for view in (self.hex_view, self.query_one(FileHexView)):
            view.styles.width = "1fr" if narrow else view.line_width + 3

    @property
    def hex_view(self) -> HexView:
        return self.query_one(HexView)

    def goto(self, offset: int) -> None:
        if self.later(lambda: self.goto(offset)):
            return
        if self.file_mode is not None:
            self.action_leave_file()
        self.hex_view.goto(offset)
        self.hex_view.focus()

    def place(self) -> tuple[str | None, int]:
        """The file shown (None: the commitlog) and where the cursor is (a reload puts it back there, when the
        reloaded store still has it)."""
        if self.file_mode is not None:
            return self.file_mode, self.query_one(FileHexView).cursor
        return None, self.hex_view.cursor

    def restore(self, place: tuple[str | None, int]) -> None:
        file, at = place
        if file is not None:
            self.show_file(file, at)
        else:
            self.goto(at)

    # -- a consume-queue, batch consume-queue or index file ---------------------------------------------------

    def show_file(self, rel: str, position: int = 0) -> None:
        """The hex of ``rel`` (relative to the store root: consumequeue/…, batchconsumequeue/…, index/…) with
        its units, header, slots and items named in the side panel; escape goes back to the commitlog."""
        if self.later(lambda: self.show_file(rel, position)):
            return
        view = self.query_one(FileHexView)
        try:
            first = view.show(rel, position)
        except (BadInput, NotFound, StoreError, OSError) as e:
            self.notify(str(e), title="hex of a file", severity="error")
            return
        self.file_mode = rel
        self.file_kind = first.kind
        self.file_problem = first.problem
        self.hex_view.display = False
        view.display = True
        self._fit(self.app.size.width)  # the offset column is as wide as this file's last position
        view.focus()
        self._panel_region = _STALE
        self.refresh_bindings()
        if first.problem:
            self.notify(f"{rel}: {first.problem}", title="damaged file", severity="warning")

    def action_jump(self) -> None:
        """The jump prompt (an offset, msgId or key in the commitlog); a screen action so that check_action can
        leave it out over a queue or index file."""
        self.app.action_jump_prompt()

    def action_leave_file(self) -> None:
        if self.file_mode is None:
            return
        self.file_mode = None
        self.query_one(FileHexView).display = False
        self.hex_view.display = True
        self.hex_view.focus()
        self._panel_region = _STALE  # the file's unit is in the panel: redrawn even when the record's layout is pending
        self.refresh_bindings()
        info = self.hex_view.cursor_info()
        if info is not None:
            self._update_status(info)
            self._update_panel(info)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_file":
            return self.file_mode is not None
        if action in ("next_message", "prev_message"):
            return self.file_mode is None
        if action == "step":  # an index file's header, slots and items are its items; a queue file's, units
            return self.file_mode is not None and parameters[1:] == ("item" if self.file_kind == "index" else "unit",)
        if self.file_mode is not None and action in LOG_ONLY:
            return False
        return True

    def on_file_hex_view_cursor_moved(self, message: FileHexView.CursorMoved) -> None:
        message.stop()
        if self.file_mode is None:
            return
        self._file_status(message.cursor, message.hexed)
        changed = message.cursor.region is not None and \
            (message.cursor.region.start, message.cursor.region.end) != self._panel_region
        self._update_panel(message.cursor)
        if changed:  # the file's layout under the unit's title (the status line holds the cursor's place)
            title = _panel_title(message.cursor.region)
            title.append(f"\n{esc(message.hexed.layout)}", style="dim")
            _set_title(self.query_one("#hex-side-title", SafeStatic), title)

    def _file_status(self, cur: FileCursor, hexed) -> None:
        t = Text()
        t.append(f"{esc(hexed.file)} @ {num(cur.position)}", style="bold")
        t.append(f" of {num(hexed.size)}", style="dim")
        if cur.region is not None:
            t.append(f"  {KIND_NAMES.get(cur.region.kind, cur.region.kind)}")
            t.append(f"  {esc(cur.region.label)}", style="cyan")
        width = max(20, self.size.width - 2)
        t.truncate(width, overflow="ellipsis")  # two lines (CSS height 2): each cut to the width, never wrapped
        second = Text()
        if hexed.problem:  # said on every line of a damaged file, not only at its end
            second.append(f"damaged: {esc(hexed.problem)}  ", style="bold red")
        if cur.field is not None:
            f = cur.field
            second.append(f"field {f.number} {esc(f.name)}", style="bold yellow")
            second.append(f"  [{num(f.start)}, +{f.length}]  = ", style="dim")
            second.append(clip(esc(f.value), 160))
        second.truncate(width, overflow="ellipsis")
        self.query_one("#hex-status", SafeStatic).update(Text("\n").join([t, second]), layout=False)

    # -- actions -----------------------------------------------------------------------------------------------

    def on_paste(self, event: events.Paste) -> None:
        """A pasted offset or id opens the jump prompt holding it (the hex view has no field of its own)."""
        event.stop()
        self.app.action_jump_prompt(event.text.strip())

    def action_step(self, direction: int, what: str = "unit") -> None:
        """n / p over a queue or index file: the next (previous) unit, slot or item."""
        self.query_one(FileHexView).step_region(direction)

    def action_next_message(self) -> None:
        if self.later(self.action_next_message):
            return
        if self.file_mode is not None:  # the next unit, slot or item
            self.query_one(FileHexView).step_region(1)
            return
        self.hex_view.find_message(1)

    def action_prev_message(self) -> None:
        if self.later(self.action_prev_message):
            return
        if self.file_mode is not None:
            self.query_one(FileHexView).step_region(-1)
            return
        self.hex_view.find_message(-1)

    def action_next_problem(self) -> None:
        if self.later(self.action_next_problem):
            return
        target = self.app.next_problem_after(self.hex_view.cursor)
        if target is None:
            more = "" if self.app.scan_complete else " (the commitlog walk has not finished: run verify or wait)"
            self.notify("no problem after this offset" + more, severity="warning")
            return
        self.goto(target)
        reasons = [p.reason for p in self.app.all_problems() if _offset(p) == target]
        if reasons:
            self.notify(reasons[0], title=f"problem at {target:,}", severity="warning")

    def action_segment(self, step: int) -> None:
        if self.later(lambda: self.action_segment(step)):
            return
        self.hex_view.next_segment(step)

    def action_open_message(self) -> None:
        if self.later(self.action_open_message):
            return
        if self.file_mode is not None:  # a unit or an item: the commitlog record it points at
            region = self.query_one(FileHexView).cursor_info().region
            target = next((f for f in (region.fields if region else ()) if f.name.startswith(("CQ offset",
                                                                                               "phyOffset"))), None)
            if target is None or region is None or region.kind not in ("unit", "item"):
                self.notify("the cursor is not on a queue unit or an index item", severity="warning")
                return
            self.goto(int(target.value.replace(",", "")))
            return
        offset = self._record_under_cursor()
        if offset is not None:
            self.app.show_message(offset)

    def action_story(self) -> None:
        if self.later(self.action_story):
            return
        offset = self._record_under_cursor()
        if offset is not None:
            self.app.show_story(str(offset))

    def action_time_step(self, step: int) -> None:
        """From the record under the cursor, to the first record stored at or after its store time + ``step`` ms
        (back: the last at or before it) in the whole log; past an end it stays and says where the log ends."""
        if self.later(lambda: self.action_time_step(step)):
            return
        offset = self._record_under_cursor()
        if offset is None:
            return
        try:
            origin = self.app.store.message_at(offset).store_timestamp
            moved = time_step(self.app.store, origin, step)
        except StoreError as e:
            self.notify(str(e), title="time step", severity="error")
            return
        note, warning = time_step_note(moved, "the log")
        if moved.landed is not None:
            self.goto(moved.landed.physical_offset)
        self.notify(note, title="time step", severity="warning" if warning else "information")

    def _record_under_cursor(self) -> int | None:
        """Where the message record under the cursor starts (None, said in a notification: not on a record)."""
        info = self.hex_view.cursor_info()
        if info is None or info.region is None or info.region.kind != "message":
            self.notify("the cursor is not on a message record", severity="warning")
            return None
        return info.region.start

    # -- cursor → status line and side panel ----------------------------------------------------------------------

    def on_hex_view_cursor_moved(self, message: HexView.CursorMoved) -> None:
        # The status line follows at once (two fixed lines, no layout). The side panel follows once the hex
        # view has painted: paging then costs one paint of the bytes, and the panel's rebuild (a field list)
        # comes in a later frame, once, for the last of several quick moves, instead of in the same stall.
        if self.file_mode is not None:  # a late answer of the commitlog's layout: not what is shown
            return
        self._update_status(message.info)
        self._panel_follows.post(message.info)

    def _update_status(self, info: CursorInfo) -> None:
        seg = info.segment
        t = Text()
        t.append(f"offset {num(info.offset)}", style="bold")
        t.append(f"  ({esc(seg.file)} + {num(info.offset - seg.start_offset)})", style="dim")
        if info.region is None:
            t.append("  layout pending…", style="dim italic")
        else:
            t.append(f"  {KIND_NAMES.get(info.region.kind, info.region.kind)} {num(info.region.start)}"
                     f"…{num(info.region.end)}")
            if info.region.label:  # a record's label names its topic
                t.append(f"  {esc(info.region.label)}", style="cyan")
        t.append("\n")
        if info.field is not None:
            f = info.field
            t.append(f"field {f.number} {esc(f.name)}", style="bold yellow")
            t.append(f"  [{num(f.start)}, +{f.length}]  = ", style="dim")
            t.append(clip(esc(f.value), 160))  # a field's value: a topic, the properties, the body
        elif info.region is not None:
            t.append(esc(info.region.label), style="dim")
        # two fixed lines (CSS height 2): no layout pass, which would repaint the whole screen on every move
        self.query_one("#hex-status", SafeStatic).update(t, layout=False)

    def _update_panel(self, info: CursorInfo) -> None:
        panel = self.query_one("#hex-fields", OptionList)
        title = self.query_one("#hex-side-title", SafeStatic)
        region = info.region
        key = (region.start, region.end) if region else None
        if key != self._panel_region:
            self._panel_region = key
            if region is None:
                panel.clear_options()
                _set_title(title, Text("layout pending…", style="dim"))
            else:
                _set_title(title, _panel_title(region))
                width = max(12, (panel.size.width or 40) - 7)
                options = [_field_option(i, f, width) for i, f in enumerate(region.fields)]
                if options and len(options) == panel.option_count:
                    # the next message has as many fields: new prompts in the same options keep the list's
                    # size, so no layout pass (which repaints the whole screen, the hex view too)
                    for i, option in enumerate(options):
                        panel.get_option_at_index(i)._set_prompt(option.prompt)  # noqa: SLF001
                    panel._clear_caches()  # noqa: SLF001 - what replace_option_prompt_at_index does, once
                    panel.highlighted = None
                    panel.scroll_y = 0
                else:
                    panel.clear_options()
                    panel.add_options(options)
        if info.field_index is not None and info.field_index < panel.option_count:
            panel.highlighted = info.field_index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.file_mode is not None:
            view = self.query_one(FileHexView)
            region = view.cursor_info().region
            if region is not None and 0 <= event.option_index < len(region.fields):
                view.goto(region.fields[event.option_index].start)
            return
        info = self.hex_view.cursor_info()
        if info is None or info.region is None:
            return
        index = event.option_index
        if 0 <= index < len(info.region.fields):
            self.hex_view.goto(info.region.fields[index].start)


def _offset(problem) -> int | None:
    from inspector.tui.fmt import commitlog_offset

    return commitlog_offset(problem)


def _set_title(title: Static, text: Text) -> None:
    """Show ``text`` in the side panel's title, with a layout pass only when its height changes: a layout
    pass repaints every widget of the screen (the hex view too), which is what made paging stall."""
    width = max(1, title.content_size.width)
    lines = len(text.wrap(title.app.console, width))
    old = getattr(title, "_rmq_lines", None)
    title._rmq_lines = lines  # noqa: SLF001 - our own note on the widget
    title.update(text, layout=old is None or old != lines or width <= 1)


def _panel_title(region: Region) -> Text:
    t = Text()
    t.append(KIND_NAMES.get(region.kind, region.kind), style="bold")
    t.append(f" @ {num(region.start)}\n", style="bold")
    t.append(f"{num(region.end - region.start)} bytes", style="dim")
    if region.label:
        t.append(f" · {esc(region.label)}", style="cyan")
    if not region.fields:
        t.append("\n(no fields)", style="dim")
    return t


def _field_option(i: int, f, width: int) -> Option:
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(f"{f.number:>3} ", style="dim")
    size = f"  {f.length} B"
    t.append(clip(esc(f.name), max(4, width - len(size))), style="bold")
    t.append(size + "\n", style="dim")
    t.append(f"    {clip(esc(f.value), width)}")
    return Option(t, id=f"field-{i}")
