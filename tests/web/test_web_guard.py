"""The room's limits (web/guard.py): a per-client rate on the walks and scans (429 with Retry-After; loopback
and cheap pages not counted), a cap on an answer's size, and Server-Timing on every response."""

from __future__ import annotations

import re

import pytest

from web.app import create_app
from web.guard import Buckets

pytestmark = pytest.mark.timeout(120)

FAR = {"REMOTE_ADDR": "192.0.2.7"}  # a participant's laptop (TEST-NET-1)


@pytest.fixture
def limited(sample_store):
    return create_app(sample_store, {"TESTING": True, "RATE_BURST": 3, "RATE_PER_SECOND": 0.01})


def test_a_client_past_its_burst_of_walks_gets_a_429(limited):
    client = limited.test_client()
    got = [client.get("/api/chain?topic=T1&key=k1", environ_base=FAR).status_code for _ in range(5)]
    assert got[:3] == [got[0]] * 3 and got[0] != 429 and got[3:] == [429, 429]
    r = client.get("/chain?topic=T1&key=k1", environ_base=FAR)  # the page and its API share the client's turns
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert "a second to each client" in r.get_data(as_text=True)
    assert client.get("/api/search?pattern=x", environ_base=FAR).json["status"] == 429


def test_other_clients_loopback_and_cheap_pages_are_not_counted(limited):
    client = limited.test_client()
    for _ in range(4):
        client.get("/api/chain?topic=T1&key=k1", environ_base=FAR)
    assert client.get("/api/chain?topic=T1&key=k1", environ_base={"REMOTE_ADDR": "192.0.2.8"}).status_code != 429
    assert all(client.get("/api/chain?topic=T1&key=k1").status_code != 429 for _ in range(6))  # 127.0.0.1
    assert all(client.get("/tour", environ_base=FAR).status_code == 200 for _ in range(6))


def test_the_buckets_refill_at_the_rate():
    b = Buckets()
    assert [b.take("a", 2.0, 2, 100.0) for _ in range(2)] == [0.0, 0.0]
    assert b.take("a", 2.0, 2, 100.0) == pytest.approx(0.5)
    assert b.take("a", 2.0, 2, 100.5) == 0.0  # half a second later one turn is back
    assert b.take("b", 2.0, 2, 100.5) == 0.0


def test_an_answer_over_the_cap_is_replaced_by_a_short_error(sample_store):
    app = create_app(sample_store, {"TESTING": True, "MAX_RESPONSE_BYTES": 2000})
    r = app.test_client().get("/api/")
    assert r.status_code == 500 and len(r.data) < 2000
    assert re.search(r"this answer would be \d+ bytes, over the viewer's cap of 2000", r.json["message"])
    assert r.headers["X-Content-Type-Options"] == "nosniff"  # the usual headers on the replacement too


@pytest.mark.parametrize("path", ["/", "/api/", "/tour", "/no/such/page", "/message/abc"])
def test_every_response_says_its_time(limited, path):
    r = limited.test_client().get(path)
    assert re.fullmatch(r"app;dur=\d+\.\d", r.headers["Server-Timing"]), r.headers.get("Server-Timing")


def test_waitress_refuses_an_oversized_request(sample_store):
    import http.client
    import threading

    from web.app import make_production_server

    server = make_production_server(create_app(sample_store), "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=10)
        conn.request("GET", "/?q=" + "x" * 100_000)  # over the 64 KiB bound on a request's headers
        r = conn.getresponse()
        assert r.status in (400, 431), r.status
        r.read()
        conn.close()
        conn = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=10)
        conn.request("GET", "/tour")
        r = conn.getresponse()
        assert r.status == 200 and r.getheader("Server-Timing", "").startswith("app;dur=")  # and it serves on
        r.read()
        conn.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
