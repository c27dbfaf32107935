"""Store text on the terminal UI (issue 27 item 1, issue 35): a producer's controls shown escaped and its markup
shown literally on every screen, folder and file names too; nothing the store chose reaches the terminal raw.

Each test runs the app on a store made by our writer (``hostile_tui``) and reads the painted screen: every
segment of text is checked for control characters (``painted``), and the app's last net (``ControlNet``, which
would escape a missed one) must not have had to: ``control_net.hits == 0`` proves the screens escaped it first.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from hostile_tui import (
    ESCAPED_BODY,
    ESCAPED_KEY,
    ESCAPED_TAG,
    ESCAPED_TOPIC_DIR,
    KEY,
    MARKUP,
    MARKUP_TOPIC,
    TOPIC,
    TOPIC_DIR,
    painted,
    write_hostile_dledger_store,
    write_hostile_store,
)
from rich.text import Text
from textual.widgets import Static
from tui_helpers import settle, static_text

from inspector.engine import Store, has_terminal_controls
from inspector.tui.app import create_app
from inspector.tui.fmt import esc, safe
from inspector.tui.widgets.forminput import pictured
from inspector.tui.widgets.messagedetail import MessageDetail
from inspector.tui.widgets.messagelist import MessageList
from inspector.tui.widgets.safe import SafeTable

SIZE = (120, 36)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("hostile") / "store"
    return root, write_hostile_store(root)


def run(root: Path, script, screen: str = "overview"):
    """``await script(app, pilot)`` with the app on ``root`` (notifications shown as toasts, as a user sees
    them); the net's count is returned with what the script returns."""

    async def main():
        with Store(root) as store:
            app = create_app(store, screen=screen)
            async with app.run_test(size=SIZE, notifications=True) as pilot:
                await settle(pilot)
                got = await script(app, pilot)
                return got, app.control_net.hits

    return asyncio.run(main())


# -- (a) the store, screen by screen ----------------------------------------------------------------------


def test_the_messages_screen_shows_the_rows_escaped(hostile):
    """The issue: the Messages screen of this store was blank (a key ESC [ 2 J cleared the terminal)."""
    root, got = hostile

    async def script(app, pilot):
        shown = painted(app)
        lst = app.screen.query_one(MessageList)
        rows = [lst.row_text(i, 100) for i in range(len(lst.source))]
        detail = static_text(app.screen.query_one(MessageDetail).query_one(".detail-content", Static))
        await pilot.press("b")  # the body as pretty JSON, then as hex
        await settle(pilot)
        as_json = static_text(app.screen.query_one(MessageDetail).query_one(".detail-content", Static))
        return shown, rows, detail, as_json

    (shown, rows, detail, as_json), hits = run(root, script, "messages")
    assert len(rows) == 4 and all(rows)
    assert rows[0].split()[0] == str(got["evil"].physical_offset)
    for text in (ESCAPED_KEY, ESCAPED_TAG, ESCAPED_TOPIC_DIR, "4 messages"):
        assert text in shown
    for text in (ESCAPED_KEY, ESCAPED_TAG, ESCAPED_BODY, "p\\x1b[2J", "v\\x07\\u202eRTL", "a\\x7fb\\x85c", *MARKUP,
                 "[bold]b[/bold] [@click=app.quit]q[/] [link=file:///etc/passwd]z[/]"):
        assert text in detail, text
    assert "not JSON" in as_json and ESCAPED_BODY in as_json
    assert not has_terminal_controls(detail.replace("\n", "")) and not has_terminal_controls(as_json.replace("\n", ""))
    assert hits == 0


def test_a_body_that_is_no_utf8_and_json_with_escaped_controls(hostile):
    root, got = hostile

    async def script(app, pilot):
        texts = []
        for offset in (got["folder"].physical_offset, got["markup"].physical_offset):
            if len(app.screen_stack) > 1:
                app.pop_screen()
            app.show_message(offset)
            await settle(pilot)
            detail = app.screen.query_one(MessageDetail)
            texts.append(static_text(detail.query_one(".detail-content", Static)))
            await pilot.press("b")  # pretty JSON
            await settle(pilot)
            texts.append(static_text(detail.query_one(".detail-content", Static)))
            texts.append(painted(app))
        return texts

    texts, hits = run(root, script)
    folder_text, folder_json, folder_screen, markup_text, _markup_json, markup_screen = texts
    assert ESCAPED_TOPIC_DIR in folder_text and ESCAPED_TOPIC_DIR in folder_screen
    assert '"k": "\\u001b[2J\\u202e"' in folder_text  # as stored: JSON's own escapes
    # parsed and pretty-printed: JSON spells ESC \u001b itself, the RTL override (JSON leaves it) is escaped here
    assert "Body (json" in folder_json and '"k": "\\u001b[2J\\u202e"' in folder_json
    assert "\\xff\\xfe not UTF-8 \\x1b[2J" in markup_text  # bytes that are no UTF-8 shown as \xNN
    assert MARKUP_TOPIC in markup_screen and "[bold]T[/bold]" in markup_screen
    assert hits == 0


