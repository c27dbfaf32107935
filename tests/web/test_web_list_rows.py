"""The HTML list's rows are slim (``message_list(slim=True)``: only the fields messages.html shows): the page is
byte for byte the one full rows render, on the sample stores, a hostile store, an inner-batch store (commitlog and
queue order) and an LMQ queue; /api/messages keeps every field."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from inspector.engine import Store
from web import data
from web.app import create_app

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from batch_store import BATCH_TOPIC, write_batch_store  # noqa: E402
from lmq_store import LMQ, write_lmq_store  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _both(client, monkeypatch, url: str) -> tuple[bytes, bytes]:
    slim = client.get(url)
    real = data.message_list
    with monkeypatch.context() as m:
        m.setattr(data, "message_list", lambda *a, **k: real(*a, **(k | {"slim": False})))
        full = client.get(url)
    assert slim.status_code == full.status_code == 200
    return slim.data, full.data


def _same(client, monkeypatch, urls: list[str]) -> None:
    for url in urls:
        slim, full = _both(client, monkeypatch, url)
        assert slim == full, url


@pytest.mark.parametrize("name", ["sample_store", "sample_store_dledger", "sample_store_aged"])
def test_sample_stores_list_the_same(name, monkeypatch):
    with Store(REPO / name) as store:
        client = create_app(store, {"TESTING": True}).test_client()
        topics = client.get("/api/").get_json()["topics"]
        urls = ["/messages", "/messages?limit=500", *(f"/messages?topic={t['topic']}&queue={q['queue_id']}"
                                                    for t in topics[:4] for q in t["queues"][:2])]
        _same(client, monkeypatch, urls)


def test_hostile_store_lists_the_same(hostile_client, monkeypatch):
    _same(hostile_client, monkeypatch, ["/messages", "/messages?limit=500"])


def test_inner_batch_and_lmq_lists_the_same(tmp_path, monkeypatch):
    write_batch_store(tmp_path / "b")
    with Store(tmp_path / "b") as store:
        client = create_app(store, {"TESTING": True}).test_client()
        slim, _ = _both(client, monkeypatch, f"/messages?topic={BATCH_TOPIC}")
        assert b"inner-message" in slim  # the rows under a batch record are drawn from slim rows too
        _same(client, monkeypatch, ["/messages", f"/messages?topic={BATCH_TOPIC}&queue=0"])
    with Store(write_lmq_store(tmp_path / "l")) as store:
        client = create_app(store, {"TESTING": True}).test_client()
        _same(client, monkeypatch, ["/messages", f"/messages?topic={LMQ}&queue=0".replace("%", "%25")])


def test_api_rows_keep_every_field(client):
    row = client.get("/api/messages?limit=1").get_json()["messages"][0]
    assert {"body_base64", "sys_flag_parts", "msg_id", "properties", "body_preview"} <= set(row)
