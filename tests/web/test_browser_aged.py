"""The web overview of the committed aged sample ``sample_store_aged/`` in real headless Chromium (the fixtures of
test_browser.py): the log from the first offset retention left, no deleted segment, and the next-start line of an
abnormal start, each checked against the engine."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_browser import page, pytestmark, served, shot  # noqa: F401 - fixtures, timeout and skip shared

from inspector.engine import Store, preflight
from web.app import create_app

AGED = Path(__file__).resolve().parents[2] / "sample_store_aged"


@pytest.fixture(scope="module")
def aged_live():
    app = create_app(AGED)
    try:
        with served(app) as url:
            yield url
    finally:
        app.extensions["rmq_store"].close()


def test_the_overview_of_the_aged_sample(page, aged_live):  # noqa: F811
    with Store(AGED) as store:
        banner = preflight(store).banner
        segments = [s.name for s in store.segments]
        first, last = store.min_offset, store.max_offset()
    for _ in range(600):  # the walk runs in the background: ask until it is done (a state, not a timing)
        if page.request.get(f"{aged_live}/api/").json()["walk"]["done"]:
            break
        time.sleep(0.05)
    page.goto(f"{aged_live}/")
    next_start = page.locator("#next-start")
    assert next_start.is_visible() and banner in next_start.text_content()
    assert "warn" in next_start.locator("span").get_attribute("class").split()
    body = page.locator("body").text_content()
    assert f"Physical offsets {first} to {last}" in " ".join(body.split())
    assert "abort file present" in body
    for name in segments:
        assert page.get_by_text(name, exact=True).count() >= 1
    assert "00000000000000000000" not in body and "00000000000000032768" not in body  # retention deleted them
    assert page.errors == []
    shot(page, "aged-overview.png")
