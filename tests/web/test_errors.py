"""Bad parameters are a 400, unknown ids and offsets a 404, never a 500; as HTML on pages and JSON under /api/."""

from __future__ import annotations

import itertools
import re

import pytest

pytestmark = pytest.mark.timeout(60)

INDEX = "20250919090000196"  # replaced by the store's first index file name in the fixture below


@pytest.fixture
def first_index(sample_store) -> str:
    return sample_store.index_files()[0].name


BAD_REQUESTS = [
    "/message/abc",
    "/message/-5",
    "/message/1.5",
    "/message/99999999999999999999",  # more than 64 bits
    "/message/0?body=xml",
    "/messages?queue=1",  # queue without topic
    "/messages?topic=OrderEvents&queue=x",
    "/messages?topic=OrderEvents&queue=-1",
    "/messages?from=-1",
    "/messages?from=abc",
    "/messages?limit=0",
    "/messages?limit=100000",
    "/messages?topic=a%00b",
    "/hex?offset=abc",
    "/hex?offset=-1",
    "/hex?length=8",
    "/hex?length=99999999",
    "/chain?topic=OrderEvents",
    "/chain?key=order-1",
    "/chain?topic=OrderEvents&key=" + "k" * 5000,
    "/chain?topic=Order%0AEvents&key=x",
    "/slot?file=../../etc/passwd",
    "/slot?file=/etc/passwd",
    "/slot?file=index/{index}",
    "/slot?file={index}/../../x",
    "/slot?file=%EF%BC%91%EF%BC%92345678901234567",  # full-width digits
    "/slot?file={index}&slot=abc",
    "/slot?file={index}&slot=-1",
    "/slot?slot=3",
    "/teach?step=99",
    "/teach?step=-1",
    "/teach?slots=0",
    "/teach?slots=100000",
    "/teach?hashes=a,b",
    "/teach?hashes=" + ",".join(["1"] * 33),
    "/teach?hashes=99999999999",
    "/teach?lookup=x",
    "/resolve?id=xyz",
    "/resolve?id=" + "G" * 32,
]

NOT_FOUND = [
    "/message/999999999999",
    "/message/1",  # inside a record
    "/hex?offset=999999999999",
    "/messages?topic=NoSuchTopic&queue=0",
    "/messages?topic=OrderEvents&queue=999",
    "/slot?file=00000000000000000",
    "/slot?file={index}&slot=99999999",
    "/resolve?id=0A14000500002A9F00000000000000FF",
    "/no/such/page",
]


def _url(template: str, index: str) -> str:
    return template.replace("{index}", index)


def test_a_hex_offset_in_another_spelling_leads_to_its_decimal_url(client):
    for spelling in ("0x10", "16", "0_016"):
        r = client.get("/hex", query_string={"offset": spelling})
        if spelling == "16":
            assert r.status_code == 200
        else:
            assert r.status_code == 302 and r.location == "/hex?offset=16", (spelling, r.status_code, r.location)


@pytest.mark.parametrize("url", BAD_REQUESTS)
def test_bad_parameters_are_400_pages(client, first_index, url):
    r = client.get(_url(url, first_index))
    assert r.status_code == 400, r.data[:300]
    assert r.mimetype == "text/html"
    assert b'<h1 class="error-status">400 Bad Request</h1>' in r.data


@pytest.mark.parametrize("url", [u for u in BAD_REQUESTS if "body=" not in u])
def test_bad_parameters_are_400_json_under_api(client, first_index, url):
    r = client.get("/api" + _url(url, first_index))
    assert r.status_code == 400, r.data[:300]
    assert r.mimetype == "application/json"
    body = r.get_json()
    assert body["status"] == 400 and body["error"] == "Bad Request" and body["message"]


@pytest.mark.parametrize("url", NOT_FOUND)
def test_unknown_things_are_404(client, first_index, url):
    r = client.get(_url(url, first_index))
    assert r.status_code == 404, r.data[:300]
    assert r.mimetype == "text/html"
    r = client.get("/api" + _url(url, first_index))
    assert r.status_code == 404, r.data[:300]
    assert r.get_json()["status"] == 404


def test_api_resolve_needs_an_id(client):
    r = client.get("/api/resolve")
    assert r.status_code == 400 and r.get_json()["message"] == "id is required"


def test_api_chain_needs_topic_and_key(client):
    assert client.get("/api/chain").status_code == 400


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize("url", ["/", "/message/0", "/api/", "/api/message/0", "/hex?offset=0"])
def test_only_get(client, method, url):
    r = client.open(url, method=method)
    assert r.status_code == 405
    assert r.headers["Allow"] == "GET, HEAD"
    if url.startswith("/api"):
        assert r.get_json()["status"] == 405


WEIRD = ["", " ", "0", "-0", "+5", "1e3", "0x1f", "١٢", "NaN", "%", "../", "9" * 19, "9" * 40, "\t", "a b", "<x>",
         "' OR 1=1 --", "\u202e", "65536", "-9223372036854775808"]
PAGES = {
    "/messages": ["topic", "queue", "from", "limit"],
    "/hex": ["offset", "length"],
    "/chain": ["topic", "key"],
    "/slot": ["file", "slot"],
    "/teach": ["hashes", "slots", "step", "lookup"],
    "/resolve": ["id"],
    "/search": ["q", "fixed", "i", "in", "topic", "tag", "limit"],
}


@pytest.mark.parametrize("page", sorted(PAGES))
def test_no_parameter_value_gives_a_500(client, sample_store, page):
    params = PAGES[page]
    statuses = set()
    for name, value in itertools.product(params, WEIRD):
        for prefix in ("", "/api"):
            r = client.get(prefix + page, query_string={name: value})
            statuses.add(r.status_code)
            if r.status_code == 302:  # the hex page's "jump to" spellings (0x1f, -0) and an 0x offset of the
                # messages page lead to their decimal URL
                assert not prefix and (re.fullmatch(r"/hex\?offset=\d+(&.*)?", r.location) or (
                    page == "/messages" and re.fullmatch(r"/messages\?from=-?\d+", r.location))), \
                    (name, value, r.location)
                continue
            assert r.status_code in (200, 400, 404), (prefix + page, name, value, r.status_code, r.data[:200])
    for value in WEIRD:
        if value.strip() and "/" not in value:
            for prefix in ("", "/api"):
                r = client.get(f"{prefix}/message/{value}")
                if r.status_code == 302:  # /message/0x1f: its decimal URL
                    assert not prefix and re.fullmatch(r"/message/\d+", r.location), (value, r.location)
                    continue
                assert r.status_code in (200, 400, 404), (value, r.status_code)
    assert 400 in statuses
