"""Exercises generated from a store, with a checker that explains the right answer.

``generate(store, seed, count)`` returns frozen :class:`Exercise` objects; ``exercise.check(text)`` returns a
:class:`CheckResult`. Every answer is computed by the engine from the store itself. The set of kinds is fixed
(see ``KINDS``, and ``RETENTION_KINDS`` for a store past its retention); ``seed`` picks a different variant of each (another key, file, unit ...), deterministically.
Answers are read tolerantly: decimal or 0x-hex numbers, thousands separators, surrounding words, any case.

This module holds ``KINDS`` and ``generate``; the exercise and its check are in ``exercise_model``, reading
answers in ``exercise_answers``, what every kind starts from in ``exercise_facts``, and the kinds themselves in
``exercise_index`` and ``exercise_queues``.
"""

from __future__ import annotations

import dataclasses

from inspector.engine.model.arguments import EXERCISE_COUNT
from inspector.engine.model.budget import Budget, Partial, budget_or_none
from inspector.engine.model.errors import BudgetExceeded, StoreError
from inspector.engine.workshop import exercise_index, exercise_queues
from inspector.engine.workshop.exercise_facts import Facts, Unavailable
from inspector.engine.workshop.exercise_model import Exercise

KINDS = (
    "key-offset", "key-slot", "decode-msgid", "index-items", "index-used-slots", "cq-queue-offset", "cq-points-at",
    "segment-end", "tags-code", "delay-tagscode", "transaction-commit", "collision-item", "id-kind", "cq-file-name",
)
# kinds only a store past its retention has a case for (sample_store_aged): after KINDS, so a store without
# retention gets exactly the set it always got
RETENTION_KINDS = ("expired-min",)

# kind -> the function that drafts its exercise from the facts, a seed and a round
_BUILDERS = {**exercise_index.BUILDERS, **exercise_queues.BUILDERS}


def generate(store, seed: int = 0, count: int = 12, *, budget: Budget | None = None) -> list[Exercise]:
    """``count`` exercises, kinds in ``KINDS`` order (repeated with other variants when count exceeds them).

    Kinds the store has no case for are left out. Deterministic for a given store and seed. With a ``budget``
    that runs out the result (a :class:`~inspector.engine.model.budget.Partial` list) stops early and says so in
    ``truncated``; the exercises it holds are the first ones of the complete set, same ids and questions, so an
    answer to one of them checks the same either way.
    """
    EXERCISE_COUNT.check(count, "count")  # BadInput beyond [1, 1000]: every front end gets the same answer
    stop = budget_or_none(budget)
    result: Partial = Partial()
    try:
        facts = Facts(store, stop)
    except BudgetExceeded as e:
        result.truncated = str(e)
        return result
    kinds = list(KINDS) + (list(RETENTION_KINDS) if store.commitlog.retention_floor else [])
    round_ = 0
    while kinds and len(result) < count:
        for kind in list(kinds):
            if len(result) >= count:
                break
            try:
                stop.check(f"{len(result)} exercise(s)")
                built = _BUILDERS[kind](facts, seed, round_)
            except BudgetExceeded:
                result.truncated = stop.note(f"{len(result)} of {count} exercises")
                return result
            except (Unavailable, StoreError):
                kinds.remove(kind)  # the store has no case for it
                continue
            number = len(result) + 1
            result.append(dataclasses.replace(built, id=f"{number:02d}-{kind}", number=number, kind=kind))
        round_ += 1
    return result
