"""The guided tour and the exercises in the web viewer (Flask test client), checked against the engine."""

from __future__ import annotations

import re
from html import unescape

import pytest

from inspector.engine.workshop.exercises import generate
from inspector.engine.workshop.tour_steps import tour_steps

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def steps(sample_store):
    return tour_steps(sample_store)


@pytest.fixture(scope="module")
def exercise_set(sample_store):
    return generate(sample_store, 0, 12)


def html_of(response) -> str:
    assert response.status_code == 200, response.data[:500]
    assert response.mimetype == "text/html"
    return response.get_data(as_text=True)


def focus_start(target) -> int:
    focus = getattr(target, "focus", None)
    if focus:
        return next(s.start for s in target.highlights if s.label.endswith(focus))
    return target.start


def test_every_tour_step_shows_its_text_and_view(client, steps):
    for step in steps:
        html = unescape(html_of(client.get(f"/tour?step={step.number}")))
        assert f"step {step.number}/{len(steps)}: {step.title}" in html
        assert f'data-step="{step.number}"' in html and f'data-id="{step.id}"' in html
        if not step.available:
            assert "This store lacks this case" in html and step.missing_reason in html
            continue
        assert step.text in html
        for c in step.commands:
            assert c in html
        views = [step.target, *step.extra]
        assert html.count('<section class="tour-view"') == len(views)
        target = step.target
        if target.kind in ("hex", "recovery"):
            cursor = focus_start(target)
            assert re.search(rf'class="[^"]*\bhl\b[^"]*\bcursor\b[^"]*"[^>]*data-offset="{cursor}"', html), step.id
            if getattr(target, "focus", None):
                assert re.search(rf'class="[^"]*\bhl-focus\b[^"]*"[^>]*data-offset="{cursor}"', html), step.id
            assert f'href="/hex?offset={cursor}"' in html
        elif target.kind == "chain":
            assert 'svg class="chain"' in html or "<svg" in html
            assert f"keyHash {target.key_hash}" in html and f"slot = {target.key_hash}" in html
            if target.other_key:
                assert 'class="mark"' in html and target.other_key in html
        elif target.kind == "cq":
            assert target.unit_hex[:16] in html and f"/hex?offset={target.physical_offset}" in html
        elif target.kind == "index-header":
            for name in target.fields:
                assert f'class="hl" data-field="{name}"' in html
        elif target.kind == "ids":
            assert target.msg_id in html and target.unique_key in html
        elif target.kind == "directory":
            assert all(e.path in html for e in target.entries)
        elif target.kind == "rebuild":
            assert target.command in html


def test_tour_navigation_links(client, steps):
    first = html_of(client.get("/tour"))
    assert 'data-step="1"' in first and 'rel="prev"' not in first
    assert 'class="next" rel="next" href="/tour?step=2"' in first
    middle = html_of(client.get("/tour?step=5"))
    assert 'href="/tour?step=4"' in middle and 'href="/tour?step=6"' in middle
    for s in steps:  # jump to any step from the list
        assert f'href="/tour?step={s.number}"' in middle
    last = html_of(client.get(f"/tour?step={len(steps)}"))
    assert 'rel="next"' not in last and 'href="/exercises"' in last
    assert 'href="/tour"' in html_of(client.get("/"))  # the nav link


@pytest.mark.parametrize(("url", "status"), [
    ("/tour?step=0", 404), ("/tour?step=15", 404), ("/tour?step=-1", 404), ("/tour?step=x", 400),
    ("/tour?step=99999999999999999999", 400), ("/api/tour/0", 404), ("/api/tour/15", 404), ("/api/tour/x", 400),
    ("/exercises?seed=x", 400), ("/exercises?seed=-1", 400), ("/exercises?id=01-key-offset", 400),
    ("/exercises?answer=1", 400), ("/exercises?seed=0&id=nope&answer=1", 404), ("/api/exercises?id=nope&answer=1", 404),
    ("/api/exercises?seed=0&id=01-key-offset&answer=%01", 400),
])
def test_bad_and_unknown_params(client, url, status):
    r = client.get(url)
    assert r.status_code == status, (url, r.data[:300])
    if url.startswith("/api/"):
        assert r.get_json()["status"] == status


