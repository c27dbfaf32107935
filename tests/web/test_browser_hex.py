"""The hex page in real headless Chromium (issue 33): the bytes are one tab stop with a cursor the arrow keys move
(roving tabindex), the inspector beside them stays in view and shows the field and the value under the cursor as
int8..int64 big-endian and as a time, "jump to" takes a msgId. Server side: tests/web/test_web_hex_page.py."""

from __future__ import annotations

import pytest
from web_support import served

from inspector.engine.present.hexwindow import plausible_time as time_text
from web.app import create_app

pytestmark = [pytest.mark.timeout(120)]

SEGMENT = "sample_store/commitlog/00000000000000000000"


@pytest.fixture(scope="module")
def base(sample_store):
    with served(create_app(sample_store)) as url:
        yield url


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        yield context.new_page()
    finally:
        context.close()


def cell(page, name: str) -> list[str]:
    return page.locator(f'#data-inspector tr[data-type="{name}"] td').all_text_contents()


def tab_to_grid(page) -> int:
    for n in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('b')"):
            return n
    raise AssertionError("no byte took the focus")


def test_one_tab_stop_arrows_move_the_cursor_and_the_inspector_follows(page, base, sample_messages):
    m = sample_messages[1]
    with open(SEGMENT, "rb") as f:
        f.seek(m.physical_offset)
        record = f.read(64)
    at = record.index(m.born_timestamp.to_bytes(8, "big"))  # BORNTIMESTAMP, found by its value
    page.goto(f"{base}/hex?offset={m.physical_offset}")
    assert page.locator("#hexview .b").count() == page.locator("#hexview .c").count() > 700  # one per byte, twice
    assert page.locator('#hexview .b[tabindex="0"]').count() == 1  # roving: one stop for the grid
    assert page.locator("#hexview .b.cur").get_attribute("tabindex") == "0"
    tab_to_grid(page)
    assert page.locator("#cursor-offset").text_content() == str(m.physical_offset)
    assert cell(page, "int32")[0] == str(m.total_size)  # TOTALSIZE under the cursor
    for key in ["ArrowDown"] * (at // 16) + ["ArrowRight"] * (at % 16):
        page.keyboard.press(key)
    assert page.url.endswith(f"/hex?offset={m.physical_offset}")  # the cursor's arrows: no step to the next record
    assert page.locator("#cursor-offset").text_content() == str(m.physical_offset + at)
    assert page.locator("#cursor-hex").text_content() == hex(m.physical_offset + at)
    assert cell(page, "int64")[0] == str(m.born_timestamp)
    assert cell(page, "time (int64 ms)") == [time_text(m.born_timestamp)]  # the server's own words for it
    assert page.locator("#hexinfo").text_content().startswith("#9 BORNTIMESTAMP")
    assert page.evaluate("document.activeElement.classList.contains('cur')")
    assert page.locator('#hexview .b[tabindex="0"]').count() == 1
    page.keyboard.press("Home")
    assert int(page.locator("#cursor-offset").text_content()) % 16 == 0
    page.keyboard.press("Tab")  # out of the grid in one press
    assert not page.evaluate("document.activeElement.classList.contains('b')")
    page.keyboard.press("Shift+Tab")  # and back onto the cursor
    assert page.evaluate("document.activeElement.classList.contains('cur')")


def test_inspector_stays_in_view_and_a_click_moves_the_cursor(page, base, sample_messages):
    page.goto(f"{base}/hex?offset={sample_messages[0].physical_offset}&length=2048")
    last = page.locator("#hexview .b").last
    last.scroll_into_view_if_needed()
    box = page.locator("#hex-inspector").bounding_box()
    assert box["y"] >= 0 and box["y"] + 40 <= 720  # its heading still on screen, a screen or more further down
    last.click()
    assert page.locator("#hexview .b.cur").count() == 1 and page.locator("#hexview .c.cur").count() == 1
    assert cell(page, "int64") == ["past the window"]


def test_jump_to_a_msgid_and_0x_from_the_form(page, base, sample_messages):
    m = sample_messages[4]
    page.goto(f"{base}/hex?offset=0")
    page.locator('input[name="offset"]').fill(m.msg_id)
    page.locator(".hexnav button").click()
    page.wait_for_url(f"**/hex?offset={m.physical_offset}&length=**")
    assert page.locator("#hexview").get_attribute("data-current-start") == str(m.physical_offset)
    page.locator('input[name="offset"]').fill(hex(sample_messages[2].physical_offset))
    page.locator(".hexnav button").click()
    page.wait_for_url(f"**/hex?offset={sample_messages[2].physical_offset}&length=**")


def test_phone_inspector_under_the_bytes_no_page_overflow(browser, base, sample_messages):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(f"{base}/hex?offset={sample_messages[0].physical_offset}")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        box = page.locator("#hex-inspector").bounding_box()
        assert box["y"] + box["height"] <= 845 and box["height"] <= 0.45 * 844  # stuck to the bottom, not a screen
    finally:
        context.close()


def test_every_row_s_columns_line_up_at_record_boundaries(page, base):
    """Issue 33 ("the hex page's ASCII column is one character out at a record boundary"): a record's start and
    end marks took layout width (borders), so rows holding one had their hex and ASCII columns ~1.5 characters
    wider. Every full row's hex and ASCII columns have the same x extents, boundary or not."""
    page.goto(f"{base}/hex?offset=462&length=4096")
    rows = page.locator("#hexview .hexrow").evaluate_all("""rows => rows.map(r => {
        const a = r.querySelector('.ascii'), h = r.querySelector('.hex');
        const ra = a.getBoundingClientRect(), rh = h.getBoundingClientRect();
        return {cells: a.querySelectorAll('.c').length, marked: !!r.querySelector('.rstart, .rend'),
                ascii: [ra.left, ra.right], hex: [rh.left, rh.right]};
    })""")
    full = [r for r in rows if r["cells"] == 16]
    assert len(full) >= 200 and sum(r["marked"] for r in full) >= 10  # boundary rows among them
    for column in ("ascii", "hex"):
        extents = {(round(r[column][0], 1), round(r[column][1], 1)) for r in full}
        assert len(extents) == 1, (column, sorted(extents)[:4])
