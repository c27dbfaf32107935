"""Deep links (issue 33): ``rmq-inspect tui STORE --goto REF --screen NAME --key TOPIC KEY`` and the store-opening
options carried into the app (C copies commands with them); a bad REF or screen name is one line and its exit
code before the app starts; the bare ``rmq-inspect STORE`` form takes them too."""

from __future__ import annotations

import pytest
from tui_helpers import SAMPLE, drive, settle

from inspector.cli.main import main
from inspector.tui.app import RmqInspectApp, create_app
from inspector.tui.screens.dialogs import MessageScreen

UNIQ = "0A14010B47372A139A555EA0DB42002D"  # the sample store's first message (offset 0)


@pytest.fixture
def started(monkeypatch):
    """The apps ``main`` would run, recorded instead of run (no terminal in a test)."""
    apps: list[RmqInspectApp] = []

    def run(self, *args, **kwargs):
        apps.append(self)

    monkeypatch.setattr(RmqInspectApp, "run", run)
    return apps


def cli(capsys, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    return code, capsys.readouterr().err


def test_goto_screen_key_and_options_reach_the_app(started, capsys):
    code, err = cli(capsys, "--utc", "tui", str(SAMPLE), "--goto", "14,924", "--screen", "problems",
                    "--delay-levels", "1s 5s", "--index-items", "20000")
    assert (code, err) == (0, "")
    app = started[0]
    assert app.goto == 14924 and app.first_screen == "problems" and app.start_key is None
    assert app.launch.store == str(SAMPLE) and app.launch.utc
    assert app.launch.options == (("--index-items", "20000"), ("--delay-levels", "1s 5s"))


def test_an_id_as_goto_and_key_opens_the_chain(started, capsys):
    assert cli(capsys, "tui", str(SAMPLE), "--goto", UNIQ, "--key", "OrderEvents", "order-1108")[0] == 0
    app = started[0]
    assert app.goto == 0 and app.first_screen == "chain" and app.start_key == ("OrderEvents", "order-1108")


def test_the_bare_store_form_takes_them(started, capsys, monkeypatch):
    monkeypatch.setattr("inspector.cli.main._tui_available", lambda: True)
    assert cli(capsys, str(SAMPLE), "--goto", "0x0", "--screen", "hex")[0] == 0
    assert started[0].goto == 0 and started[0].first_screen == "hex"


@pytest.mark.parametrize("argv, code, says", [
    (("--screen", "nope"), 2, "--screen nope: no such screen; one of overview, hex, messages"),
    (("--goto", "not-an-offset"), None, ""),
    (("--goto", "99999999999"), None, ""),
    (("--goto", UNIQ[:-1] + "0"), None, ""),
])
def test_a_bad_ref_or_screen_is_one_line_before_the_app(started, capsys, argv, code, says):
    got, err = cli(capsys, "tui", str(SAMPLE), *argv)
    if code is None:  # a REF: what `show` says and exits with for it
        show_code, show_err = cli(capsys, "show", str(SAMPLE), argv[1])
        code, says = show_code, show_err.strip()
        assert code != 0
    assert got == code and says in err and err.count("\n") == 1 and err.startswith("rmq-inspect: ")
    assert "Traceback" not in err and started == []


def test_the_app_opens_on_the_message_and_the_walked_key(store):
    app = create_app(store, background_scan=False, screen="chain", goto=14924, key=("OrderEvents", "order-1108"))

    async def script(pilot):
        await settle(pilot)
        message = app.screen
        chain = app.views["chain"]
        return (isinstance(message, MessageScreen) and message.phy_offset, chain.walked,
                app.screen_stack[0] is chain)

    assert drive(app, script) == (14924, ("OrderEvents", "order-1108"), True)
