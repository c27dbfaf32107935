"""The guided tour of a store: the steps every front end shows, each with the view to open and where.

``tour_steps(store)`` returns plain frozen dataclasses and renders nothing. Each :class:`TourStep` says what to
show through its ``target`` (a hex window with highlighted bytes, a consume-queue unit, an index chain, ...)
and carries a few sentences written for people meeting RocketMQ's files for the first time. Every case is
looked up in the store it is given (never a fixed offset): a store that lacks a case gets a step with
``available=False`` and a ``missing_reason``. ``step_view`` turns a step into JSON-ready data.

This module holds the tour in order (``STEP_IDS``, ``TITLES``, ``tour_steps``); the step model and ``step_view``
are in ``tour_targets``, the steps themselves in ``tour_records``, ``tour_queues``, ``tour_index`` and ``tour_story``,
what they share in ``tour``.
"""

from __future__ import annotations

from inspector.engine.model.budget import Budget, Partial, budget_or_none
from inspector.engine.model.errors import BudgetExceeded, StoreError
from inspector.engine.workshop import tour_index, tour_queues, tour_records, tour_story
from inspector.engine.workshop.tour import Context, Missing
from inspector.engine.workshop.tour_targets import TourStep

STEP_IDS = ("directory", "record", "segment-end", "cq-unit", "key-chain", "index-header", "collision", "ids",
            "delay", "transaction", "torn-tail", "rebuild", "retention", "retry-dlq")

TITLES = {
    "directory": "The store directory",
    "record": "One commitlog record, field by field",
    "segment-end": "The end of a segment: the BLANK record",
    "cq-unit": "A consume-queue unit and the record it points at",
    "key-chain": "From a key to its hash, slot and chain",
    "index-header": "What hashSlotCount and indexCount really count",
    "collision": "A real hash collision",
    "ids": "Offset msgId versus unique key",
    "delay": "A delayed message on disk",
    "transaction": "A transaction on disk",
    "torn-tail": "A torn tail, and how recovery finds the end",
    "rebuild": "What rebuild does",
    "retention": "Retention: the log's first offset",
    "retry-dlq": "One message through retry and dead letter",
}


NOT_COMPUTED = "not computed: "  # how a step the budget cut off starts its missing_reason

# step id -> the function that builds its (text, target, extra, commands) from a Context
_BUILDERS = {**tour_records.BUILDERS, **tour_queues.BUILDERS, **tour_index.BUILDERS, **tour_story.BUILDERS}


def tour_steps(store, *, budget: Budget | None = None) -> list[TourStep]:
    """Every step of the tour for ``store``, in order; steps whose case the store lacks say why.

    With a ``budget`` that runs out, the steps from the one being built on are not computed: each says so
    (``available=False``) and the returned :class:`~inspector.engine.model.budget.Partial` list has ``truncated`` set.
    The steps before it are exactly those of the complete tour.
    """
    ctx = Context(store, budget_or_none(budget))
    steps = Partial()
    for number, step_id in enumerate(STEP_IDS, 1):
        if steps.truncated is None and ctx.budget.expired():
            steps.truncated = ctx.budget.note(f"{number - 1} of {len(STEP_IDS)} steps")
        if steps.truncated is not None:
            reason = NOT_COMPUTED + steps.truncated
            steps.append(TourStep(number, step_id, TITLES[step_id], reason, None, False, reason))
            continue
        try:
            text, target, extra, commands = _BUILDERS[step_id](ctx)
            steps.append(TourStep(number, step_id, TITLES[step_id], text, target, True, None, tuple(extra),
                                  tuple(commands)))
        except Missing as e:
            steps.append(TourStep(number, step_id, TITLES[step_id], str(e), None, False, str(e)))
        except BudgetExceeded:
            steps.truncated = ctx.budget.note(f"{number - 1} of {len(STEP_IDS)} steps")
            reason = NOT_COMPUTED + steps.truncated
            steps.append(TourStep(number, step_id, TITLES[step_id], reason, None, False, reason))
        except StoreError as e:
            reason = f"this store could not be read for this step: {e}"
            steps.append(TourStep(number, step_id, TITLES[step_id], reason, None, False, reason))
    return steps
