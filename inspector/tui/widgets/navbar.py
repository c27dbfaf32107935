"""The row of screen tabs at the top of every screen (click one, or press its number)."""

from __future__ import annotations

from textual.widgets import Tab, Tabs

SCREENS = (
    ("overview", "1 Overview"),
    ("hex", "2 Hex"),
    ("messages", "3 Messages"),
    ("chain", "4 Index chain"),
    ("ids", "5 msgId"),
    ("problems", "6 Problems"),
    ("tour", "7 Tour"),
    ("exercises", "8 Exercises"),
)


class NavBar(Tabs):
    """Tabs naming the screens; activating one switches the app to that screen."""

    can_focus = False

    def __init__(self, active: str) -> None:
        super().__init__(*(Tab(label, id=f"nav-{mode}") for mode, label in SCREENS), active=f"nav-{active}")
        self.mode = active

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        target = (event.tab.id or "").removeprefix("nav-")
        if target and target != self.mode:
            self.app.switch_mode(target)
            self.call_after_refresh(self._restore)

    def _restore(self) -> None:
        self.active = f"nav-{self.mode}"
