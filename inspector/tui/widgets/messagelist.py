"""A virtual list of messages: one ScrollView drawing only the visible rows, with LRU caches.

Rows come from a ``RowSource``: offsets found by a scan (growing while the scan runs) or the units of one
consume queue (known at once, read on demand). A row is decoded only when it is drawn. Every cell passes
``fmt.esc`` (in ``_cells``): a row is painted as raw segments, where a control character from the store would
reach the terminal as is (a key ``ESC [ 2 J`` cleared the screen).
"""

from __future__ import annotations

from array import array

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from inspector.engine import Message as StoreMessage
from inspector.engine import StoreError, inner_messages, is_inner_batch, zone_label
from inspector.tui.fmt import esc, middle_clip, when
from inspector.tui.rowindex import RowOffsets

COLUMNS = (("phy offset", 12, "right"), ("stored", 23, "left"), ("topic", 24, "left"), ("q", 3, "right"),
           ("q-offset", 8, "right"), ("tags", 12, "left"), ("keys", 0, "left"))
# a list narrower than NARROW_LIST (the wide columns take 88, leaving the keys under 16: at 80 columns the keys
# were off screen): narrower columns, the store time without year and milliseconds ('09-19 09:00:00'; the detail
# pane has it whole), so the keys keep ~14 columns at 80
NARROW_COLUMNS = (("phy offset", 10, "right"), ("stored", 14, "left"), ("topic", 16, "left"), ("q", 2, "right"),
                  ("q-off", 6, "right"), ("tags", 10, "left"), ("keys", 0, "left"))
NARROW_LIST = 104


class RowSource:
    """Rows of the list: ``len`` and the physical offset of row ``i``."""

    complete = True

    def __len__(self) -> int:
        return 0

    def offset(self, index: int) -> int | None:
        return None


class OffsetRows(RowSource):
    """Offsets found by a scan; grows while the scan runs."""

    def __init__(self) -> None:
        self.offsets = RowOffsets()  # 4 bytes a row (an 8 GiB store's list: 11 M rows)
        self.complete = False

    def __len__(self) -> int:
        return len(self.offsets)

    def offset(self, index: int) -> int | None:
        return self.offsets[index] if 0 <= index < len(self.offsets) else None

    def extend(self, offsets: list[int]) -> None:
        self.offsets.extend(offsets)


FOLLOWED_KEPT = 10_000  # follow mode: records kept as read (older rows are read again through the store)


class LogRows(OffsetRows):
    """Records in commitlog order found by a scan, where an inner-batch record (5.x BatchCQ) can be expanded
    (``space``) into rows of its inner messages under it: ``inner[i]`` is -1 for a record's row, else the inner
    message's index in the record (the row's physical offset stays the record's, so hex and detail work)."""

    def __init__(self, store) -> None:
        super().__init__()
        self.store = store
        # None until a record is first expanded: a row per record of an 8 GiB store is 11 M rows, and a -1 for
        # each (4 bytes, built from a list) cost more than the offsets themselves
        self.inner: array | None = None
        self._split: LRUCache[int, list[StoreMessage]] = LRUCache(16)  # records split once, not once per row
        # follow mode: the records the follower read, by offset (a new segment file is not in the opened store
        # until a reload; the newest rows are the ones looked at)
        self.followed: LRUCache[int, StoreMessage] = LRUCache(FOLLOWED_KEPT)

    def _inner_of(self, offset: int) -> list[StoreMessage]:
        found = self._split.get(offset)
        if found is None:
            found = self._split[offset] = inner_messages(self._record(offset))
        return found

    def extend(self, offsets: list[int]) -> None:
        super().extend(offsets)
        if self.inner is not None:
            self.inner.extend(array("i", [-1]) * len(offsets))

    def inner_index(self, index: int) -> int:
        return self.inner[index] if self.inner is not None and 0 <= index < len(self.inner) else -1

    def row_message(self, index: int) -> StoreMessage:
        i = self.inner_index(index)
        if i < 0:
            return self.followed.get(self.offsets[index]) or self.store.message_at(self.offsets[index])
        return self._inner_of(self.offsets[index])[i]

    def _record(self, offset: int) -> StoreMessage:
        return self.followed.get(offset) or self.store.message_at(offset)

    def row_key(self, index: int) -> tuple:
        return self.offsets[index], self.inner_index(index)

    def expanded(self, index: int) -> bool:
        return self.inner_index(index + 1) >= 0 and self.offsets[index + 1] == self.offsets[index] \
            and self.inner_index(index) < 0

    def toggle(self, index: int) -> bool:
        """Expand the record of row ``index`` into its inner messages, or fold them back (on the record's row or
        one of its inner rows); False when the row is no inner-batch record. Raises StoreError when its body
        does not split into messages."""
        record = index
        while record > 0 and self.inner_index(record) >= 0:  # an inner row: its record's
            record -= 1
        if self.expanded(record):
            assert self.inner is not None
            end = record + 1
            while end < len(self.inner) and self.inner[end] >= 0 and self.offsets[end] == self.offsets[record]:
                end += 1
            del self.offsets[record + 1 : end]
            del self.inner[record + 1 : end]
            return True
        msg = self.store.message_at(self.offsets[record])
        if not is_inner_batch(msg):
            return False
        n = len(self._inner_of(self.offsets[record]))
        if self.inner is None:
            self.inner = array("i", [-1]) * len(self.offsets)
        self.offsets.insert_repeat(record + 1, self.offsets[record], n)
        self.inner[record + 1 : record + 1] = array("i", range(n))
        return True


