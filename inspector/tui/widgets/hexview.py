"""The commitlog hex view: a virtual ScrollView over one segment, drawn line by line from the mmap.

Only the visible rows are read (the engine's ``hex_bytes``); the engine's ``hex_window`` is asked, in a
thread worker, for the regions of the visible window only. Rows whose regions are not known yet are drawn
plain and tinted when the worker's answer arrives. Long zero runs are folded into one line.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual import events, work
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from inspector.engine import FieldSpan, Region, StoreError, hex_bytes, hex_segment, hex_window, message_near
from inspector.engine import Segment as StoreSegment
from inspector.tui.hexmodel import FOLD_MIN_ROWS, ROW, Line, RegionMap, SegmentLines, field_at
from inspector.tui.messages import JumpTo, RegionsReady, WorkerFailed

HEX_WIDTH = ROW * 3
MAX_PREV_STEPS = 100_000


@dataclass(frozen=True)
class CursorInfo:
    offset: int
    segment: StoreSegment
    region: Region | None
    field_index: int | None
    field: FieldSpan | None


def cursor_bindings(whole: str) -> list[Binding]:
    """The byte cursor's keys of a hex view over one file (a segment, a queue or index file: ``whole`` names it)."""
    return [Binding("left", "move(-1)", "Left", show=False), Binding("right", "move(1)", "Right", show=False),
            Binding("up", "move(-16)", "Up", show=False), Binding("down", "move(16)", "Down", show=False),
            Binding("pageup", "page(-1)", "Page up", show=False), Binding("pagedown", "page(1)", "Page down", show=False),
            Binding("home", "edge(-1)", f"{whole} start", show=False), Binding("end", "edge(1)", f"{whole} end", show=False)]


