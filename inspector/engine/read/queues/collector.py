"""Many acyclic records built at once, cheaply: no cycle collection meanwhile (:func:`few_collections`), and
frozen dataclasses made without their ``__init__`` (:func:`built`).

A listing of 16,000 queues (``group``, ``groups``, ``info``) builds ~100,000 small objects (infos, dataclasses,
their view dicts), none in a cycle. Each 700 new container objects the collector walks the young ones, and every
few of those passes the older ones too: ~30% of building a group's view of 16,000 queues (issue 30). Inside
:func:`few_collections` it does not run; reference counting frees what it always did. Nested and concurrent uses
(the web app's threads) share one count: the collector is enabled again, if it was on before the first entry,
when the last one leaves.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``: 2-6 us an object, ~0.1 s for
the 48,000 records of a group on 16,000 queues. :func:`built` gives the instance its field dict at once.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_new, _set = object.__new__, object.__setattr__
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


def built(cls: type, **fields: object):
    """``cls(**fields)`` of a frozen dataclass without slots, ``__post_init__`` or field converters (the tests hold
    each class built so equal to its constructor's), every field given, defaults too."""
    made = _new(cls)
    _set(made, "__dict__", fields)  # the keyword dict itself, not a copy of it
    return made
