"""A per-request time budget: loops the web layer owns (commitlog scans, queue pages, chain walks across index
files) check it and stop with a visible note, so a request on a huge or damaged store ends instead of hanging.

One engine call is never interrupted; each one the web layer makes is bounded in work by a count limit
(``Limits.scan_entries``, ``Limits.chain_walk_items``), so the budget is overrun by at most one such step.
"""

from __future__ import annotations

import time


class Deadline:
    """``seconds`` from now (None: no time limit)."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.at = None if seconds is None else time.monotonic() + seconds

    def expired(self) -> bool:
        return self.at is not None and time.monotonic() >= self.at

    def note(self, what: str) -> str:
        """What the page says when the budget ran out: ``what`` names the work done so far."""
        return f"stopped at the {self.seconds:g} s time limit after {what}"


NO_DEADLINE = Deadline(None)
