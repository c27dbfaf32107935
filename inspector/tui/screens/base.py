"""What every view screen shares: calls made before the screen is mounted wait for it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input

NARROW_LAYOUT = 110  # columns: below this a screen lays itself out for a narrow terminal (issue 33's breakpoint)
NARROW_COLUMNS = 100  # below this a footer holds about six bindings: `? Help` and `q Quit` must stay among them

# a screen whose text field has focus on entry: `q` types into the field then, the footer offers ctrl+q (the app's
# quit key, which works everywhere); priority, or the app's own hidden ctrl+q binding would take its footer place
FIELD_QUIT = Binding("ctrl+q", "quit_from_field", "Quit", priority=True)


class ViewScreen(Screen):
    """A screen the app can drive (``goto``, ``apply``...) right after switching to it, even before it mounted."""

    AUTO_FOCUS = ""  # no auto focus: each screen focuses its main widget itself (not the first text field)
    # actions whose keys a footer narrower than NARROW_COLUMNS leaves out: the keys still work, `?` lists them
    # (issue 33: at 80 columns the footers lost `? Help`)
    NARROW_HIDDEN: ClassVar[frozenset[str]] = frozenset()
    # below this many columns the footer leaves them out: a screen whose footer is longer says where it needs them
    # out (issue 33: the hex footer cut `q Quit` at 100-106 columns)
    NARROW_BELOW: ClassVar[int] = NARROW_COLUMNS

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
        self.fit_footer(self.app.size.width)
        pending, self._pending = self._pending, []
        for call in pending:
            call()
        freeze = getattr(self.app, "freeze_heap", None)
        if freeze is not None:  # the view's widgets live as long as the app: out of the collector's way
            self.call_after_refresh(freeze)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "quit_from_field":  # FIELD_QUIT: in the footer while a text field takes `q`
            return isinstance(self.focused, Input)
        return True

    def action_quit_from_field(self) -> None:
        self.app.exit()

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    def on_resize(self, event: events.Resize) -> None:
        self.fit_footer(event.size.width)

    def narrow_below(self) -> int:
        """Columns under which the NARROW_HIDDEN bindings leave the footer (a screen whose footer grows while
        something runs says more then, and calls ``fit_footer`` when that changes)."""
        return self.NARROW_BELOW

    def fit_footer(self, width: int) -> None:
        """Show or leave out the NARROW_HIDDEN bindings in the footer for a terminal ``width`` columns wide."""
        narrow = width < self.narrow_below()
        if not self.NARROW_HIDDEN or narrow == getattr(self, "_narrow", None):
            return
        self._narrow = narrow
        table = self._bindings.key_to_bindings
        for key, bindings in table.items():
            table[key] = [dataclasses.replace(b, show=not narrow) if b.action in self.NARROW_HIDDEN else b
                          for b in bindings]
        self.refresh_bindings()
