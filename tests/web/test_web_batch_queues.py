"""The web viewer on a store with a BatchCQ topic: the overview lists the batch queue (kind, units), a queue page
lists each inner message with its queue offset (base+i), a message page of the batch record works."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from inspector.engine import Store
from web.app import create_app

sys.path.insert(0, str(Path(__file__).parents[1]))
from batch_store import BATCH_TOPIC, write_batch_store  # noqa: E402


@pytest.fixture(scope="module")
def batch_client(tmp_path_factory):
    root = tmp_path_factory.mktemp("bcq-web") / "store"
    results = write_batch_store(root)
    store = Store(root)
    yield create_app(store, {"TESTING": True}).test_client(), results
    store.close()


def test_overview_lists_the_batch_queue(batch_client):
    client, _ = batch_client
    doc = client.get("/api/").get_json()
    topic = next(t for t in doc["topics"] if t["topic"] == BATCH_TOPIC)
    assert topic["message_count"] == 8
    assert [(q["kind"], q["units"]) for q in topic["queues"]] == [("batchconsumequeue", 3)]


def test_queue_page_rows_are_inner_messages(batch_client):
    client, results = batch_client
    doc = client.get(f"/api/messages?topic={BATCH_TOPIC}&queue=0&from=2&limit=3").get_json()
    # 64-bit offsets are strings in the web API (web.offsets)
    assert [int(m["cq_queue_offset"]) for m in doc["messages"]] == [2, 3, 4]
    assert [int(m["queue_offset"]) for m in doc["messages"]] == [2, 3, 4]
    assert int(doc["next_from"]) == 5 and doc["queue"]["kind"] == "batchconsumequeue"
    page = client.get(f"/messages?topic={BATCH_TOPIC}&queue=0")
    assert page.status_code == 200 and b"key6" in page.data


def test_message_page_of_a_batch_record(batch_client):
    client, results = batch_client
    response = client.get(f"/api/message/{results[1].physical_offset}")
    assert response.status_code == 200 and response.get_json()["sys_flag_parts"]["inner_batch"]


def test_batch_record_page_lists_its_inner_messages(batch_client):
    client, results = batch_client
    doc = client.get(f"/api/message/{results[2].physical_offset}").get_json()
    assert doc["inner_messages_total"] == 3 and doc["inner_messages_error"] is None
    assert [int(m["queue_offset"]) for m in doc["inner_messages"]] == [4, 5, 6]
    page = client.get(f"/message/{results[2].physical_offset}")
    assert page.status_code == 200 and b'id="inner-messages"' in page.data and b"inner body 6" in page.data
    plain = client.get(f"/api/message/{results[3].physical_offset}").get_json()
    assert "inner_messages" not in plain


def test_commitlog_order_lists_a_batch_records_inner_messages(batch_client):
    """The API row of an inner-batch record carries its inner messages; the page indents them under it."""
    client, results = batch_client
    doc = client.get("/api/messages?limit=10").get_json()
    rows = {int(m["physical_offset"]): m for m in doc["messages"]}
    first, second = rows[results[1].physical_offset], rows[results[2].physical_offset]
    assert [int(m["queue_offset"]) for m in first["inner_messages"]] == [0, 1, 2, 3]
    assert [m["keys"] for m in second["inner_messages"]] == [["key4"], ["key5"], ["key6"]]
    assert second["inner_messages_total"] == 3 and second["inner_messages_error"] is None
    assert "inner_messages" not in rows[results[3].physical_offset]
    page = client.get("/messages").get_data(as_text=True)
    assert page.count('class="inner-message"') == 7 and "└ #2" in page and "inner body 6" in page
