"""The one Rich console class every command line (`rmq-inspect` and its Spark jobs) prints through: store text
can never reach the terminal raw.

Every text segment a renderable produces (table cells, panels, titles, progress descriptions, warnings) passes
``terminal_text`` on its way out, after layout and before styling: whatever a view forgot, an ESC, a BEL, a
bidi override or an undecodable byte is shown escaped, never written. Rich's own control segments (cursor
moves of a progress bar) carry ``control`` and pass untouched. Emoji codes are off, so ``:skull:`` in a store
prints as written; store text inside markup is escaped where it is formatted (``cli.output.esc``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.segment import Segment

from inspector.engine import terminal_text


class SafeConsole(Console):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("emoji", False)
        kwargs.setdefault("highlight", False)
        super().__init__(*args, **kwargs)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        # Rich's private hook between layout and output; the one place every printed character passes
        return super()._render_buffer(
            segment if segment.control else Segment(terminal_text(segment.text, multiline=True), segment.style)
            for segment in buffer)