class HexView(ScrollView, can_focus=True):
    """Offset / hex / ASCII columns of one commitlog segment with a byte cursor."""

    BINDINGS = [
        *cursor_bindings("Segment"),
        Binding("full_stop", "field(1)", "Next field", show=False),
        Binding("comma", "field(-1)", "Prev field", show=False),
    ]

    COMPONENT_CLASSES = {
        "hexview--offset",
        "hexview--msg-a",
        "hexview--msg-b",
        "hexview--field-odd",
        "hexview--blank",
        "hexview--entry",
        "hexview--zero",
        "hexview--damaged",
        "hexview--pending",
        "hexview--cursor",
        "hexview--field-cursor",
        "hexview--fold",
        "hexview--mark",
    }

    class CursorMoved(Message):
        def __init__(self, info: CursorInfo) -> None:
            super().__init__()
            self.info = info

    def __init__(self, store, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.store = store
        segments = store.segments
        self.segment: StoreSegment | None = segments[0] if segments else None
        last_end = max((s.end_offset for s in segments), default=0)
        self.offset_width = max(10, len(str(last_end)))
        # rows can count from their segment's start instead ('+16'; the status line names the segment): a store
        # past 10 GB has 11+ digit offsets, whose row is wider than 80 columns (the ASCII column lost its last
        # character). The screen asks for it when the absolute row does not fit (`set_relative`).
        self.relative = False
        self.relative_width = 1 + len(str(max((s.file_size for s in segments), default=0)))
        self._lines: dict[int, SegmentLines] = {}
        self._maps: dict[int, RegionMap] = {}
        self._cursor = self.segment.start_offset if self.segment else 0
        # a few screens of rows: every layout answer renews the keys anyway, and a bigger cache of Segment tuples
        # only makes the garbage collector's full passes longer (they stalled paging by 100+ ms)
        self._strips: LRUCache[tuple, Strip] = LRUCache(160)
        self._styles: dict[str, Style] = {}
        self._combos: dict[tuple, tuple[Style, Style]] = {}
        self._paint: tuple[Style, tuple[int, int]] | None = None
        self._busy = False
        self._visible_request: tuple[int, int, int] | None = None
        self._extra_requests: list[tuple[int, int, int]] = []
        self._done_requests: set[tuple[int, int, int]] = set()
        self._failed: list[tuple[int, int, int]] = []
        self._probed: set[int] = set()
        self._pending_center = True
        self._last_cursor_key: tuple | None = None

    # -- geometry ------------------------------------------------------------------------------------------

    @property
    def absolute_line_width(self) -> int:
        return self.offset_width + 3 + HEX_WIDTH + 2 + ROW

    @property
    def bytes_start(self) -> int:
        """Columns before the first byte: the offset, the mark, their spaces (a 1 GiB segment's relative offset,
        '+' and 10 digits, takes the space before the mark: the row stays 79 columns)."""
        if not self.relative:
            return self.offset_width + 3
        return self.relative_width + (2 if self.relative_width > 10 else 3)

    @property
    def line_width(self) -> int:
        return self.bytes_start + HEX_WIDTH + 2 + ROW

    def set_relative(self, relative: bool) -> None:
        """Rows' offsets from their segment's start ('+16') or the store's (the physical offset)."""
        if relative == self.relative:
            return
        self.relative = relative
        self._strips.clear()
        if self.segment is not None:
            self._update_virtual_size()
        self.refresh()

    @property
    def lines(self) -> SegmentLines:
        seg = self.segment
        assert seg is not None
        got = self._lines.get(seg.start_offset)
        if got is None:
            got = self._lines[seg.start_offset] = SegmentLines(seg.start_offset, seg.file_size)
        return got

    @property
    def region_map(self) -> RegionMap:
        seg = self.segment
        assert seg is not None
        return self._maps.setdefault(seg.start_offset, RegionMap())

    @property
    def cursor(self) -> int:
        return self._cursor

    def _update_virtual_size(self) -> None:
        self.virtual_size = Size(self.line_width, self.lines.line_count if self.segment else 0)

    def on_mount(self) -> None:
        self.styles.width = self.line_width + 3  # scrollbar gutter and border
        if self.segment is not None:
            self._update_virtual_size()
            self._probe_tail(self.segment)
            self.call_after_refresh(self._after_layout)

    def on_resize(self, event: events.Resize) -> None:
        # a goto made while the view had no size (hidden behind a queue or index file's hex, or not laid out
        # yet) centres the cursor once the view has rows: else it showed the old rows, asked the layout of
        # those, and the cursor's record stayed "layout pending" for ever (issue 33)
        # (a store with no segment has no rows to centre: on_mount did not lay it out either)
        if self._pending_center and self.size.height and self.segment is not None:
            self._after_layout()

    def _after_layout(self) -> None:
        if self._pending_center:
            self._pending_center = False
            self._scroll_cursor(center=True)
        self._post_cursor()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._combos.clear()
        self._strips.clear()

    # -- public API ------------------------------------------------------------------------------------------

    def goto(self, offset: int) -> bool:
        """Put the cursor on physical offset ``offset`` (switching segment when needed)."""
        try:
            seg = hex_segment(self.store, offset, allow_empty=False)
        except StoreError as e:  # the engine says why: no segment there, or an entry of that name that is no file
            self.notify(str(e), severity="error")
            return False
        self._set_segment(seg)
        self._cursor = self.lines.visible(offset, 1) if self.lines.line(self.lines.line_of(offset)).kind == "fold" \
            else offset
        if self.size.height:
            self._scroll_cursor(center=True)
        else:
            self._pending_center = True
        self.refresh()
        self._post_cursor()
        return True

    def cursor_info(self) -> CursorInfo | None:
        if self.segment is None:
            return None
        found = self.region_map.at(self._cursor)
        region = found[0] if found else None
        fi = field_at(region, self._cursor) if region else None
        return CursorInfo(self._cursor, self.segment, region, fi[0] if fi else None, fi[1] if fi else None)

    def next_segment(self, step: int) -> None:
        if self.segment is None:
            return
        segs = self.store.segments
        i = segs.index(self.segment) + step
        if not 0 <= i < len(segs):
            self.notify("no segment " + ("after" if step > 0 else "before") + " this one", severity="warning")
            return
        self.goto(segs[i].start_offset)

    def find_message(self, direction: int) -> None:
        """Move to the next (1) or previous (-1) message record, found by a worker."""
        self._find_message(self._cursor, direction)

    # -- cursor ------------------------------------------------------------------------------------------

    def _set_segment(self, seg: StoreSegment) -> None:
        if self.segment is not None and seg.start_offset == self.segment.start_offset:
            return
        self.segment = seg
        self._visible_request = None
        self._update_virtual_size()
        self._probe_tail(seg)
        self.refresh()

    def _move_to(self, offset: int, direction: int = 1) -> None:
        seg = self.segment
        if seg is None:
            return
        offset = max(seg.start_offset, min(seg.end_offset - 1, offset))
        self._cursor = self.lines.visible(offset, direction)
        self._scroll_cursor()
        self.refresh()
        self._post_cursor()

    def _scroll_cursor(self, center: bool = False) -> None:
        line = self.lines.line_of(self._cursor)
        height = max(1, self.scrollable_content_region.height)
        top = self.scroll_offset.y
        if center:
            self.scroll_to(y=max(0, line - height // 3), animate=False, immediate=True)
        elif line < top:
            self.scroll_to(y=line, animate=False, immediate=True)
        elif line >= top + height:
            self.scroll_to(y=line - height + 1, animate=False, immediate=True)

    def _post_cursor(self) -> None:
        info = self.cursor_info()
        if info is None:
            return
        key = (info.offset, info.region.start if info.region else None, info.field_index)
        if key != self._last_cursor_key:
            self._last_cursor_key = key
            self.post_message(self.CursorMoved(info))

    def action_move(self, delta: int) -> None:
        self._move_to(self._cursor + delta, 1 if delta > 0 else -1)

    def action_page(self, direction: int) -> None:
        height = max(1, self.scrollable_content_region.height)
        lines = self.lines
        col = (self._cursor - lines.start) % ROW
        n = max(0, min(lines.line_count - 1, lines.line_of(self._cursor) + direction * height))
        line = lines.line(n)
        if line.kind == "fold":
            line = lines.line(n + direction) if 0 <= n + direction < lines.line_count else lines.line(n - direction)
        self.scroll_to(y=max(0, self.scroll_offset.y + direction * height), animate=False, immediate=True)
        self._move_to(min(line.end - 1, line.start + col), direction)

    def action_edge(self, direction: int) -> None:
        if self.segment is None:
            return
        target = self.segment.start_offset if direction < 0 else self.segment.end_offset - 1
        self._move_to(target, -direction)

    def action_field(self, step: int) -> None:
        info = self.cursor_info()
        if info is None or info.region is None or not info.region.fields:
            return
        fields = info.region.fields
        i = info.field_index if info.field_index is not None else -1
        j = i + step
        if 0 <= j < len(fields):
            self._move_to(fields[j].start)
        elif j >= len(fields):
            self._move_to(info.region.end)
        elif info.region.start > self.lines.start:
            self._move_to(info.region.start - 1, -1)

    def on_click(self, event: events.Click) -> None:
        where = event.get_content_offset(self)
        if where is None or self.segment is None:
            return
        n = self.scroll_offset.y + where.y
        if n >= self.lines.line_count:
            return
        line = self.lines.line(n)
        if line.kind == "fold":
            return
        x = where.x + self.scroll_offset.x
        hex_start = self.bytes_start
        ascii_start = hex_start + HEX_WIDTH + 2
        if hex_start <= x < hex_start + HEX_WIDTH:
            i = (x - hex_start) // 3
        elif ascii_start <= x < ascii_start + ROW:
            i = x - ascii_start
        else:
            i = 0
        self.focus()
        self._move_to(min(line.end - 1, line.start + i))

    # -- layout requests (thread worker) -----------------------------------------------------------------------

    def _probe_tail(self, seg: StoreSegment) -> None:
        """Ask once per segment for the regions at its end, so the zero tail folds early."""
        if seg.start_offset in self._probed or seg.file_size == 0:
            return
        self._probed.add(seg.start_offset)
        self._extra_requests.append((seg.start_offset, seg.end_offset - 1, seg.end_offset))
        self._pump()

    def _want_visible(self) -> None:
        seg = self.segment
        if seg is None:
            return
        height = max(1, self.scrollable_content_region.height)
        lines = self.lines
        top = self.scroll_offset.y
        # a page above and below the visible one too: the worker answers before a page-up/down shows the rows,
        # so a page is painted once, tinted, instead of plain first and again when the regions arrive
        rows = [lines.line(n) for n in range(max(0, top - height), min(lines.line_count, top + 2 * height))]
        rows = [r for r in rows if r.kind == "row"]
        if not rows:
            return
        a, b = rows[0].start, rows[-1].end
        rmap = self.region_map
        gap_a = rmap.first_gap(a, b)
        if gap_a is None:
            return
        gap_b = rmap.last_gap(a, b) or b
        margin = height * ROW * 2
        req = (seg.start_offset, max(seg.start_offset, gap_a - margin), min(seg.end_offset, gap_b + margin))
        if any(s == req[0] and fa <= gap_a and gap_b <= fb for s, fa, fb in self._failed):
            return
        if req in self._done_requests or req == self._visible_request:
            return
        self._visible_request = req
        self._pump()

    def _pump(self) -> None:
        if self._busy:
            return
        if self._visible_request is not None:
            req, self._visible_request = self._visible_request, None
        elif self._extra_requests:
            req = self._extra_requests.pop(0)
        else:
            return
        self._busy = True
        self._compute_regions(*req)

    @work(thread=True, group="hex-layout", exit_on_error=False)
    def _compute_regions(self, seg_start: int, start: int, end: int) -> None:
        try:
            # a BLANK's zero fill is worth folding only when longer than a few rows
            window = hex_window(self.store, start, end - start, fold_min=ROW * (FOLD_MIN_ROWS + 2))
        except StoreError as e:
            self.post_message(RegionsReady(seg_start, start, end, (), str(e)))
            return
        except Exception as e:  # noqa: BLE001 - a worker must report, never crash the app
            self.post_message(RegionsReady(seg_start, start, end, (), f"{type(e).__name__}: {e}"))
            return
        self.post_message(RegionsReady(seg_start, start, end, window.regions, None, window.segment,
                                       window.zero_fills))

    def on_regions_ready(self, message: RegionsReady) -> None:
        message.stop()
        self._busy = False
        if not self._done_requests and not self._failed:
            freeze = getattr(self.app, "freeze_heap", None)
            if freeze is not None:  # the first answer loaded the layout's kernels: keep them out of the GC's way
                self.call_after_refresh(freeze)
        req = (message.segment_start, message.start, message.end)
        self._done_requests.add(req)
        if message.error:
            self._failed.append(req)
            self.notify(f"hex layout: {message.error}", severity="error")
        repaint = True
        if not message.error and message.regions:
            rmap = self._maps.setdefault(message.segment_start, RegionMap())
            if rmap.add(message.regions, focus=self._cursor):
                self._done_requests.clear()  # the map forgot something: allow asking again
            lines = self._lines.get(message.segment_start)
            before = lines.line_count if lines is not None else None
            self._fold(message)
            # an answer fetched ahead of the view (nothing on screen changes) costs no repaint
            folded = lines is not None and lines.line_count != before
            repaint = folded or self._on_screen(message.segment_start, min(r.start for r in message.regions),
                                                max(r.end for r in message.regions))
        if repaint:
            self.refresh()
        if self.segment is not None and message.segment_start == self.segment.start_offset:
            self._post_cursor()
        self._pump()

    def _on_screen(self, seg_start: int, a: int, b: int) -> bool:
        """True when bytes [a, b) of segment ``seg_start`` are in the visible lines."""
        if self.segment is None or seg_start != self.segment.start_offset:
            return False
        lines = self.lines
        top = self.scroll_offset.y
        height = max(1, self.scrollable_content_region.height)
        first = lines.line(top).start
        last = lines.line(min(lines.line_count - 1, top + height - 1)).end
        return a < last and first < b

    def _fold(self, message: RegionsReady) -> None:
        seg, seg_start = message.segment, message.segment_start
        if seg is None:
            return
        lines = self._lines.setdefault(seg_start, SegmentLines(seg.start_offset, seg.file_size))
        top_line = self.scroll_offset.y
        top_offset = lines.line(top_line).start if self.segment and seg_start == self.segment.start_offset else None
        changed = False
        for r in message.regions:
            if r.kind == "zero":
                changed |= lines.fold_zero_run(r.start, r.end)
        for a, b in message.zero_fills:  # the all-zero fill after a long BLANK record
            changed |= lines.fold_zero_run(a, b)
        if changed and top_offset is not None:
            self._cursor = lines.visible(self._cursor, 1)
            self._update_virtual_size()
            self.scroll_to(y=lines.line_of(top_offset), animate=False, immediate=True)

    @work(thread=True, exclusive=True, group="hex-nav", exit_on_error=False)
    def _find_message(self, cursor: int, direction: int) -> None:
        worker = get_current_worker()
        try:
            target = self._message_near(cursor, direction, worker)
        except Exception as e:  # noqa: BLE001 - a worker reports, never crashes the app
            self.post_message(WorkerFailed("find message", str(e)))
            return
        if worker.is_cancelled:
            return
        if target is None:
            self.post_message(WorkerFailed("find message", "no message " + ("after" if direction > 0 else "before")
                                           + " this one"))
        else:
            self.post_message(JumpTo(target))

    def _message_near(self, cursor: int, direction: int, worker) -> int | None:
        return message_near(self.store, cursor, direction, stop=lambda: worker.is_cancelled,
                            max_steps=MAX_PREV_STEPS)

    def on_jump_to(self, message: JumpTo) -> None:
        message.stop()
        self.goto(message.offset)

    def on_worker_failed(self, message: WorkerFailed) -> None:
        message.stop()
        self.notify(message.error, title=message.what, severity="warning")

    # -- rendering ---------------------------------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.get_component_rich_style(f"hexview--{name}", partial=True)
        return style

    def render_lines(self, crop):
        if self.segment is not None:
            self._want_visible()
        # what every line of this paint shares, worked out once per paint (not once per line): the base style
        # walks the DOM, the cursor's field is a lookup in the region map
        self._paint = self._paint_context()
        try:
            return super().render_lines(crop)
        finally:
            self._paint = None

    def _paint_context(self) -> tuple[Style, tuple[int, int]]:
        base = self.rich_style
        span = (self._cursor, self._cursor + 1)
        if self.segment is not None:
            cur = self.region_map.at(self._cursor)
            if cur is not None:
                fi = field_at(cur[0], self._cursor)
                span = (fi[1].start, fi[1].end) if fi else (cur[0].start, cur[0].end)
        return base, span

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base, span = self._paint or self._paint_context()
        if self.segment is None:
            return Strip.blank(width, base) if y else Strip([Segment(" the store has no commitlog segment", base)])
        lines = self.lines
        n = self.scroll_offset.y + y
        if n >= lines.line_count:
            return Strip.blank(width, base)
        line = lines.line(n)
        rmap = self.region_map
        touches = line.start < span[1] and span[0] < line.end
        # keyed by the regions under this row (not the map's version): a layout answer for other rows, or a
        # prefetch ahead of the view, leaves the rows on screen cached
        regions_key = rmap.signature(line.start, line.end) if line.kind == "row" else None
        key = (self.segment.start_offset, self.relative, line.kind, line.start, regions_key, span if touches else None,
               self._cursor if line.start <= self._cursor < line.end else None, base)
        strip = self._strips.get(key)
        if strip is None:
            strip = (self._render_fold(line) if line.kind == "fold"
                     else self._render_row(line, span if touches else None, base))
            self._strips[key] = strip
        return strip.crop_extend(self.scroll_offset.x, self.scroll_offset.x + width, base)

    def _render_fold(self, line: Line) -> Strip:
        style = self._style("fold")
        text = (f"{'':>{self.bytes_start}}┄┄ {line.hidden_bytes:,} zero bytes folded "
                f"({line.start:,} … {line.end - 1:,}) ┄┄")
        return Strip([Segment(text.ljust(self.line_width), style)])

    def _render_row(self, line: Line, span: tuple[int, int] | None, base: Style | None = None) -> Strip:
        base = self.rich_style if base is None else base
        try:
            data = hex_bytes(self.store, line.start, line.end - line.start)
        except StoreError:
            data = b""
        rmap = self.region_map
        mark, mark_style = self._mark(line)
        if self.relative:
            where = f"+{line.start - self.segment.start_offset}" + (" " if self.relative_width <= 10 else "")
            segs = [Segment(f"{where:>{self.bytes_start - 2}}", base + self._style("offset"))]
        else:
            segs = [Segment(f"{line.start:>{self.offset_width}}", base + self._style("offset")), Segment(" ", base)]
        segs.append(Segment(mark, base + mark_style))
        segs.append(Segment(" ", base))
        byte_styles: list[Style] = []
        # the region under the byte is looked up once per region (not per byte), its field by a pointer that
        # walks the (sorted) fields; the composed styles come from a cache: a page is ~700 bytes
        region = None
        parity = 0
        fields: tuple = ()
        k = 0
        ordered = True
        for i in range(ROW):
            o = line.start + i
            if i >= len(data):
                segs.append(Segment("   ", base))
                byte_styles.append(base)
                continue
            if region is None or not region.start <= o < region.end:
                found = rmap.at(o)
                region, parity = found if found is not None else (None, 0)
                fields = region.fields if region is not None and region.kind in ("message", "entry") else ()
                ordered = all(a.start <= b.start for a, b in zip(fields, fields[1:], strict=False))
                k = 0
            odd = False
            if fields:
                if ordered:
                    while k < len(fields) and fields[k].start + fields[k].length <= o:
                        k += 1
                    fi = (k, fields[k]) if k < len(fields) and fields[k].start <= o else None
                else:
                    fi = field_at(region, o)
                odd = fi is not None and fi[0] % 2 == 1
            key = (base, region.kind if region is not None else None, parity, odd,
                   span is not None and span[0] <= o < span[1], o == self._cursor, self._overlay(o))
            styles = self._combos.get(key)
            if styles is None:
                styles = self._combos[key] = self._compose_style(*key)
            style, bg = styles
            byte_styles.append(style)
            segs.append(Segment(f"{data[i]:02X}", style))
            same = region is not None and o + 1 < region.end and i < ROW - 1
            segs.append(Segment(" ", bg if same else base))
        segs.append(Segment("│ ", base + self._style("offset")))
        for i in range(ROW):
            if i >= len(data):
                segs.append(Segment(" ", base))
                continue
            b = data[i]
            segs.append(Segment(chr(b) if 32 <= b < 127 else ".", byte_styles[i]))
        # neighbours of one style become one segment (~70 -> ~10 a row): the same cells, and every later step
        # (Textual's crop, filters and compositor, the collector) pays per segment
        return Strip(list(Segment.simplify(segs)))

    def _overlay(self, offset: int) -> str | None:
        """A component style tinting this byte on top of the rest (the tour's highlighted spans); none here."""
        return None

    def _compose_style(self, base: Style, kind: str | None, parity: int, odd: bool, in_span: bool,
                       at_cursor: bool, overlay: str | None = None) -> tuple[Style, Style]:
        """(byte style, separator background) of a byte; what ``_byte_style`` computes, keyed for the cache."""
        if kind is None:
            style = bg = base + self._style("pending")
        else:
            bg = style = base + self._kind_style(kind, parity)
            if odd:
                style = style + self._style("field-odd")
        if in_span:
            style = style + self._style("field-cursor")
        if at_cursor:
            style = style + self._style("cursor")
        if overlay is not None:
            style = style + self._style(overlay)
        return style, bg

    def _mark(self, line: Line) -> tuple[str, Style]:
        rmap = self.region_map
        i = rmap.index_at(line.start)
        if i is None:
            return " ", Style()
        pos = line.start
        while pos < line.end:
            found = rmap.at(pos)
            if found is None:
                break
            region, parity = found
            if region.start >= line.start:
                glyph = {"message": "▶", "entry": "E", "blank": "B", "zero": "0", "damaged": "!"}.get(region.kind, "?")
                return glyph, self._kind_style(region.kind, parity)
            pos = region.end
        return " ", Style()

    def _kind_style(self, kind: str, parity: int) -> Style:
        if kind == "message":
            return self._style("msg-b" if parity else "msg-a")
        return self._style({"blank": "blank", "entry": "entry", "zero": "zero", "damaged": "damaged"}.get(kind, "pending"))

    def _byte_style(self, offset: int, found, span: tuple[int, int] | None,
                    base: Style | None = None) -> tuple[Style, Style]:
        # the row passes its base style: rich_style walks the DOM (~0.2 ms), once per byte made a page 150+ ms
        base = self.rich_style if base is None else base
        if found is None:
            style = bg = base + self._style("pending")
        else:
            region, parity = found
            bg = style = base + self._kind_style(region.kind, parity)
            if region.kind in ("message", "entry"):  # a DLedger entry header's fields alternate like a record's
                fi = field_at(region, offset)
                if fi and fi[0] % 2:
                    style = style + self._style("field-odd")
        if span is not None and span[0] <= offset < span[1]:
            style = style + self._style("field-cursor")
        if offset == self._cursor:
            style = style + self._style("cursor")
        overlay = self._overlay(offset)
        if overlay is not None:
            style = style + self._style(overlay)
        return style, bg
