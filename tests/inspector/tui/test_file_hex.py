"""The hex screen over a consume-queue, batch consume-queue or index file (issue 33): reached from the overview's
queue and index nodes (x) and by ``--file``, units, header, slots and items named; a damaged file says so."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
from hostile_tui import ESCAPED_TOPIC_DIR, TOPIC_DIR, write_hostile_store
from test_app import record_notifications
from tui_helpers import SAMPLE, screen_text, settle, until

from inspector.engine import Store
from inspector.tui.app import create_app
from inspector.tui.screens.hexscreen import HexScreen
from inspector.tui.widgets.filehexview import FileHexView

sys.path.insert(0, str(Path(__file__).parents[2]))
from batch_store import BATCH_TOPIC, write_batch_store  # noqa: E402

CQ = "consumequeue/OrderEvents/0/00000000000000000000"
INDEX = "index/20250919090000196"
SIZE = (120, 40)


def run(root, script, size=SIZE, **options):
    store = Store(root)
    app = create_app(store, background_scan=False, **options)

    async def main():
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            return await script(app, pilot)

    try:
        return asyncio.run(main())
    finally:
        store.close()


def test_a_consume_queue_file_by_file_option_names_its_units_and_enter_opens_the_record():
    async def script(app, pilot):
        hexed = app.views["hex"]
        await pilot.press("n", "n", "full_stop")  # unit 2, its second field
        await settle(pilot)
        shown = screen_text(app)
        view = hexed.query_one(FileHexView)
        at = view.cursor_info()
        await pilot.press("enter")
        await settle(pilot)
        return shown, at, hexed.file_mode, hexed.hex_view.cursor

    shown, at, mode, cursor = run(SAMPLE, script, screen="hex", file=CQ)
    assert at.position == 48 and at.region.label == "unit 2, queue offset 2" and at.field.name == "size"
    for text in ("queue unit @ 40", "1 CQ offset (commitlog)", "6,409", "2 size", "464", "3 tags code",
                 f"{CQ} @ 48 of 800", "20-byte units, 40 in the file", "field 2 size", "esc Commitlog"):
        assert text in shown, text
    assert "e Next problem" not in shown  # the commitlog's keys leave the footer over a queue file
    assert mode is None and cursor == 6409  # enter: the record the unit points at, in the commitlog's hex


def test_x_on_an_index_file_node_shows_header_slots_and_items_and_escape_goes_back():
    async def script(app, pilot):
        from textual.widgets import Tree

        tree = app.screen.query_one(Tree)
        node = next(n for n in _walk(tree.root) if getattr(n.data, "kind", None) == "indexfile")
        tree.move_cursor(node)
        await pilot.press("x")
        await settle(pilot)
        header = screen_text(app)
        view = app.screen.query_one(FileHexView)
        view.goto(40 + 128 * 4 + 20 * 3 + 4)  # item 3's phyOffset
        await settle(pilot)
        item = screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        return node.data.value, header, item, app.screen.file_mode, view.display, view.chunk(0).layout

    file, header, item, mode, shown, layout = run(SAMPLE, script)
    assert file == INDEX
    assert layout == "header 40 + 128 slots x 4 + 512 items x 20 = 10,792 bytes"  # under the panel's title
    for text in ("index header @ 0", "1 beginTimestamp", "2025-09-19T12:09:53.716+00:00", "6 indexCount",
                 "header 40 + 128 slots x 4"):
        assert text in header, text
    assert "index item" in item and "item 3" in item and "2 phyOffset" in item and "4 prevIndex" in item
    assert mode is None and not shown


def test_a_batch_consume_queue_file_names_the_46_byte_unit(tmp_path):
    write_batch_store(tmp_path / "s")
    rel = f"batchconsumequeue/{BATCH_TOPIC}/0/{0:020d}"

    async def script(app, pilot):
        await pilot.press("n", "full_stop", "full_stop", "full_stop", "full_stop", "full_stop")
        await settle(pilot)
        return screen_text(app)

    shown = run(tmp_path / "s", script, screen="hex", file=rel)
    for text in ("46-byte units", "unit 1, queue offset 1", "4 store timestamp", "5 msg base offset",
                 "6 batch size", "7 compacted offset", "8 reserved", "field 6 batch size"):
        assert text in shown, text


def test_a_torn_consume_queue_file_and_a_short_index_file_say_so(tmp_path):
    root = tmp_path / "sample_store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    with open(root / CQ, "ab") as f:
        f.write(b"\x00\x00\x00\x00\x00\x01\x02")  # 7 bytes of a unit being written
    with open(root / INDEX, "r+b") as f:
        f.truncate(5000)

    def script_for(file):
        async def script(app, pilot):
            seen = record_notifications(app)
            app.show_file_hex(file)
            await settle(pilot)
            await pilot.press("end")
            await settle(pilot)
            return screen_text(app), seen

        return script

    shown, seen = run(root, script_for(CQ))
    assert "damaged: file size 807 is not a multiple of the 20-byte unit: the last 7 bytes are a torn unit" in shown
    assert "unreadable bytes @ 800" in shown and "torn unit: 7 of 20 bytes" in shown
    assert any("torn unit" in text and severity == "warning" for text, severity in seen)
    shown, seen = run(root, script_for(INDEX))
    assert "damaged: file is 5000 bytes, 128 slots and 512 items need 10792" in shown
    assert any("damaged" not in text and INDEX in text for text, _ in seen)


def test_a_queue_file_of_a_topic_named_with_controls_is_shown_escaped(tmp_path):
    write_hostile_store(tmp_path / "s")
    rel = f"consumequeue/{TOPIC_DIR}/0/{0:020d}"

    async def script(app, pilot):
        return screen_text(app)

    shown = run(tmp_path / "s", script, screen="hex", file=rel)
    assert f"consumequeue/{ESCAPED_TOPIC_DIR}/0/" in shown and "\x1b" not in shown


def test_the_file_option_refuses_what_is_no_queue_or_index_file_in_one_line(capsys):
    from inspector.cli.main import main

    for path, code, says in (("nope", 1, "no such file in the store"),
                             ("commitlog/00000000000000000000", 2, "not a consume-queue"),
                             ("/etc/passwd", 2, "not inside the store")):
        assert main(["tui", str(SAMPLE), "--file", path]) == code
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and says in err[0], err


def test_copy_as_command_over_a_file_says_no_command_prints_its_bytes():
    async def script(app, pilot):
        seen = record_notifications(app)
        await pilot.press("n", "C")
        await settle(pilot)
        return seen

    seen = run(SAMPLE, script, screen="hex", file=CQ)
    assert any("rmq-inspect info" in text and f"xxd -s 20 -l 64 {CQ}" in text for text, _ in seen), seen


def test_reload_keeps_the_file_and_the_cursor(tmp_path):
    root = tmp_path / "sample_store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))

    async def script(app, pilot):
        app.screen.query_one(FileHexView).goto(123)
        await pilot.press("R")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, HexScreen)
        return screen.file_mode, screen.query_one(FileHexView).cursor

    assert run(root, script, screen="hex", file=CQ) == (CQ, 123)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_snapshot_of_a_consume_queue_file(snap_compare, store, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("n", "n", "full_stop")
        await settle(pilot)

    assert snap_compare(create_app(store, screen="hex", file=CQ, background_scan=False), terminal_size=size,
                        run_before=run_before)


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_enter_on_a_unit_lands_the_records_layout_and_panel(size):
    """Issue 33, found driving the app: the commitlog's hex, hidden behind the file's since the start, kept the old
    rows (a goto while it had no size never centred), asked the layout of those, and stayed "layout pending" with
    the file's unit in the side panel."""
    inventory = "consumequeue/InventoryEvents/0/00000000000000000000"

    async def script(app, pilot):
        hexed = app.views["hex"]
        await pilot.press("n", "enter")  # unit 1 -> its record at 6,873
        await settle(pilot)
        landed = await until(pilot, lambda: (hexed.hex_view.cursor_info().region or _NONE).kind == "message", 5)
        await settle(pilot)
        return landed, hexed.hex_view.cursor, screen_text(app)

    landed, cursor, shown = run(SAMPLE, script, size=size, screen="hex", file=inventory)
    assert landed and cursor == 6873
    assert "layout pending" not in shown and "queue unit" not in shown
    for text in ("message record @ 6,873", "InventoryEvents q0 #1", "1 TOTALSIZE", "6,873…7,288"):
        assert text in shown, text
    assert any(line.lstrip().startswith("6864 ▶") for line in shown.splitlines())  # the record's rows on screen


