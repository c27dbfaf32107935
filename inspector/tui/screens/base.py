"""What every view screen shares: calls made before the screen is mounted wait for it."""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen


class ViewScreen(Screen):
    """A screen the app can drive (``goto``, ``apply``...) right after switching to it, even before it mounted."""

    AUTO_FOCUS = ""  # no auto focus: each screen focuses its main widget itself (not the first text field)

    def __init__(self) -> None:
        super().__init__()
        self._ready = False
        self._pending: list[Callable[[], None]] = []

    def later(self, call: Callable[[], None]) -> bool:
        """Keep ``call`` until the screen is ready; True when it was kept (the caller returns)."""
        if self._ready:
            return False
        self._pending.append(call)
        return True

    def ready(self) -> None:
        """Called at the end of ``on_mount``: run what was asked before."""
        self._ready = True
        pending, self._pending = self._pending, []
        for call in pending:
            call()
        freeze = getattr(self.app, "freeze_heap", None)
        if freeze is not None:  # the view's widgets live as long as the app: out of the collector's way
            self.call_after_refresh(freeze)

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)
