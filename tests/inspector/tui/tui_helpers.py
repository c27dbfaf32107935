"""Helpers of the terminal-UI tests (a module, not conftest: pytest keeps one "conftest" in sys.modules)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "sample_store"
SIZE = (120, 36)


async def settle(pilot, rounds: int = 3) -> None:
    """Let workers finish and the screen catch up (workers may start more workers: hex layout after a jump)."""
    app = pilot.app
    for _ in range(rounds):
        await pilot.pause()
        await app.workers.wait_for_complete()
    # a worker's last message may still be queued when the worker has ended: the background walk's ("walk
    # complete") and verify's findings (the Problems screen is `verifying` until it has handled them)
    await until(pilot, lambda: not getattr(app, "scan_running", False) and not _verifying(app), 30)
    await pilot.pause()


def _verifying(app) -> bool:
    problems = getattr(app, "views", {}).get("problems")
    return bool(getattr(problems, "verifying", False))


async def until(pilot, check: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Pause until ``check()`` holds (a worker's message handled, a follower's poll) or ``seconds`` passed: a fixed
    number of pauses raced the workers on a loaded machine (a CI snapshot caught verify half done)."""
    for _ in range(int(seconds / 0.1)):
        if check():
            return True
        await pilot.pause(0.1)
    return check()


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
