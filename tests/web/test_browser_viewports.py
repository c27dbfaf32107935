"""Viewports (issue 33): every page of the viewer (the sample store, the zeroed-page copy of
tests/zeroed_page_store.py, the workshop pages) on a phone (390x844), a laptop (1280x720) and a projector
(1920x1080) in real headless Chromium: no page is wider than the window (wide tables and drawings scroll in their
own box, long values wrap). A screenshot of each goes under the test's tmp folder (printed with -s; set
RMQ_INSPECT_SHOTS=DIR to keep them elsewhere)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from external_tools import SAMPLE_STORE, need
from page_sets import damaged_pages, open_settled, store_pages, workshop_pages
from web_support import served

from inspector.engine import Store
from web.app import create_app

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from zeroed_page_store import zeroed_page_store  # noqa: E402

pytestmark = [pytest.mark.timeout(300)]

SIZES = {"phone": (390, 844), "laptop": (1280, 720), "projector": (1920, 1080)}
# what is wider than the window, and where: the page's own width and the widest elements that stick out
WIDTH = """() => {
  const w = document.documentElement.clientWidth;
  const out = [...document.querySelectorAll('body *')].filter(e => {
    const r = e.getBoundingClientRect();
    if (r.right <= w + 1 || r.width === 0) return false;
    for (let p = e.parentElement; p; p = p.parentElement) {  // inside a box that scrolls or clips: not the page's
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') return false;
    }
    return true;
  }).slice(0, 5).map(e => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')}` +
                          ` right=${Math.round(e.getBoundingClientRect().right)}`);
  return {scroll: document.documentElement.scrollWidth, width: w, out};
}"""


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = Path(os.environ["RMQ_INSPECT_SHOTS"]) if os.environ.get("RMQ_INSPECT_SHOTS") else \
        tmp_path_factory.mktemp("viewports")
    where.mkdir(parents=True, exist_ok=True)
    print(f"\nviewport screenshots: {where}")
    return where


@pytest.fixture(scope="module")
def zeroed(tmp_path_factory):
    need(SAMPLE_STORE)
    root, _ = zeroed_page_store(tmp_path_factory.mktemp("zeroed") / "store")
    with Store(root) as store:
        yield store


@pytest.fixture(scope="module")
def sample_base(sample_store):
    """One server on the sample store for the module (as `rmq-inspect web` serves it)."""
    with served(create_app(sample_store)) as base:
        yield base


@pytest.fixture(scope="module")
def zeroed_base(zeroed):
    with served(create_app(zeroed)) as base:
        yield base


def too_wide(browser, base: str, paths: list[str], size: str, shots: Path, tag: str) -> dict[str, dict]:
    """Each path wider than the window at ``size`` -> what sticks out; a screenshot of every page."""
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
    wide: dict[str, dict] = {}
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        for path in paths:
            response = open_settled(page, base + path)
            assert response is not None and response.status == 200, (path, response and response.status)
            name = "".join(c if c.isalnum() else "-" for c in path.strip("/"))[:60] or "overview"
            page.screenshot(path=str(shots / f"{tag}-{size}-{name}.png"))
            found = page.evaluate(WIDTH)
            if found["scroll"] > found["width"] or found["out"]:
                wide[path] = found
    finally:
        context.close()
    return wide


@pytest.mark.parametrize("size", list(SIZES))
def test_sample_store_and_workshop_pages_fit(browser, sample_store, sample_base, shots, size):
    paths = store_pages(sample_store) + workshop_pages(sample_store)
    wide = too_wide(browser, sample_base, paths, size, shots, "sample")
    assert not wide, wide


@pytest.mark.parametrize("size", list(SIZES))
def test_damaged_store_pages_fit(browser, zeroed, zeroed_base, shots, size):
    wide = too_wide(browser, zeroed_base, damaged_pages(zeroed), size, shots, "zeroed")
    assert not wide, wide
