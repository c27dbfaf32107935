"""The web viewer on an LMQ store: an %LMQ% queue browsed in its own offsets, lag named by its source."""

from __future__ import annotations

import sys
from pathlib import Path

from inspector.engine import Store
from web.app import create_app

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lmq_store import LMQ, write_lmq_store  # noqa: E402


def test_lmq_queue_and_offsets_source(tmp_path):
    root = write_lmq_store(tmp_path / "s")
    with Store(root) as store:
        client = create_app(store, {"TESTING": True}).test_client()
        d = client.get(f"/api/messages?topic={LMQ}&queue=0".replace("%", "%25")).get_json()
        assert [(m["queue_offset"], m["cq_queue_offset"], m["lmq"]["record_queue_offset"]) for m in d["messages"]] \
            == [("0", "0", "0"), ("1", "1", "0"), ("2", "2", "1")]  # the API writes 64-bit numbers as strings
        page = client.get("/").get_data(as_text=True)
        for _ in range(100):  # the overview waits for the walk: it reloads until done
            if "offsets-source" in page:
                break
            page = client.get("/").get_data(as_text=True)
        assert "Lag offsets from config/lmqConsumerOffset.json" in page
