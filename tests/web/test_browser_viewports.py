"""Viewports (issue 33): every page of the viewer (the sample store, the zeroed-page copy of
tests/zeroed_page_store.py, the workshop pages) on a phone (390x844), a laptop (1280x720) and a projector
(1920x1080) in real headless Chromium: no page is wider than the window (wide tables and drawings scroll in their
own box, long values wrap). Every page at the phone's width, where a page overflows first; at the two wider sizes
the pages with the widest content (tables, drawings, the hex dump, the tour's diagrams), one of each template.
Set RMQ_INSPECT_SHOTS=DIR to keep a screenshot of every page checked, to look at (the suite takes none: they
cost a quarter of this module's time)."""

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


# the pages checked at the wider sizes too: the widest content of each kind (a path is kept when it starts with one)
WIDE_CONTENT = ("/messages", "/message/", "/hex?", "/chain?", "/slot?file", "/story?", "/stats", "/groups",
                "/teach?step", "/exercises?", "/salvage")
# the tour's steps share one template: the record's field dump (2), two dumps side by side (4), the key's hash and
# chain drawing (5), a message's whole story (14)
WIDE_TOUR_STEPS = {"/tour?step=2", "/tour?step=4", "/tour?step=5", "/tour?step=14"}


def widest(paths: list[str], size: str) -> list[str]:
    """Every path on a phone; the widest-content ones at the wider sizes."""
    return paths if size == "phone" else [p for p in paths
                                          if p == "/" or p in WIDE_TOUR_STEPS or p.startswith(WIDE_CONTENT)]


@pytest.fixture(scope="module")
def shots() -> Path | None:
    if not os.environ.get("RMQ_INSPECT_SHOTS"):
        return None
    where = Path(os.environ["RMQ_INSPECT_SHOTS"])
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


def too_wide(browser, base: str, paths: list[str], size: str, shots: Path | None, tag: str) -> dict[str, dict]:
    """Each path wider than the window at ``size`` -> what sticks out; a screenshot of every page into ``shots``."""
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
    wide: dict[str, dict] = {}
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        for path in paths:
            response = open_settled(page, base + path)
            assert response is not None and response.status == 200, (path, response and response.status)
            if shots is not None:
                name = "".join(c if c.isalnum() else "-" for c in path.strip("/"))[:60] or "overview"
                page.screenshot(path=str(shots / f"{tag}-{size}-{name}.png"))
            found = page.evaluate(WIDTH)
            if found["scroll"] > found["width"] or found["out"]:
                wide[path] = found
    finally:
        context.close()
    return wide


def test_the_wider_sizes_check_one_page_of_each_wide_template(sample_store):
    paths = store_pages(sample_store) + workshop_pages(sample_store)
    wider = widest(paths, "laptop")
    assert len(wider) < len(paths) / 2  # the point: a quicker suite
    for kind in ("/", "/messages", "/hex?", "/tour?step=14", "/exercises?"):
        assert any(p == kind or p.startswith(kind) and kind != "/" for p in wider), kind


@pytest.mark.parametrize("size", list(SIZES))
def test_sample_store_and_workshop_pages_fit(browser, sample_store, sample_base, shots, size):
    paths = widest(store_pages(sample_store) + workshop_pages(sample_store), size)
    wide = too_wide(browser, sample_base, paths, size, shots, "sample")
    assert not wide, wide


@pytest.mark.parametrize("size", list(SIZES))
def test_damaged_store_pages_fit(browser, zeroed, zeroed_base, shots, size):
    wide = too_wide(browser, zeroed_base, widest(damaged_pages(zeroed), size), size, shots, "zeroed")
    assert not wide, wide
