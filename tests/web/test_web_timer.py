"""The web viewer's timer wheel (``/timer``, ``/api/timer``) on a store our writer made: linked from the overview,
the slots listed, a slot's chain drawn as linked unit boxes (each to its record's page), hops against num; bad
and empty slots are 400 / 404; the sample store (no timer store) says so."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from inspector.engine import Store
from web.app import create_app

sys.path.insert(0, str(Path(__file__).parents[1]))
from timer_store import write_timer_store  # noqa: E402

SLOT = 1_700_000_060 % 1_209_600


@pytest.fixture(scope="module")
def timer_client(tmp_path_factory):
    root = tmp_path_factory.mktemp("timer-web") / "store"
    results = write_timer_store(root)
    store = Store(root)
    yield create_app(store, {"TESTING": True}).test_client(), results
    store.close()


def test_the_overview_links_the_timer_page(timer_client):
    client, _ = timer_client
    page = client.get("/").get_data(as_text=True)
    assert 'href="/timer"' in page and "3 timer-log unit(s), 2 pending, 2 non-empty wheel slot(s)" in page


def test_the_wheel_and_a_slot_chain(timer_client):
    client, results = timer_client
    doc = client.get(f"/api/timer?slot={SLOT}").get_json()
    assert [s["slot"] for s in doc["slots"]] == [1_700_000_003 % 1_209_600, SLOT]
    chain = doc["chain"]
    assert (chain["num"], chain["hops"], chain["num_matches"]) == (2, 2, True)
    assert [h["offset"] for h in chain["chain"]] == ["104", "52"]  # 64-bit offsets are strings in the API
    assert chain["chain"][0]["unit"]["record"]["physical_offset"] == str(results[2].physical_offset)
    page = client.get(f"/timer?slot={SLOT}").get_data(as_text=True)
    assert page.count('class="unit kind-unit"') == 2
    assert f'href="/message/{results[2].physical_offset}"' in page
    assert re.search(r'data-matches="true"', page)
    assert client.get(f"/message/{results[2].physical_offset}").status_code == 200


def test_bad_and_empty_slots(timer_client):
    client, _ = timer_client
    assert client.get("/timer?slot=1209600").status_code == 400
    assert client.get("/api/timer?slot=abc").status_code == 400
    assert client.get("/timer?slot=5").status_code == 404
    assert client.get("/api/timer?slot=5").get_json()["status"] == 404


def test_a_store_without_a_timer_store(client):
    page = client.get("/timer")
    assert page.status_code == 200 and b"No timer store here" in page.data
    assert b"Timer store (5.x)" not in client.get("/").data


def test_a_long_chain_is_cut_and_says_so(tmp_path):
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter
    from inspector.engine.model.geometry import Geometry

    t = 1_700_000_000_500
    with StoreWriter(tmp_path / "s", Geometry(segment_size=1 << 20, index_slots=64, index_items=256),
                     timer_file_size=52 * 400 + 16) as w:
        for i in range(205):
            w.append(MessageSpec("Orders", b"x", deliver_ms=t + 60_000, store_timestamp=t + i))
    with Store(tmp_path / "s") as store:
        client = create_app(store, {"TESTING": True}).test_client()
        chain = client.get(f"/api/timer?slot={SLOT}").get_json()["chain"]
        assert (chain["hops"], chain["num"], chain["hops_truncated"], chain["num_matches"]) == (200, 205, True, None)
        page = client.get(f"/timer?slot={SLOT}").get_data(as_text=True)
        assert "Truncated: only the first 200 hops are walked." in page and 'data-matches="unknown"' in page


def test_store_text_on_the_timer_page_is_escaped(tmp_path):
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter
    from inspector.engine.model.geometry import Geometry

    topic, key = "<img src=x onerror=alert(1)>", "<svg onload=alert(2)>"
    with StoreWriter(tmp_path / "s", Geometry(segment_size=1 << 20, index_slots=64, index_items=256),
                     timer_file_size=52 * 20 + 16) as w:
        w.append(MessageSpec(topic, b"x", deliver_ms=1_700_000_060_500, store_timestamp=1_700_000_000_500,
                             unique_key=key))
    with Store(tmp_path / "s") as store:
        client = create_app(store, {"TESTING": True}).test_client()
        page = client.get(f"/timer?slot={SLOT}").get_data(as_text=True)
        assert "<img src=x" not in page and "<svg onload" not in page
        assert "&lt;img src=x onerror=alert(1)&gt;" in page and "&lt;svg onload=alert(2)&gt;" in page
