"""The TUI's queue list on an %LMQ% queue: rows by queue offset, each record read through the LMQ (its offset
there), as the browser screen picks for batch and LMQ queues."""

from __future__ import annotations

import sys
from pathlib import Path

from inspector.engine import Store, is_lmq
from inspector.tui.widgets.messagelist import BatchQueueRows

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from lmq_store import LMQ, write_lmq_store  # noqa: E402


def test_lmq_rows_show_the_lmq_offsets(tmp_path):
    root = write_lmq_store(tmp_path / "s")
    assert is_lmq(LMQ) and not is_lmq("TopicA")
    with Store(root) as store:
        rows = BatchQueueRows(store, store.queue(LMQ, 0), 0, 3)
        assert [rows.row_message(i).queue_offset for i in range(len(rows))] == [0, 1, 2]
        assert [rows.row_message(i).record_queue_offset for i in range(len(rows))] == [0, 0, 1]


def test_overview_names_the_offsets_source(tmp_path):
    from inspector.tui.screens.overview import load_overview

    root = write_lmq_store(tmp_path / "s")
    with Store(root) as store:
        data = load_overview(store)
    assert data.offsets_source == "config/lmqConsumerOffset.json"
    assert {(r["topic"], r["lag"]) for r in data.lag} == {(LMQ, 1), ("TopicA", 1)}
    assert any(q.topic == LMQ and q.max_offset == 3 for q in data.queues)