def test_the_overview_names_hostile_folders_escaped(hostile):
    """Issue 35: a topic folder, a stray queue folder, a stray index file and a consumer group, each named
    with controls or markup."""
    root, _ = hostile

    async def script(app, pilot):
        return painted(app), app.sub_title

    (shown, sub_title), hits = run(root, script)
    assert f"{ESCAPED_TOPIC_DIR}  1 queue(s), 1 messages" in shown
    assert f"{MARKUP_TOPIC}  1 queue(s)" in shown
    assert "consumequeue/Evil/q\\x1b[2J" in shown
    assert "g\\x1b[2J[bold]G lag 1" in shown  # the lagging topic is open: its queue names the group
    assert sub_title == "store"
    assert hits == 0


def test_a_dledger_member_folder_named_with_controls(tmp_path):
    root = tmp_path / "store"
    write_hostile_dledger_store(root)

    async def script(app, pilot):
        return painted(app)

    shown, hits = run(root, script)
    assert "DLedger  dledger-n\\x1b]0;PWNED\\x07: 1 entries" in shown
    assert hits == 0


def test_hex_chain_ids_problems_timer_tour_and_exercises(hostile):
    root, got = hostile
    evil = got["evil"]

    def walk_the_timer_slot(app):
        timer = app.views["timer"]
        timer.walk(int(str(timer.query_one("#timer-slots", SafeTable).get_row_at(0)[0])))

    steps = {  # each screen, in the order a user might go: what brings it up
        "hex": lambda app: app.show_hex(evil.physical_offset + 200),  # inside PROPERTIES: the status quotes it
        "chain": lambda app: app.show_chain(TOPIC, KEY),
        "window": None,  # enter on the chain's hop: its message in a window
        "ids": lambda app: (app.pop_screen(), app.resolve(evil.msg_id)),
        "problems": lambda app: app.switch_mode("problems"),
        "timer": lambda app: app.switch_mode("timer"),
        "timer hop": walk_the_timer_slot,
        "exercises": lambda app: app.switch_mode("exercises"),
        "tour": lambda app: app.switch_mode("tour"),
        "help": lambda app: app.action_help(),
    }

    async def script(app, pilot):
        shown = {}
        for name, step in steps.items():
            if step is None:
                await pilot.press("enter")
            else:
                step(app)
            await settle(pilot)
            shown[name] = painted(app)
        return shown

    shown, hits = run(root, script)
    assert "PROPERTIES" in shown["hex"] and ESCAPED_TAG in shown["hex"] and ESCAPED_KEY in shown["hex"]
    assert f"key string  {TOPIC}#{ESCAPED_KEY}" in shown["chain"] and "✔ match" in shown["chain"]
    assert "k␛[2Jx" in shown["chain"]  # the key field: one symbol per control, the value itself kept
    assert ESCAPED_BODY in shown["window"] and ESCAPED_KEY in shown["window"]
    assert "found as offset msgId" in shown["ids"]
    assert "index/junk\\x1b]0;PWNED\\x07 @ 0" in shown["problems"]
    assert "T\\x1b]0;PWNED" in shown["timer hop"]  # the hop's topic (the column cuts the rest)
    assert "Exercises on this store" in shown["exercises"]
    assert "Step 1/" in shown["tour"]
    assert "rmq-inspect" in shown["help"]
    assert hits == 0


def test_a_notification_quoting_the_store_is_escaped_and_not_markup(hostile):
    root, _ = hostile

    async def script(app, pilot):
        app.show_messages(topic=TOPIC_DIR, queue=5)  # no such queue: a toast quotes the topic
        await settle(pilot)
        app.notify(f"[@click=app.quit]{KEY}[/]", title="t\x1b[2J[b]")  # what any screen's notify gets
        await settle(pilot)
        return painted(app), app.is_running

    (shown, running), hits = run(root, script)
    assert f"'{ESCAPED_TOPIC_DIR}' queue 5" in shown
    assert f"[@click=app.quit]{ESCAPED_KEY}[/]" in shown and "t\\x1b[2J[b]" in shown
    assert running
    assert hits == 0


