"""Presentation mode and themes (issue 33: a trainer with a projector) in real headless Chromium: ``?present=1`` or
the header's button or the ``p`` key give large type, no navigation, diagrams and hex rows scaled to the window,
keyboard stepping (arrows, PageUp/PageDown; never with Alt or Ctrl), remembered across pages; the theme picker
(auto follows prefers-color-scheme) is remembered too. axe-core per theme: tests/web/test_browser_axe.py."""

from __future__ import annotations

import pytest
from web_support import served

from web.app import create_app

pytestmark = [pytest.mark.timeout(120)]

BOX = """sel => { const r = document.querySelector(sel).getBoundingClientRect(); return [r.left, r.right, r.width]; }"""


@pytest.fixture(scope="module")
def base(sample_store):
    with served(create_app(sample_store)) as url:
        yield url


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    try:
        yield context.new_page()
    finally:
        context.close()


def presenting(page) -> bool:
    return page.evaluate("document.documentElement.classList.contains('present')")


def test_present_param_large_type_no_nav_hex_rows_fit_and_remembered(page, base):
    page.goto(f"{base}/tour?step=2&present=1")
    assert presenting(page)
    assert not page.locator("header nav").is_visible() and not page.locator("body > footer").is_visible()
    assert page.locator("#present-toggle").is_visible()  # the way out stays on screen
    assert page.locator("#present-toggle").get_attribute("aria-pressed") == "true"
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") >= 18
    hex_box = page.locator(".tour-hex")  # 16 bytes a row and the ASCII column, without scrolling at 1024 px
    assert hex_box.evaluate("e => e.scrollWidth <= e.clientWidth")
    assert hex_box.evaluate("e => parseFloat(getComputedStyle(e).fontSize)") > 16  # 13 px outside the mode
    page.goto(f"{base}/tour?step=3")  # no parameter: the mode is remembered
    assert presenting(page)
    page.goto(f"{base}/tour?step=3&present=0")
    assert not presenting(page) and page.locator("header nav").is_visible()
    page.goto(f"{base}/tour?step=4")
    assert not presenting(page)


def test_without_scripts_the_parameter_still_presents(browser, base):
    context = browser.new_context(viewport={"width": 1024, "height": 768}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{base}/teach?step=2&present=1")
        assert not page.locator("header nav").is_visible()
        assert not page.locator(".view-controls").is_visible()  # the controls need scripts: hidden without them
    finally:
        context.close()


def test_diagram_scaled_to_the_window(browser, base):
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.goto(f"{base}/teach?step=3")
    small = page.evaluate(BOX, "svg.teach")[2]
    page.goto(f"{base}/teach?step=3&present=1")
    left, right, width = page.evaluate(BOX, "svg.teach")
    main = page.evaluate(BOX, "main")
    assert width > small * 1.5 and right <= 1920 and width >= 0.9 * main[2]
    context.close()


def test_keys_step_page_keys_only_presenting_alt_and_ctrl_are_the_browsers(page, base):
    page.goto(f"{base}/teach?step=3")
    page.keyboard.press("PageDown")  # not presenting: the page scrolls, no step
    page.wait_for_timeout(200)
    assert page.url.endswith("step=3")
    page.keyboard.press("p")
    assert presenting(page)
    with page.expect_navigation():
        page.keyboard.press("PageDown")
    assert page.url.endswith("step=4") and presenting(page)
    with page.expect_navigation():
        page.keyboard.press("PageUp")
    assert page.url.endswith("step=3")
    for chord in ("Alt+ArrowRight", "Control+ArrowRight", "Control+PageDown"):
        page.keyboard.press(chord)
    page.wait_for_timeout(300)
    assert page.url.endswith("step=3")
    with page.expect_navigation():
        page.keyboard.press("ArrowRight")
    assert page.url.endswith("step=4")
    page.locator("#present-toggle").click()
    assert not presenting(page) and page.locator("#present-toggle").get_attribute("aria-pressed") == "false"
    page.locator("input[name=slots]").focus()
    page.keyboard.press("p")  # typing in a box is typing
    assert not presenting(page)


@pytest.mark.parametrize("scheme, theme", [("dark", "dark"), ("light", "light")])
def test_theme_follows_the_system_until_picked_then_remembered(browser, base, scheme, theme):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, color_scheme=scheme)
    try:
        page = context.new_page()
        page.goto(f"{base}/")
        assert page.evaluate("document.documentElement.dataset.theme") == theme
        assert page.locator("#theme-pick").input_value() == "auto"
        light_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
        page.select_option("#theme-pick", "contrast")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
        page.goto(f"{base}/hex")
        assert page.evaluate("document.documentElement.dataset.theme") == "contrast"
        assert page.locator("#theme-pick").input_value() == "contrast"
        page.select_option("#theme-pick", "dark")
        dark_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert dark_bg == "rgb(20, 24, 31)" and (scheme == "dark" or dark_bg != light_bg)
    finally:
        context.close()
