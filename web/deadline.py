"""A per-request time budget: loops the web layer owns (commitlog scans, queue pages, chain walks across index
files) check it and stop with a visible note, so a request on a huge or damaged store ends instead of hanging.

``Deadline`` is the engine's :class:`~inspector.engine.model.budget.Budget`, so the same object is handed to the
engine calls that read much of a store (``tour_steps``, ``exercises.generate``, ``store_overview``): they stop
between bounded steps and return partial results flagged as such.

One engine step is never interrupted; each one the web layer makes is bounded in work by a count limit
(``Limits.scan_entries``, ``Limits.chain_walk_items``), so the budget is overrun by at most one such step.
"""

from __future__ import annotations

from inspector.engine import Budget


class Deadline(Budget):
    """``seconds`` from now (None: no time limit)."""

    def __init__(self, seconds: float | None) -> None:
        super().__init__(seconds)


NO_DEADLINE = Deadline(None)
