"""The viewer in real headless Chromium (Debian's /usr/bin/chromium driven by Playwright) against the real app
served on 127.0.0.1. Expectations come from the engine. Screenshots go to tests/web/artifacts/; with
RMQ_INSPECT_UPDATE_DOCS=1 the chain screenshot also replaces docs/web-chain.png (the README picture)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from web_support import XSS_KEYS, XSS_TOPIC, served

from inspector.engine.workshop.teaching import DEFAULT_HASHES, DEFAULT_SLOTS, build_steps
from web.app import create_app

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DOCS_SHOT = Path(__file__).resolve().parents[2] / "docs" / "web-chain.png"

pytestmark = [pytest.mark.timeout(120)]  # without Chromium the `browser` fixture skips (tests/external_tools.py)


@pytest.fixture(scope="module")
def live(sample_store):
    with served(create_app(sample_store)) as url:
        yield url


@pytest.fixture(scope="module")
def live_hostile(hostile):
    with served(create_app(hostile[0])) as url:
        yield url


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
    pg = context.new_page()
    pg.set_default_timeout(10_000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    yield pg
    context.close()


def shot(page_or_locator, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page_or_locator.screenshot(path=str(path))
    return path


def test_chain_svg_of_a_colliding_key(page, live, sample_store, colliding_key):
    topic, key, other = colliding_key
    page.goto(f"{live}/chain?topic={quote(topic)}&key={quote(key)}")
    walks = sample_store.chain(topic, key)
    sections = page.locator("section.index-file")
    assert sections.count() == len(walks)
    for i, walk in enumerate(walks):
        svg = sections.nth(i).locator("svg.chain")
        assert svg.locator("g.item").count() == len(walk.steps)
        expected = sum(1 for s in walk.steps if s.hash_matches and s.key_matches is False)
        assert svg.locator('g.item[data-kind="collision"]').count() == expected
        assert svg.locator("g.mark").count() == expected
        assert svg.locator('g.item[data-kind="match"]').count() == sum(1 for s in walk.steps if s.key_matches)
    colliding = page.locator('section.index-file:has(g.item[data-kind="collision"])').first
    mark = colliding.locator("g.mark").first
    assert mark.is_visible() and "collision" in mark.text_content()
    strokes = {kind: colliding.locator(f'g.item[data-kind="{kind}"] rect.box').first.evaluate(
        "e => getComputedStyle(e).stroke") for kind in ("match", "collision", "other")}
    assert len(set(strokes.values())) == 3, strokes  # three different colours
    path = shot(colliding, "chain.png")
    shot(page, "chain-page.png")
    if os.environ.get("RMQ_INSPECT_UPDATE_DOCS"):
        DOCS_SHOT.parent.mkdir(exist_ok=True)
        shutil.copyfile(path, DOCS_SHOT)
    # each box links to its message
    target = colliding.locator('g.item[data-kind="collision"]').first
    offset = target.get_attribute("data-offset")
    target.click()
    page.wait_for_url(f"**/message/{offset}")
    assert page.locator('tr[data-field="topic"] td').text_content() == topic
    assert other in page.locator('tr[data-field="keys"] td').text_content().split()
    assert page.errors == []


def test_teach_steps_with_next_and_previous(page, live):
    steps = build_steps(DEFAULT_HASHES, DEFAULT_SLOTS)
    page.goto(f"{live}/teach")

    def slots_shown() -> list[int]:
        return [int(v) for v in page.locator("svg.teach g.slot text.slot-val").all_text_contents()]

    assert slots_shown() == [0] * DEFAULT_SLOTS
    for n, step in enumerate(steps, start=1):
        page.locator("#next").click()
        page.wait_for_url(f"**step={n}**")
        assert slots_shown() == list(step.slots)
        changed = page.locator("svg.teach g.slot.changed")
        assert changed.get_attribute("data-slot") == str(step.slot) and changed.get_attribute("data-value") == str(n)
        assert page.locator("svg.teach g.item").count() == n
        assert page.locator("svg.teach g.item.new").get_attribute("data-prev") == str(step.old_slot_value)
        assert page.locator("#step-label").text_content() == f"step {n} of {len(steps)}"
        if n == 3:
            shot(page, "teach-step3.png")
    assert page.locator("#next").count() == 0  # the last step has no next link
    # the seed article's chains: [29] -> 3 -> 2 and [16] -> 6 -> 5 -> 1
    assert page.locator('svg.teach g.slot[data-slot="29"]').get_attribute("data-value") == "3"
    assert page.locator('svg.teach g.slot[data-slot="16"]').get_attribute("data-value") == "6"
    assert page.locator("#lookup-walk li").evaluate_all("els => els.map(e => e.dataset.item)") == ["6", "5", "1"]
    shot(page, "teach-step6.png")
    page.locator("#prev").click()
    page.wait_for_url("**step=5**")
    assert slots_shown() == list(steps[4].slots)
    page.keyboard.press("ArrowLeft")  # the optional script: arrow keys follow the links
    page.wait_for_url("**step=4**")
    assert slots_shown() == list(steps[3].slots)
    assert page.errors == []


def test_hex_highlights_the_boundary_of_the_message_navigated_to(page, live, sample_messages):
    first, second = sample_messages[4], sample_messages[5]
    assert first.end_offset == second.physical_offset
    page.goto(f"{live}/hex?offset={first.physical_offset}")
    start = page.locator("#hexview .hex .current.rstart")
    assert start.count() == 1 and start.get_attribute("data-offset") == str(first.physical_offset)
    page.locator(".hexnav a.next").click()
    page.wait_for_url(f"**/hex?offset={second.physical_offset}")
    start = page.locator("#hexview .hex .current.rstart")
    assert start.count() == 1 and start.get_attribute("data-offset") == str(second.physical_offset)
    assert page.locator("#hexview").get_attribute("data-current-start") == str(second.physical_offset)
    # a boundary is an inset shadow (a border would widen its row: test_browser_hex's columns-line-up test)
    style = start.evaluate("e => getComputedStyle(e).boxShadow")
    other = page.locator("#hexview .hex .rstart:not(.current)").first.evaluate("e => getComputedStyle(e).boxShadow")
    assert "4px 0px 0px 0px inset" in style and style != other  # the navigated-to boundary is distinct from others
    if second.end_offset <= int(page.locator("#hexview").get_attribute("data-window-end")):
        end = page.locator("#hexview .hex .current.rend")
        assert end.count() == 1 and "-4px 0px 0px 0px inset" in end.evaluate("e => getComputedStyle(e).boxShadow")
    # hover labels a field: title attribute, and the script's status line
    topic_span = page.locator(f'#hexview .hex span.current[title^="#16b TOPIC = {second.topic}"]').first
    topic_span.hover()
    assert page.locator("#hexinfo").text_content().startswith("#16b TOPIC")
    shot(page, "hex.png")
    page.locator(".hexnav a.prev").click()
    page.wait_for_url(f"**/hex?offset={first.physical_offset}")
    assert page.locator("#hexview .hex .current.rstart").get_attribute("data-offset") == str(first.physical_offset)
    assert page.errors == []


def test_script_in_a_body_topic_key_or_property_does_not_execute(page, live_hostile, hostile):
    _, facts = hostile
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    t = quote(XSS_TOPIC, safe="")
    urls = [f"/message/{facts['evil']}", f"/message/{facts['evil']}?body=json", f"/messages?topic={t}&queue=0", "/",
            f"/hex?offset={facts['evil']}", f"/chain?topic={t}&key={quote(XSS_KEYS[0], safe='')}",
            f"/chain?topic={t}&key={quote(XSS_KEYS[1], safe='')}", f"/resolve?id={facts['evil_msg_id']}"]
    for url in urls:
        page.goto(live_hostile + url)
        page.wait_for_load_state("load")
        for el in page.locator('td:has-text("onmouseover"), span[title*="onmouseover"]').all()[:3]:
            el.hover()  # where the tags payload would have become an element with a mouse handler
        assert page.evaluate("typeof window.__pwned") == "undefined", url
        injected = page.evaluate("""() => [
            document.querySelectorAll('img, iframe, object, embed').length,
            [...document.querySelectorAll('script')].filter(s => !s.src && s.type !== 'application/json').length,
            [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length,
        ]""")
        assert injected == [0, 0, 0], url
    assert dialogs == []
    page.goto(f"{live_hostile}/message/{facts['evil']}")
    assert "<script>window.__pwned=2" in page.locator("#body").text_content()  # shown as text
    assert page.locator('tr[data-field="topic"] td').text_content() == XSS_TOPIC
    shot(page, "hostile-message.png")
    assert page.errors == []


def test_pages_work_without_javascript(browser, live, sample_messages):
    context = browser.new_context(java_script_enabled=False)
    try:
        pg = context.new_page()
        pg.set_default_timeout(10_000)
        pg.goto(f"{live}/teach?step=1")
        pg.locator("#next").click()
        pg.wait_for_url("**step=2**")
        assert pg.locator('svg.teach g.slot[data-slot="29"]').get_attribute("data-value") == "2"
        pg.goto(f"{live}/hex?offset={sample_messages[0].physical_offset}")
        pg.locator(".hexnav a.next").click()
        pg.wait_for_url(f"**offset={sample_messages[1].physical_offset}")
        pg.locator('input[name="offset"]').fill(str(sample_messages[3].physical_offset))
        pg.locator(".hexnav button").click()
        pg.wait_for_url(f"**offset={sample_messages[3].physical_offset}**")
        assert pg.locator("#hexview .hex .current.rstart").get_attribute("data-offset") == str(sample_messages[3].physical_offset)
        pg.goto(f"{live}/resolve")
        pg.locator('input[name="id"]').fill(sample_messages[2].msg_id)
        pg.locator("form button").click()
        pg.locator("#message-link").click()
        pg.wait_for_url(f"**/message/{sample_messages[2].physical_offset}")
    finally:
        context.close()
