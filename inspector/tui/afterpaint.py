"""The last of several quick updates, shown once after the next paint (a pane that follows a cursor).

Paging a list or the hex view moves the cursor many times between two frames; rebuilding a side pane for
each move would stall the paint. The owner posts every value here: the first one asks Textual for a
callback after the next refresh, later ones only replace the value, and the callback shows the last.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from textual.dom import DOMNode

T = TypeVar("T")


class LatestAfterPaint(Generic[T]):
    def __init__(self, owner: DOMNode, show: Callable[[T], None]) -> None:
        self._owner = owner
        self._show = show
        self._value: T | None = None  # posted, not shown yet

    def post(self, value: T) -> None:
        first = self._value is None
        self._value = value
        if first:
            self._owner.call_after_refresh(self._fire)

    def _fire(self) -> None:
        value, self._value = self._value, None
        if value is not None and self._owner.is_attached:
            self._show(value)
