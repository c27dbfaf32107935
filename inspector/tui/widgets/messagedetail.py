"""Every field of one message, its properties, and its body as text, pretty JSON or hex.

Every string of the message is the producer's: each is shown through ``fmt.esc`` as a Text (never markup); the
body as text keeps its line feeds and tabs (``terminal_text(multiline=True)``) and shows a byte that is no UTF-8
as ``\\xNN``."""

from __future__ import annotations

from dataclasses import fields

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.highlighter import JSONHighlighter
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from inspector.engine import (
    BodyPreview,
    Message,
    body_preview,
    decode_trace,
    message_view,
    trace_record_pairs,
    trace_topic_of,
)
from inspector.tui.fmt import esc, middle_clip, plain, when

BODY_MODES = ("text", "json", "hex")
TEXT_LIMIT = 8192
HEX_LIMIT = 2048
MORE = "rmq-inspect show STORE OFFSET --raw FILE writes all of it"


def hex_lines(preview: BodyPreview) -> Text:
    out = Text()
    for row in preview.hex_rows:  # the engine's rows (pure ASCII), offset and ASCII columns dimmed
        out.append(f"{row.offset:08x}  ", style="dim")
        out.append(f"{row.hex:<47}  ")
        out.append(row.ascii + "\n", style="dim")
    return out


def render_body(msg: Message, mode: str) -> tuple[str, RenderableType]:
    """(title, renderable) of the body in ``mode`` (the engine's ``body_preview``: decompressed per the sysFlag);
    a truncation marker when not all of it is shown."""
    preview = body_preview(msg, mode, HEX_LIMIT if mode == "hex" else TEXT_LIMIT)
    parts: list[RenderableType] = []
    if preview.json_error is not None:
        parts.append(Text(f"not JSON ({preview.json_error}); shown as text", style="yellow"))
    if preview.view == "hex":
        parts.append(hex_lines(preview))
    else:
        text = Text(preview.for_terminal())
        if preview.view == "json":
            JSONHighlighter().highlight(text)
        parts.append(text)
    note = preview.truncation_note(MORE)
    if note is not None:
        parts.append(Text(note, style="bold yellow"))
    return f"Body ({mode}, {preview.describe()})", Group(*parts)


def one_line(value: str) -> Text:
    """An id never folded mid-string (it could not be read off or selected whole): one line, cut with "…" when
    the pane is too narrow; ``y`` copies it whole."""
    text = plain(value)
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


FOLDING = frozenset({"topic", "tags", "keys"})  # values that may take more than one line (the others never fold)


class FieldGrid:
    """The message's fields as label/value pairs: two pairs a line where every value that must stay whole (ids,
    times, hosts, the file) fits, else one pair a line (issue 33: at 80 columns the msgId and UNIQ_KEY were cut,
    the hosts and the file folded mid-value). A topic longer than its column is cut in the middle (its start and
    its end kept: two long topics that differ at the end stay told apart) and given whole on a line after the
    fields, so a 200-character topic no longer pushes the msgId out of view."""

    def __init__(self, rows: list[tuple[str, str, str, str]], topic: str) -> None:
        self.rows = rows
        self.topic = topic

    def _fits(self, width: int) -> bool:
        def widest(column: int, labels: int) -> int:
            return max((cell_len(esc(r[column])) for r in self.rows if column == labels or r[labels] not in FOLDING),
                       default=0)

        return widest(0, 0) + widest(1, 0) + widest(2, 2) + widest(3, 2) + 3 <= width

    def _value(self, label: str, value: str, width: int) -> Text:
        if label == "topic":
            return plain(middle_clip(value, max(8, width)))  # whole on the line after the fields when cut
        if label in FOLDING:
            return plain(value)
        return one_line(value)  # never folded mid-value (an id, a time, a host, the file)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        grid = Table.grid(padding=(0, 1))
        if self._fits(width):
            topic_width = max(cell_len(esc(r[1])) for r in self.rows if r[0] not in FOLDING)
            label_width = max(cell_len(r[0]) for r in self.rows)
            for _ in range(2):
                grid.add_column(style="bold", no_wrap=True)
                grid.add_column(overflow="fold")
            for a, b, c, d in self.rows:
                grid.add_row(a, self._value(a, b, topic_width), c, self._value(c, d, width))
        else:
            label_width = max(cell_len(r[i]) for r in self.rows for i in (0, 2))
            topic_width = width - label_width - 1
            grid.add_column(style="bold", no_wrap=True, width=label_width)
            grid.add_column(overflow="fold")
            for a, b, c, d in self.rows:
                grid.add_row(a, self._value(a, b, topic_width))
                grid.add_row(c, self._value(c, d, topic_width))
        yield grid
        if cell_len(esc(self.topic)) > max(8, topic_width):  # cut above: here whole, folded under its label
            whole = Table.grid(padding=(0, 1))
            whole.add_column(style="bold", no_wrap=True, width=label_width)
            whole.add_column(overflow="fold")
            whole.add_row("topic (whole)", plain(self.topic))
            yield whole

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, options.max_width)


