"""A damaged store still gives pages (problems shown, 404 where nothing is readable), never a 500."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from web_support import XSS_KEYS, XSS_TOPIC, write_hostile_store

from inspector.engine import Store
from web.app import create_app

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def damaged(tmp_path):
    """The hostile store with the first record's magic code overwritten and the index file cut short."""
    root = tmp_path / "store"
    facts = write_hostile_store(root)
    seg = root / "commitlog" / f"{0:020d}"
    data = bytearray(seg.read_bytes())
    data[facts["evil"] + 4: facts["evil"] + 8] = b"\xde\xad\xbe\xef"
    seg.write_bytes(bytes(data))
    index = next((root / "index").iterdir())
    index.write_bytes(index.read_bytes()[:100])
    store = Store(root)
    yield create_app(store).test_client(), facts, index.name
    store.close()


def test_damaged_store_pages(damaged):
    client, facts, index_name = damaged
    t, k = quote(XSS_TOPIC, safe=""), quote(XSS_KEYS[0], safe="")
    overview = client.get("/")
    assert overview.status_code == 200
    assert f"<td>index/{index_name}</td>".encode() in overview.data  # the short index file is reported
    r = client.get("/messages")
    assert r.status_code == 200 and b"Problems met on this page" in r.data
    assert f'data-offset="{facts["plain"]}"'.encode() in r.data  # the walk resynced to the next record
    assert client.get(f"/message/{facts['evil']}").status_code == 404
    assert client.get(f"/api/message/{facts['evil']}").get_json()["status"] == 404
    hex_page = client.get(f"/hex?offset={facts['evil']}")
    assert hex_page.status_code == 200 and b"r-damaged" in hex_page.data
    assert client.get(f"/slot?file={index_name}&slot=3").status_code == 404  # no slot table left
    for url in (f"/chain?topic={t}&key={k}", f"/slot?file={index_name}",
                f"/messages?topic={t}&queue=0", "/api/", f"/api/chain?topic={t}&key={k}"):
        r = client.get(url)
        assert r.status_code == 200, (url, r.data[:300])


def test_store_without_index_files(tmp_path):
    root = tmp_path / "store"
    write_hostile_store(root)
    for p in (root / "index").iterdir():
        p.unlink()
    store = Store(root)
    try:
        client = create_app(store).test_client()
        r = client.get("/chain?topic=Plain&key=k1")
        assert r.status_code == 200 and b"This store has no index files." in r.data
        assert client.get("/api/chain?topic=Plain&key=k1").get_json()["files"] == []
        assert b"This store has no index files." in client.get("/slot").data
    finally:
        store.close()


def test_truncated_index_file_among_sound_ones(tmp_path, sample_store, colliding_key):
    import shutil

    root = tmp_path / "store"
    shutil.copytree(sample_store.root, root)
    files = sorted((root / "index").iterdir())
    files[-1].write_bytes(files[-1].read_bytes()[: files[-1].stat().st_size // 3])
    store = Store(root)
    try:
        client = create_app(store).test_client()
        name = files[-1].name
        topic, key, _ = colliding_key
        for url in ("/", f"/slot?file={name}", f"/chain?topic={topic}&key={key}", f"/api/chain?topic={topic}&key={key}"):
            assert client.get(url).status_code == 200, url
        reader = next(r for r in store.index_files() if r.name == name)
        for slot in range(0, reader.slot_count, 3):
            r = client.get(f"/slot?file={name}&slot={slot}")
            assert r.status_code == 200, (slot, r.data[:300])
    finally:
        store.close()


def test_an_index_file_with_a_wrong_header_range_is_walked_whole_and_says_so(tmp_path, sample_store):
    import shutil

    root = tmp_path / "store"
    shutil.copytree(sample_store.root, root)
    first = sorted((root / "index").iterdir())[0]
    raw = bytearray(first.read_bytes())
    raw[0:8] = (-1).to_bytes(8, "big", signed=True)  # beginTimestamp: every item would date before the epoch
    first.write_bytes(bytes(raw))
    with Store(root) as store:
        client = create_app(store).test_client()
        page = client.get("/chain?topic=OrderEvents&key=order-1108")
        assert page.status_code == 200 and b"header range cannot be trusted" in page.data
        api = client.get("/api/chain?topic=OrderEvents&key=order-1108").get_json()
        assert [f["file"] for f in api["files"] if "note" in f] == [f"index/{first.name}"]
