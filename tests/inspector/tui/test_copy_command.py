"""Copy as command (issue 33): ``C`` on every screen copies the ``rmq-inspect … --json`` line printing what it
shows; each copied line, run through the CLI in-process, exits 0 and its JSON names what the screen showed."""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path

import pytest
from tui_helpers import SAMPLE, drive, settle

from inspector.cli.main import main
from inspector.engine import Store
from inspector.tui.app import create_app
from inspector.tui.copyout import Command, Launch

sys.path.insert(0, str(Path(__file__).parents[2]))
from timer_store import write_timer_store  # noqa: E402

FIRST = 0  # the sample store's first message: OrderEvents, keys order-1108 customer-143
FIRST_ID = "0A14000500002A9F0000000000000000"


@pytest.fixture
def cli(capsys, monkeypatch):
    """``cli(argv)``: main's exit code and its stdout (stdin empty: exercises asks nothing)."""

    def run(argv: list[str]) -> tuple[int, str]:
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        capsys.readouterr()
        code = main(argv)
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        return code, out

    return run


def copied(app, setup, store=None) -> str:
    async def script(pilot):
        await setup(app, pilot)
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot, 1)
        return app.clipboard

    return drive(app, script)


async def nothing(app, pilot):
    pass


def go(mode):
    async def setup(app, pilot):
        app.switch_mode(mode)
        await settle(pilot)

    return setup


def lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def doc(out: str) -> dict:
    return json.loads(out)


async def message_window(app, pilot):
    app.show_message(FIRST)


async def queue_listing(app, pilot):
    app.show_messages(topic="OrderEvents", queue=1)


async def key_listing(app, pilot):
    app.show_messages(topic="OrderEvents", key="order-1108")


async def chain(app, pilot):
    app.show_chain("OrderEvents", "order-1108")


async def search(app, pilot):
    app.show_search("order-1108", fields="keys")


async def stats_by_queue(app, pilot):
    app.switch_mode("stats")
    await settle(pilot)
    await pilot.press("b")


async def group(app, pilot):
    app.view("groups").show_group(GROUP)


async def story(app, pilot):
    app.show_story(str(FIRST))


async def hex_record(app, pilot):
    app.show_hex(FIRST)


async def ids(app, pilot):
    app.resolve(FIRST_ID)


async def tour_step(app, pilot):
    app.switch_mode("tour")
    await settle(pilot)


GROUP = "fulfillment-consumer"  # the sample store's (config/consumerOffset.json)

CASES = {
    "overview": (nothing, "info", lambda out: doc(out)["segments"]),
    "problems": (go("problems"), "verify", lambda out: doc(out)["ok"] is True),
    "message": (message_window, "show", lambda out: doc(out)["physical_offset"] == FIRST),
    "queue listing": (queue_listing, "messages",
                      lambda out: {(m["topic"], m["queue_id"]) for m in lines(out)} == {("OrderEvents", 1)}),
    "key listing": (key_listing, "key", lambda out: doc(out)["key"] == "order-1108"
                    and all("order-1108" in m["keys"] for m in doc(out)["messages"])),
    "chain": (chain, "chain", lambda out: doc(out)["key_string"] == "OrderEvents#order-1108"),
    "search": (search, "grep", lambda out: FIRST in {h["physical_offset"] for h in lines(out)}),
    "stats": (stats_by_queue, "stats", lambda out: doc(out)["by"] == "queue"),
    "groups": (go("groups"), "groups", lambda out: GROUP in {g["group"] for g in doc(out)["groups"]}),
    "group": (group, "group", lambda out: doc(out)["group"] == GROUP),
    "story": (story, "story", lambda out: doc(out)["records"][0]["physical_offset"] == FIRST),
    "hex": (hex_record, "hex", lambda out: doc(out)["offset"] == FIRST and doc(out)["length"] == 462),
    "ids": (ids, "decode-id", lambda out: doc(out)["offset_msg_id"]["physical_offset"] == FIRST),
    "tour": (tour_step, "tour", lambda out: doc(out)["number"] == 1),
    "exercises": (go("exercises"), "exercises", lambda out: doc(out)["total"] == 12),
    "salvage": (go("salvage"), "salvage", lambda out: doc(out)["spans"][0]["state"] == "intact"),
}


