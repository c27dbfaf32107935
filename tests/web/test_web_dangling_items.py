"""Index items into no readable record (issue 33's crawl): on the zeroed-page store (tests/zeroed_page_store.py)
the slot and chain drawings linked such items to /message/<offset>, which 404s ("no readable message starts at
physical offset 5227"). A dangling item links to the hex view of the bytes it points at, says so in its box and
its tooltip; every other item still links its message page."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from external_tools import SAMPLE_STORE, need
from zeroed_page_store import ZEROED, zeroed_page_store

from inspector.engine import Store
from web.app import create_app

REPO = Path(__file__).resolve().parents[2]
ITEM = re.compile(r'<a href="([^"]+)" class="box-link"><g class="item ([^"]*)"[^>]*data-offset="(\d+)"')


@pytest.fixture(scope="module")
def zeroed(tmp_path_factory):
    need(SAMPLE_STORE)
    root, _ = zeroed_page_store(tmp_path_factory.mktemp("zeroed") / "store")
    with Store(root) as store:
        yield store, create_app(store, {"TESTING": True}).test_client()


def _items(html: str) -> list[tuple[str, str, int]]:
    return [(unescape(href), cls, int(off)) for href, cls, off in ITEM.findall(html)]


FETCHED: set[str] = set()


def _check(client, html: str) -> int:
    """Every item's link answers 200: a message page, or for a dangling item (pointing into the zeroed page) the
    hex view at its offset. The number of dangling items."""
    dangling = 0
    for href, cls, offset in _items(html):
        if "dangling" in cls.split():
            dangling += 1
            assert ZEROED[0] - 1024 < offset < ZEROED[1], (href, offset)  # the record the zeros cut, or one in them
            assert href == f"/hex?offset={offset}"
        else:
            assert href == f"/message/{offset}"
        if href not in FETCHED:
            assert client.get(href).status_code == 200, href
            FETCHED.add(href)
    return dangling


def test_slot_items_into_no_record_link_their_bytes(zeroed):
    store, client = zeroed
    reader = store.index_files()[0]
    dangling = 0
    for slot in range(reader.slot_count):
        html = client.get(f"/slot?file={reader.name}&slot={slot}").get_data(as_text=True)
        found = _check(client, html)
        if found:
            assert "⚠ no record: its bytes" in html
            assert re.search(r"<title>item \d+: no readable message starts at physical offset \d+", html)
        dangling += found
    assert dangling  # the zeroed page held indexed records


def test_chain_items_into_no_record_link_their_bytes(zeroed, sample_messages):
    """The chain of a key whose record the zeros wiped (found in the sample store's own copy of it)."""
    _, client = zeroed
    lost = next(m for m in sample_messages if ZEROED[0] <= m.physical_offset < ZEROED[1] and m.keys)
    html = client.get("/chain", query_string={"topic": lost.topic, "key": lost.keys[0]}).get_data(as_text=True)
    assert _check(client, html) >= 1
    assert f'href="/hex?offset={lost.physical_offset}"' in html


def test_items_into_a_removed_segment_link_nowhere(tmp_path_factory):
    """sample_store_aged: items into the log retention removed have no bytes to show (the hex view there 404s as
    the message page did): their boxes say so and link nowhere; the reason ("expired") is their tooltip."""
    aged = REPO / "sample_store_aged"
    if not (aged / "commitlog").is_dir():
        pytest.skip("sample_store_aged is not in this checkout")
    with Store(aged) as store:
        client = create_app(store, {"TESTING": True}).test_client()
        gone = 0
        for reader in store.index_files():
            for slot in range(reader.slot_count):
                html = client.get(f"/slot?file={reader.name}&slot={slot}").get_data(as_text=True)
                for href, _, offset in _items(html):
                    assert offset >= store.min_offset, (href, offset)  # every linked item is still in the log
                    assert client.get(href).status_code == 200, href
                boxes = re.findall(r'<g class="item [^"]*dangling"[^>]*data-offset="(\d+)"[^>]*><title>([^<]*)<', html)
                for offset, title in boxes:
                    if int(offset) < store.min_offset:
                        gone += 1
                        assert f'data-offset="{offset}"' in html and f'href="/hex?offset={offset}"' not in html
                        assert "expired" in title and "⚠ no record, no bytes" in html
    assert gone
