"""The story page in real headless Chromium (the fixtures of test_browser.py): reached from a message page's
link, every record with its role, each offset a link that opens its record; on the hostile store a topic, keys
and a consumer group that are HTML/JS payloads shown as text and never run."""

from __future__ import annotations

from test_browser import live, live_hostile, page, pytestmark, shot  # noqa: F401 - fixtures, timeout and skip shared
from web_support import XSS_TOPIC

from inspector.engine import story_of

DEAD_LETTER = 90151


def test_from_a_message_to_its_story_and_back_to_a_record(page, live, sample_store):  # noqa: F811
    page.goto(f"{live}/message/{DEAD_LETTER}")
    page.click("#story-link")
    page.wait_for_selector("#story-records")
    story = story_of(sample_store, str(DEAD_LETTER), scan=True)
    roles = page.locator("#story-records tbody tr").evaluate_all("rows => rows.map(r => r.dataset.role)")
    assert roles == [r.role for r in story.records]
    offsets = page.locator("#story-records a.record").all_inner_texts()
    assert offsets == [str(r.physical_offset) for r in story.records]
    consumed = page.locator("#story-groups tbody tr").first.locator("td").nth(5).inner_text()
    assert consumed == "yes"
    shot(page.locator("main"), "story.png")
    page.locator("#story-records a.record").nth(2).click()  # the first delivered retry copy
    page.wait_for_selector("#fields")
    assert page.url.endswith(f"/message/{story.records[2].physical_offset}")
    assert "%RETRY%billing-consumer" in page.locator("tr[data-field=topic] td").inner_text()
    assert not page.errors


def test_hostile_topic_keys_and_group_are_text(page, live_hostile, hostile):  # noqa: F811
    store, facts = hostile
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{live_hostile}/message/{facts['evil']}")
    page.click("#story-link")
    page.wait_for_selector("#story-records")
    assert page.locator("#story-records tbody tr td").nth(4).inner_text() == XSS_TOPIC
    assert page.locator("#story-groups tbody tr td").first.inner_text() == "<g>"
    assert page.locator("main img, main svg, main script, main b[onmouseover]").count() == 0
    assert page.evaluate("typeof window.__pwned") == "undefined" and not dialogs
    assert not page.errors
