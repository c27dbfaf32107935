"""LatestAfterPaint in a real Textual app: many quick posts, one show after the paint, with the last value."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Static
from tui_helpers import drive

from inspector.tui.afterpaint import LatestAfterPaint


class _Pane(Static):
    def __init__(self) -> None:
        super().__init__("")
        self.shown: list[int] = []
        self.follows: LatestAfterPaint[int] = LatestAfterPaint(self, self.shown.append)


class _App(App):
    def compose(self):
        yield _Pane()


def test_the_last_of_quick_posts_is_shown_once_after_the_paint() -> None:
    app = _App()

    async def script(pilot):
        pane = app.query_one(_Pane)
        for i in range(1, 6):
            pane.follows.post(i)
        before = list(pane.shown)
        await pilot.pause()
        await pilot.pause()
        after_first = list(pane.shown)
        pane.follows.post(7)
        await pilot.pause()
        await pilot.pause()
        return before, after_first, list(pane.shown)

    before, after_first, after_second = drive(app, script)
    assert before == [] and after_first == [5] and after_second == [5, 7]


def test_nothing_is_shown_for_a_pane_no_longer_attached() -> None:
    app = _App()

    async def script(pilot):
        pane = app.query_one(_Pane)
        pane.follows.post(1)
        await pane.remove()
        await pilot.pause()
        await pilot.pause()
        return pane.shown

    assert drive(app, script) == []
