"""A one-line form field: escape hands the keyboard back to the screen's main widget (so 1-6, n, p... work again)."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class FormInput(Input):
    BINDINGS = [Binding("escape", "leave", "Back", show=False)]

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("compact", True)
        super().__init__(**kwargs)
        self.cursor_blink = False

    def action_leave(self) -> None:
        focus_main = getattr(self.screen, "focus_main", None)
        if focus_main is not None:
            focus_main()
        else:
            self.screen.focus_next()
