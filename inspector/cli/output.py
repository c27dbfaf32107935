"""Printing: one JSON document, JSON Lines, or rich tables; problems as one-line warnings on stderr."""

from __future__ import annotations

import json
import sys

import orjson
from rich.table import Table

from inspector.engine import Problem, fmt_time, json_text
from inspector.terminal import SafeConsole, esc, plain

__all__ = ["console", "err_console", "esc", "plain", "print_json", "print_json_line", "table", "warn_problem",
           "when"]

# Markup is off on both (SafeConsole): a plain string is shown as written; our own styled lines say markup=True.
# Piped output gets a wide fixed width instead of rich's 80 columns, so tables do not fold every cell; piped
# stderr is not wrapped at all (a warning is one line for grep, whatever its length).
console = SafeConsole(soft_wrap=False, width=None if sys.stdout.isatty() else 160)
err_console = SafeConsole(stderr=True, soft_wrap=not sys.stderr.isatty())


def print_json(value: object) -> None:
    """One indented JSON document. orjson writes what ``json.dumps(indent=2)`` would (but for the spelling of
    some floats), ~20x faster: the json module's indenting encoder is pure Python (0.7 s for a 16,000-queue
    ``info``). What orjson refuses (lone surrogates, integers past 64 bits) goes through the json module."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, TypeError):
        text = json_text(json.dumps(value, ensure_ascii=False, indent=2))
    sys.stdout.write(text + "\n")


def print_json_line(value: object) -> None:
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, TypeError):
        text = json_text(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    sys.stdout.write(text + "\n")


def warn_problem(p: Problem) -> None:
    err_console.print(f"[yellow]{p.severity}[/]: {esc(p.file)} @ {p.offset}: {esc(p.reason)} [dim]({esc(p.code)})[/]",
                      markup=True)


def table(title: str, *columns: str, **kw) -> Table:
    t = Table(title=title, title_justify="left", title_style="bold", **kw)
    for c in columns:
        justify = "right" if c.endswith(("offset", "size", "count", "#", "end", "start", "min", "max", "lag")) else "left"
        t.add_column(c, justify=justify, overflow="fold")
    return t


def when(ms: int) -> str:
    """Compact local time for tables ('2021-09-28 09:25:59.372'); --json carries the raw ms."""
    full = fmt_time(ms)
    return full[:23].replace("T", " ") if ms > 0 and not full.startswith("invalid") else full

