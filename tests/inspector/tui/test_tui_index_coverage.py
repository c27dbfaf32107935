"""The TUI's key lookup over log no index file covers (issue 29 item 2): the record is listed, found by scan, and
the status line says which range no index covers, as the CLI does."""

from __future__ import annotations

from tui_helpers import drive, settle, static_text

from inspector.engine import Store
from inspector.tui.app import create_app
from inspector.tui.widgets.messagelist import MessageList
from tests.unindexed_store import write_unindexed


def _browse(store: Store, topic: str, key: str) -> tuple[list[int], str]:
    app = create_app(store, screen="messages")

    async def script(pilot):
        browser = app.view("messages")
        await settle(pilot)
        browser.apply(topic=topic, key=key)
        await settle(pilot)
        lst = browser.query_one(MessageList)
        return [lst.source.offset(i) for i in range(len(lst.source))], static_text(browser.query_one("#browser-status"))

    return drive(app, script)


def test_a_key_lookup_over_an_unindexed_range_is_found_by_scan(tmp_path):
    u = write_unindexed(tmp_path / "s")
    last = u.written[-1]
    with Store(u.root) as s:
        rows, status = _browse(s, last.topic, "k1499")
        assert rows == [last.physical_offset]
        assert f"found by scan: no index covers {u.gap}" in " ".join(status.split())
        rows, status = _browse(s, "T0", "no-such-key")
        assert rows == [] and f"scanned {u.gap}, which no index covers" in " ".join(status.split())
