"""Printing: one JSON document, JSON Lines, or rich tables; problems as one-line warnings on stderr."""

from __future__ import annotations

import codecs
import json
import re
import sys
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from inspector.cli.formats import json_line_rows, routed
from inspector.engine import Problem, json_text, short_time
from inspector.terminal import esc, plain

if TYPE_CHECKING:
    from rich.table import Table

__all__ = ["Folded", "console", "err_console", "esc", "fold_runs", "json_safe_bytes", "plain", "print_json",
           "print_json_chunk", "print_json_line", "table", "warn_problem", "when"]

# Markup is off on both (SafeConsole): a plain string is shown as written; our own styled lines say markup=True.
# Piped output gets a wide fixed width instead of rich's 80 columns, so tables do not fold every cell; piped
# stderr is not wrapped at all (a warning is one line for grep, whatever its length).


class _Console:
    """A SafeConsole made at its first use (a print): Rich is then imported, not when the command starts (a
    command that prints JSON never makes one). What the console depends on (the streams being terminals) is
    read when it is made, as it was when this module made it."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._console = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            self._console = self._make()
        return getattr(self._console, name)


def _console() -> Any:
    from inspector.terminal import SafeConsole

    return SafeConsole(soft_wrap=False, width=None if sys.stdout.isatty() else 160)


def _err_console() -> Any:
    from inspector.terminal import SafeConsole

    return SafeConsole(stderr=True, soft_wrap=not sys.stderr.isatty())


console = _Console(_console)
err_console = _Console(_err_console)

# JSON escapes what it must (", \ and the controls below 0x20); orjson and the engine's bulk encoders write DEL,
# the C1 controls (U+009B is CSI to a terminal that reads UTF-8 C1) and the bidi controls as they are. On a
# terminal they are spelled \uXXXX: the same JSON value (json.loads gives the exact store text back), bytes no
# terminal acts on. They stand only inside JSON strings, so the whole text is rewritten. Piped or redirected
# (jq, a file, an export of gigabytes) the bytes are the encoder's own: no terminal reads them, and a regex pass
# would cost ~25 ms a MB of non-ASCII JSON.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_JSON_UNSAFE_BYTES = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]")


def _json_for_terminal(text: str) -> str:
    if not sys.stdout.isatty() or _JSON_UNSAFE.search(text) is None:
        return text
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_safe_bytes(chunk: bytes | memoryview, *, to_terminal: bool | None = None) -> bytes | memoryview:
    """UTF-8 JSON for stdout: on a terminal (``to_terminal``, default: whether stdout is one) DEL, the C1 and
    the bidi controls written as \\uXXXX escapes (the same JSON value); else ``chunk`` itself."""
    if not (sys.stdout.isatty() if to_terminal is None else to_terminal):
        return chunk
    data = bytes(chunk)
    if _JSON_UNSAFE_BYTES.search(data) is None:
        return chunk
    return _JSON_UNSAFE_BYTES.sub(lambda m: f"\\u{ord(m.group().decode()):04x}".encode(), data)


def print_json(value: object) -> None:
    """One indented JSON document. orjson writes what ``json.dumps(indent=2)`` would (but for the spelling of
    some floats), ~20x faster: the json module's indenting encoder is pure Python (0.7 s for a 16,000-queue
    ``info``). What orjson refuses (lone surrogates, integers past 64 bits) goes through the json module.
    Under ``--format`` / ``-o`` (formats.route) the document goes to that command's RowWriter instead."""
    if (to := routed()) is not None:
        to[0].document(value, to[1])
        return
    try:
        data = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE)
    except (orjson.JSONEncodeError, TypeError):
        text = json_text(json.dumps(value, ensure_ascii=False, indent=2))
        sys.stdout.write(_json_for_terminal(text) + "\n")
        return
    out = getattr(sys.stdout, "buffer", None)
    if out is not None and _utf8(sys.stdout) and not sys.stdout.isatty():
        sys.stdout.flush()  # what was written before goes first
        out.write(data)  # the UTF-8 bytes as they are: a 16,000-queue group's 10 MB not decoded and encoded again
        return
    sys.stdout.write(_json_for_terminal(data.decode()))


def _utf8(stream: object) -> bool:
    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "utf-8"
    except LookupError:
        return False


