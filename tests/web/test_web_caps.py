"""Responses are capped in size and in time, and say so: on a store written to have a hot key (one long index
chain), several topics and a few thousand records; and on a damaged copy whose chain loops."""

from __future__ import annotations

import shutil
import struct
import threading
import time
import urllib.error
import urllib.request

import pytest

from inspector.engine import Store
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from parsers.indexfile import INDEX_HEADER_SIZE, INDEX_ITEM_SIZE, INDEX_SLOT_SIZE
from web.app import create_app, make_web_server
from web.data import Limits

pytestmark = pytest.mark.timeout(120)

GEOMETRY = Geometry(segment_size=256 * 1024, cq_file_size=4000 * 20, index_slots=4, index_items=8000)
HOT, COUNT, TOPICS = "hot", 2500, 6


def open_store(root) -> Store:
    return Store(root, segment_size=GEOMETRY.segment_size, cq_file_size=GEOMETRY.cq_file_size,
                 index_slots=GEOMETRY.index_slots, index_items=GEOMETRY.index_items)


@pytest.fixture(scope="module")
def big_root(tmp_path_factory):
    """~2500 messages (a few hundred KB) all with KEYS=hot in topic Big, plus one message in each of 5 more topics."""
    root = tmp_path_factory.mktemp("big") / "store"
    t0 = 1_758_272_400_000
    with StoreWriter(root, GEOMETRY) as w:
        for i in range(COUNT):
            w.append(MessageSpec(topic="Big", body=b"x" * 40, keys=[HOT], store_timestamp=t0 + i))
        for n in range(TOPICS - 1):
            w.append(MessageSpec(topic=f"Other{n}", body=b"y" * 70_000 if n == 0 else b"y", store_timestamp=t0 + COUNT + n))
    return root


@pytest.fixture(scope="module")
def big(big_root):
    store = open_store(big_root)
    yield store
    store.close()


def client_for(store: Store, **limits):
    return create_app(store, {"TESTING": True, "LIMITS": Limits(**limits)}).test_client()


def timed_get(client, url: str):
    t = time.monotonic()
    r = client.get(url)
    return r, time.monotonic() - t


def test_the_store_has_a_long_chain(big):
    walks = big.chain("Big", HOT)
    assert sum(len(w.steps) for w in walks) >= COUNT  # the premise of the caps below


def test_chain_walks_and_drawings_are_capped_and_say_so(big):
    client = client_for(big, chain_walk_items=300, max_chain_items=40)
    d = client.get(f"/api/chain?topic=Big&key={HOT}").get_json()
    capped = [f for f in d["files"] if f["stop_reason"] == "stopped after 300 items (limit)"]
    assert capped, [f["stop_reason"] for f in d["files"]]
    for f in d["files"]:
        assert len(f["items"]) <= 40 and f["item_total"] <= 300
    assert all(f["items_truncated"] for f in capped)
    html = client.get(f"/chain?topic=Big&key={HOT}").get_data(as_text=True)
    assert "Truncated: only the first 40 are drawn." in html and "stopped after 300 items (limit)" in html


def test_default_caps_bound_every_page(big):
    """With the shipped limits, no page or API answer on this store is large or slow."""
    client = client_for(big)
    index = big.index_files()[0].name
    first = next(iter(big.entries())).physical_offset
    urls = ["/", "/api/", "/messages?limit=500", "/api/messages?limit=500", "/messages?topic=Big&queue=0&limit=500",
            f"/chain?topic=Big&key={HOT}", f"/api/chain?topic=Big&key={HOT}", f"/slot?file={index}&slot=1",
            f"/api/slot?file={index}&slot=1", f"/hex?offset={first}&length=8192", f"/api/hex?offset={first}&length=8192"]
    for url in urls:
        r, took = timed_get(client, url)
        assert r.status_code == 200, url
        assert len(r.data) < 1_500_000, (url, len(r.data))
        assert took < 10, (url, took)
    assert len(bytes.fromhex(client.get(f"/api/hex?offset={first}&length=8192").get_json()["bytes_hex"])) <= 8192
    assert client.get(f"/api/hex?offset={first}&length=8193").status_code == 400


def test_big_body_is_cut_with_a_marker(big):
    other = next(m for m in big.entries() if getattr(m, "topic", None) == "Other0")
    client = client_for(big, body_bytes=1000)
    html = client.get(f"/message/{other.physical_offset}?body=hex").get_data(as_text=True)
    assert 'id="body-truncated"' in html and "First 1000 of 70000 bytes shown." in html
    assert html.count("\n000") <= 1000 // 16 + 1  # hex rows of the shown bytes only


def test_overview_tables_are_capped(big):
    client = client_for(big, max_rows=2)
    d = client.get("/api/").get_json()
    assert d["topics_total"] == TOPICS and len(d["topics"]) == 2
    html = client.get("/").get_data(as_text=True)
    assert 'data-truncated="topics"' in html and f"first 2 of {TOPICS} shown" in html


def test_a_commitlog_scan_stops_at_the_time_limit(big):
    client = client_for(big, request_seconds=0, scan_entries=10**9)
    d = client.get("/api/messages?topic=NoSuchTopic").get_json()
    assert "time limit" in d["scan_stopped"] and d["messages"] == []
    nxt = int(d["next_from"])
    assert 0 < nxt < big.max_offset()
    again = client.get(f"/api/messages?topic=NoSuchTopic&from={nxt}").get_json()  # it continues from there
    assert int(again["next_from"]) > nxt
    html = client.get("/messages?topic=NoSuchTopic").get_data(as_text=True)
    assert 'id="scan-stopped"' in html and "next page" in html


