"""``rmq-inspect tour``, ``exercises`` and ``templates`` through the real entry point."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import pytest

from inspector.engine import Store
from inspector.engine.workshop.exercises import KINDS, generate
from inspector.engine.workshop.tour_steps import TITLES

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "sample_store"


def feed(monkeypatch, *lines: str) -> list[str]:
    """Answer input() with ``lines``, then EOF; returns the prompts seen."""
    prompts: list[str] = []
    it = iter(lines)

    def fake_input(prompt: str = "") -> str:
        prompts.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", fake_input)
    return prompts


# -- tour ----------------------------------------------------------------------------------------------------------------


def test_tour_all_prints_every_step_with_its_view(cli, monkeypatch):
    monkeypatch.chdir(REPO)  # the default store is ./sample_store
    code, out, _ = cli("tour", "--all")
    assert code == 0
    positions = [out.index(f"Step {n}/14: {TITLES[i]}") for n, i in enumerate(TITLES, 1)]
    assert positions == sorted(positions)
    assert "CBD43194" in out and "65518" in out  # the BLANK, highlighted in the hex view
    assert "coupon-BB7K" in out and "hash collision" in out  # the chain table of the collision
    assert "0A14000500002A9F0000000000000000" in out  # decode-id of the first message's offset msgId
    assert "1758282591903" in out and "delivery time" in out  # the delayed message's unit
    assert "→ 14 PREPARED TRANSACTION OFFSET = 35717" in out
    assert "Try: rmq-inspect" in out


def test_tour_step_prints_one_step(cli):
    code, out, _ = cli("tour", str(SAMPLE), "--step", "6")
    assert code == 0 and "Step 6/14: What hashSlotCount and indexCount really count" in out
    assert "Step 5/14" not in out and "Step 7/14" not in out
    assert "hash_slot_count" in out and "114" in out and "128 slots" in out
    code, _, err = cli("tour", str(SAMPLE), "--step", "15")
    assert code == 2 and "between 1 and 14" in err


def test_tour_json(cli):
    code, out, _ = cli("tour", str(SAMPLE), "--json")
    steps = json.loads(out)
    assert code == 0 and [s["number"] for s in steps] == list(range(1, 15))
    assert all(s["available"] for s in steps)
    code, out, _ = cli("tour", str(SAMPLE), "--step", "3", "--json")
    step = json.loads(out)
    assert step["id"] == "segment-end" and step["target"]["kind"] == "hex" and step["target"]["focus"] == "MAGICCODE"


def test_tour_waits_for_enter_back_jump_and_quit(cli, monkeypatch):
    prompts = feed(monkeypatch, "", "b", "9", "x", "q")
    code, out, _ = cli("tour", str(SAMPLE))
    assert code == 0 and len(prompts) == 5
    order = [int(n) for n in __import__("re").findall(r"Step (\d+)/14:", out)]
    assert order == [1, 2, 1, 9, 9]
    assert "Enter for the next step" in out


def test_tour_ends_at_the_last_step_and_on_end_of_input(cli, monkeypatch):
    feed(monkeypatch, "14", "")
    code, out, _ = cli("tour", str(SAMPLE))
    assert code == 0 and "End of the tour" in out
    feed(monkeypatch)  # no input at all: the first step, then EOF
    code, out, _ = cli("tour", str(SAMPLE))
    assert code == 0 and "Step 1/14" in out and "Step 2/14" not in out


def test_tour_without_a_store_needs_the_sample_store_here(cli, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    code, _, err = cli("tour", "--all")
    assert code == 2 and "sample_store" in err


def test_tour_says_when_a_store_lacks_a_case(cli, pristine_store):
    root, _ = pristine_store
    code, out, _ = cli("tour", str(root), "--step", "7")
    assert code == 0 and "This store lacks this case" in out


# -- exercises -----------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def twelve():
    with Store(SAMPLE) as s:
        return generate(s, 0, 12)


def test_exercises_answers_file_all_right(cli, tmp_path, twelve):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({e.id: e.answer for e in twelve}))
    code, out, _ = cli("exercises", str(SAMPLE), "--answers", str(answers))
    assert code == 0 and "Score: 12/12" in out and out.count("✓ right") == 12


def test_exercises_answers_file_wrong_and_missing_answers_are_explained(cli, tmp_path, twelve):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"1": "0", "index-items": str(int(twelve[3].answer) + 1)}))  # by number, by kind
    code, out, _ = cli("exercises", str(SAMPLE), "--answers", str(answers), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["score"] == 0 and doc["total"] == 12
    first, fourth = doc["results"][0], doc["results"][3]
    assert first["given"] == "0" and not first["correct"] and first["answer"] in first["explanation"]
    assert fourth["kind"] == "index-items" and "indexCount" in fourth["explanation"]
    assert doc["results"][5]["given"] == "" and doc["results"][5]["explanation"].startswith("No answer")


def test_exercises_answers_as_a_list_in_order(cli, tmp_path, twelve):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([e.answer for e in twelve[:3]]))
    code, out, _ = cli("exercises", str(SAMPLE), "--answers", str(answers), "--json")
    assert code == 0 and json.loads(out)["score"] == 3


def test_exercises_bad_answers_file(cli, tmp_path):
    code, _, err = cli("exercises", str(SAMPLE), "--answers", str(tmp_path / "missing.json"))
    assert code == 2 and "answers file" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = cli("exercises", str(SAMPLE), "--answers", str(bad))
    assert code == 2 and "not JSON" in err


def test_exercises_answer_key_and_seed(cli, twelve):
    code, out, _ = cli("exercises", str(SAMPLE), "--answer-key", "--json")
    key = json.loads(out)
    assert code == 0 and [e["answer"] for e in key["exercises"]] == [e.answer for e in twelve]
    code, out, _ = cli("exercises", str(SAMPLE), "--answer-key", "--json", "--seed", "1", "--count",
                       str(len(KINDS)))
    other = json.loads(out)["exercises"]
    assert len(other) == len(KINDS) and other[0]["question"] != key["exercises"][0]["question"]
    code, out, _ = cli("exercises", str(SAMPLE), "--answer-key")
    assert code == 0 and "Answer key (seed 0)" in out and twelve[7].answer in out


def test_exercises_interactive(cli, monkeypatch, twelve):
    feed(monkeypatch, twelve[0].answer, "wrong", "")
    code, out, _ = cli("exercises", str(SAMPLE), "--count", "3")
    assert code == 0 and "✓ right" in out and out.count("✗ wrong") == 2 and "Score: 1/3" in out
    feed(monkeypatch, twelve[0].answer)  # input ends after one answer: the rest count as unanswered
    code, out, _ = cli("exercises", str(SAMPLE), "--count", "2")
    assert code == 0 and "Score: 1/2" in out


def test_exercises_count_must_be_positive(cli):
    code, _, err = cli("exercises", str(SAMPLE), "--count", "0")
    assert code == 2 and "--count" in err


# -- templates ------------------------------------------------------------------------------------------------------------


def test_templates_out(cli, tmp_path):
    code, out, _ = cli("templates", "--out", str(tmp_path / "t"))
    assert code == 0 and "8 template(s) written" in out
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == sorted(
        f"rocketmq_{k}.{e}" for k in ("checkpoint", "commitlog", "consumequeue", "indexfile") for e in ("hexpat", "ksy"))
    code, out, _ = cli("templates", "--out", str(tmp_path / "j"), "--json")
    assert code == 0 and len(json.loads(out)["files"]) == 8
    code, _, _ = cli("templates")
    assert code == 2  # --out is required


def test_exercises_json_asking_on_standard_input_keeps_stdout_a_document(cli, monkeypatch):
    """The interactive quiz under --json (the TUI's copy-as-command line): each prompt goes to stderr, stdout is
    the one JSON document (the prompt was its first line)."""
    answers = iter(["4096"])

    def reply(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", reply)
    code, out, err = cli("exercises", str(SAMPLE), "--count", "3", "--json")
    assert code == 0 and json.loads(out)["total"] == 3
    assert "answer (Enter to skip) > " in err
