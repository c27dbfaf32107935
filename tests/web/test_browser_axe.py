"""axe-core (issue 33) in real headless Chromium on every page of the viewer: the sample store, the zeroed-page copy
(tests/zeroed_page_store.py), the workshop pages and the workshop room: no serious or critical violation.

axe-core comes from the npm registry into ``.cache/axe`` (tests/external_tools.py: ``AXE``) and is injected into each
page as it is served (the page's CSP is bypassed for that script only by the test's browser context)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from external_tools import AXE, SAMPLE_STORE, need
from page_sets import (
    ROOM_TOKEN,
    TRAINER_TOKEN,
    damaged_pages,
    open_settled,
    room_served,
    store_pages,
    workshop_pages,
)
from web_support import served

from inspector.engine import Store
from web.app import create_app

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from zeroed_page_store import zeroed_page_store  # noqa: E402

pytestmark = [pytest.mark.timeout(300)]

BLOCKING = ("serious", "critical")
# axe's own default rules (WCAG 2.0-2.2 A and AA, best practice), every impact reported
RUN = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  // axe 4.7+ no longer checks ids; a page drawing several SVGs once repeated its arrowhead's id="arrow"
  const ids = [...document.querySelectorAll('[id]')].map(e => e.id);
  const dupes = [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' :: ' + (n.failureSummary || '').split('\\n')[1])
      .concat(v.nodes.length > 3 ? [`... ${v.nodes.length} in all`] : []), count: v.nodes.length}))
    .concat(dupes.length ? [{id: 'duplicate-id', impact: 'serious', help: 'ids are unique in a page', nodes: dupes,
                             count: dupes.length}] : []);
}"""


@pytest.fixture(scope="module")
def axe_script() -> str:
    return need(AXE)


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


def audit(browser, axe_script: str, base: str, paths: list[str], first: str | None = None,
          theme: str | None = None) -> dict[str, list[dict]]:
    """Each path -> its violations (every impact); ``first`` is opened before (a token that sets a cookie);
    ``theme``: the header picker's choice, as static/theme.js reads it from localStorage."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    found: dict[str, list[dict]] = {}
    try:
        page = context.new_page()
        if theme:
            page.add_init_script(f"localStorage.setItem('rmq-inspect-theme', {theme!r})")
        page.set_default_timeout(15_000)
        if first:
            page.goto(base + first)
        for path in paths:
            if path.startswith("**"):  # where the page went by itself (a participant follows the room's step)
                page.wait_for_url(path)
                page.wait_for_load_state("load")
            else:
                response = open_settled(page, base + path)
                assert response is not None and response.status == 200, (path, response and response.status)
            if theme:
                assert page.evaluate("document.documentElement.dataset.theme") == theme
            page.add_script_tag(path=axe_script)
            found[path] = page.evaluate(RUN)
    finally:
        context.close()
    return found


def blocking(found: dict[str, list[dict]]) -> dict[str, list[dict]]:
    bad = {path: [v for v in vs if v["impact"] in BLOCKING] for path, vs in found.items()}
    return {path: vs for path, vs in bad.items() if vs}


def summary(found: dict[str, list[dict]]) -> str:
    """One line per rule: impact, id, pages, nodes (printed with -s: what the README's figures come from)."""
    rules: dict[tuple[str, str], list[int]] = {}
    for vs in found.values():
        for v in vs:
            counts = rules.setdefault((v["impact"], v["id"]), [0, 0])
            counts[0] += 1
            counts[1] += v["count"]
    return "\n".join(f"{impact:9} {rule:28} pages {p:3} nodes {n}" for (impact, rule), (p, n) in sorted(rules.items()))


def check(found: dict[str, list[dict]]) -> None:
    print(f"\naxe over {len(found)} pages\n{summary(found)}")
    bad = blocking(found)
    assert not bad, "\n".join(f"{path}: {v['impact']} {v['id']} ({v['help']}): {v['nodes']}" for path, vs in bad.items()
                               for v in vs)


def test_sample_store_pages(browser, axe_script, sample_store, sample_base):
    check(audit(browser, axe_script, sample_base, store_pages(sample_store)))


# the tour's 14 steps share one template; these hold each kind of content it draws (the directory tree, a field
# dump, a BLANK, two dumps side by side, the hash and chain drawing, a torn tail, a message's story): every step is
# audited with RMQ_INSPECT_AXE_ALL_STEPS set
TOUR_STEPS = {1, 2, 3, 4, 5, 11, 14}


def test_workshop_pages(browser, axe_script, sample_store, sample_base):
    every = bool(os.environ.get("RMQ_INSPECT_AXE_ALL_STEPS"))
    pages = [p for p in workshop_pages(sample_store)
             if every or not p.startswith("/tour?step=") or int(p.rsplit("=", 1)[1]) in TOUR_STEPS]
    assert len(pages) >= len(TOUR_STEPS) + 3
    check(audit(browser, axe_script, sample_base, pages))


def test_workshop_room_trainer_and_participant(browser, axe_script, sample_store):
    with room_served(sample_store) as base:
        check(audit(browser, axe_script, base, ["/room", "/tour?step=2"], first=f"/room?trainer={TRAINER_TOKEN}")
              | {f"participant {k}": v for k, v in audit(browser, axe_script, base, ["**/tour?step=2"],
                                                         first=f"/?token={ROOM_TOKEN}").items()})


def theme_pages(store: Store) -> list[str]:
    """A few pages per theme, not all 45 (the browser suite's time): the colours each page kind adds (tour hex,
    chain and hash drawings, the hex page's bands and inspector), the tour in presentation mode."""
    pages = store_pages(store)
    picked = [p for p in pages if p.startswith(("/hex?", "/chain?"))]
    return ["/", *picked, "/tour?step=2&present=1", "/teach?step=3&present=0"]


@pytest.mark.parametrize("theme", ["dark", "contrast"])
def test_themes(browser, axe_script, sample_store, sample_base, theme):
    check(audit(browser, axe_script, sample_base, theme_pages(sample_store), theme=theme))


def test_damaged_store_pages(browser, axe_script, zeroed, zeroed_base):
    check(audit(browser, axe_script, zeroed_base, damaged_pages(zeroed)))


def test_keyboard_first_stop_is_the_skip_link_the_heat_strip_one_stop_and_the_nav_says_where(browser, sample_store,
                                                                                            sample_base):
    index = sample_store.index_files()[0].name
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{sample_base}/slot?file={index}&slot=3")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.className") == "skip-link"
        assert page.locator(".skip-link").is_visible()  # off screen until focused
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.id") == "main"
        cells = page.locator("svg.heat a")
        assert cells.count() > 100  # the sample's index files: 128 cells, each a link a mouse can click
        assert page.locator('svg.heat a:not([tabindex="-1"])').count() == 1
        assert page.locator('header nav a[aria-current="page"]').all_text_contents() == ["Slots"]
    finally:
        context.close()
