"""The detail pane's body through the engine's one preview (issue 27 item 2): the sample's ZLIB record under the
pilot shows its decompressed JSON as text, pretty JSON and a hex dump, never a compressed byte; a body of
bytes that are no text shows escaped, without a control character reaching the screen."""

from __future__ import annotations

from dataclasses import replace

from tui_helpers import drive, static_text

from inspector.engine import Message
from inspector.tui.app import create_app
from inspector.tui.widgets.messagedetail import MessageDetail, render_body
from inspector.tui.widgets.messagelist import MessageList

ZLIB_OFFSET = 60781  # a 13,991-byte JSON snapshot, 1,704 bytes ZLIB-compressed


def _clean(text: str) -> bool:
    return not any((ord(c) < 32 and c not in "\n") or 0x7F <= ord(c) < 0xA0 or c == "\ufffd" for c in text)


def test_the_zlib_body_shows_decompressed_in_each_view(store):
    app = create_app(store, screen="messages")

    async def script(pilot):
        lst = app.screen.query_one(MessageList)
        detail = app.screen.query_one(MessageDetail)
        lst.cursor = next(i for i in range(len(lst.source)) if lst.source.offset(i) == ZLIB_OFFSET)
        await pilot.pause()
        views = {}
        for _ in range(3):
            views[detail.body_mode] = static_text(detail.query_one(".detail-content"))
            await pilot.press("b")
            await pilot.pause()
        return views

    views = drive(app, script)
    note = "ZLIB: 1,704 bytes stored, 13,991 decompressed"
    assert f"Body (text, {note})" in views["text"] and '{"type":"SNAPSHOT","warehouse":"WH-BER-1"' in views["text"]
    assert f"Body (json, {note})" in views["json"] and '"type": "SNAPSHOT",' in views["json"]
    assert "00000000  7b 22 74 79 70 65 22 3a" in views["hex"]  # {"type":
    assert "showing 8,192 of 13,991 bytes" in views["text"] and "showing 2,048 of 13,991 bytes" in views["hex"]
    assert all(_clean(v) for v in views.values())


def test_a_body_with_controls_and_undecodable_bytes_is_escaped(store):
    plain = next(m for m in store.entries(0) if isinstance(m, Message) and not m.compressed)
    msg = replace(plain, body=b"alert \x1b]0;pwned\x07 caf\xe9\n\x00\x01")
    for mode in ("text", "json", "hex"):
        title, body = render_body(msg, mode)
        assert title == f"Body ({mode}, {len(msg.body)} bytes)"
        shown = static_text_of(body)
        assert _clean(shown.replace("\ufffd", "?"))
    assert "\\x1b]0;pwned\\x07 caf\\xe9" in static_text_of(render_body(msg, "text")[1])


def static_text_of(renderable) -> str:
    import io

    from rich.console import Console

    console = Console(width=120, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()