@pytest.mark.parametrize("case", CASES)
def test_each_screen_copies_a_command_the_cli_runs(case, store, cli):
    setup, sub, check = CASES[case]
    app = create_app(store, background_scan=False)
    line = copied(app, setup)
    argv = shlex.split(line)
    assert argv[:3] == ["rmq-inspect", sub, str(SAMPLE)] or (sub == "decode-id" and argv[1] == sub)
    assert argv[-1] == "--json"
    code, out = cli(argv[1:])
    assert code == 0, line
    assert check(out), line


def test_the_timer_screen_copies_its_slot(tmp_path, cli):
    root = tmp_path / "store"
    write_timer_store(root)
    slot = 1_700_000_060 % 1_209_600
    with Store(root) as store:
        app = create_app(store, background_scan=False, screen="timer")

        async def walk(app, pilot):
            await settle(pilot)
            app.views["timer"].walk(slot)

        line = copied(app, walk)
    code, out = cli(shlex.split(line)[1:])
    assert shlex.split(line)[1:5] == ["timer", str(root), "--slot", str(slot)]
    assert code == 0 and doc(out)["slot"] == slot


def test_the_toast_shows_the_line_and_a_screen_without_one_says_so(store):
    app = create_app(store, background_scan=False, screen="chain")

    async def script(pilot):
        await pilot.press("C")  # nothing walked yet
        await settle(pilot, 1)
        first = [n.message for n in app._notifications][-1]
        app.show_chain("OrderEvents", "order-1108")
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot, 1)
        return first, [n.message for n in app._notifications][-1], app.clipboard

    first, toast, clipboard = drive(app, script)
    assert first.startswith("nothing on this screen to copy as a command")
    assert toast == f"copied: {clipboard}" and clipboard.startswith("rmq-inspect chain ")


def test_a_hostile_topic_stays_one_inert_argument_and_options_are_carried():
    topic = "Pay Events $(touch pwned); `id` 'x\""
    launch = Launch("my store", (("--delay-levels", "1s 5s"), ("--segment-size", "1048576")), utc=True)
    argv = shlex.split(launch.line(Command("messages", ("--topic", topic))))
    assert argv == ["rmq-inspect", "--utc", "messages", "my store", "--topic", topic, "--delay-levels", "1s 5s",
                    "--segment-size", "1048576", "--json"]
    ids = shlex.split(launch.line(Command("decode-id", (FIRST_ID,))))  # no geometry flags there
    assert ids == ["rmq-inspect", "--utc", "decode-id", FIRST_ID, "--store", "my store", "--json"]


def test_the_filters_the_cli_cannot_take_are_named(store, cli):
    app = create_app(store, background_scan=False)

    async def tagged(app, pilot):
        app.show_messages(topic="OrderEvents", tag="created")

    line = copied(app, tagged)
    assert "--tag" not in line
    assert app.views["messages"].command().note.startswith("the tag filter is not in this command")


def test_the_started_options_reach_the_command_and_the_cli_takes_them(store, cli):
    launch = Launch(str(SAMPLE), (("--delay-levels", "1s 5s 10s"), ("--index-items", "20000")))
    app = create_app(store, background_scan=False, launch=launch)
    line = copied(app, message_window)
    argv = shlex.split(line)
    assert argv[argv.index("--delay-levels") + 1] == "1s 5s 10s" and "--index-items" in argv
    code, out = cli(argv[1:])
    assert code == 0 and doc(out)["physical_offset"] == FIRST


def test_a_listing_longer_than_the_cli_default_copies_its_count_as_limit(store, cli, capsys):
    """Issue 33, found driving the app: Messages filtered to PaymentEvents lists 109 messages; the copied command
    had no --limit and printed the CLI's default 100 (saying it stopped there)."""
    app = create_app(store, background_scan=False)

    listed = []

    async def payments(app, pilot):
        app.show_messages(topic="PaymentEvents")
        await settle(pilot)
        listed.append(len(app.views["messages"].message_list.source))

    line = copied(app, payments)
    assert listed == [109]
    listed = listed[0]
    argv = shlex.split(line)
    assert listed == 109 and argv[argv.index("--limit") + 1] == "109", line
    code, out = cli(argv[1:])
    rows = lines(out)
    assert code == 0 and len(rows) == 109 and {m["topic"] for m in rows} == {"PaymentEvents"}

    short = create_app(store, background_scan=False)
    assert "--limit" not in copied(short, queue_listing)  # 100 or fewer listed: the CLI's default prints them all
