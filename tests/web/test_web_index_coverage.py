"""The web's key lookups over log no index file covers (issue 29 item 2): the chain page and /api/chain scan that
range and mark each hit "found by scan", /api/resolve and the resolve page say a UNIQ_KEY was found that way;
the page checked in headless Chromium too (skipped without it, as tests/web/test_browser.py)."""

from __future__ import annotations

import pytest
from web_support import served

from tests.unindexed_store import write_unindexed
from web.app import create_app
from web.data import Limits


@pytest.fixture(scope="module")
def dropped(tmp_path_factory):
    """A writer-made store whose newest index file an abnormal start deleted: (root, last record, its unique key,
    the gap's text)."""
    u = write_unindexed(tmp_path_factory.mktemp("unindexed") / "s")
    return u.root, u.written[-1], u.unique_key, u.gap


@pytest.fixture(scope="module")
def app(dropped):
    a = create_app(dropped[0])
    yield a
    a.extensions["rmq_store"].close()


def test_api_chain_scans_the_unindexed_range(app, dropped) -> None:
    _, last, _, gap = dropped
    d = app.test_client().get(f"/api/chain?topic={last.topic}&key=k1499").get_json()
    assert d["unindexed_scanned"] is True and len(d["unindexed_ranges"]) == 1
    # offsets go to the browser as strings (past 2^53 a JS number is not exact: web/api.py)
    assert d["found_by_scan"] == [{"physical_offset": str(last.physical_offset),
                                   "note": f"found by scan: no index covers {gap}"}]
    assert d["found_by_scan_stopped"] is None
    d = app.test_client().get(f"/api/chain?topic={last.topic}&key=absent").get_json()
    assert d["found_by_scan"] == [] and d["unindexed_ranges"]


def test_the_scan_past_the_time_budget_says_how_far_it_got(dropped) -> None:
    """A partial answer says so: with no time left the scan stops at its first batch and the page says where."""
    root, last, _, gap = dropped
    app = create_app(root, {"TESTING": True, "LIMITS": Limits(request_seconds=0.0)})
    try:
        d = app.test_client().get(f"/api/chain?topic={last.topic}&key=k1499").get_json()
        assert d["found_by_scan"] == [] and d["found_by_scan_stopped"].startswith("stopped at the 0 s time limit")
        assert f"scanning {gap} up to" in d["found_by_scan_stopped"]
        page = app.test_client().get(f"/chain?topic={last.topic}&key=k1499").get_data(as_text=True)
        assert 'id="scan-stopped">Truncated: the scan stopped at the 0 s time limit' in page
    finally:
        app.extensions["rmq_store"].close()


def test_resolve_says_found_by_scan(app, dropped) -> None:
    _, last, uniq, gap = dropped
    d = app.test_client().get(f"/api/resolve?id={uniq}").get_json()
    assert d["found_as"] == ["unique_key"] and str(d["physical_offset"]) == str(last.physical_offset)
    assert d["unique_key"]["note"] == f"found by scan: no index covers {gap}"
    page = app.test_client().get(f"/resolve?id={uniq}").get_data(as_text=True)
    assert f'id="found-by-scan">found by scan: no index covers {gap}</span>' in page


def test_the_chain_page_in_chromium(browser, dropped) -> None:
    root, last, _, gap = dropped
    app = create_app(root)
    try:
        with served(app) as url:
            context = browser.new_context()
            page = context.new_page()
            page.goto(f"{url}/chain?topic={last.topic}&key=k1499")
            item = page.locator("li.found-by-scan")
            assert item.count() == 1
            assert f"found by scan: no index covers {gap}" in item.inner_text()
            assert page.locator("#unindexed").inner_text().startswith(f"No index file covers {gap}")
            item.locator("a").click()
            page.wait_for_load_state()
            assert f"/message/{last.physical_offset}" in page.url
            context.close()
    finally:
        app.extensions["rmq_store"].close()
