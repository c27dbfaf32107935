"""The terminal UI's search screen (issue 31 item 1) on the committed sample store: reached with ``f`` and the
command palette; its hits are the engine's grep's (the same records, in log order); enter, ``x`` and ``s`` open a
hit; a topic the store does not know names the one meant; a key search without a topic asks every topic's index
first and scans the log on ``r``; the limit, a cancelled search and a body searched only partly are said; store
text (markup, escape sequences) shown escaped. And a snapshot of the screen."""

from __future__ import annotations

import asyncio

from hostile_tui import ESCAPED_BODY, painted, write_hostile_store
from textual.widgets import DataTable, Static
from tui_helpers import SIZE, drive, settle, static_text

from inspector.engine import GrepHit, Store, compile_pattern, grep
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from inspector.engine.read.search import grep as grep_module
from inspector.tui.app import create_app
from inspector.tui.screens.dialogs import MessageScreen, help_text

AMOUNT = r'"amount":"9\d\.'  # README's example: two PaymentEvents hits in sample_store


def engine_hits(store, text: str, **options) -> list[int]:
    """The physical offsets grep finds, straight from the engine."""
    fixed, ignore_case = options.pop("fixed", False), options.pop("ignore_case", False)
    pattern = compile_pattern(text, fixed=fixed, ignore_case=ignore_case)
    return [h.message.physical_offset for h in grep(store, pattern, **options) if isinstance(h, GrepHit)]


def shown(app) -> tuple[list[int], list[tuple[str, ...]], str, str]:
    """What the search screen shows: the hits' offsets, the table's rows, the status line, the notes."""
    screen = app.views["search"]
    table = screen.query_one("#search-hits", DataTable)
    rows = [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]
    return ([h.message.physical_offset for h in screen.hits], rows,
            static_text(screen.query_one("#search-status", Static)),
            static_text(screen.query_one("#search-notes", Static)))


def search_then(app, pattern: str, **options):
    async def script(pilot):
        await settle(pilot)
        app.show_search(pattern, **options)
        await settle(pilot)
        return shown(app)

    return drive(app, script)


def test_f_and_typing_a_pattern_finds_what_grep_finds(store):
    app = create_app(store, background_scan=False)

    async def script(pilot):
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        mode = app.current_mode
        await pilot.press(*AMOUNT, "tab", *"PaymentEvents", "enter")
        await settle(pilot)
        return mode, shown(app)

    mode, (offsets, rows, status, notes) = drive(app, script)
    assert mode == "search"
    assert offsets == engine_hits(store, AMOUNT, topic="PaymentEvents") == [113348, 161913]
    assert rows[0][:5] == ("113,348", "PaymentEvents", "2", "19", "2025-09-19 13:48:09.632 +00:00")
    assert rows[0][5] == "body" and '"amount":"99.' in rows[0][6]
    assert "done: 2 hit(s)" in status and "partial" not in notes


def test_ignore_case_in_keys_and_a_tag_match_the_engine(store):
    options = {"fields": ("keys",), "ignore_case": True}
    offsets, rows, _status, _notes = search_then(create_app(store, background_scan=False), r"COUPON-\w+",
                                                 fields="keys", ignore_case=True)
    assert offsets and offsets == engine_hits(store, r"COUPON-\w+", **options)
    assert all(r[5] in ("KEYS", "UNIQ_KEY") for r in rows)
    tagged = engine_hits(store, "order", tag="created")
    assert search_then(create_app(store, background_scan=False), "order", tag="created")[0] == tagged


def test_a_time_window_is_grep_since_until(store):
    since, until = 1_758_289_689_632, 1_758_294_000_000  # 113348's store time; a time between records
    offsets, _rows, status, _notes = search_then(create_app(store, background_scan=False), "order-11",
                                                 since="2025-09-19 13:48:09.632", until=str(until))
    assert offsets and offsets == engine_hits(store, "order-11", since=since, until=until)
    assert offsets != engine_hits(store, "order-11")
    assert "since 2025-09-19 13:48:09.632 +00:00 until 2025-09-19 15:00:00.000 +00:00" in status
    offsets, _rows, status, _notes = search_then(create_app(store, background_scan=False), "order-11",
                                                 since=str(until), until=str(since))
    assert offsets == [] and "is after --until" in status
    offsets, _rows, status, _notes = search_then(create_app(store, background_scan=False), "order-11", since="13:48")
    assert offsets == [] and "since must be a store time" in status and "'13:48'" in status


def test_enter_opens_a_hit_x_shows_its_bytes_s_its_story(store):
    app = create_app(store, background_scan=False, screen="search")

    async def script(pilot):
        await settle(pilot)
        app.show_search(AMOUNT, topic="PaymentEvents")
        await settle(pilot)
        app.views["search"].query_one("#search-hits", DataTable).move_cursor(row=1)
        await pilot.press("enter")
        await settle(pilot)
        opened = app.screen.phy_offset if isinstance(app.screen, MessageScreen) else None
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        hex_at = (app.current_mode, app.views["hex"].hex_view.cursor)
        app.switch_mode("search")
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        return opened, hex_at, app.current_mode, app.views["story"].ref

    opened, hex_at, mode, ref = drive(app, script)
    assert opened == 161913 and hex_at == ("hex", 161913)
    assert (mode, ref) == ("story", "161913")


