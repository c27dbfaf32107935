"""Waiting in a Textual pilot for what a test reads: the app's workers and the messages they post (shared by the
terminal-UI tests and the corruption suite's TUI runs)."""

from __future__ import annotations

from collections.abc import Callable


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
