"""The one Rich console class every command line (`rmq-inspect` and its Spark jobs) prints through, and the two
helpers that make store text safe for it: store text can never reach the terminal raw, nor be read as markup.

Store text is escaped where it is formatted, at the data level: ``plain(text)`` for a table cell, a title or a
line (``\\x1b`` for an ESC, ``\\x07`` for a BEL), ``esc(text)`` for store text placed inside a markup string of
our own (the same, then Rich's brackets escaped). It must happen before Rich sees the text: Rich's ``Text``
drops BEL, BS, VT, FF and CR silently (a BEL would vanish instead of showing), and a table sized on the raw
text would be misaligned once the net below escapes it.

Markup is off on every SafeConsole: a plain string (a cell, a title, ``print``) is shown as written, so a store's
``[link=file:///etc/passwd]x[/link]`` or ``[bold]`` prints literally even where a view forgot ``plain``. A styled
line of our own opts in (``print(..., markup=True)``, ``Text.from_markup(..., emoji=False)``) and puts store
text in it through ``esc``; a styled cell is simpler as ``Text(plain(x), style=...)``. (A Panel's title or
subtitle string is always markup, emoji codes included, to Rich: give it a ``Text`` when it holds store text.)

The net: every text segment a renderable produces passes ``terminal_text`` on its way out, after layout and
before styling, so whatever a view forgot, an ESC, a bidi override or an undecodable byte is shown escaped,
never written. Rich's own control segments (cursor moves of a progress bar) carry ``control`` and pass
untouched. Emoji codes are off, so ``:skull:`` in a store prints as written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.engine import terminal_text

# Rich is imported when the first console is made or the first markup escaped, not with this module: a command
# whose output is JSON (verify --json, info --json) prints through sys.stdout and never needs it (~70 ms of its
# start). ``SafeConsole`` is a lazy attribute of this module (PEP 562), built once.
if TYPE_CHECKING:
    from rich.console import Console as SafeConsole

__all__ = ["SafeConsole", "esc", "plain"]


def plain(text: object, *, multiline: bool = False) -> str:
    """Store text for a place Rich shows as written (a cell, a title, a line printed without markup): every
    control, bidi control and undecodable byte shown escaped (``multiline``: line feeds and tabs kept)."""
    return terminal_text(str(text), multiline=multiline)


def esc(text: object, *, multiline: bool = False) -> str:
    """Store text inside a markup string of our own (``print(f"[red]{esc(x)}[/]", markup=True)``,
    ``Text.from_markup(..., emoji=False)``): ``plain``, then Rich's brackets escaped."""
    from rich.markup import escape

    return escape(plain(text, multiline=multiline))


def _safe_console_class() -> type:
    from collections.abc import Iterable

    from rich.console import Console
    from rich.segment import Segment

    class SafeConsole(Console):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("markup", False)
            kwargs.setdefault("emoji", False)
            kwargs.setdefault("highlight", False)
            super().__init__(*args, **kwargs)

        def _render_buffer(self, buffer: Iterable[Segment]) -> str:
            # Rich's private hook between layout and output; the one place every printed character passes
            return super()._render_buffer(
                segment if segment.control else Segment(terminal_text(segment.text, multiline=True), segment.style)
                for segment in buffer)

    SafeConsole.__module__, SafeConsole.__qualname__ = __name__, "SafeConsole"
    return SafeConsole


def __getattr__(name: str) -> Any:
    if name == "SafeConsole":
        cls = globals()["SafeConsole"] = _safe_console_class()  # later lookups skip __getattr__
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