class QueueRows(RowSource):
    """Queue offsets [lo, hi) of one consume queue: the physical offset is read from the unit when drawn.
    ``marks``: labels drawn on some rows (their queue offsets), in the marker style: a consumer group's committed
    offset, on the first pending row (or on the last row, after which it points). The rows stay one a unit."""

    def __init__(self, queue, lo: int, hi: int, marks: dict[int, str] | None = None) -> None:
        self.queue = queue
        self.lo = lo
        self.hi = max(lo, hi)
        # queue offset -> a marker drawn on that row (a consumer group's committed offset: group_marks)
        self.marks = marks or {}

    def __len__(self) -> int:
        return self.hi - self.lo

    def marker(self, index: int) -> str | None:
        """The marker of row ``index`` (its label), None for most rows."""
        return self.marks.get(self.lo + index) if self.marks else None

    def offset(self, index: int) -> int | None:
        if not 0 <= index < len(self):
            return None
        try:
            unit = self.queue.unit(self.lo + index)
        except StoreError:
            return None
        return None if unit is None else unit.physical_offset


class BatchQueueRows(QueueRows):
    """Message offsets [lo, hi) of one batch consume queue (5.x BatchCQ): each inner message of an inner-batch
    record is a row of its own, decoded out of the record (the physical offset is the record's)."""

    def __init__(self, store, queue, lo: int, hi: int) -> None:
        super().__init__(queue, lo, hi)
        self.store = store

    def row_message(self, index: int) -> StoreMessage:
        """The message of row ``index`` (raises StoreError when it cannot be read)."""
        return self.store.message_by_queue_offset(self.queue.topic, self.queue.queue_id, self.lo + index)

    def row_key(self, index: int) -> tuple:
        return self.offset(index), self.lo + index


class BatchPickedRows(OffsetRows):
    """Rows a filtered scan of a batch queue found: their queue offsets (each an inner message), not physical
    offsets; ``offset`` gives the physical offset of the record holding the row's message."""

    def __init__(self, store, queue) -> None:
        super().__init__()
        self.store = store
        self.queue = queue

    def queue_offset(self, index: int) -> int | None:
        return super().offset(index)

    def offset(self, index: int) -> int | None:
        q = self.queue_offset(index)
        if q is None:
            return None
        try:
            return self.queue.unit(q).physical_offset
        except StoreError:
            return None

    def row_message(self, index: int) -> StoreMessage:
        return self.store.message_by_queue_offset(self.queue.topic, self.queue.queue_id, self.queue_offset(index))

    def row_key(self, index: int) -> tuple:
        return self.offset(index), self.queue_offset(index)


