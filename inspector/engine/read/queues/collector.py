"""No cycle collection while many acyclic records are built at once.

A listing of 16,000 queues (``group``, ``groups``, ``info``) builds ~100,000 small objects (infos, dataclasses,
their view dicts), none in a cycle. Each 700 new container objects the collector walks the young ones, and every
few of those passes the older ones too: ~30% of building a group's view of 16,000 queues (issue 30). Inside
:func:`few_collections` it does not run; reference counting frees what it always did. Nested and concurrent uses
(the web app's threads) share one count: the collector is enabled again, if it was on before the first entry,
when the last one leaves.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def few_collections() -> Iterator[None]:
    """The cyclic collector paused for the block (see the module docstring)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
