"""The web's queue listing marks each consumer group's committed offset (issue 30 item 2): a line before the
group's first pending row, or after the queue's last row when the group consumed it all; the groups page and one
group's page; store text (a group name carrying markup) shown as text; ``/api/messages`` unchanged. In Chromium too."""

from __future__ import annotations

import re

import pytest
from test_browser import page, pytestmark, served  # noqa: F401 - fixtures, timeout and skip shared

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from web.app import create_app

T0 = 1_700_000_000_000
EVIL = "g<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """T queue 0: m0..m5; "late" and EVIL committed 2, "done" committed 6 (all consumed)."""
    root = tmp_path_factory.mktemp("group-marks") / "store"
    offsets = {("T", "late"): {0: 2}, ("T", "done"): {0: 6}, ("T", EVIL): {0: 2}}
    with StoreWriter(root, clock=lambda: T0, consumer_offsets=offsets) as w:
        for i in range(6):
            w.append(MessageSpec(topic="T", body=f"m{i}".encode(), store_timestamp=T0 + i))
    return root


def _rows(html: str) -> list[str]:
    """Each row of the message table: 'mark: TEXT' for a marker line, else the row's queue offset."""
    body = html[html.index('<table class="grid" id="message-list">'):]
    body = body[:body.index("</table>")]
    rows = []
    for tr in re.findall(r"<tr[^>]*>.*?</tr>", body, re.S):
        if 'class="group-mark"' in tr:
            rows.append("mark: " + re.sub(r"<[^>]+>", "", tr).strip())
        elif "data-offset" in tr:
            rows.append(re.findall(r'<td class="num">([^<]*)</td>', tr)[-2])  # queue, then queue offset
    return rows


def test_marks_in_the_queue_listing(root):
    app = create_app(root, {"TESTING": True})
    try:
        client = app.test_client()
        html = client.get("/messages?topic=T&queue=0").get_data(as_text=True)
        api = client.get("/api/messages?topic=T&queue=0").get_json()
        page_two = client.get("/messages?topic=T&queue=0&from=3").get_data(as_text=True)
        log = client.get("/messages").get_data(as_text=True)
    finally:
        app.extensions["rmq_store"].close()
    evil = "g&lt;img src=x onerror=alert(1)&gt;"
    assert _rows(html) == ["0", "1", f"mark: ▶ committed 2: {evil}, late (pending from here)", "2", "3", "4", "5",
                           "mark: ◀ committed 6, all consumed: done"]
    assert "<img" not in html
    assert _rows(page_two) == ["3", "4", "5", "mark: ◀ committed 6, all consumed: done"]
    assert "group-mark" not in log  # commitlog order: no queue, no marks
    assert "marks" not in api and all("mark" not in k for k in api)  # the API's JSON is unchanged


def test_marks_in_chromium(page, root):  # noqa: F811
    app = create_app(root)
    try:
        with served(app) as url:
            page.goto(f"{url}/messages?topic=T&queue=0")
            marks = page.locator("tr.group-mark")
            assert marks.count() == 2
            assert marks.nth(0).inner_text() == f"▶ committed 2: {EVIL}, late (pending from here)"
            # the line sits between queue offsets 1 and 2: the next row is the first pending message
            following = page.locator("tr.group-mark + tr td:nth-child(4)").first.inner_text()
            assert following == "2"
            assert page.locator("img").count() == 0
    finally:
        app.extensions["rmq_store"].close()


def test_groups_and_group_pages(root):
    app = create_app(root, {"TESTING": True})
    try:
        client = app.test_client()
        listing = client.get("/groups")
        one = client.get("/groups?name=late&limit=2")
        unknown = client.get("/groups?name=nobody")
        bad = client.get("/groups?name=late&limit=-1")
        evil = client.get("/groups", query_string={"name": EVIL})
        api = client.get("/api/groups?name=late&limit=1").get_json()
        api_unknown = client.get("/api/groups?name=nobody")
    finally:
        app.extensions["rmq_store"].close()
    text = listing.get_data(as_text=True)
    assert listing.status_code == 200 and 'href="/groups?name=late"' in text and "<img" not in text
    html = one.get_data(as_text=True)
    assert one.status_code == 200
    assert '<strong id="group-lag">4</strong>' in html  # committed 2 of 6
    assert "Pending: messages after the committed offsets (2 of 4)" in html
    assert "limit 2: 2 more pending message(s) not listed." in html
    assert unknown.status_code == 404 and "groups here: " in unknown.get_data(as_text=True)
    assert bad.status_code == 400
    assert evil.status_code == 200 and "<img" not in evil.get_data(as_text=True)
    (q,) = api["queues"]  # the JSON twin: group --json, 64-bit offsets as strings
    assert (q["committed_offset"], q["max_offset"], q["lag"], api["more_pending"]) == ("2", "6", 4, 3)
    assert api_unknown.status_code == 404 and api_unknown.get_json()["status"] == 404


def test_group_page_in_chromium(page, root):  # noqa: F811
    app = create_app(root)
    try:
        with served(app) as url:
            page.goto(f"{url}/groups")
            page.locator("#groups a", has_text="late").click()
            assert page.locator("#group-lag").inner_text() == "4"
            cells = page.locator("#group-queues tbody tr").first.locator("td").all_inner_texts()
            assert cells[:6] == ["T", "0", "2", "0", "6", "4"]
            assert cells[7].startswith("2 @ ")  # the first unconsumed message: queue offset 2
            assert page.locator("#group-pending tbody tr").count() == 4
    finally:
        app.extensions["rmq_store"].close()
