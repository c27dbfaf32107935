"""Every field of one message, its properties, and its body as text, pretty JSON or hex.

Every string of the message is the producer's: each is shown through ``fmt.esc`` as a Text (never markup); the
body as text keeps its line feeds and tabs (``terminal_text(multiline=True)``) and shows a byte that is no UTF-8
as ``\\xNN``."""

from __future__ import annotations

from dataclasses import fields

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
from inspector.tui.fmt import esc, plain, when

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


def render_message(msg: Message, mode: str = "text", trace_topic: str | None = None) -> RenderableType:
    """Every field, the properties, the body in ``mode``, and a trace topic's records (``trace_topic``: the
    store's custom one, ``trace_topic_of``)."""
    v = message_view(msg, body_limit=0)
    grid = Table.grid(padding=(0, 1))
    for _ in range(2):
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(overflow="fold")
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
    for a, b, c, d in rows:
        grid.add_row(a, one_line(b) if a == "msgId" else plain(b), c, one_line(d) if c == "UNIQ_KEY" else plain(d))
    props = Table("property", "value", box=None, padding=(0, 1), show_edge=False, header_style="bold underline")
    for k, val in msg.properties.items():
        props.add_row(plain(k), plain(val))
    title, body = render_body(msg, mode)
    return Group(grid, Text(""), Text(f"Properties ({len(msg.properties)})", style="bold reverse"), props, Text(""),
                 Text(esc(title), style="bold reverse"), body, *render_trace(msg, trace_topic))


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
        self.body_mode = BODY_MODES[(BODY_MODES.index(self.body_mode) + 1) % len(BODY_MODES)]

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
