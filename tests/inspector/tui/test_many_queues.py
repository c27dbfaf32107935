"""The overview of a store with thousands of queues: the topic tree is there before any queue end is read
and before the commitlog walk completes, with a counter, and fills in when the listing is done."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from textual.widgets import Tree
from tui_helpers import settle

from inspector.engine import Store
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from inspector.engine.read.queues.consumequeue import ConsumeQueue
from inspector.tui.app import create_app

TOPICS, QUEUES = 300, 8


@pytest.fixture(scope="module")
def many_queues(tmp_path_factory) -> Path:
    """300 topics x 8 queues, one message each, in broker-sized (6,000,000-byte, sparse) consume-queue files."""
    root = tmp_path_factory.mktemp("many") / "store"
    with StoreWriter(root, Geometry(segment_size=8 << 20, index_slots=1000, index_items=4000)) as w:
        for t in range(TOPICS):
            for q in range(QUEUES):
                w.append(MessageSpec(topic=f"T{t:04d}", queue_id=q, body=b"x", store_timestamp=1_700_000_000_000 + t))
    return root


def _topics_node(app):
    tree = app.screen.query_one(Tree)
    return next((n for n in tree.root.children if n.data is not None and n.data.kind == "topics"), None)


def test_the_topic_tree_is_filled_before_the_walk_and_the_listing_end(many_queues, monkeypatch):
    gate = threading.Event()  # held shut: no queue end is read and no segment walked until the test opens it
    info, scan = ConsumeQueue.info, Store.scan_segment

    def slow_info(self):
        gate.wait(30)
        return info(self)

    def slow_scan(self, *args, **kwargs):
        gate.wait(30)
        return scan(self, *args, **kwargs)

    monkeypatch.setattr(ConsumeQueue, "info", slow_info)
    monkeypatch.setattr(Store, "scan_segment", slow_scan)

    async def main():
        with Store(many_queues) as store:
            app = create_app(store)
            try:
                async with app.run_test(size=(120, 36)) as pilot:
                    for _ in range(200):
                        await pilot.pause(0.02)
                        node = _topics_node(app)
                        if node is not None and len(node.children) == TOPICS:
                            break
                    node = _topics_node(app)
                    before = (str(node.label), [str(c.label) for c in node.children], app.scan_complete)
                    gate.set()
                    await settle(pilot)
                    node = _topics_node(app)
                    first = node.children[0]
                    first.expand()
                    await pilot.pause()
                    after = (str(node.label), [str(c.label) for c in node.children],
                             [str(c.label) for c in first.children], app.scan_complete)
            finally:
                gate.set()
        return before, after

    (label, topics, walked), (label_after, topics_after, queues, walked_after) = asyncio.run(main())
    assert not walked
    assert f"{TOPICS} topics, {TOPICS * QUEUES} queues" in label and "reading queue ends" in label
    assert len(topics) == TOPICS and topics[0].startswith("T0000  8 queue(s)")
    assert walked_after
    assert "reading queue ends" not in label_after
    assert len(topics_after) == TOPICS and all("8 queue(s), 8 messages" in t for t in topics_after)
    assert [q.split("  ")[0] for q in queues] == [f"queue {q}" for q in range(QUEUES)]
    assert all("offsets 0…1" in q for q in queues)
