"""Hex of a consume-queue, batch consume-queue or index file: offset / hex / ASCII columns with a byte cursor, each
unit (header, slot, item) banded and its fields named by the engine (``file_hex``)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from inspector.engine import FieldSpan, FileHex, Region, StoreError, file_hex
from inspector.tui.fmt import esc
from inspector.tui.widgets.hexview import cursor_bindings

ROW = 16
CHUNK = 4096  # bytes asked of the engine at a time (an index file is 400 MB: never read whole)
KIND_STYLES = {"unit": "msg", "item": "msg", "slot": "msg", "header": "blank", "zero": "zero", "damaged": "damaged"}


@dataclass(frozen=True)
class FileCursor:
    """Where the cursor is in the file: the byte, the region (unit, slot, item, header) and field there."""

    position: int
    region: Region | None
    field_index: int | None
    field: FieldSpan | None


class FileHexView(ScrollView, can_focus=True):
    BINDINGS = [
        *cursor_bindings("File"),
        Binding("full_stop", "field(1)", "Next field", show=False),
        Binding("comma", "field(-1)", "Prev field", show=False),
    ]
    COMPONENT_CLASSES = {"hexview--offset", "hexview--msg-a", "hexview--msg-b", "hexview--field-odd", "hexview--blank",
                         "hexview--zero", "hexview--damaged", "hexview--cursor", "hexview--field-cursor"}

    class CursorMoved(Message):
        def __init__(self, cursor: FileCursor, hexed: FileHex) -> None:
            super().__init__()
            self.cursor = cursor
            self.hexed = hexed

    def __init__(self, store, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.store = store
        self.file: str | None = None
        self.size_bytes = 0
        self._cursor = 0
        self._chunks: LRUCache[int, FileHex] = LRUCache(64)

    @property
    def offset_width(self) -> int:
        """Columns of the offset column: the file's last position with its commas (an index file: 11)."""
        return max(5, len(f"{self.size_bytes:,}"))

    @property
    def line_width(self) -> int:
        return self.offset_width + 2 + 3 * ROW + 1 + ROW

    def show(self, rel: str, position: int = 0) -> FileHex:
        """Show file ``rel`` (relative to the store root) with the cursor at ``position``; the first window."""
        self.file = rel
        self._chunks.clear()
        first = self.chunk(0)
        self.size_bytes = first.size
        self.virtual_size = Size(self.line_width, (self.size_bytes + ROW - 1) // ROW)
        self.goto(position)
        return first

    def chunk(self, index: int) -> FileHex:
        got = self._chunks.get(index)
        if got is None:
            assert self.file is not None
            got = self._chunks[index] = file_hex(self.store, self.file, index * CHUNK, CHUNK)
        return got

    def region_at(self, pos: int) -> Region | None:
        if self.file is None or not 0 <= pos < self.size_bytes:
            return None
        return self.chunk(pos // CHUNK).region_at(pos)

    def cursor_info(self) -> FileCursor:
        region = self.region_at(self._cursor)
        for i, f in enumerate(region.fields if region else ()):
            if f.start <= self._cursor < f.end:
                return FileCursor(self._cursor, region, i, f)
        return FileCursor(self._cursor, region, None, None)

    @property
    def cursor(self) -> int:
        return self._cursor

    def goto(self, position: int) -> None:
        self._cursor = max(0, min(position, max(0, self.size_bytes - 1)))
        row = self._cursor // ROW
        if not self.scroll_offset.y <= row < self.scroll_offset.y + max(1, self.size.height):
            self.scroll_to(y=max(0, row - self.size.height // 2), animate=False)
        self.refresh()
        if self.file is not None:
            self.post_message(self.CursorMoved(self.cursor_info(), self.chunk(self._cursor // CHUNK)))

    def step_region(self, direction: int) -> None:
        """Cursor to the start of the next (previous) unit, slot or item."""
        here = self.region_at(self._cursor)
        if here is None:
            return
        target = here.end if direction > 0 else here.start - 1
        there = self.region_at(target)
        if there is not None:
            self.goto(there.start)

    def action_move(self, delta: int) -> None:
        self.goto(self._cursor + delta)

    def action_page(self, direction: int) -> None:
        self.goto(self._cursor + direction * ROW * max(1, self.size.height - 1))

    def action_edge(self, direction: int) -> None:
        self.goto(0 if direction < 0 else self.size_bytes - 1)

    def action_field(self, step: int) -> None:
        info = self.cursor_info()
        if info.region is None or not info.region.fields:
            self.step_region(step)
            return
        i = (info.field_index if info.field_index is not None else -1) + step
        if 0 <= i < len(info.region.fields):
            self.goto(info.region.fields[i].start)
        else:
            self.step_region(step)

    def on_click(self, event: events.Click) -> None:
        row = self.scroll_offset.y + event.y
        column = event.x + self.scroll_offset.x - self.offset_width - 2
        if 0 <= column < 3 * ROW:
            self.goto(row * ROW + column // 3)

    # -- painting -------------------------------------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"hexview--{name}", partial=True)

    def render_line(self, y: int) -> Strip:
        row = self.scroll_offset.y + y
        start = row * ROW
        width = self.size.width
        if self.file is None or start >= self.size_bytes:
            return Strip.blank(width, self.rich_style)
        try:
            hexed = self.chunk(start // CHUNK)
        except (OSError, StoreError) as e:
            return Strip([Segment(esc(f"{start:>{self.offset_width},}  unreadable: {e}")[:width], self.rich_style)])
        data = hexed.data[start - hexed.start : start - hexed.start + ROW]
        base = self.rich_style
        here = self.region_at(self._cursor)
        field = self.cursor_info().field
        span = (field.start, field.end) if field else ((here.start, here.end) if here else (self._cursor, self._cursor))
        segments = [Segment(f"{start:>{self.offset_width},}  ", base + self._style("offset"))]
        text = []
        for i, byte in enumerate(data):
            pos = start + i
            style = base + self._region_style(hexed, pos)
            if span[0] <= pos < span[1]:
                style += self._style("field-cursor")
            if pos == self._cursor:
                style += self._style("cursor")
            segments.append(Segment(f"{byte:02x}", style))
            segments.append(Segment(" ", base))
            text.append(Segment(chr(byte) if 32 <= byte < 127 else ".", style))
        segments.append(Segment("   " * (ROW - len(data)), base))
        strip = Strip([*segments, *text]).crop(self.scroll_offset.x, self.scroll_offset.x + width)
        return strip.extend_cell_length(width, base)

    def _region_style(self, hexed: FileHex, pos: int) -> Style:
        region = hexed.region_at(pos)
        if region is None:
            return self._style("zero")
        kind = KIND_STYLES.get(region.kind, "zero")
        if kind == "msg":
            size = region.end - region.start
            style = self._style("msg-b" if (region.start // max(1, size)) % 2 else "msg-a")
            for i, f in enumerate(region.fields):
                if f.start <= pos < f.end and i % 2:
                    style += self._style("field-odd")
            return style
        return self._style(kind)
