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
    await until(pilot, lambda: _tables_measured(app), 10)
    await pilot.pause()


def _tables_measured(app) -> bool:
    """Every table on the screen has measured the rows it was given. A DataTable sizes its columns to their cells
    in its idle handler, after the rows are added: a picture taken before that shows columns at their headers'
    widths ('Payme' for PaymentEvents: a full-suite rehearsal caught it, the pilot's pauses had returned because
    other threads of the process kept its CPU clock running). Textual keeps what is left to measure in
    ``_new_rows``/``_updated_cells`` and ``_require_update_dimensions``: private, read here only to wait."""
    from textual.widgets import DataTable

    try:
        tables = list(app.screen.query(DataTable))
    except Exception:  # noqa: BLE001 - no screen yet (starting, or between screens): nothing to wait for
        return True
    return not any(getattr(t, "_require_update_dimensions", False) or getattr(t, "_new_rows", None)
                   or getattr(t, "_updated_cells", None) for t in tables)


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