def test_api_tour(client, steps):
    data = client.get("/api/tour").get_json()
    assert [s["id"] for s in data["steps"]] == [s.id for s in steps]
    one = client.get("/api/tour/3").get_json()
    assert one["id"] == steps[2].id and one["title"] == steps[2].title
    if steps[2].target is not None and steps[2].target.kind == "hex":
        assert one["target"]["start"] == str(steps[2].target.start)  # offsets are strings in JSON


def test_api_exercises_hide_answers_and_check(client, exercise_set):
    data = client.get("/api/exercises?seed=0").get_json()
    assert [e["id"] for e in data["exercises"]] == [e.id for e in exercise_set]
    assert all("answer" not in e and "explanation" not in e for e in data["exercises"])
    e = exercise_set[0]
    right = client.get("/api/exercises", query_string={"seed": 0, "id": e.id, "answer": e.answer}).get_json()
    assert right["result"]["correct"] is True and right["exercise"]["id"] == e.id
    wrong = client.get("/api/exercises", query_string={"seed": 0, "id": e.id, "answer": "no idea"}).get_json()
    assert wrong["result"]["correct"] is False and e.answer in wrong["result"]["explanation"]


def test_exercises_page_lists_and_checks_answers(client, exercise_set):
    html = unescape(html_of(client.get("/exercises?seed=0")))
    for e in exercise_set:
        assert e.question in html and f'id="ex-{e.id}"' in html
        assert e.answer not in re.findall(r'value="([^"]*)"', html)  # no answer leaks into the form
    assert 'method="get"' in html and 'method="post"' not in html.lower()
    e = exercise_set[0]
    right = unescape(html_of(client.get("/exercises", query_string={"seed": 0, "id": e.id, "answer": e.answer})))
    assert "✔ correct" in right and e.check(e.answer).explanation in right
    w = exercise_set[1]
    wrong = unescape(html_of(client.get("/exercises", query_string={"seed": 0, "id": w.id, "answer": "-5"})))
    assert "✘ incorrect" in wrong and w.check("-5").explanation in wrong
    assert wrong.count('class="result ') == 1
    empty = unescape(html_of(client.get("/exercises", query_string={"seed": 0, "id": w.id, "answer": ""})))
    assert "No answer" in empty


def test_another_seed(client, sample_store):
    other = generate(sample_store, 5, 12)
    html = unescape(html_of(client.get("/exercises?seed=5")))
    assert all(e.question in html for e in other)
    assert 'name="seed" value="5"' in html


def test_a_colour_per_field_in_the_tour_dumps(client, steps):
    """Issue 33: each highlighted field of a dump in its own colour (four in turn), its legend chip in the same one,
    so neighbouring fields are told apart without hovering."""
    n = next(i for i, s in enumerate(steps, 1) if s.available and n_fields(client, i) > 4)  # the record, field by field
    html = html_of(client.get(f"/tour?step={n}"))
    chips = re.findall(r'<span class="legend hl (hl-c\d)[^"]*">([^<]+)</span>', html)
    assert [c for c, _ in chips[:5]] == ["hl-c0", "hl-c1", "hl-c2", "hl-c3", "hl-c0"]
    colour = dict((label, c) for c, label in chips)
    spans = re.findall(r'<span class="[^"]*\bhl (hl-c\d)[^"]*" title="([^"\n]+)', html)
    assert spans and all(colour[unescape(title).split("; ")[0]] == c for c, title in spans)
    for (c1, t1), (c2, t2) in zip(spans, spans[1:], strict=False):
        if t1.split("; ")[0] != t2.split("; ")[0]:
            assert c1 != c2, (t1, t2)  # neighbouring fields never share a colour


def n_fields(client, n: int) -> int:
    return len(re.findall(r'<span class="legend hl ', client.get(f"/tour?step={n}").get_data(as_text=True)))
