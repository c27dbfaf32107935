"""A rich progress bar on stderr for long work, silent when stderr is not a terminal (scripts, tests)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from inspector.terminal import SafeConsole


@contextmanager
def byte_progress(label: str, enabled: bool | None = None) -> Iterator:
    """Yields a callback ``update(done, total)`` (bytes)."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield lambda done, total: None
        return
    progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                        TimeRemainingColumn(), console=SafeConsole(stderr=True), transient=True)
    with progress:
        task = progress.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield update