def test_a_queue_page_stops_at_the_time_limit(big):
    d = client_for(big, request_seconds=0).get("/api/messages?topic=Big&queue=0&limit=500").get_json()
    assert "time limit" in d["scan_stopped"] and 0 < len(d["messages"]) < 500
    assert int(d["next_from"]) == len(d["messages"])


def test_a_real_deadline_bounds_a_full_scan(big):
    """A small budget and no count cap: the scan over the whole store returns within the budget plus one
    step's slack, whether or not it finished."""
    client = client_for(big, request_seconds=0.05, scan_entries=10**9)
    r, took = timed_get(client, "/api/messages?topic=NoSuchTopic")
    assert r.status_code == 200 and took < 2.0, took
    d = r.get_json()
    assert d.get("scan_stopped") is None or "0.05 s time limit" in d["scan_stopped"]


def test_chain_files_past_the_deadline_are_not_searched(big):
    client = client_for(big, request_seconds=0)
    d = client.get(f"/api/chain?topic=Big&key={HOT}").get_json()
    assert d["files"] and all(f["stop_reason"] == "not searched" and "time limit" in f["skipped_reason"]
                              for f in d["files"])
    html = client.get(f"/chain?topic=Big&key={HOT}").get_data(as_text=True)
    assert 'id="chain-stopped"' in html and "not searched" in html


@pytest.fixture
def looping(big_root, tmp_path):
    """A copy whose hot chain loops: the oldest item of the first index file links back to the newest."""
    root = tmp_path / "store"
    shutil.copytree(big_root, root)
    store = open_store(root)
    walk = store.chain("Big", HOT)[-1]  # the oldest file
    head, tail = walk.steps[0].item.number, walk.steps[-1].item.number
    reader = next(r for r in store.index_files() if r.rel == walk.file)
    path, slots = root / walk.file, reader.slot_count
    store.close()
    pos = INDEX_HEADER_SIZE + slots * INDEX_SLOT_SIZE + tail * INDEX_ITEM_SIZE + 16  # prevIndex of the tail
    with open(path, "r+b") as f:
        f.seek(pos)
        assert struct.unpack(">i", f.read(4))[0] == 0
        f.seek(pos)
        f.write(struct.pack(">i", head))
    store = open_store(root)
    yield store, walk.file, walk.slot
    store.close()


def test_a_looping_chain_ends(looping):
    store, file, slot = looping
    client = client_for(store)
    r, took = timed_get(client, f"/api/chain?topic=Big&key={HOT}")
    assert r.status_code == 200 and took < 10
    f = next(f for f in r.get_json()["files"] if f["file"] == file)
    assert f["stop_reason"].startswith("loop: item")
    d = client.get(f"/api/slot?file={file.rsplit('/', 1)[-1]}&slot={slot}").get_json()
    assert d["slot"]["stop_reason"].startswith("loop") or d["slot"]["items_truncated"]
    assert client.get(f"/chain?topic=Big&key={HOT}").status_code == 200


def test_a_request_waiting_too_long_gets_a_503_not_a_hang(big):
    """A bounded pool of workers runs requests (issue 20: no longer one at a time); one that waits past
    ``busy_seconds`` for a free worker is told so."""
    app = create_app(big, {"LIMITS": Limits(busy_seconds=0.2)})
    server = make_web_server(app, port=0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        with server.app.all_busy():  # long requests hold every worker
            t = time.monotonic()
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(f"{base}/api/", timeout=10)
            assert e.value.code == 503 and time.monotonic() - t < 5
            assert e.value.headers["Retry-After"] and b"busy" in e.value.read()
            e.value.close()
        with urllib.request.urlopen(f"{base}/api/teach", timeout=10) as r:  # free again
            assert r.status == 200
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def fat(tmp_path_factory):
    """12 messages whose properties weigh 20 KB each (a list row carries every property)."""
    root = tmp_path_factory.mktemp("fat") / "store"
    with StoreWriter(root, Geometry(segment_size=1 << 20, cq_file_size=600, index_slots=16, index_items=64)) as w:
        for i in range(12):
            w.append(MessageSpec(topic="Fat", body=b"b", properties={"blob": "p" * 20_000},
                                 store_timestamp=1_758_272_400_000 + i))
    store = Store(root)
    yield store
    store.close()


@pytest.mark.parametrize("query", ["", "topic=Fat&queue=0"])
def test_a_list_page_is_capped_in_bytes(fat, query):
    client = client_for(fat, list_bytes=100_000)
    r = client.get(f"/api/messages?{query}&limit=500")
    d = r.get_json()
    assert 1 <= len(d["messages"]) <= 5 and "page size cap" in d["scan_stopped"]
    assert len(r.data) < 100_000 + 5 * 2_000  # the records, plus the JSON around them
    seen = {m["physical_offset"] for m in d["messages"]}
    d2 = client.get(f"/api/messages?{query}&limit=500&from={d['next_from']}").get_json()
    assert d2["messages"] and not seen & {m["physical_offset"] for m in d2["messages"]}  # the next page goes on
    html = client.get(f"/messages?{query}&limit=500").get_data(as_text=True)
    assert 'id="scan-stopped"' in html and "page size cap" in html
