"""The terminal UI on a store with a BatchCQ topic: the overview lists the batch queue, and browsing it shows each
inner message as a row of its own (queue offsets base+i, own keys and bodies)."""

from __future__ import annotations

import sys
from pathlib import Path

from tui_helpers import drive, screen_text, settle

from inspector.engine import Store
from inspector.tui.app import create_app
from inspector.tui.widgets.messagelist import BatchQueueRows, MessageList

sys.path.insert(0, str(Path(__file__).parents[2]))
from batch_store import BATCH_TOPIC, write_batch_store  # noqa: E402


def test_overview_lists_the_batch_queue(tmp_path):
    write_batch_store(tmp_path / "s")
    with Store(tmp_path / "s") as store:
        from inspector.tui.screens.overview import load_overview

        data = load_overview(store)
        assert (BATCH_TOPIC, 0) in data.queue_ids
        batch = [q for q in data.queues if q.topic == BATCH_TOPIC]
        assert [(q.kind, q.max_offset, q.units) for q in batch] == [("batchconsumequeue", 8, 3)]


def test_browsing_a_batch_queue_shows_inner_messages(tmp_path):
    results = write_batch_store(tmp_path / "s")
    with Store(tmp_path / "s") as store:
        app = create_app(store, screen="messages")

        async def script(pilot):
            browser = app.view("messages")
            browser.apply(topic=BATCH_TOPIC, queue=0)
            await settle(pilot)
            lst = browser.query_one(MessageList)
            rows = [lst.message(i) for i in range(len(lst.source))]
            return type(lst.source), rows, screen_text(app)

        source, rows, text = drive(app, script)
    assert source is BatchQueueRows
    assert [m.queue_offset for m in rows] == list(range(8))
    assert [m.body for m in rows[:4]] == [f"inner body {i}".encode() for i in range(4)]
    assert {m.physical_offset for m in rows[:4]} == {results[1].physical_offset}
    assert "key5" in text


def test_a_filtered_batch_queue_lists_the_matching_inner_messages(tmp_path):
    write_batch_store(tmp_path / "s")
    with Store(tmp_path / "s") as store:
        app = create_app(store, screen="messages")

        async def script(pilot):
            browser = app.view("messages")
            browser.apply(topic=BATCH_TOPIC, queue=0, tag="Tag1")
            await settle(pilot)
            lst = browser.query_one(MessageList)
            return [lst.message(i) for i in range(len(lst.source))]

        rows = drive(app, script)
    assert [(m.queue_offset, m.body) for m in rows] == [(1, b"inner body 1"), (3, b"inner body 3"),
                                                        (5, b"inner body 5")]


def test_commitlog_order_expands_an_inner_batch_record(tmp_path):
    """In commitlog order an inner-batch record is one row marked '▸ 4 inner'; space puts its inner messages
    under it (queue offsets base+i, own keys, bodies in the detail pane), space again folds them."""
    from inspector.tui.widgets.messagelist import LogRows

    results = write_batch_store(tmp_path / "s")
    with Store(tmp_path / "s") as store:
        app = create_app(store, screen="messages")

        async def script(pilot):
            browser = app.view("messages")
            await settle(pilot)
            lst = browser.query_one(MessageList)
            seen = {"source": type(lst.source), "before": len(lst.source)}
            lst.focus()
            lst.cursor = 1  # the first batch record (after Plain 0)
            await pilot.pause()
            seen["folded"] = lst.row_text(1, 120)
            await pilot.press("space")
            await settle(pilot)
            seen["after"] = len(lst.source)
            seen["rows"] = [lst.message(i) for i in range(2, 6)]
            seen["texts"] = [lst.row_text(i, 120) for i in range(1, 6)]
            lst.cursor = 3
            await settle(pilot)
            from inspector.tui.widgets.messagedetail import MessageDetail

            seen["detail"] = browser.query_one(MessageDetail).message
            await pilot.press("space")  # on an inner row: folds its record, the cursor back on the record
            await settle(pilot)
            seen["refolded"], seen["cursor"] = len(lst.source), lst.cursor
            return seen

        seen = drive(app, script)
    assert seen["source"] is LogRows and seen["before"] == 5 and seen["after"] == 9
    assert "▸ 4 inner (space)" in seen["folded"]
    assert [(m.queue_offset, m.keys, m.body) for m in seen["rows"]] == \
        [(i, [f"key{i}"], f"inner body {i}".encode()) for i in range(4)]
    assert {m.physical_offset for m in seen["rows"]} == {results[1].physical_offset}
    assert "▾ 4 inner" in seen["texts"][0] and seen["texts"][1].lstrip().startswith("└ #0")
    assert seen["detail"].body == b"inner body 1"  # the detail pane shows the inner message under the cursor
    assert (seen["refolded"], seen["cursor"]) == (5, 1)
