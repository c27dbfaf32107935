"""A link crawler (issue 33): from ``/``, breadth-first, every same-site link of every page reached within a bound
(PAGES a store), on the sample store, the aged sample store, a copy without ``consumequeue/``, a copy with a zeroed
page mid-segment and the zeroed-page store of tests/zeroed_page_store.py, then every slot page of every index file
(their drawings link each index item), then every link those pages hold that was not followed, fetched for its
status only: no link leads to a 404 or 500. (The bound alone missed the dead links of /story's queue cells and of
index items into a zeroed page: their kinds had been fetched 25 times elsewhere.)"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
import time
from collections import Counter, deque
from html import unescape
from pathlib import Path

import pytest
from external_tools import SAMPLE_STORE, need

from inspector.engine import Store
from web.app import create_app

pytestmark = pytest.mark.timeout(240)

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_store"
AGED = REPO / "sample_store_aged"
PAGES = 300  # pages fetched per store: every page of the nav and what they link, not every message of the store
PER_KIND = 25  # URLs fetched of one kind (see kind())
LINKS = 6000  # links found on those pages and not followed, fetched for their status only (check_links)
HREF = re.compile(r'href="(/[^"]*)"')
SKIP = ("/static/", "/room/")  # files; the workshop room's streams only answer when a room is running


def _damage_scenarios():
    """tests/hardening/damage_scenarios.py (its directory is not on sys.path when only tests/web is collected)."""
    path = Path(__file__).resolve().parents[1] / "hardening" / "damage_scenarios.py"
    spec = importlib.util.spec_from_file_location("damage_scenarios", path)
    module = sys.modules.setdefault("damage_scenarios", importlib.util.module_from_spec(spec))
    if not hasattr(module, "make"):
        spec.loader.exec_module(module)
    return module


def _copy(tmp: Path) -> Path:
    need(SAMPLE_STORE)
    root = tmp / "store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    return root


def _no_consumequeue(tmp: Path) -> Path:
    root = _copy(tmp)
    shutil.rmtree(root / "consumequeue")
    return root


def _zeroed_page(tmp: Path) -> Path:
    root = _copy(tmp)
    _damage_scenarios().zeroed_page_mid_segment(root)
    return root


def _first_page_zeroed(tmp: Path) -> Path:
    need(SAMPLE_STORE)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from zeroed_page_store import zeroed_page_store

    return zeroed_page_store(tmp / "store")[0]


def _aged(tmp: Path) -> Path:
    """sample_store_aged as committed (read-only: the crawl writes nothing)."""
    if not (AGED / "commitlog").is_dir():
        pytest.skip("sample_store_aged is not in this checkout: git checkout -- sample_store_aged")
    return AGED


def kind(url: str) -> str:
    """A link's kind: its path with numbers as N and its parameters' names (``/message/N``, ``/hex?length,offset``)."""
    path, _, query = url.partition("?")
    return re.sub(r"\d+", "N", path) + "?" + ",".join(sorted({p.split("=")[0] for p in query.split("&") if p}))


def crawl(client, limit: int = PAGES, start: list[str] | None = None,
          per_kind: int | None = PER_KIND) -> tuple[dict[str, int], dict[str, str]]:
    """Breadth-first from ``/`` (or the ``start`` pages): (status of each URL fetched, the page each URL was first
    linked from). At most ``per_kind`` URLs of one kind are fetched, so the bound covers every kind of link rather
    than 200 message pages (None: no such bound, every ``start`` page read)."""
    seen: dict[str, int] = {}
    start = start or ["/"]
    linked_from: dict[str, str] = {url: "(start)" for url in start}
    fetched = Counter()
    todo = deque(start)
    for _ in range(200):  # the overview reloads itself while the store's walk runs: crawl the finished one
        if b'http-equiv="refresh"' not in client.get("/").data:
            break
        time.sleep(0.1)
    while todo and len(seen) < limit:
        url = todo.popleft()
        if per_kind is not None and fetched[kind(url)] >= per_kind:
            continue
        fetched[kind(url)] += 1
        r = client.get(url)
        seen[url] = r.status_code
        if r.status_code != 200 or not r.content_type.startswith("text/html"):
            continue
        for href in HREF.findall(r.get_data(as_text=True)):
            href = unescape(href).split("#")[0]
            if href.startswith("//") or href.startswith(SKIP) or not href or href in linked_from:
                continue
            linked_from[href] = url
            todo.append(href)
    return seen, linked_from


def check_links(client, seen: dict[str, int], linked_from: dict[str, str], limit: int = LINKS) -> int:
    """Every link the crawl found on the pages it read but did not follow (the per-kind bound) fetched too, its
    status only (the page is not read for more links): a dead link is found wherever it is. How many."""
    checked = 0
    for url in list(linked_from):
        if url in seen or checked >= limit:
            continue
        seen[url] = client.get(url).status_code
        checked += 1
    return checked


def slot_pages(store) -> list[str]:
    """Every slot page of every index file: their drawings link each index item, and an item into no readable
    record is what a damaged store's crawl must meet (the breadth-first bound reads the first slots only)."""
    return [f"/slot?file={r.name}&slot={s}" for r in store.index_files() for s in range(r.slot_count)]


