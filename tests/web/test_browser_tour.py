"""The guided tour and the exercises in real headless Chromium (the fixtures of test_browser.py), checked
against the engine: every step of the tour clicked through with "next", each one's highlight asserted."""

from __future__ import annotations

import pytest
from test_browser import live, page, pytestmark, shot  # noqa: F401 - fixtures, timeout and skip shared

from inspector.engine.workshop.exercises import generate
from inspector.engine.workshop.tour_steps import tour_steps


def focus_start(target) -> int:
    focus = getattr(target, "focus", None)
    if focus:
        return next(s.start for s in target.highlights if s.label.endswith(focus))
    return target.start


def test_the_whole_tour_with_next_and_each_highlight(page, live, sample_store):  # noqa: F811
    steps = tour_steps(sample_store)
    page.goto(f"{live}/tour")
    for n, step in enumerate(steps):
        article = page.locator("article#tour-step")
        assert article.get_attribute("data-step") == str(step.number)
        assert step.title in page.locator("h1").text_content()
        if not step.available:
            assert "lacks this case" in article.text_content()
        else:
            first = page.locator("section.tour-view").first
            assert first.get_attribute("data-kind") == step.target.kind
            target = step.target
            if target.kind in ("hex", "recovery"):
                cursor = first.locator(f'.tour-hex span.cursor[data-offset="{focus_start(target)}"]')
                assert cursor.count() == 1, step.id
                assert "hl" in cursor.get_attribute("class").split()
                if getattr(target, "focus", None):
                    assert "hl-focus" in cursor.get_attribute("class").split()
                    bg = cursor.evaluate("e => getComputedStyle(e).backgroundColor")
                    assert bg == "rgb(255, 213, 79)", bg  # the focus colour
                    assert target.focus in cursor.get_attribute("title")
                assert cursor.is_visible()
                assert first.locator(".tour-hex span.hl").count() >= 1
            elif target.kind == "chain":
                svg = first.locator("svg.chain")
                assert svg.count() >= 1 and svg.first.is_visible()
                assert svg.locator("g.item").count() >= len(target.items)
                if step.id == "collision":
                    assert svg.locator("g.mark").count() == len(target.collision_items) >= 1
                    assert svg.locator('g.item[data-kind="collision"]').count() == len(target.collision_items)
                    assert target.other_key in first.locator(".tour-collision").text_content()
                    shot(first, "tour-collision.png")
                else:
                    assert svg.locator("g.mark").count() == 0
            elif target.kind == "cq":
                assert first.locator("table.tour-cq tr.hl").count() == 3
                assert target.unit_hex[:16] in first.text_content()
            elif target.kind == "index-header":
                rows = first.locator("table.tour-index-header tr.hl")
                assert sorted(rows.evaluate_all("rs => rs.map(r => r.dataset.field)")) == sorted(target.fields)
            elif target.kind == "ids":
                assert target.msg_id in first.text_content() and target.unique_key in first.text_content()
            elif target.kind == "directory":
                assert all(e.path in first.text_content() for e in target.entries)
            elif target.kind == "rebuild":
                assert target.command in first.text_content()
        if n == 2:
            shot(page, "tour-step.png")
        if n < len(steps) - 1:
            page.locator(".tour-stepper a.next").click()
            page.wait_for_url(f"**/tour?step={step.number + 1}")
    assert page.locator(".tour-stepper a.next").count() == 0
    # previous, with the arrow key (app.js follows .stepper a.prev)
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(f"**/tour?step={len(steps) - 1}")
    # jump from the list of steps
    page.locator("aside.tour-steps a", has_text=steps[0].title).click()
    page.wait_for_url("**/tour?step=1")
    assert page.errors == []


def test_exercises_right_then_wrong(page, live, sample_store):  # noqa: F811
    exercises = generate(sample_store, 0, 12)
    page.goto(f"{live}/exercises")
    assert page.locator("li.exercise").count() == len(exercises)
    right, wrong = exercises[0], exercises[1]
    item = page.locator(f"#ex-{right.id}")
    item.locator(f'input[name="a.{right.id}"]').fill(right.answer)
    item.locator("button").click()
    page.wait_for_url("**/exercises?*")
    result = page.locator(f"#ex-{right.id} .result")
    assert "correct" in result.get_attribute("class").split() and "✔ correct" in result.text_content()
    assert right.explanation[:40] in result.text_content()
    item = page.locator(f"#ex-{wrong.id}")
    item.locator(f'input[name="a.{wrong.id}"]').fill("12345")
    page.locator(f'input[name="a.{exercises[2].id}"]').fill("typed, not checked")
    item.locator(f'input[name="a.{wrong.id}"]').press("Enter")
    page.wait_for_url(f"**id={wrong.id}**")
    result = page.locator(f"#ex-{wrong.id} .result")
    assert "incorrect" in result.get_attribute("class").split() and "✘ incorrect" in result.text_content()
    assert f"the answer is {wrong.answer}" in result.text_content()
    assert page.locator(".result").count() == 1  # one check at a time
    # issue 33: the answers typed before stay in their boxes across checks, checked or not
    assert page.locator(f'input[name="a.{right.id}"]').input_value() == right.answer
    assert page.locator(f'input[name="a.{exercises[2].id}"]').input_value() == "typed, not checked"
    assert page.errors == []


@pytest.mark.parametrize("path", ["/tour?step=99", "/exercises?seed=0&id=nope&answer=1"])
def test_unknown_step_or_exercise_is_a_404_page(page, live, path):  # noqa: F811
    response = page.goto(f"{live}{path}")
    assert response.status == 404
