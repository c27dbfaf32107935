"""Cooperative cancellation for engine calls that may read a lot of a store (tour, exercises, overview).

A caller that must answer in time (the web viewer, a TUI screen) passes a :class:`Budget`; the engine checks it
between bounded steps and either stops early, returning what it has with a note saying so, or raises
:class:`~inspector.engine.model.errors.BudgetExceeded` from deep inside a loop. No budget (``None``) means no limit,
so CLI callers keep their complete answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from inspector.engine.model.errors import BudgetExceeded


class Budget:
    """``seconds`` from now (None: no time limit), and/or ``should_stop``: a callable saying "stop now"
    (e.g. a TUI worker's cancelled flag)."""

    def __init__(self, seconds: float | None = None, should_stop: Callable[[], bool] | None = None) -> None:
        self.seconds = seconds
        self.at = None if seconds is None else time.monotonic() + seconds
        self.should_stop = should_stop

    def expired(self) -> bool:
        if self.at is not None and time.monotonic() >= self.at:
            return True
        return self.should_stop is not None and bool(self.should_stop())

    def check(self, what: str = "") -> None:
        """Raise ``BudgetExceeded`` (its message: :meth:`note` of ``what``) once the budget has run out."""
        if self.expired():
            raise BudgetExceeded(self.note(what or "part of the work"))

    def note(self, what: str) -> str:
        """What a front end says when the budget ran out: ``what`` names the work done so far."""
        if self.seconds is None:
            return f"stopped on request after {what}"
        return f"stopped at the {self.seconds:g} s time limit after {what}"


NO_BUDGET = Budget()


def budget_or_none(budget: Budget | None) -> Budget:
    """``budget``, or the unlimited one."""
    return NO_BUDGET if budget is None else budget


class Partial(list):
    """A list result that may be cut short: ``truncated`` is None when complete, else a note saying where it
    stopped. The items it holds are exactly the first ones of the complete result."""

    truncated: str | None = None

    def __init__(self, items=(), truncated: str | None = None) -> None:
        super().__init__(items)
        self.truncated = truncated


__all__ = ["NO_BUDGET", "Budget", "BudgetExceeded", "Partial", "budget_or_none"]
