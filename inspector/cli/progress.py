"""A rich progress bar on stderr for long work, silent when stderr is not a terminal (scripts, tests)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def byte_progress(label: str, enabled: bool | None = None) -> Iterator:
    """Yields a callback ``update(done, total)`` (bytes)."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield lambda done, total: None
        return
    from rich.progress import (  # Rich only for a bar drawn (a terminal): not on a script's or --json's start
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    from inspector.terminal import SafeConsole

    progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                        TimeRemainingColumn(), console=SafeConsole(stderr=True), transient=True)
    with progress:
        task = progress.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield update


@contextmanager
def unindexed_scan(store, budget_seconds: float | None, as_json: bool) -> Iterator:
    """Around a lookup that may scan the log no index file covers (``key``, ``show``): the progress bar the other
    long commands show (stderr, a terminal, not with --json), and at most ``budget_seconds`` of scanning. Yields
    the limits: their ``stopped`` says where the scan stopped short (:func:`stopped_note`); print the answer after
    the block, when the bar is gone."""
    from inspector.engine import Budget

    with byte_progress("scanning the log no index file covers", False if as_json else None) as update, \
            store.scan_limits(Budget(budget_seconds) if budget_seconds else None, update) as limits:
        yield limits


def stopped_note(limits) -> str | None:
    """What a partial answer says when the scan stopped at its --budget; None when it scanned everything."""
    if limits.stopped is None:
        return None
    return (f"the scan of the log no index file covers {limits.stopped}: the rest was not searched (a larger "
            "--budget searches further)")