@pytest.mark.parametrize("make", [None, _aged, _no_consumequeue, _zeroed_page, _first_page_zeroed],
                         ids=["sample", "aged", "no-consumequeue", "zeroed", "zeroed-page-store"])
def test_no_link_leads_to_a_404_or_500(make, tmp_path):
    root = _copy(tmp_path) if make is None else make(tmp_path)
    with Store(root) as store:
        client = create_app(store, {"TESTING": True}).test_client()
        seen, linked_from = crawl(client)
        assert len(seen) == PAGES, f"the crawl reached only {len(seen)} pages"
        assert len({kind(url) for url in seen}) >= 30  # every page kind and its forms' answers: 35 on the sample store
        extra, _ = crawl(client, len(slot_pages(store)), start=slot_pages(store), per_kind=None)
        for url, code in extra.items():
            seen.setdefault(url, code)
        linked_from.update({url: "(every slot page)" for url in extra if url not in linked_from})
        checked = check_links(client, seen, linked_from)
    assert checked < LINKS, "more links than the check fetches: raise LINKS"
    broken = {url: (code, linked_from[url]) for url, code in seen.items() if code in (404, 500)}
    assert not broken, broken


def test_a_group_queue_without_a_consume_queue_links_to_its_topic(tmp_path):
    """The dead links the crawler found: a group's queue row linked to that queue's page at the committed offset
    (404 on a store without consumequeue/); it links to the topic's messages in commitlog order instead."""
    with Store(_no_consumequeue(tmp_path)) as store:
        page = create_app(store, {"TESTING": True}).test_client().get("/groups?name=billing-consumer")
    links = HREF.findall(page.get_data(as_text=True))
    assert any(unescape(h).startswith("/messages?topic=") for h in links)
    assert not [h for h in links if unescape(h).startswith("/messages?") and "queue=" in h]


def test_a_story_without_a_consume_queue_links_its_topic(tmp_path):
    """The story page's queue-offset cells linked /messages?topic=..&queue=..&from=<queue offset>, a 404 on a
    store without consumequeue/; as the message page's "in its topic", they link the topic in commitlog order
    from the record's physical offset (a group's row, with no record offset, the topic)."""
    root = _no_consumequeue(tmp_path)
    with Store(root) as store:
        client = create_app(store, {"TESTING": True}).test_client()
        m = next(e for e in store.entries() if getattr(e, "topic", None) == "OrderEvents")
        page = client.get(f"/story?ref={m.physical_offset}").get_data(as_text=True)
        links = [unescape(h) for h in HREF.findall(page) if h.startswith("/messages?")]
        assert f"/messages?topic=OrderEvents&from={m.physical_offset}" in links
        assert not [h for h in links if "queue=" in h], links
        for h in links:
            assert client.get(h).status_code == 200, h
