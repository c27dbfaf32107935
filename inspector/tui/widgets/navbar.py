"""The row of screen tabs at the top of every screen (click one, or press its number).

Every tab stays on screen at every width (issue 33: at 80 columns the row scrolled and hid `8 Exercises`): the
labels are the full ones where they fit, short ones below that (``3 Msgs``, ``4 Chain``: 78 columns), and only the
numbers (the active tab keeps its short name) in a terminal narrower still."""

from __future__ import annotations

from textual import events
from textual.widgets import Tab, Tabs

SCREENS = (  # mode, full label, short label
    ("overview", "1 Overview", "1 Overview"),
    ("hex", "2 Hex", "2 Hex"),
    ("messages", "3 Messages", "3 Msgs"),
    ("chain", "4 Index chain", "4 Chain"),
    ("ids", "5 msgId", "5 msgId"),
    ("problems", "6 Problems", "6 Problems"),
    ("tour", "7 Tour", "7 Tour"),
    ("exercises", "8 Exercises", "8 Exercises"),
)
TAB_PADDING = 2  # a Tab's padding: a column each side of its label


def labels_for(width: int, active: str) -> list[str]:
    """The tabs' labels for a bar ``width`` columns wide: the longest set that fits whole."""
    for pick in (lambda full, short: full, lambda full, short: short):
        labels = [pick(full, short) for _, full, short in SCREENS]
        if sum(len(label) + TAB_PADDING for label in labels) <= width:
            return labels
    return [short if mode == active else short.split()[0] for mode, _, short in SCREENS]


class NavBar(Tabs):
    """Tabs naming the screens; activating one switches the app to that screen."""

    can_focus = False

    def __init__(self, active: str) -> None:
        super().__init__(*(Tab(full, id=f"nav-{mode}") for mode, full, _ in SCREENS), active=f"nav-{active}")
        self.mode = active

    def on_mount(self) -> None:
        self._fit(self.app.size.width)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        for (mode, _, _), label in zip(SCREENS, labels_for(width, self.mode), strict=True):
            tab = self.query_one(f"#nav-{mode}", Tab)
            if tab.label_text != label:
                tab.label = label

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        target = (event.tab.id or "").removeprefix("nav-")
        if target and target != self.mode:
            self.app.switch_mode(target)
            self.call_after_refresh(self._restore)

    def _restore(self) -> None:
        self.active = f"nav-{self.mode}"
