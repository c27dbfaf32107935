"""Helpers of the terminal-UI tests (a module, not conftest: pytest keeps one "conftest" in sys.modules)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from tui_wait import settle, until  # noqa: F401 - the TUI tests import them from here

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "sample_store"
SIZE = (120, 36)


def drive(app, script: Callable, size: tuple[int, int] = SIZE):
    """Run ``await script(pilot)`` inside ``app.run_test``; returns what the script returns."""

    async def main():
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            return await script(pilot)

    return asyncio.run(main())


def screen_text(app) -> str:
    """The visible screen as plain text (what a user reads)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def static_text(widget, width: int = 200) -> str:
    """What a Static shows, as plain text (its content rendered by rich at ``width``)."""
    import io

    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()
