"""The web viewer's search page and /api/search (``rmq-inspect grep``): the same hits as the engine, a cut
search said, a bad pattern a 400 naming it, store text escaped by the template."""

from __future__ import annotations

from web_support import PAYLOAD_MARKERS

from inspector.engine import GrepHit, compile_pattern, grep


def test_the_api_gives_the_engines_hits(client, sample_store):
    want = [i.message.physical_offset for i in grep(sample_store, compile_pattern("CAPTURED"), fields=("body",),
                                                     topic="PaymentEvents") if isinstance(i, GrepHit)]
    r = client.get("/api/search", query_string={"q": "captured", "i": "1", "in": "body", "topic": "PaymentEvents",
                                                "limit": "500"})
    d = r.get_json()
    assert r.status_code == 200 and want
    assert [int(h["physical_offset"]) for h in d["hits"]] == want  # 64-bit offsets as strings
    assert d["end"]["truncated"] is None and all(h["match"].lower() == "captured" for h in d["hits"])


def test_the_page_lists_hits_and_says_when_it_is_cut(client):
    page = client.get("/search", query_string={"q": "order-1108", "limit": "2"}).get_data(as_text=True)
    assert page.count('<tr data-offset="') == 2 and 'id="search-stopped"' in page and "the limit" in page
    assert 'href="/message/0"' in page
    assert "No message matches" in client.get("/search?q=no-such-text&fixed=1").get_data(as_text=True)
    assert 'id="search-hits"' not in client.get("/search").get_data(as_text=True)  # the empty form


def test_a_bad_pattern_or_field_is_a_400_naming_it(client):
    r = client.get("/api/search?q=%5B")
    assert r.status_code == 400 and "invalid regular expression" in r.get_json()["message"]
    r = client.get("/search?q=x&in=header")
    assert r.status_code == 400 and "--in takes" in r.get_data(as_text=True)


def test_store_text_is_escaped(hostile_client):
    page = hostile_client.get("/search", query_string={"q": "pwned", "limit": "50"}).get_data(as_text=True)
    assert page.count('<tr data-offset="') >= 1 and "pwned" in page
    assert not [m for m in PAYLOAD_MARKERS if m in page]