def _head(msg: Message) -> list[RenderableType]:
    """What the detail shows before the body: the fields and the properties."""
    v = message_view(msg, body_limit=0)
    crc = "ok" if msg.body_crc_ok else "MISMATCH"
    flags = ", ".join(k for k, on in v["sys_flag_parts"].items() if on is True)
    rows = [
        ("physical offset", f"{msg.physical_offset:,}", "total size", f"{msg.total_size:,} bytes"),
        ("topic", msg.topic, "queue / offset", f"{msg.queue_id} / {msg.queue_offset:,}"),
        ("tags", msg.tags or "-", "keys", " ".join(msg.keys) or "-"),
        ("msgId", msg.msg_id, "UNIQ_KEY", msg.unique_key or "-"),
        ("stored", when(msg.store_timestamp), "born", when(msg.born_timestamp)),
        ("store host", str(msg.store_host), "born host", str(msg.born_host)),
        ("sysFlag", f"0x{msg.sys_flag & 0xFFFFFFFF:X}" + (f" ({flags})" if flags else ""), "flag", str(msg.flag)),
        ("magic", f"v{msg.magic_version} ({msg.magic_code & 0xFFFFFFFF:08X})", "body CRC", f"{msg.body_crc} ({crc})"),
        ("reconsume", str(msg.reconsume_times), "prepared tx offset", f"{msg.prepared_transaction_offset:,}"),
        ("transaction", msg.transaction, "compression", msg.compression or "-"),
        ("file @ pos", f"{msg.file} @ {msg.position:,}", "PHYSICALOFFSET", f"{msg.stored_physical_offset:,}"),
    ]
    props = Table("property", "value", box=None, padding=(0, 1), show_edge=False, header_style="bold underline")
    for k, val in msg.properties.items():
        props.add_row(plain(k), plain(val))
    return [FieldGrid(rows, msg.topic), Text(""), Text(f"Properties ({len(msg.properties)})", style="bold reverse"),
            props, Text("")]


def render_message(msg: Message, mode: str = "text", trace_topic: str | None = None) -> RenderableType:
    """Every field, the properties, the body in ``mode``, and a trace topic's records (``trace_topic``: the
    store's custom one, ``trace_topic_of``)."""
    title, body = render_body(msg, mode)
    return Group(*_head(msg), Text(esc(title), style="bold reverse"), body, *render_trace(msg, trace_topic))


def body_line(msg: Message, console: Console, width: int) -> int:
    """The line the body's title is on when the message is drawn ``width`` columns wide (what precedes it: the
    fields and the properties)."""
    return len(console.render_lines(Group(*_head(msg)), console.options.update_width(max(1, width)), pad=False))


def render_trace(msg: Message, trace_topic: str | None = None) -> list[RenderableType]:
    """A trace topic's record (the default names, or ``trace_topic``): its body's trace records, fields by name
    (nothing for another record)."""
    trace = decode_trace(msg, trace_topic)
    if trace is None:
        return []
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for record in trace.records:
        grid.add_row(Text(f"#{record.index}", style="bold cyan"), "")
        for name, value in trace_record_pairs(record):
            grid.add_row(name, plain(value))
    return [Text(""), Text(esc(f"Trace ({trace.summary()})"), style="bold reverse"), grid]


class RenderOnce:
    """A renderable drawn once per set of console options, then replayed.

    Textual lays a rich renderable out twice per change (once to measure its height, once to draw it); for
    the message table that was two full table renders per cursor move, most of a paging frame.
    """

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self._key: tuple | None = None
        self._segments: list[Segment] = []

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = tuple(getattr(options, f.name) for f in fields(options))
        if key != self._key:
            self._segments = list(console.render(self.renderable, options))
            self._key = key
        yield from self._segments

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)


class MessageDetail(VerticalScroll, can_focus=True):
    """The detail pane (message browser, message window): ``show`` a message, ``b`` cycles the body view."""

    body_mode: reactive[str] = reactive("text")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.message: Message | None = None
        self._note = "no message selected"

    def compose(self):
        yield Static(plain(self._note, "dim"), classes="detail-content")

    def show(self, msg: Message | None, note: str = "no message selected") -> None:
        self.message = msg
        self._note = note
        self._show_content()
        self.scroll_home(animate=False)

    def cycle_body(self) -> None:
        """The next body view, scrolled into sight: the body is under the fields and the properties, below the
        pane's fold at 30 rows (issue 33: `b` changed nothing one could see)."""
        self.body_mode = BODY_MODES[(BODY_MODES.index(self.body_mode) + 1) % len(BODY_MODES)]
        self.call_after_refresh(self.scroll_to_body)

    def scroll_to_body(self) -> None:
        """The pane scrolled so the body's title is its first line (or as far as the pane scrolls)."""
        if self.message is None or not self.is_mounted:
            return
        width = self.query_one(".detail-content", Static).content_region.width or self.scrollable_content_region.width
        self.scroll_to(y=body_line(self.message, self.app.console, width), animate=False)

    def watch_body_mode(self) -> None:
        self._show_content()

    # not ``_render_content``: that name is Textual's own (Widget.render_line calls it on every paint), and
    # overriding it re-rendered the whole message and forced a layout pass on every paint of the pane
    def _show_content(self) -> None:
        if not self.is_mounted:
            return
        static = self.query_one(".detail-content", Static)
        if self.message is None:
            static.update(plain(self._note, "dim"))
        else:
            store = getattr(self.app, "store", None)  # the broker config's msgTraceTopicName, as show reads it
            trace_topic = trace_topic_of(store) if store is not None else None
            static.update(RenderOnce(render_message(self.message, self.body_mode, trace_topic)))
