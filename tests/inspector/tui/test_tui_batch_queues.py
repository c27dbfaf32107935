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
