"""A one-line form field: escape hands the keyboard back to the screen's main widget (so 1-6, n, p... work again).

A field can hold store text (the browser's filters are filled with the topic, tag or key clicked): the value
stays as it is, so the filter matches, but each control character is shown as one visible symbol (``␛`` for
ESC, ``�`` for the rest beyond C0 and DEL), one character for one, so the cursor stays where it is typed.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widgets import Input

from inspector.engine import has_terminal_controls


def _picture(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # Unicode's control pictures: ␛ ␇ ␊
    return "\u2421" if code == 0x7F else "\ufffd"


def pictured(value: str) -> str:
    """``value`` with each control character as one visible symbol (the field's cursor counts characters)."""
    if not has_terminal_controls(value):
        return value
    return "".join(_picture(c) if has_terminal_controls(c) else c for c in value)


class FormInput(Input):
    BINDINGS = [Binding("escape", "leave", "Back", show=False)]

    def __init__(self, *, shorter: tuple[str, ...] = (), **kwargs) -> None:
        """``shorter``: placeholders to show instead of ``placeholder`` when the field is too narrow for it,
        longest first (issue 33: at 80 columns the fields cut theirs, 'any topi'); the last one if none fits."""
        kwargs.setdefault("compact", True)
        super().__init__(**kwargs)
        self.cursor_blink = False
        self.placeholders = (self.placeholder, *shorter)

    def on_resize(self, event: events.Resize) -> None:
        self.fit_placeholder(event.size.width)

    def fit_placeholder(self, width: int) -> None:
        """The longest of the placeholders ``width`` cells show whole."""
        if len(self.placeholders) > 1:
            self.placeholder = next((p for p in self.placeholders if len(p) <= width), self.placeholders[-1])

    @property
    def _value(self) -> Text:
        if self.password or not has_terminal_controls(self.value):
            return super()._value
        text = Text(pictured(self.value), no_wrap=True, overflow="ignore", end="")
        return text if self.highlighter is None else self.highlighter(text)

    def action_leave(self) -> None:
        focus_main = getattr(self.screen, "focus_main", None)
        if focus_main is not None:
            focus_main()
        else:
            self.screen.focus_next()
