"""Small display helpers shared by the screens: times, sizes, numbers, store text made safe, and parsing what
users type.

Store text on the terminal (the rule every screen keeps): a producer chooses every topic, tag, key, property,
body and, through the broker, file and folder name; shown raw, ``ESC [ 2 J`` clears the operator's terminal and
``[@click=app.quit]`` is Textual markup. So a string from a store reaches a widget only

* escaped: through the engine's ``terminal_text`` (``\\x1b``, ``\\u202e``), here ``esc`` for a str and ``plain``
  for a ``rich.text.Text``; ``safe`` escapes what is left in a Text built elsewhere. Escape before the text
  enters a Text: Rich silently drops BEL, backspace and CR from a Text, so they could no longer be shown;
* as text, never as markup: a ``Text`` (or ``Content``), never a str where Textual or Rich parse markup (a str in
  ``Static``, ``Label``, a ``DataTable`` cell, a ``Tree`` label, an ``OptionList`` prompt, a Rich ``Table`` cell or
  title, a notification).

The widgets of :mod:`inspector.tui.widgets.safe` (``SafeStatic``, ``SafeLabel``, ``SafeTable``, ``SafeTree``)
apply ``safe`` to whatever they are given, and the app's ``notify`` escapes every notification and turns markup
off, so a str there is always plain text; a filter field (``FormInput``) keeps its value and shows each control
as one symbol (``␛``), so its cursor stays right. The app's line filter (``ControlNet``) is the last net: a
control character still in a painted line is escaped there (the line cut to its width) and counted, and the tests
(tests/inspector/tui/test_store_text*.py) hold that count at zero.
"""

from __future__ import annotations

import re

from rich.text import Span, Text

from inspector.engine import (
    STORE_TIME,
    ArgumentKind,
    BadInput,
    Problem,
    parse_integer,
    short_time,
    terminal_text,
)
from inspector.engine import has_terminal_controls as _has_controls


def when(ms: int | None, unit: str = "ms") -> str:
    """Compact time with its zone ('2025-09-19 09:00:00.196 +08:00', the engine's short_time); '-' for none."""
    return short_time(ms, unit)


def num(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{n} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover


def _ungrouped(text: str) -> str:
    return re.sub(r"[\s,_]", "", text)  # numbers are shown grouped (14,924): copied back, they still read


def is_number(text: str) -> bool:
    """Whether ``text`` spells an integer at all (then it is read as a number, in range or refused)."""
    return parse_integer(_ungrouped(text)) is not None


def parse_kind(text: str, kind: ArgumentKind, name: str) -> int:
    """``text`` read as one of the engine's argument kinds (the CLI's and the web's ranges and wording);
    ValueError with that one-line message otherwise."""
    try:
        return kind.parse(_ungrouped(text), name)
    except BadInput as e:
        raise ValueError(str(e)) from None


def parse_time(text: str, name: str = "time") -> int:
    """Epoch ms from what a user types, read as ``--since``/``--until`` read it (the engine's STORE_TIME: an ISO
    date and time, local unless a zone is given, a date, epoch ms, or -15m / -2h before now); ValueError with
    its one-line message otherwise."""
    try:
        return STORE_TIME.parse(text, name)  # not parse_kind: a time's spaces and commas are no grouping
    except BadInput as e:
        raise ValueError(str(e)) from None


def commitlog_offset(problem: Problem) -> int | None:
    """The physical offset a commitlog problem points at, None when it is about another file."""
    parts = problem.file.split("/")
    if len(parts) == 2 and parts[0] == "commitlog" and parts[1].isdigit():
        return int(parts[1]) + problem.offset
    return None


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def middle_clip(text: str, width: int) -> str:
    """``text`` cut in the middle to ``width`` (its start and its end kept): two long names that differ only at
    the end (RocketMQ 5 topics are up to 200 characters, often one prefix) stay told apart, and what follows
    them on the line (counts) stays on screen."""
    if len(text) <= width:
        return text
    if width < 3:
        return text[:width]
    tail = (width - 1) // 3
    return text[: width - 1 - tail] + "…" + text[len(text) - tail:]


def esc(text: str | None, *, multiline: bool = False) -> str:
    """A string from a store, every control character shown escaped (``terminal_text``); '' for None. With
    ``multiline`` (prose that quotes the store: a tour step, an exercise) line feeds and tabs stay.

    The TUI's one escape of store text (the command line's ``inspector.terminal.plain``, the same escapes). Unlike
    the command line's ``esc`` it leaves markup brackets alone: the TUI never lets a str be read as markup (a
    ``Text``, the Safe widgets, ``notify`` with markup off), so an escaped bracket would show as ``\\[``."""
    return "" if text is None else terminal_text(text, multiline=multiline)


def plain(text: str | None, style: str = "") -> Text:
    """A string from a store as a Text: escaped, and never read as markup."""
    return Text(esc(text), style=style)


def safe(content: Text | str) -> Text:
    """``content`` with every control character but a line feed and a tab escaped (they are layout: a label of
    two lines): a str is plain text (never markup); a Text keeps its styles, each escape taking the style of the
    character it stands for."""
    if isinstance(content, str):
        return Text(terminal_text(content, multiline=True))
    if not _has_controls(content.plain):
        return content
    out = content.blank_copy()
    text = content.plain
    last = 0
    for i, char in enumerate(text):
        if char in "\n\t" or not _has_controls(char):  # layout in a Text: a line break, a tab Rich expands
            continue
        out.append_text(content[last:i])
        one = content[i : i + 1]
        escaped = terminal_text(char)
        out.append_text(Text(escaped, style=one.style, spans=[Span(0, len(escaped), s.style) for s in one.spans]))
        last = i + 1
    out.append_text(content[last:])
    return out


def with_keys(head: Text, keys: str, width: int) -> Text:
    """``head`` and its screen's key hints: after it on its line when both fit ``width`` columns, else on the next
    line whole (folded where they fell, a key was cut from its meaning: 'h:' / 'hint')."""
    fits = head.cell_len + 3 + len(keys) <= width
    head.append(("   " if fits else "\n") + keys, style="dim")
    return head
