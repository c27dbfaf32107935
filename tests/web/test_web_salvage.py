"""The salvage plan page (issue 32): ``/salvage`` and ``/api/salvage`` plan the viewer's store once, in the
background, started by the first request (the page reloads until done); the zeroed-page store's lost span and its
11 records are listed and linked to the hex view; store text is escaped; a plan that fails says so; in real
Chromium the page reloads itself until the plan is done."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from test_browser import page, pytestmark, shot  # noqa: F401 - fixtures, timeout and skip shared
from web_support import served

from inspector.engine import Store
from web.app import create_app

sys.path.insert(0, str(Path(__file__).parents[1]))
from zeroed_page_store import zeroed_page_store  # noqa: E402


def _finished(client) -> dict:
    for _ in range(600):
        state = client.get("/api/salvage").get_json()
        if state["done"]:
            return state
        time.sleep(0.05)
    raise AssertionError("the plan never finished")


def test_the_plan_of_a_zeroed_page_lists_the_lost_span_and_its_records(tmp_path):
    root, _ = zeroed_page_store(tmp_path / "z")
    with Store(root) as store:
        client = create_app(store, {"TESTING": True}).test_client()
        assert 'href="/salvage"' in client.get("/").get_data(as_text=True)  # the nav and the overview link it
        state = _finished(client)
        html = client.get("/salvage").get_data(as_text=True)
    assert state["error"] is None
    lost = [s for s in state["plan"]["spans"] if s["state"] == "lost"]
    assert len(lost) == 1 and (lost[0]["start"], lost[0]["end"]) == ("4000", "8516")  # offsets as strings
    assert lost[0]["lost_records_total"] == 11 and len(lost[0]["lost_records"]) == 11
    assert '<tr class="span-lost"><td class="error">lost</td>' in html
    assert 'href="/hex?offset=4000"' in html and html.count("<tr><td>PaymentEvents</td>") >= 1
    assert "1 span(s) lost" in html and 'http-equiv="refresh"' not in html


def test_store_text_is_escaped_and_a_cut_list_says_so(sample_store, monkeypatch):
    import web.salvage as salvage

    class Plan:
        def as_dict(self, sample):
            records = [{"physical_offset": 10 * i, "size": 10, "topic": "<script>alert(1)</script>", "queue_id": 0,
                        "queue_offset": i, "keys": ["<img src=x onerror=alert(2)>"]} for i in range(3)]
            return {"store": "s", "replica": None, "verdict": "1 span(s) lost <b>x</b>", "files": [],
                    "repaired_records": [], "lmq_units_lost": 0, "notes": ["<i>note</i>"],
                    "spans": [{"start": 0, "end": 30, "bytes": 30, "file": "commitlog/0", "state": "lost",
                               "action": "filled", "reason": "<u>why</u>", "records": 9, "lost_records": records,
                               "lost_records_total": 9, "lost_records_listed": 3, "keys": [], "keys_total": 3,
                               "without_placeholder": 0, "placeholders": 9, "fillers": 0}]}

    monkeypatch.setattr(salvage, "salvage_plan", lambda store: Plan())
    client = create_app(sample_store, {"TESTING": True}).test_client()
    _finished(client)
    html = client.get("/salvage").get_data(as_text=True)
    for raw in ("<script>alert(1)", "<img src=x", "<b>x</b>", "<i>note", "<u>why"):
        assert raw not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;u&gt;why&lt;/u&gt;" in html
    assert "the first 3 of 9" in html


def test_a_plan_that_fails_says_so_instead_of_planning_forever(sample_store, monkeypatch):
    import web.salvage as salvage

    def broken(store):
        raise ValueError("a reader broke")

    monkeypatch.setattr(salvage, "salvage_plan", broken)
    client = create_app(sample_store, {"TESTING": True}).test_client()
    assert _finished(client)["error"] == "the plan failed: ValueError: a reader broke"
    assert "No plan: the plan failed" in client.get("/salvage").get_data(as_text=True)


def test_the_page_in_chromium_shows_the_lost_span_and_links_it(page, tmp_path):  # noqa: F811
    root, _ = zeroed_page_store(tmp_path / "z")
    with Store(root) as store, served(create_app(store)) as url:
        page.goto(f"{url}/")
        page.locator("nav a", has_text="Salvage").click()
        page.wait_for_selector("#verdict", timeout=60_000)  # after the reloads while planning
        assert "1 span(s) lost" in page.locator("#verdict").inner_text()
        assert page.locator("#spans tr.span-lost td").first.inner_text() == "lost"
        rows = page.locator("#lost-4000 + p + div table.lost-records tbody tr")
        assert rows.count() == 11 and "PaymentEvents" in rows.first.inner_text()
        shot(page.locator("main"), "salvage.png")
        page.locator("#spans tr.span-lost a", has_text="4000").click()
        page.wait_for_url("**/hex?offset=4000")
        assert not page.errors