def test_an_unknown_topic_names_the_one_meant(store):
    offsets, _rows, status, notes = search_then(create_app(store, background_scan=False), "order",
                                                topic="OrderEvent")
    assert offsets == [] and "done: 0 hit(s)" in status
    assert "no topic 'OrderEvent' in this store's consume queues or topics.json; did you mean OrderEvents?" in notes


def test_the_topic_field_completes_from_the_store_topics(store):
    app = create_app(store, background_scan=False, screen="search")

    async def script(pilot):
        await settle(pilot)
        await pilot.press("tab", *"Pay")
        await settle(pilot)
        await pilot.press("right")
        return app.views["search"].query_one("#s-topic").value

    assert drive(app, script) == "PaymentEvents"


def test_a_key_search_asks_every_topic_index_first_and_scans_on_r(store):
    app = create_app(store, background_scan=False)

    async def script(pilot):
        await settle(pilot)
        app.show_search("order-1108", fields="keys", regex=False)
        await settle(pilot)
        by_index = shown(app)
        await pilot.press("r")
        await settle(pilot)
        return by_index, shown(app)

    (index_offsets, rows, status, notes), (scan_offsets, _rows, scan_status, scan_notes) = drive(app, script)
    assert index_offsets == sorted(index_offsets) and len(index_offsets) == 7
    assert all(r[6].split().count("order-1108") == 1 and r[5] == "KEYS" for r in rows)
    assert "7 message(s) with this exact key in the indexes" in status
    assert "every topic's index (8 topics) asked for the exact key 'order-1108'" in notes
    assert "r searches the whole log" in notes
    # the scan: grep's answer, the same seven here (no key merely contains order-1108)
    assert scan_offsets == engine_hits(store, "order-1108", fixed=True, fields=("keys",)) == index_offsets
    assert "done: 7 hit(s)" in scan_status and "index:" not in scan_notes


def test_the_limit_and_a_cancelled_search_are_said(store):
    offsets, _rows, status, notes = search_then(create_app(store, background_scan=False), "order", limit=2)
    assert offsets == engine_hits(store, "order")[:2]
    assert "the limit reached: 2 hit(s)" in status
    assert "a partial answer: the first 2 hit(s) (the limit): the log was searched up to physical offset" in notes
    app = create_app(store, background_scan=False, screen="search")

    async def script(pilot):
        await settle(pilot)
        screen = app.views["search"]
        screen.search("order")
        screen.action_cancel()  # before the worker's thread ran: the screen stops waiting all the same
        await settle(pilot)
        return screen.running, shown(app)

    running, (offsets, _rows, status, _notes) = drive(app, script)
    assert not running and offsets == [] and "stopped: 0 hit(s) so far" in status


def test_a_bad_pattern_is_said_and_nothing_runs(store):
    offsets, _rows, status, _notes = search_then(create_app(store, background_scan=False), "order-(")
    assert offsets == [] and "invalid regular expression 'order-('" in status


def test_a_body_searched_only_partly_is_said(tmp_path, monkeypatch):
    monkeypatch.setattr(grep_module, "BODY_LIMIT", 10)
    root = tmp_path / "s"
    with StoreWriter(root, Geometry(segment_size=1 << 16, index_slots=64, index_items=256)) as w:
        w.append(MessageSpec("T", b"0123456789 NEEDLE", compression="zlib", store_timestamp=1_758_272_400_000))
        w.append(MessageSpec("T", b"NEEDLE first", compression="zlib", store_timestamp=1_758_272_401_000))
    with Store(root) as store:
        offsets, _rows, _status, notes = search_then(create_app(store, background_scan=False), "NEEDLE")
    assert len(offsets) == 1  # the second: its NEEDLE is in the first 10 bytes
    assert "info (body-search-cut): commitlog/00000000000000000000 @ 0:" in notes
    assert "only its first ones were searched" in notes


def test_store_text_on_the_search_screen_is_escaped(tmp_path):
    root = tmp_path / "store"
    write_hostile_store(root)

    async def main():
        with Store(root) as store:
            app = create_app(store, screen="search")
            async with app.run_test(size=SIZE, notifications=True) as pilot:
                await settle(pilot)
                app.show_search("RED")
                await settle(pilot)
                body = painted(app)
                app.show_search("click", fields="keys,props", regex=False)
                await settle(pilot)
                return body, painted(app), app.control_net.hits, app.is_running

    body, keys, hits, running = asyncio.run(main())
    assert ESCAPED_BODY[:12] in body  # the ESC [31m before RED shown as text
    assert "[@click=app.quit]" in keys  # markup shown as written, not read (clicking it would quit)
    assert hits == 0 and running


def test_help_and_the_palette_name_the_search(store):
    text = help_text().plain
    assert "search the log" in text and "rmq-inspect grep STORE PATTERN" in text
    app = create_app(store, background_scan=False)

    async def script(pilot):
        return [c.title for c in app.get_system_commands(app.screen)]

    commands = drive(app, script)
    assert "Search: bodies, keys, tags, properties" in commands and "Go to Search the log" in commands


def test_search_screen_snapshot(snap_compare, store):
    async def run_before(pilot):
        await settle(pilot)
        pilot.app.show_search(AMOUNT, topic="PaymentEvents")
        await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(create_app(store, background_scan=False, screen="search"), terminal_size=SIZE,
                        run_before=run_before)
