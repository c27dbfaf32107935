"""The web's statistics page and API (issue 31 item 4) on the sample store: the figures equal ``store_stats``,
the charts are server-rendered SVG (one bar per bucket, its count in ``data-count``), an unknown ``by`` is a 400,
store text (a tag carrying markup) is shown as text. In Chromium too: no script error, no request elsewhere."""

from __future__ import annotations

import re
from pathlib import Path

from test_browser import page, pytestmark, served  # noqa: F401 - fixtures, timeout and skip shared

from inspector.engine import Store, store_stats
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from web.app import create_app

SAMPLE = Path(__file__).resolve().parents[2] / "sample_store"
EVIL = "t<img src=x onerror=alert(1)>"


def _get(root, *urls):
    app = create_app(root, {"TESTING": True})
    try:
        client = app.test_client()
        return [client.get(u) for u in urls]
    finally:
        app.extensions["rmq_store"].close()


def test_page_and_api_equal_the_engine():
    with Store(SAMPLE) as s:
        expected = store_stats(s, "hour")
    html, api, bad = _get(SAMPLE, "/stats?by=hour", "/api/stats?by=hour", "/stats?by=colour")
    assert html.status_code == 200 and api.status_code == 200 and bad.status_code == 400
    d = api.get_json()
    assert d["total"]["messages"] == expected.total.messages == 402
    assert [r["key"] for r in d["rows"]] == list(expected.rows) and d["rows_total"] == len(expected.rows)
    text = html.get_data(as_text=True)
    rate = text[text.index('class="bars stats-rate"'):]
    rate = rate[:rate.index("</svg>")]
    assert [int(n) for n in re.findall(r'data-count="(\d+)"', rate)] == [n for _, n in expected.rate]
    sizes = text[text.index('class="bars stats-sizes"'):]
    assert [int(n) for n in re.findall(r'data-count="(\d+)"', sizes[:sizes.index("</svg>")])] == list(expected.sizes)
    assert "stock-consumer (InventoryEvents#2: 17 &lt; 21)" in text
    assert "<script src=\"http" not in text


def test_store_text_is_text(tmp_path):
    root = tmp_path / "s"
    with StoreWriter(root) as w:
        w.append(MessageSpec("T", b"x", tags=EVIL))
    (html,) = _get(root, "/stats?by=tag")
    text = html.get_data(as_text=True)
    assert html.status_code == 200 and "<img" not in text and "t&lt;img src=x onerror=alert(1)&gt;" in text


def test_stats_page_in_chromium(page):  # noqa: F811
    app = create_app(SAMPLE)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    try:
        with served(app) as url:
            page.goto(f"{url}/stats")
            assert page.locator("svg.stats-rate rect.bar").count() == 9
            assert page.locator("svg.stats-sizes rect.bar").count() == 9
            page.locator("a", has_text="queue").first.click()
            assert page.locator("#stats-rows tbody tr").count() == 19
            assert page.errors == []
    finally:
        app.extensions["rmq_store"].close()
    assert all(r.startswith(url) for r in requests), requests
