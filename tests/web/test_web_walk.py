"""Issue 20, on the real threaded server: requests run at once (a slow one holds up no other), and the overview
is the store's one background walk: progress while it runs, complete (never truncated) once it is done."""

from __future__ import annotations

import json
import threading
import urllib.request

import pytest
from multi_segment_store import GEOMETRY, write_multi_segment_store

import web.data
from inspector.engine import Store, store_overview, survey_of
from web.app import create_app, make_web_server

pytestmark = pytest.mark.timeout(120)

@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return write_multi_segment_store(tmp_path_factory.mktemp("walk") / "store")


class Gate:
    """Holds whoever calls it (the walk's ``pace`` hook, or a patched slow step) until released."""

    def __init__(self) -> None:
        self.reached, self.go = threading.Event(), threading.Event()

    def __call__(self, *args, **kwargs):
        self.reached.set()
        assert self.go.wait(60)


@pytest.fixture
def served(root):
    """(store, base URL) of a real server (``make_web_server``, as ``rmq-inspect web`` runs it)."""
    store = Store(root, segment_size=GEOMETRY.segment_size)
    servers = []

    def start(**survey_kwargs) -> str:
        if survey_kwargs:
            survey_of(store, **survey_kwargs)  # before create_app: the app uses this walk
        server = make_web_server(create_app(store), port=0, quiet=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append((server, thread))
        return f"http://127.0.0.1:{server.server_port}"

    yield store, start
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join(5)
    store.close()


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.status, r.read().decode()


def test_a_slow_request_holds_up_no_other(served, monkeypatch):
    store, start = served
    slow = Gate()
    real = web.data.chain_walks

    def slow_chain_walks(*args, **kwargs):
        slow()
        return real(*args, **kwargs)

    monkeypatch.setattr(web.data, "chain_walks", slow_chain_walks)
    base = start()
    order: list[str] = []
    slow_thread = threading.Thread(target=lambda: order.append(("slow", get(f"{base}/api/chain?topic=T0&key=k0"))[0]))
    slow_thread.start()
    try:
        assert slow.reached.wait(60)  # the chain request is inside the app, holding its worker
        for url in ("/api/teach", "/api/", "/", "/messages?limit=5", "/api/hex?offset=0"):
            status, _ = get(base + url)
            assert status == 200, url
            order.append(url)
        assert slow_thread.is_alive() and "slow" not in order  # every other request finished first
    finally:
        slow.go.set()
        slow_thread.join(60)
    assert order[-1] == "slow"


def test_the_overview_shows_the_walk_then_is_complete(served):
    store, start = served
    walk = Gate()
    calls = []

    def pace():  # hold the walk at the start of the third segment's scan (its 5th progress point)
        calls.append(1)
        if len(calls) == 5:
            walk()

    base = start(pace=pace)
    assert walk.reached.wait(60)
    try:
        d = json.loads(get(f"{base}/api/")[1])
        assert d["truncated"] is None and not d["walk"]["done"] and d["segments"] == [] and d["recovery"] is None
        n = len(store.segments)
        assert n >= 4 and d["walk"]["note"].startswith(f"walking segment 3/{n}, ") and 0 < d["walk"]["percent"] < 100
        status, html = get(f"{base}/")
        assert status == 200 and 'id="overview-walking"' in html and f"walking segment 3/{n}, " in html
        assert '<meta http-equiv="refresh"' in html and "Truncated" not in html
        # the other pages do not wait for the walk
        assert get(f"{base}/messages?limit=5")[0] == 200
    finally:
        walk.go.set()
    assert survey_of(store).wait(60)
    d = json.loads(get(f"{base}/api/")[1])
    assert d["truncated"] is None and d["walk"]["done"] and d["walk"]["percent"] == 100
    assert len(d["segments"]) == len(store.segments) and d["recovery"] is not None
    assert int(d["max_physical_offset"]) == store.max_offset()
    assert d["problem_count"] == len(store_overview(store)["problems"])
    status, html = get(f"{base}/")
    assert 'id="overview-walking"' not in html and 'id="recovery"' in html and '<meta http-equiv="refresh"' not in html
