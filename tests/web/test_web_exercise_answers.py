"""Exercises (issue 33): key strings compared case-sensitively (another case is another key, another hashCode:
'topictest#coll-bb' was accepted for 'TopicTest#coll-BB')."""

from __future__ import annotations

import re
from html import unescape


def _collision(client) -> tuple[int, dict]:
    for seed in range(8):
        for e in client.get(f"/api/exercises?seed={seed}").get_json()["exercises"]:
            if e["kind"] == "collision-item":
                return seed, e
    raise AssertionError("no collision-item exercise in seeds 0..7")


def _correct(client, seed: int, ex_id: str, answer: str) -> bool:
    r = client.get("/api/exercises", query_string={"seed": seed, "id": ex_id, "answer": answer})
    assert r.status_code == 200
    return r.get_json()["result"]["correct"]


def test_collision_keys_are_compared_case_sensitively(client):
    seed, e = _collision(client)
    keys = re.findall(r"'([^']+)'", e["format_hint"])
    assert len(keys) == 2
    assert [_correct(client, seed, e["id"], k) for k in keys].count(True) == 1
    for k in keys:
        for other in (k.lower(), k.upper(), k.split("#", 1)[1].swapcase()):
            if other not in keys:
                assert not _correct(client, seed, e["id"], other), other


def test_checking_one_answer_keeps_the_others_typed(client):
    exercises = client.get("/api/exercises?seed=0").get_json()["exercises"]
    first, second = exercises[0]["id"], exercises[1]["id"]
    r = client.get("/exercises", query_string={"seed": 0, f"a.{first}": "4242", f"a.{second}": "77", "id": second})
    html = r.get_data(as_text=True)
    assert r.status_code == 200
    assert f'name="a.{first}" size="40" value="4242"' in html and f'name="a.{second}" size="40" value="77"' in html
    assert html.count('class="result ') == 1 and f'id="ex-{second}"' in html


def test_score_of_every_typed_answer_and_the_answer_key(client, sample_store):
    from inspector.engine.workshop.exercises import generate

    found = generate(sample_store, 0, 12)  # the engine's answers, not the page's
    right, wrong = found[0], found[1]
    query = {"seed": 0, f"a.{right.id}": right.answer, f"a.{wrong.id}": "not-it", "id": wrong.id}
    html = client.get("/exercises", query_string=query).get_data(as_text=True)
    assert re.search(r'id="score"[^>]*>Score: <strong>1 of 2</strong> answered right \(\d+ questions\)', html)
    assert 'id="score"' not in client.get("/exercises?seed=0").get_data(as_text=True)  # nothing typed: no score
    at = html.index('id="answer-key"')
    key = html[at:html.index("</details>", at)]
    assert [unescape(a) for a in re.findall(r"<code>([^<]*)</code>", key)] == [e.answer for e in found]


def test_each_exercise_offers_a_hint_saying_where_to_look(client, sample_store):
    from inspector.engine.workshop.exercises import generate

    found = generate(sample_store, 0, 12)
    html = client.get("/exercises?seed=0").get_data(as_text=True)
    hints = re.findall(r'<details class="hint"><summary>Hint</summary><p>Where to look: <code>([^<]*)</code>', html)
    assert [unescape(h) for h in hints] == [e.command for e in found if e.command] and hints