def header_text(width: int) -> Text:
    # the stored column's cells are cut to the ms (23 characters: a 12-column topic would not fit otherwise), so
    # its header names the zone they are in (the output zone: local, or UTC under --utc); narrow, the zone is
    # more than the column holds: the detail pane's times carry it
    narrow = width < NARROW_LIST
    names = [f"stored ({zone_label()})" if c[0] == "stored" and not narrow else c[0] for c in _columns(width)]
    return Text(_cells(names, width, header=True), no_wrap=True, overflow="ellipsis")


def _columns(width: int) -> tuple:
    return NARROW_COLUMNS if width < NARROW_LIST else COLUMNS


def _cells(values: list[str], width: int, header: bool = False) -> str:
    out = []
    used = 0
    columns = _columns(width)
    for (name, w, justify), v in zip(columns, values, strict=True):
        v = esc(v)  # store text: topic, tags, keys, an unreadable row's reason
        if w == 0:
            w = max(4, width - used)
        if name == "stored" and columns is NARROW_COLUMNS and not header and len(v) >= 19 and v[4] == "-":
            v = v[5:19]  # '2025-09-19 09:00:00.196' -> '09-19 09:00:00'
        # a topic keeps its end too (long topics often share a prefix); other cells keep their start
        v = middle_clip(v, w) if name == "topic" else v if len(v) <= w else v[: w - 1] + "…"
        out.append(v.rjust(w) if justify == "right" else v.ljust(w))
        used += w + 1
    return " ".join(out)