# -- (b) markup in store text shown literally ---------------------------------------------------------------


def test_markup_in_keys_tags_and_topics_is_text(hostile):
    root, got = hostile

    async def script(app, pilot):
        app.show_messages(topic=MARKUP_TOPIC)
        await settle(pilot)
        shown = painted(app)
        app.show_chain(MARKUP_TOPIC, MARKUP[1])
        await settle(pilot)
        chain = painted(app)
        return shown, chain, app.is_running

    (shown, chain, running), hits = run(root, script)
    assert f"{MARKUP_TOPIC}   0        0 [bold]T[/bo…" in shown  # the row: the tag cut to its column, not bold
    for text in MARKUP:  # the detail's keys, each as typed
        assert text in shown
    assert f"{MARKUP_TOPIC}#{MARKUP[1]}" in chain and "✔ match" in chain
    assert running  # [@click=app.quit] was no link to quit
    assert hits == 0


# -- the helpers and the net --------------------------------------------------------------------------------


def test_safe_escapes_inside_a_text_and_keeps_its_styles():
    text = Text.assemble(("a\x1b[2J", "bold"), ("b\u202ec", "red"), "\nline\tnext")
    out = safe(text)
    assert out.plain == "a\\x1b[2Jb\\u202ec\nline\tnext"
    styles = {out.plain[s.start:s.end]: str(s.style) for s in out.spans}
    assert styles["a"] == "bold" and styles["\\x1b"] == "bold" and styles["\\u202e"] == "red"
    assert safe("[bold]x\x07").plain == "[bold]x\\x07" and safe("[bold]x").spans == []
    same = Text("plain")
    assert safe(same) is same and esc("k\x1b[2Jx") == ESCAPED_KEY and esc(None) == ""


def test_a_filter_field_shows_one_symbol_per_control():
    assert pictured(TOPIC_DIR) == "T␛]0;PWNED␇␛[2J" and len(pictured(TOPIC_DIR)) == len(TOPIC_DIR)
    assert pictured("a\x7fb\x85c\u202e") == "a␡b�c�" and pictured("plain") == "plain"


def test_the_net_escapes_what_a_screen_forgot_and_counts_it(hostile):
    """A plain Static given a raw ESC (what a view that forgot the rule would do): the net escapes it on the
    way to the terminal, keeps the line's width, and counts it."""
    root, _ = hostile

    async def script(app, pilot):
        before = app.control_net.hits
        await app.screen.mount(Static(Text("forgot \x1b[2J here \u202e"), id="forgot"))
        await settle(pilot)
        return painted(app), app.control_net.hits - before

    (shown, counted), _ = run(root, script)
    assert "forgot \\x1b[2J here \\u202e" in shown
    assert counted >= 1


def test_bytes_that_are_no_utf8_in_a_record_and_a_folder_name(tmp_path):
    """Names and properties that are no UTF-8 reach the views as lone surrogates (the engine decodes with
    surrogateescape): written raw, the terminal's encoder would fail; shown as \\xNN."""
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter
    from inspector.engine.model.geometry import Geometry

    root = tmp_path / "store"
    with StoreWriter(root, Geometry(segment_size=64 << 10, cq_file_size=20 * 64, index_slots=64, index_items=256)) as w:
        w.append(MessageSpec("TopicQQ", b"b", keys=["kQQx"], tags="tQQ", store_timestamp=1_758_272_400_000))
    segment = root / "commitlog" / f"{0:020d}"
    segment.write_bytes(segment.read_bytes().replace(b"QQ", b"\xff\xfe"))  # topic, tags and key: same length
    os.mkdir(os.fsencode(root / "consumequeue" / "TopicQQ") + b"/q\xff\x1b[2J")  # a folder name that is no UTF-8

    async def script(app, pilot):
        overview = painted(app)
        app.switch_mode("messages")
        await settle(pilot)
        lst = app.screen.query_one(MessageList)
        return overview, painted(app), lst.row_text(0, 100), app.is_running

    (overview, shown, row, running), hits = run(root, script)
    assert "consumequeue/TopicQQ/q\\xff\\x1b[2J" in overview  # the census names the stray folder
    assert "Topic\\xff\\xfe" in row and "t\\xff\\xfe" in row and "k\\xff\\xfex" in row
    assert "Topic\\xff\\xfe" in shown and running
    assert hits == 0
