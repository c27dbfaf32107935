"""``since`` / ``until`` on the web viewer's messages, search and stats (pages and API), on the sample store: the
same records as the CLI's --since/--until (the first at or after since, the last before until, exact to the ms),
in commitlog and queue order; a bad time or a since after until is a 400 naming it; the pages carry the fields."""

from __future__ import annotations

from pathlib import Path

from test_browser import page, pytestmark, served  # noqa: F401 - fixtures, timeout and skip shared

from web.app import create_app

SAMPLE = Path(__file__).resolve().parents[2] / "sample_store"
SINCE, UNTIL = 1_758_289_689_632, 1_758_294_000_000  # a record's store time (113348) and a time between records
SINCE_ISO = "2025-09-19T13:48:09.632Z"


def _get(*urls):
    app = create_app(SAMPLE, {"TESTING": True})
    try:
        client = app.test_client()
        return [client.get(u) for u in urls]
    finally:
        app.extensions["rmq_store"].close()


def _every():
    from inspector.engine import Message, Store

    with Store(SAMPLE) as s:
        return [(m.physical_offset, m.store_timestamp, m.topic, m.queue_id, m.queue_offset)
                for m in s.entries(None) if isinstance(m, Message)]


def test_messages_and_search_in_a_window_are_exact_to_the_ms():
    every = _every()
    want = [o for o, t, *_ in every if SINCE <= t < UNTIL]
    later = [o for o, t, *_ in every if SINCE + 1 <= t < UNTIL]
    listing, page2, queue, found = _get(
        f"/api/messages?since={SINCE_ISO}&until={UNTIL}&limit=100",
        f"/api/messages?since=2025-09-19T21:48:09.633%2B08:00&until={UNTIL}&limit=100",
        f"/api/messages?topic=PaymentEvents&queue=2&since={SINCE}&until={UNTIL}",
        f"/api/search?q=order-11&since={SINCE_ISO}&until={UNTIL}&limit=100")
    rows = listing.get_json()["messages"]
    assert [int(r["physical_offset"]) for r in rows] == want and want[0] == 113348 and listing.get_json()["next_from"] is None
    assert [int(r["physical_offset"]) for r in page2.get_json()["messages"]] == later == want[1:]
    assert [int(r["queue_offset"]) for r in queue.get_json()["messages"]] == list(range(19, 25))
    hits = found.get_json()["hits"]
    assert hits and all(SINCE <= int(h["store_timestamp"]) < UNTIL for h in hits)
    assert {int(h["physical_offset"]) for h in hits} <= set(want)


def test_stats_in_a_window():
    api, html = _get(f"/api/stats?since={SINCE_ISO}&until={UNTIL}", f"/stats?by=hour&since={SINCE}&until={UNTIL}")
    d = api.get_json()
    assert d["total"]["messages"] == 85 and d["window"]["since_ms"] == SINCE and d["retention"] == []
    text = html.get_data(as_text=True)
    assert 'id="stats-window"' in text and "2025-09-19 13:48:09.632" in text and 'name="since"' in text


def test_the_pages_carry_the_window():
    listing, search = _get(f"/messages?since={SINCE}&until={UNTIL}&limit=2", f"/search?q=order&since={SINCE}")
    text = listing.get_data(as_text=True)
    assert 'name="since" value="2025-09-19T13:48:09.632' in text
    assert f"since={SINCE}" in text and f"until={UNTIL}" in text  # the next page keeps the window
    assert 'name="since" value="2025-09-19T13:48:09.632' in search.get_data(as_text=True)


def test_bad_windows_are_400_with_the_message():
    for url, says in (("/api/messages?since=10:00", "since must be a store time"),
                      ("/messages?until=13:48", "until must be a store time"),
                      (f"/api/search?q=x&since={UNTIL}&until={SINCE}", "is after until"),
                      (f"/api/stats?since={UNTIL}&until={SINCE}", "is after until")):
        (r,) = _get(url)
        assert r.status_code == 400 and says in r.get_data(as_text=True), (url, r.get_data(as_text=True)[:300])


def test_the_since_field_in_chromium(page):  # noqa: F811
    """A person types a window into the messages form and gets its records; the next page keeps it."""
    app = create_app(SAMPLE)
    try:
        with served(app) as url:
            page.goto(f"{url}/messages?limit=3")
            page.fill("input[name=since]", SINCE_ISO)
            page.fill("input[name=until]", str(UNTIL))
            page.locator("form.inline button").click()
            page.wait_for_url("**since=*")
            offsets = page.locator("#message-list tbody tr[data-offset]").evaluate_all(
                "rows => rows.map(r => r.dataset.offset)")
            assert offsets[0] == "113348" and len(offsets) == 3
            assert "+00:00" in page.locator("#message-list tbody tr").first.inner_text()
            page.locator("a.next").click()
            assert "since=" in page.url and page.locator("input[name=since]").input_value().startswith("2025-09-19T")
            assert page.errors == []
    finally:
        app.extensions["rmq_store"].close()