class MessageList(ScrollView, can_focus=True):
    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("enter", "select", "Open in hex", show=False),
        Binding("space", "toggle_inner", "Expand batch", show=False),
    ]

    COMPONENT_CLASSES = {"messagelist--cursor", "messagelist--error", "messagelist--dim", "messagelist--marker"}

    cursor: reactive[int] = reactive(0, repaint=False, always_update=True)

    class Highlighted(Message):
        def __init__(self, index: int, offset: int | None) -> None:
            super().__init__()
            self.index = index
            self.offset = offset

    class Selected(Message):
        def __init__(self, index: int, offset: int | None) -> None:
            super().__init__()
            self.index = index
            self.offset = offset

    def __init__(self, store, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.store = store
        self.source: RowSource = RowSource()
        self._messages: LRUCache[int, StoreMessage | str] = LRUCache(4096)
        self._strips: LRUCache[tuple, Strip] = LRUCache(2048)
        self._last_posted: tuple | None = None

    # -- data --------------------------------------------------------------------------------------------------

    def set_source(self, source: RowSource, cursor: int = 0) -> None:
        self.source = source
        self._strips.clear()
        self._last_posted = None
        self._update_size()
        self.scroll_to(y=0, animate=False, immediate=True)
        self.cursor = max(0, min(cursor, len(source) - 1)) if len(source) else 0
        self.refresh()

    def rows_added(self) -> None:
        """The source grew: resize, redraw, and announce the first row when the list was empty."""
        self._update_size()
        self.refresh()
        if self._last_posted is None or self._last_posted[1] is None:
            self._post()

    def _update_size(self) -> None:
        self.virtual_size = Size(max(40, self.size.width), len(self.source))

    def marker(self, index: int) -> str | None:
        """The marker label of row ``index`` (a consumer group's committed offset), None for most rows."""
        marker = getattr(self.source, "marker", None)
        return None if marker is None else marker(index)

    def message(self, index: int) -> StoreMessage | str | None:
        """The message of row ``index`` (decoded once, cached), or why it cannot be read."""
        offset = self.source.offset(index)
        if offset is None:
            return None if not 0 <= index < len(self.source) else "consume-queue unit unreadable"
        row_message = getattr(self.source, "row_message", None)  # rows that share a record (inner batches)
        key = offset if row_message is None else self.source.row_key(index)
        got = self._messages.get(key)
        if got is None:
            try:
                got = self.store.message_at(offset) if row_message is None else row_message(index)
            except StoreError as e:
                got = f"{offset}: {e.reason}"
            self._messages[key] = got
        return got

    # -- cursor ---------------------------------------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        n = len(self.source)
        return 0 if n == 0 else max(0, min(value, n - 1))

    def watch_cursor(self, value: int) -> None:
        height = max(1, self.scrollable_content_region.height)
        top = self.scroll_offset.y
        if value < top:
            self.scroll_to(y=value, animate=False, immediate=True)
        elif value >= top + height:
            self.scroll_to(y=value - height + 1, animate=False, immediate=True)
        self.refresh()
        self._post()

    def _post(self) -> None:
        offset = self.source.offset(self.cursor) if len(self.source) else None
        key = (self.cursor, offset, id(self.source))
        if key != self._last_posted:
            self._last_posted = key
            self.post_message(self.Highlighted(self.cursor, offset))

    def action_cursor(self, step: int) -> None:
        self.cursor += step

    def action_page(self, direction: int) -> None:
        height = max(1, self.scrollable_content_region.height)
        self.scroll_to(y=self.scroll_offset.y + direction * height, animate=False, immediate=True)
        self.cursor += direction * height

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self._update_size()
        self.cursor = len(self.source) - 1

    def action_select(self) -> None:
        if len(self.source):
            self.post_message(self.Selected(self.cursor, self.source.offset(self.cursor)))

    def action_toggle_inner(self) -> None:
        """An inner-batch record's messages as rows under it, or folded back (commitlog order only)."""
        source = self.source
        if not isinstance(source, LogRows) or not len(source):
            return
        record = self.cursor
        while record > 0 and source.inner_index(record) >= 0:  # on an inner row: its record's
            record -= 1
        try:
            changed = source.toggle(record)
        except StoreError as e:
            self.notify(f"inner messages: {e}", severity="error")
            return
        if changed:
            self.cursor = record  # folded from an inner row: back on the record's row
            self._strips.clear()
            self._update_size()
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        where = event.get_content_offset(self)
        if where is None:
            return
        index = self.scroll_offset.y + where.y
        if index < len(self.source):
            self.focus()
            if index == self.cursor and event.chain >= 2:
                self.action_select()
            self.cursor = index

    def on_resize(self) -> None:
        self._strips.clear()
        self._update_size()

    # -- rendering ----------------------------------------------------------------------------------------------

    def row_text(self, index: int, width: int) -> str:
        got = self.message(index)
        if got is None:
            return ""
        if isinstance(got, str):
            offset = self.source.offset(index)
            return _cells([str(offset) if offset is not None else "?", "unreadable", got, "", "", "", ""], width)
        m = got
        inner = self.source.inner_index(index) if isinstance(self.source, LogRows) else -1
        if inner >= 0:  # an inner message under its record: indented, its own queue offset, tags and keys
            return _cells([f"└ #{inner}", "", "", "", str(m.queue_offset), m.tags or "", " ".join(m.keys)], width)
        keys = " ".join(m.keys)
        if isinstance(self.source, LogRows) and is_inner_batch(m):
            fold = "▾" if self.source.expanded(index) else "▸"
            keys = f"{fold} {m.properties.get('INNER_NUM', '?')} inner (space) {keys}".rstrip()
        label = self.marker(index)
        if label is not None:  # before the keys: the keys cell takes the rest of the width and may be cut
            keys = f"{label} │ {keys}" if keys else label
        return _cells([str(m.physical_offset), when(m.store_timestamp)[:23], m.topic, str(m.queue_id), str(m.queue_offset),
                       m.tags or "", keys], width)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        index = self.scroll_offset.y + y
        if index >= len(self.source):
            return Strip.blank(width, base)
        selected = index == self.cursor
        key = (id(self.source), index, self.source.offset(index), selected, width)
        strip = self._strips.get(key)
        if strip is None:
            text = self.row_text(index, width)
            style = base
            if isinstance(self.message(index), str):
                style = base + self.get_component_rich_style("messagelist--error", partial=True)
            elif self.marker(index) is not None:
                style = base + self.get_component_rich_style("messagelist--marker", partial=True)
            if selected:
                style = style + self.get_component_rich_style("messagelist--cursor", partial=True)
            strip = Strip([Segment(text.ljust(width)[:width], style)]).crop_extend(0, width, Style())
            self._strips[key] = strip
        return strip
