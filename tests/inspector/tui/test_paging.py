"""Paging the hex view and the message list paints once per page and keeps the side panels in step (issue 8)."""

from __future__ import annotations

import gc

from tui_helpers import drive, screen_text, settle

from inspector.tui.fmt import num
from inspector.tui.widgets import messagedetail
from inspector.tui.widgets.hexview import HexView
from inspector.tui.widgets.messagedetail import MessageDetail
from inspector.tui.widgets.messagelist import MessageList


def test_hex_paging_paints_a_page_once_and_the_status_follows(app, store, monkeypatch):
    painted: list[int] = []
    real = HexView._render_row

    def counting(self, line, span, base=None):  # a spy around the real renderer
        painted.append(line.start)
        return real(self, line, span, base)

    monkeypatch.setattr(HexView, "_render_row", counting)

    async def script(pilot):
        app.show_hex(store.segments[0].start_offset)
        await settle(pilot)
        hv = app.screen.query_one(HexView)
        height = hv.scrollable_content_region.height
        per_page = []
        for _ in range(5):
            painted.clear()
            await pilot.press("pagedown")
            await settle(pilot)
            per_page.append(len(painted))
        return hv.cursor, height, per_page, screen_text(app)

    cursor, height, per_page, text = drive(app, script)
    # a new page: its rows once (tinted: the regions were fetched ahead), plus the rows the cursor left/entered;
    # painting the page plain and again when its regions arrived would be ~2x the height
    assert all(n <= height + 6 for n in per_page), (per_page, height)
    assert cursor > store.segments[0].start_offset + 5 * 16 * (height - 1)
    assert f"offset {num(cursor)}" in text  # the status line caught up with the last move


def test_message_detail_renders_once_per_move(app, monkeypatch):
    calls: list[int] = []
    real = messagedetail.render_message

    def counting(msg, mode="text", trace_topic=None):  # a spy around the real renderer
        calls.append(msg.physical_offset)
        return real(msg, mode, trace_topic)

    monkeypatch.setattr(messagedetail, "render_message", counting)

    async def script(pilot):
        app.action_go("messages")
        await settle(pilot)
        lst = app.screen.query_one(MessageList)
        lst.focus()
        await settle(pilot)
        calls.clear()
        for _ in range(3):
            await pilot.press("down")
            await settle(pilot)
        detail = app.screen.query_one(MessageDetail)
        return list(calls), lst.source.offset(lst.cursor), detail.message

    calls_made, offset, shown = drive(app, script)
    # once per move (Textual's own _render_content was shadowed: every paint re-rendered the message)
    assert 1 <= len(calls_made) <= 3, calls_made
    assert calls_made[-1] == offset
    assert shown is not None and shown.physical_offset == offset


def test_heap_frozen_while_the_app_runs_and_given_back(app):
    async def script(pilot):
        app.action_go("hex")
        await settle(pilot)
        return gc.get_freeze_count()

    frozen = drive(app, script)
    assert frozen > 10_000  # Textual, the engine and numba: kept out of the collector's full passes
    assert gc.get_freeze_count() == 0  # the app gave them back when it exited