class _NONE:
    kind = None


def test_n_and_p_are_named_for_what_they_step_over_a_file():
    """Issue 33, found driving the app: over a queue or index file the footer said `n Next msg` where n steps its
    units (a queue file) or its header, slots and items (an index file)."""
    async def script(app, pilot):
        hexed = app.views["hex"]
        view = hexed.query_one(FileHexView)
        seen = []
        for file in (CQ, INDEX):
            app.show_file_hex(file)
            await settle(pilot)
            footer = screen_text(app).splitlines()[-1]
            await pilot.press("n", "n", "p")
            await settle(pilot)
            seen.append((footer, view.cursor))
        await pilot.press("escape")
        await settle(pilot)
        seen.append((screen_text(app).splitlines()[-1], None))
        return seen

    (queue, at_unit), (index, at_slot), (log, _) = run(SAMPLE, script, screen="hex")
    assert "n Next unit" in queue and "p Prev unit" in queue and "Next msg" not in queue and "item" not in queue
    assert "n Next item" in index and "p Prev item" in index and "Next msg" not in index and "unit" not in index
    assert "n Next msg" in log and "p Prev msg" in log and "unit" not in log and "item" not in log
    assert at_unit == 20 and at_slot == 40  # n n p: the second unit; the index's first slot, after its header
