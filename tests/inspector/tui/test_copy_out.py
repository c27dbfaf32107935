"""Copy out (issue 33): ``y`` on a message copies its msgId, UNIQ_KEY, offset, keys or body (through
``App.copy_to_clipboard``: the app keeps the text in ``clipboard``), with a "copied …" toast that shows store text
escaped; ``w`` in that menu saves the body's bytes as stored, never over a file without a yes."""

from __future__ import annotations

import asyncio

from hostile_tui import ESCAPED_KEY, KEY, write_hostile_store
from tui_helpers import SIZE, drive, settle

from inspector.engine import Store
from inspector.tui.app import create_app


def toasts(app) -> list[str]:
    return [n.message for n in app._notifications]


def first_message(store):
    return next(e for e in store.entries(store.segments[0].start_offset) if hasattr(e, "topic") and e.unique_key
                and e.keys)


def test_yank_each_value_on_the_messages_list(store):
    msg = first_message(store)
    app = create_app(store, background_scan=False, screen="messages")

    async def script(pilot):
        app.show_messages(start=None, topic=msg.topic)
        await settle(pilot)
        lst = app.screen.message_list
        lst.cursor = next(i for i in range(len(lst.source)) if lst.source.offset(i) == msg.physical_offset)
        await settle(pilot)
        got, shown = {}, []
        for key in "iuokb":
            await pilot.press("y", key)
            await settle(pilot, 1)
            got[key] = app.clipboard
            shown.append(toasts(app)[-1])  # a toast expires: each read as it comes
        return got, shown

    got, shown = drive(app, script)
    assert got == {"i": msg.msg_id, "u": msg.unique_key, "o": str(msg.physical_offset), "k": " ".join(msg.keys),
                   "b": msg.body.decode()}
    assert f"copied msgId: {msg.msg_id}" in shown and f"copied UNIQ_KEY: {msg.unique_key}" in shown


def test_yank_in_a_message_window_the_ids_result_and_the_story(store):
    msg = first_message(store)
    app = create_app(store, background_scan=False)

    async def script(pilot):
        got = []
        app.show_message(msg.physical_offset)
        await settle(pilot)
        await pilot.press("y", "u")
        await settle(pilot, 1)
        got.append(app.clipboard)
        await pilot.press("escape")
        app.resolve(msg.msg_id)
        await settle(pilot)
        await pilot.press("y", "o")
        await settle(pilot, 1)
        got.append(app.clipboard)
        app.show_story(str(msg.physical_offset))
        await settle(pilot)
        await pilot.press("y", "i")
        await settle(pilot, 1)
        got.append(app.clipboard)
        return got

    assert drive(app, script) == [msg.unique_key, str(msg.physical_offset), msg.msg_id]


def test_yank_where_there_is_no_message_says_so(store):
    app = create_app(store, background_scan=False, screen="stats")

    async def script(pilot):
        await pilot.press("y")
        await settle(pilot, 1)
        return type(app.screen).__name__, toasts(app), app.clipboard

    name, shown, clipboard = drive(app, script)
    assert name == "StatsScreen" and clipboard == ""
    assert any(s.startswith("no message here to copy from") for s in shown)


def test_the_toast_escapes_store_text_and_the_clipboard_keeps_it(tmp_path):
    root = tmp_path / "store"
    write_hostile_store(root)

    async def main():
        with Store(root) as store:
            msg = next(e for e in store.entries(store.segments[0].start_offset) if KEY in getattr(e, "keys", ()))
            app = create_app(store, background_scan=False)
            async with app.run_test(size=SIZE, notifications=True) as pilot:
                await settle(pilot)
                app.show_message(msg.physical_offset)
                await settle(pilot)
                await pilot.press("y", "k")
                await settle(pilot, 1)
                return app.clipboard, toasts(app), app.control_net.hits

    clipboard, shown, hits = asyncio.run(main())
    assert KEY in clipboard  # the clipboard gets the key as stored: it is the user's to paste
    assert any(ESCAPED_KEY in s for s in shown) and not any("\x1b" in s for s in shown)
    assert hits == 0


def save(app, pilot, path: str):
    async def go():
        await pilot.press("y", "w")
        await settle(pilot, 1)
        app.screen.query_one("#prompt-input").value = path
        await pilot.press("enter")
        await settle(pilot, 1)

    return go()


def test_save_body_writes_the_stored_bytes_and_asks_before_replacing(store, tmp_path):
    msg = first_message(store)
    target = tmp_path / "body [bold]x[@click=app.quit].bin"
    target.write_bytes(b"keep me")
    app = create_app(store, background_scan=False)

    async def script(pilot):
        app.show_message(msg.physical_offset)
        await settle(pilot)
        await save(app, pilot, str(target))
        asked = type(app.screen).__name__
        await pilot.press("n")  # no: the file stays
        await settle(pilot, 1)
        refused = toasts(app)  # read now: on a loaded machine the toast may time out before the script ends
        kept = target.read_bytes()
        await save(app, pilot, str(target))
        await pilot.press("y")
        await settle(pilot, 1)
        fresh = tmp_path / "new.bin"
        await save(app, pilot, str(fresh))
        return asked, kept, toasts(app), fresh.read_bytes(), refused

    asked, kept, shown, fresh, refused = drive(app, script)
    assert asked == "ConfirmScreen" and kept == b"keep me"
    assert target.read_bytes() == msg.body == fresh
    assert f"saved {len(msg.body):,} bytes to {target}" in shown  # the path as text, never markup
    assert "not saved" in refused


def test_save_body_never_writes_into_the_store(store):
    msg = first_message(store)
    app = create_app(store, background_scan=False)
    inside = str(store.root / "body.bin")

    async def script(pilot):
        app.show_message(msg.physical_offset)
        await settle(pilot)
        await save(app, pilot, inside)
        return toasts(app)

    shown = drive(app, script)
    assert any("inside the store" in s for s in shown)
    assert not (store.root / "body.bin").exists()


def test_yank_on_the_hex_record_under_the_cursor(store):
    msg = first_message(store)
    app = create_app(store, background_scan=False)

    async def script(pilot):
        app.show_hex(msg.physical_offset + 20)  # inside the record
        await settle(pilot)
        await pilot.press("y", "u")
        await settle(pilot, 1)
        return app.clipboard

    assert drive(app, script) == msg.unique_key


def test_yank_menu_snapshot_at_80x24(snap_compare, store):
    """The y menu over a message window at 80x24: each key, what it copies, its value previewed on one line."""

    async def run_before(pilot):
        await settle(pilot)
        pilot.app.show_message(0)
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(create_app(store, background_scan=False), terminal_size=(80, 24), run_before=run_before)
