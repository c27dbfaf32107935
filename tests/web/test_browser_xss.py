"""Every page and API route of the viewer, in real headless Chromium, on a store whose every string is an
HTML/JS/template payload (``hostile_support``): no script runs, no dialog opens, no injected element exists,
nothing is logged to the console, and the payloads show as literal text."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hostile_support import (
    ANCHOR,
    CLOSE,
    GROUP,
    IMG,
    PROPS,
    SCRIPT,
    TAGS,
    TEMPLATE,
    TOPIC,
    UNIQ,
    write_rich_hostile_store,
)
from test_browser import served
from web_support import watched_page

from inspector.engine import Store
from inspector.engine.workshop.exercises import generate
from inspector.engine.workshop.tour_steps import tour_steps
from web.app import create_app

pytestmark = [pytest.mark.timeout(180)]  # without Chromium the `browser` fixture skips (tests/external_tools.py)

# What the page would hold if any payload had become markup or run.
INJECTED = """() => ({
  pwned: typeof window.__pwned === 'undefined' ? null : String(window.__pwned),
  marked: document.querySelectorAll('[data-pwn]').length,
  elements: document.querySelectorAll('img, iframe, object, embed, frame').length,
  scripts: [...document.querySelectorAll('script')].filter(s => !s.src && s.type !== 'application/json').length,
  handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => /^on/i.test(a.name))).length,
  js_links: [...document.querySelectorAll('[href], [src], [action], [formaction]')]
    .filter(e => ['href', 'src', 'action', 'formaction'].some(n => /^\\s*javascript:/i.test(e.getAttribute(n) || '')))
    .length,
})"""
CLEAN = {"pwned": None, "marked": 0, "elements": 0, "scripts": 0, "handlers": 0, "js_links": 0}


def q(text: str) -> str:
    return quote(text, safe="")


@pytest.fixture(scope="module")
def rich(tmp_path_factory):
    root = tmp_path_factory.mktemp("rich-hostile") / "store"
    facts = write_rich_hostile_store(root)
    store = Store(root)
    yield store, facts
    store.close()


@pytest.fixture(scope="module")
def live_rich(rich):
    with served(create_app(rich[0])) as url:
        yield url


def urls_by_route(store: Store, facts: dict) -> dict[str, list[tuple[str, list[str]]]]:
    """Each route of the app -> URLs on the hostile store, each with the strings its text must show literally."""
    evil, evil2, t = facts["evil"], facts["evil2"], q(TOPIC)
    index = store.index_files()[0]
    slot = store.chain(TOPIC, SCRIPT)[0].slot
    tour = len(tour_steps(store))
    ex = generate(store, 0, 12)[0].id
    prop_texts = [s for kv in PROPS.items() for s in kv]
    return {
        "/": [("/", [TOPIC, GROUP])],
        "/messages": [("/messages", [TOPIC, TAGS]), (f"/messages?topic={t}&queue=0", [TOPIC, TAGS, SCRIPT]),
                      (f"/messages?topic={t}", [TOPIC]), (f"/messages?topic={q(SCRIPT)}", [SCRIPT])],
        "/message/<offset>": [(f"/message/{evil}", [TOPIC, TAGS, UNIQ, *facts["keys"][:5], *prop_texts]),
                              (f"/message/{evil}?body=json", [TEMPLATE]), (f"/message/{evil}?body=hex", []),
                              (f"/message/{evil2}", [CLOSE + ANCHOR]), (f"/message/{q(TEMPLATE)}", [TEMPLATE]),
                              (f"/message/{q(SCRIPT)}", [])],
        "/hex": [(f"/hex?offset={evil}", []), (f"/hex?offset={evil2}", []), (f"/hex?offset={q(SVG_ID)}", [SVG_ID]),
                 (f"/hex?offset={hex(evil)}&length=64&addr=hex", []), (f"/hex?offset={facts['evil_msg_id']}", [])],
        "/chain": [(f"/chain?topic={t}&key={q(k)}", [TOPIC + "#" + k]) for k in facts["keys"]]
        + [(f"/chain?topic={q(IMG)}&key={q(TEMPLATE)}", [IMG + "#" + TEMPLATE])],
        "/slot": [("/slot", []), (f"/slot?file={index.name}&slot={slot}", []), (f"/slot?file={q(SCRIPT)}", [])],
        "/teach": [("/teach?step=2", []), (f"/teach?hashes={q(SCRIPT)}", [])],
        "/resolve": [(f"/resolve?id={facts['evil_msg_id']}", []), (f"/resolve?id={q(IMG)}", [])],
        "/tour": [(f"/tour?step={n}", []) for n in range(1, tour + 1)] + [(f"/tour?step={q(CLOSE)}", [])],
        "/exercises": [("/exercises", []), (f"/exercises?id={q(SCRIPT)}&answer={q(IMG)}", [SCRIPT]),
                       (f"/exercises?id={ex}&answer={q(IMG)}", [])],
        "/api/": [("/api/", [])],
        "/api/messages": [(f"/api/messages?topic={t}&queue=0", [])],
        "/api/message/<offset>": [(f"/api/message/{evil}", []), (f"/api/message/{q(SCRIPT)}", [])],
        "/api/hex": [(f"/api/hex?offset={evil}", [])],
        "/api/chain": [(f"/api/chain?topic={t}&key={q(SCRIPT)}", [])],
        "/api/slot": [(f"/api/slot?file={index.name}&slot={slot}", [])],
        "/api/teach": [("/api/teach", [])],
        "/api/resolve": [(f"/api/resolve?id={q(SVG_ID)}", [])],
        "/api/tour": [("/api/tour", [])],
        "/api/tour/<number>": [("/api/tour/1", []), (f"/api/tour/{q(SCRIPT)}", [])],
        "/api/exercises": [(f"/api/exercises?id={ex}&answer={q(SCRIPT)}", [])],
        "/timer": [("/timer", []), (f"/timer?slot={q(SCRIPT)}", [])],  # no timer store here: test_web_timer.py
        "/api/timer": [("/api/timer", [])],
        "/story": [(f"/story?ref={evil}", [TOPIC, GROUP]), (f"/story?ref={facts['evil_msg_id']}", [TOPIC]),
                   (f"/story?ref={t}&key={q(facts['keys'][0])}", [TOPIC]), (f"/story?ref={q(SCRIPT)}", [])],
        "/api/story": [(f"/api/story?ref={evil}", []), (f"/api/story?ref={q(IMG)}", [])],
        "/groups": [("/groups", [GROUP]), (f"/groups?name={q(GROUP)}", [GROUP])],  # issue 30: consumer groups
        "/api/groups": [("/api/groups", []), (f"/api/groups?name={q(GROUP)}", [])],
        # grep (issue 31): a hit's topic and its match in context are store text
        "/search": [(f"/search?q={q(SCRIPT)}&fixed=1", [TOPIC]), (f"/search?q={q(SCRIPT)}&topic={t}", [TOPIC])],
        "/api/search": [(f"/api/search?q={q(SCRIPT)}&fixed=1", [])],
        "/stats": [("/stats?by=topic", [TOPIC]), ("/stats?by=tag", []), (f"/stats?by={q(SCRIPT)}", [])],  # issue 31
        "/api/stats": [("/api/stats?by=tag", [])],
        "/diff": [("/diff", [])], "/api/diff": [("/api/diff", [])],  # no second store here: test_web_compare.py
        # the salvage plan (issue 32): its lost records' topics and keys and its reasons are store text
        "/salvage": [("/salvage", []), ("/salvage", [])], "/api/salvage": [("/api/salvage", [])],
    }


SVG_ID = "<svg onload=alert(1)>"


def test_every_route_is_visited(rich):
    app = create_app(rich[0])
    routes = {str(r) for r in app.url_map.iter_rules() if r.endpoint != "static"}
    assert routes == set(urls_by_route(*rich))


def test_no_payload_runs_or_becomes_markup_on_any_page(browser, live_rich, rich):
    store, facts = rich
    visited = 0
    with watched_page(browser) as watched:
        page = watched.page
        for urls in urls_by_route(store, facts).values():
            for url, literal in urls:
                response = page.goto(live_rich + url)
                assert response is not None and response.status in (200, 400, 404), (url, response and response.status)
                page.wait_for_load_state("load")
                for el in page.locator('td:has-text("onmouseover")').all()[:2]:  # where TAGS would get a handler
                    el.hover(timeout=2000)
                assert page.evaluate(INJECTED) == CLEAN, url
                text = page.evaluate("document.body.innerText")
                for s in literal:
                    assert s in text, (url, s)
                visited += 1
    dialogs, console = watched.dialogs, watched.console
    assert dialogs == []
    # a document answered with 400/404 logs its status; anything else would be injected code or a CSP block
    assert [c for c in console if "Failed to load resource: the server responded with a status of 4" not in c] == []
    assert visited >= 40


def test_payloads_in_forms_round_trip_as_values(browser, live_rich):
    """A payload echoed into a form field stays the field's value, not markup around it."""
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{live_rich}/chain?topic={q(TOPIC)}&key={q(IMG)}")
        assert page.locator('input[name="topic"]').input_value() == TOPIC
        assert page.locator('input[name="key"]').input_value() == IMG
        page.locator("form button").click()  # the form resubmits the same strings, still escaped
        page.wait_for_load_state("load")
        assert page.locator('input[name="key"]').input_value() == IMG
        assert page.evaluate(INJECTED) == CLEAN
    finally:
        context.close()
