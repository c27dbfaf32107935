"""What every exercise kind starts from: a bounded sample of the store read once per ``generate()``
(:class:`Facts`), how a seed picks one variant among the candidates (``variant``), and ``Unavailable`` for a kind
the store has no case for.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

from inspector.engine.model.budget import Budget
from inspector.engine.model.records import Message

T = TypeVar("T")

# Candidates come from a bounded sample of the store, so generating takes the same time on a store of millions
# of messages as on a small one; the sample store fits inside every bound (its exercises are the complete set).
SCAN_MESSAGES = 2_000  # messages read to find candidates (from the start of the log)
SCAN_ENTRIES = 4 * SCAN_MESSAGES  # records of any kind walked for them (a damaged log may hold few messages)
SCAN_QUEUES = 64  # ordinary consume queues whose units are candidates
QUEUE_UNITS = 1_000  # units of one queue that are candidates (half from its start, half from its second file)
SYSTEM_UNITS = 1_000  # units of one system queue (delay levels, half messages) read


class Facts:
    def __init__(self, store, budget: Budget):
        self.store = store
        self.budget = budget
        self.messages: list[Message] = []
        for n, entry in enumerate(store.entries(check_crc=False)):
            if n >= SCAN_ENTRIES:
                break
            if n % 256 == 255:
                budget.check(f"reading {n + 1} records")
            if isinstance(entry, Message):
                self.messages.append(entry)
                if len(self.messages) >= SCAN_MESSAGES:
                    break
        self.keys: dict[tuple[str, str], list[int]] = {}
        for m in self.messages:
            for k in m.keys:
                self.keys.setdefault((m.topic, k), []).append(m.physical_offset)

    def memo(self, name: str, compute: Callable[[], T]) -> T:
        """``compute()`` once per generate run: a kind asked for round after round (``--count`` up to 1,000) would
        otherwise redo a whole-store search (index collisions, every message's msgId) for each of its exercises."""
        cache = self.__dict__.setdefault("_memo", {})
        if name not in cache:
            cache[name] = compute()
        return cache[name]

    def cmd(self, *args: str) -> str:
        return " ".join(("rmq-inspect", args[0], str(self.store.root), *args[1:]))


def variant(candidates: list, kind: str, seed: int, round_: int = 0):
    """The variant for ``seed``: a fixed shuffle of the candidates (per kind), then the seed-th one."""
    if not candidates:
        return None
    order = list(candidates)
    random.Random(f"rmq-inspect/{kind}").shuffle(order)
    return order[(seed + round_ * 7) % len(order)]


class Unavailable(Exception):
    pass