def print_json_line(value: object) -> None:
    if (to := routed()) is not None:  # --format / -o: one row of the command's RowWriter
        to[0].write(value)
        return
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, TypeError):
        text = json_text(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    sys.stdout.write(_json_for_terminal(text) + "\n")


def print_json_chunk(chunk: bytes | memoryview) -> None:
    """Bulk-encoded JSON Lines (whole lines) to stdout, or under ``--format`` / ``-o`` their rows to the
    command's RowWriter. Call ``sys.stdout.flush()`` before the first (the bytes go to its buffer)."""
    if (to := routed()) is not None:
        for row in json_line_rows(chunk):
            to[0].write(row)
        return
    out = getattr(sys.stdout, "buffer", None)
    if out is not None:
        out.write(json_safe_bytes(chunk))
    else:  # a text-only stdout (an embedding caller's StringIO)
        sys.stdout.write(bytes(json_safe_bytes(chunk)).decode())


def warn_problem(p: Problem) -> None:
    err_console.print(f"[yellow]{p.severity}[/]: {esc(p.file)} @ {p.offset}: {esc(p.reason)} [dim]({esc(p.code)})[/]",
                      markup=True)


BIG_TABLE = 2_000  # rows: past this a table is drawn line by line (plain_table_lines), not measured cell by cell


def plain_table_lines(title: str | None, headers: list[str], justify: list[str], rows: list[list[str]]) -> list[str]:
    """A table as Rich draws it by default (heavy head, light body), its rows one line each: drawn directly, for
    tables of thousands of rows (16,000 queues: Rich measured and folded 144,000 cells, 25 s of CPU). Cells are
    already plain, escaped text; a cell's line breaks become spaces; widths come from the text."""
    rows = [[c.replace("\n", " ") for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells: list[str], edge: str, sep: str) -> str:
        body = f" {sep} ".join(c.rjust(w) if j == "right" else c.center(w) if j == "center" else c.ljust(w)
                               for c, w, j in zip(cells, widths, justify, strict=True))
        return f"{edge} {body} {edge}"

    out = [title.ljust(sum(w + 3 for w in widths) + 1)] if title else []  # as Rich pads it, to the table's width
    out.append("┏" + "┳".join("━" * (w + 2) for w in widths) + "┓")
    out.append(line(headers, "┃", "┃"))
    out.append("┡" + "╇".join("━" * (w + 2) for w in widths) + "┩")
    out += [line(r, "│", "│") for r in rows]
    out.append("└" + "┴".join("─" * (w + 2) for w in widths) + "┘")
    return out


def _table_class():
    from rich.segment import Segment
    from rich.table import Table
    from rich.text import Text

    class BigTable(Table):
        """A Rich Table that draws itself line by line once it holds more than BIG_TABLE rows."""

        def __rich_console__(self, console, options):
            if self.row_count <= BIG_TABLE:
                yield from super().__rich_console__(console, options)
                return
            cells = [[c.plain if isinstance(c, Text) else str(c) for c in col.cells] for col in self.columns]
            rows = [list(r) for r in zip(*cells, strict=True)]
            title = self.title.plain if isinstance(self.title, Text) else self.title
            lines = plain_table_lines(title, [str(c.header) for c in self.columns],
                                      [c.justify for c in self.columns], rows)
            for text in lines:
                yield Segment(text)
                yield Segment.line()

    return BigTable


def table(title: str, *columns: str, **kw) -> Table:
    t = _table_class()(title=title, title_justify="left", title_style="bold", **kw)
    for c in columns:
        justify = "right" if c.endswith(("offset", "size", "count", "#", "end", "start", "min", "max", "lag")) else "left"
        # a time column is never folded: its zone offset would land on a line of its own
        timed = c.endswith(("stored", "time", "born", "due"))
        t.add_column(c, justify=justify, overflow="fold", no_wrap=timed, min_width=30 if timed else None)
    return t


def clipped(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters for a table cell, saying how long it was (``--json`` has it whole): a
    broker.conf value may be a megabyte, which a table would wrap into a screenful per row."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters; --json has all)"


def when(ms: int, unit: str = "ms") -> str:
    """Compact time for tables with its zone ('2021-09-28 09:25:59.372 +08:00', engine's short_time); --json
    carries the raw ms."""
    return short_time(ms, unit)



T = TypeVar("T")


@dataclass(frozen=True)
class Folded:
    """The row standing for ``count`` items of a folded run whose items all had the key ``key``."""

    count: int
    key: Hashable


def fold_runs(items: Iterable[T], key: Callable[[T], Hashable | None], *, longer_than: int, head: int,
              tail: int = 0) -> Iterator[T | Folded]:
    """``items`` with each run of more than ``longer_than`` consecutive items of one key (``None``: never part of
    a run) cut to its first ``head`` and last ``tail`` items around one ``Folded`` counting the rest. A table of
    thousands of alike rows (empty files named as segments, one finding repeated) took seconds to draw; --json
    and stderr keep every item. Streaming: an item is yielded as soon as it is known to be shown (with
    ``tail=0`` and ``head == longer_than`` at once), at most ``longer_than - head`` of a run are held back."""
    if not (0 <= head and 0 <= tail and head + tail <= longer_than):
        raise ValueError("fold_runs needs 0 <= head, 0 <= tail and head + tail <= longer_than")
    run_key: Hashable | None = None
    n = 0
    held: deque = deque()  # the run's items after its head: all of them until it is known to fold, then its tail

    def end_of_run() -> Iterator[T | Folded]:
        if n > longer_than:
            yield Folded(n - head - len(held), run_key)
        yield from held

    for item in items:
        k = key(item)
        if n and k != run_key:
            yield from end_of_run()
            n, held = 0, deque()
        if k is None:
            yield item
            continue
        run_key = k
        n += 1
        if n <= head:
            yield item
            continue
        held.append(item)
        if n == longer_than + 1:  # the run folds: only its last ``tail`` items are kept from here on
            held = deque(held, maxlen=tail)
    if n:
        yield from end_of_run()
