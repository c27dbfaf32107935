"""The footer tells the truth (issue 33): `q Quit` and `? Help` on every screen, `esc Stop walk` only while a
walk runs, and Problems says "nothing found" (not "so far") once verify and the walk have finished."""

from __future__ import annotations

import pytest
from tui_helpers import SAMPLE, drive, screen_text, settle, until

from inspector.tui.screennames import SCREEN_NAMES

SCREENS = ["overview", "messages", "hex", "problems", "ids", "chain", "stats", "timer", "groups"]


def _shown(screen) -> dict[str, str]:
    return {k: b.binding.description for k, b in screen.active_bindings.items() if b.binding.show}


@pytest.mark.parametrize("name", SCREENS)
def test_quit_and_help_on_every_screen(store, name):
    from inspector.tui.app import create_app

    app = create_app(store, background_scan=False, screen=name)

    async def script(pilot):
        if name == "ids":  # its id field has focus on entry and takes q and ?; escape leaves the field
            await pilot.press("escape")
            await settle(pilot)
        return _shown(app.screen)

    shown = drive(app, script)
    assert shown.get("q") == "Quit" and shown.get("question_mark") == "Help"


def test_stop_walk_only_while_a_walk_runs(store):
    from inspector.tui.app import create_app

    app = create_app(store, background_scan=True)

    async def script(pilot):
        await settle(pilot)
        return app.scan_running, "escape" in _shown(app.screen)

    assert drive(app, script) == (False, False)


def test_stop_walk_offered_before_the_walk_ends(store):
    from inspector.tui.app import create_app

    app = create_app(store, background_scan=False)

    async def script(pilot):
        # as while the worker walks; set once the app has settled (drive's settle waits for scan_running to end:
        # set before the run, it waited its whole 30 s bound)
        app.scan_running = True
        app.screen.refresh_bindings()
        return _shown(app.screen).get("escape")

    assert drive(app, script) == "Stop walk"


def test_problems_says_nothing_found_once_verify_has_run(store):
    from inspector.tui.app import create_app
    from inspector.tui.widgets.safe import SafeStatic

    app = create_app(store, background_scan=False, screen="problems")

    async def script(pilot):
        before = str(app.screen.query_one("#problems-detail", SafeStatic).render())
        await pilot.press("v")
        await settle(pilot, rounds=6)
        return before, len(app.all_problems()), str(app.screen.query_one("#problems-detail", SafeStatic).render())

    before, found, after = drive(app, script)
    assert "so far" in before
    assert found == 0 and "nothing found" in after and "so far" not in after


def _footer(app) -> str:
    return screen_text(app).splitlines()[-1]


@pytest.mark.parametrize(("name", "flag", "words"), [("problems", "verifying", "esc Cancel verify"),
                                                     ("messages", "scanning", "esc Cancel scan"),
                                                     ("search", "running", "esc Cancel")])
def test_cancel_offered_only_while_there_is_something_to_cancel(store, name, flag, words):
    """Issue 33, found driving the app: Problems offered `esc Cancel verify` before and after verify, Messages `esc
    Cancel scan` after its scan was done; esc did nothing then. Search offered `esc Cancel` with no search running."""
    from inspector.tui.app import create_app

    app = create_app(store, background_scan=False, screen=name)

    async def script(pilot):
        screen = app.screen
        if name == "search":  # its pattern field has focus on entry (escape there leaves the field)
            await pilot.press("escape")
            await settle(pilot)
        before = _footer(app), "escape" in _shown(screen)
        if name == "problems":
            await pilot.press("v")  # verify runs and ends
            await settle(pilot)
        after = _footer(app), "escape" in _shown(screen)
        setattr(screen, flag, True)  # as while the worker runs
        await until(pilot, lambda: words in _footer(app), 5)
        during = _footer(app), "escape" in _shown(screen)
        setattr(screen, flag, False)
        await until(pilot, lambda: words not in _footer(app), 5)
        return before, after, during, (_footer(app), "escape" in _shown(screen))

    before, after, during, ended = drive(app, script)
    for footer, offered in (before, after, ended):
        assert words not in footer and not offered, footer
    assert words in during[0] and during[1]


WIDTHS = (80, 90, 100, 105, 110, 120)
# what lengthens a footer while something runs: the flag set as the worker sets it, and the binding it brings
BUSY = {"messages": ("scanning", "esc Cancel scan"), "problems": ("verifying", "esc Cancel verify"),
        "overview": ("app.scan_running", "esc Stop walk"), "search": ("running", "esc Cancel")}


def _set_busy(app, flag: str, value: bool) -> None:
    owner, name = (app, flag.removeprefix("app.")) if flag.startswith("app.") else (app.screen, flag)
    setattr(owner, name, value)
    app.screen.refresh_bindings()


@pytest.mark.parametrize("name", [*SCREEN_NAMES, "message window"])
def test_help_and_quit_whole_in_the_footer_at_every_width(store, name):
    """Issue 33, found driving the app: hex cut `q Quit` at 100-106 columns, Messages at 100-109, the message
    window had neither; the msgId and search fields take `?` and `q` (the footer says `f1 Help` and `^q Quit`
    then). At each width, idle and while a walk, scan or verify lengthens the footer."""
    from inspector.engine import Store
    from inspector.tui.app import create_app

    other = Store(SAMPLE) if name == "diff" else None
    kw = {"goto": 0} if name == "message window" else {"screen": name, "compare": other}
    app = create_app(store, background_scan=False, **kw)

    async def script(pilot):
        seen: list[tuple[int, str, str]] = []
        for width in WIDTHS:
            await pilot.resize_terminal(width, 30)
            await settle(pilot)
            if name in ("ids", "search"):  # the id or search field has focus on entry
                app.screen.action_edit()
                await settle(pilot)
                seen.append((width, "field", _footer(app)))
                await pilot.press("escape")
                await settle(pilot)
            seen.append((width, "idle", _footer(app)))
            if name in BUSY:
                flag, words = BUSY[name]
                _set_busy(app, flag, True)
                await until(pilot, lambda: words in _footer(app), 5)  # noqa: B023 - awaited in this round
                seen.append((width, "busy", _footer(app)))
                _set_busy(app, flag, False)
                await until(pilot, lambda: words not in _footer(app), 5)  # noqa: B023
        return seen

    try:
        seen = drive(app, script)
    finally:
        if other is not None:
            other.close()
    for width, state, footer in seen:
        where = f"{name} at {width} columns ({state}): {footer!r}"
        if state == "field":
            assert "f1 Help" in footer and "^q Quit" in footer, where
        else:
            assert "? Help" in footer and " q Quit" in footer and "^q" not in footer, where
        if state == "busy":
            assert BUSY[name][1] in footer, where
