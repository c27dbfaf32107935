"""Exercises: every kind answered right and wrong on the sample store, answers re-derived independently,
tolerant reading of answers, and seeds that give different but reproducible variants."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from inspector.engine import Message, Store
from inspector.engine.workshop.exercise_answers import parse_duration_ms, parse_host_offset, parse_int
from inspector.engine.workshop.exercise_model import Exercise, exercise_view
from inspector.engine.workshop.exercises import KINDS, RETENTION_KINDS, generate
from parsers.java import index_key, index_key_hash, java_string_hash
from parsers.msgid import decode_offset_msg_id

SAMPLE = Path(__file__).resolve().parents[4] / "sample_store"


@pytest.fixture(scope="module")
def sample():
    with Store(SAMPLE) as s:
        yield s


@pytest.fixture(scope="module")
def sets(sample):
    return {seed: {e.kind: e for e in generate(sample, seed, len(KINDS))} for seed in (0, 1)}


def test_there_are_at_least_ten_kinds_and_the_sample_store_has_every_one(sets):
    assert len(KINDS) >= 10
    for seed, by_kind in sets.items():
        assert list(by_kind) == list(KINDS), seed


def test_the_default_set_is_twelve_exercises_numbered_in_order(sample):
    exercises = generate(sample)
    assert len(exercises) == 12 and [e.kind for e in exercises] == list(KINDS[:12])
    assert [e.id for e in exercises] == [f"{n:02d}-{k}" for n, k in enumerate(KINDS[:12], 1)]
    assert [e.number for e in exercises] == list(range(1, 13))


def _wrong(ex: Exercise) -> str:
    if ex.answer_type == "choice":
        return next(c for c, _ in ex.choices if c != ex.answer)
    if ex.answer_type == "host-offset":
        ip, port, offset = ex.expected
        return f"{ip}:{port} {offset + 1}"
    if ex.answer_type == "int-or-none":
        return "none" if ex.expected != ("none",) else "12345"
    if ex.answer_type == "duration":
        return f"{ex.expected[0] + 1000} ms"
    return str(ex.expected[0] + 1)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_answered_right_and_wrong(sets, seed, kind):
    ex = sets[seed][kind]
    right = ex.check(ex.answer)
    assert right.correct and right.explanation.startswith("Right") and right.expected == ex.answer
    # whitespace and case do not matter, but in key strings (issue 33): another case is another key
    assert ex.check(f"  {ex.answer.upper()}  ").correct is (not ex.case_sensitive or ex.answer == ex.answer.upper())
    wrong = ex.check(_wrong(ex))
    assert not wrong.correct and ex.answer in wrong.explanation and ex.explanation in wrong.explanation
    nothing = ex.check("")
    assert not nothing.correct and nothing.explanation.startswith("No answer")
    garbage = ex.check("no idea at all, sorry")
    assert not garbage.correct and ex.answer in garbage.explanation


def test_known_misreadings_get_their_own_explanation(sets):
    by_kind = sets[0]
    ex = by_kind["index-items"]
    index_count = int(re.search(r"indexCount = (\d+)", ex.question).group(1))
    assert "next item" in ex.check(str(index_count)).explanation
    ex = by_kind["index-used-slots"]
    slots = int(re.search(r"table of (\d+) slots", ex.question).group(1))
    assert "size of the slot table" in ex.check(str(slots)).explanation
    ex = by_kind["delay-tagscode"]
    code = re.search(r"tagsCode (\d+)", ex.question).group(1)
    assert "delivery time" in ex.check(code).explanation
    ex = by_kind["cq-file-name"]
    qo = int(re.search(r"queue offset (\d+)", ex.question).group(1))
    if ex.expected[0]:  # a later file: the message number is the classic wrong answer
        assert "file names count bytes" in ex.check(str(qo // 40 * 40)).explanation


def test_answers_agree_with_the_store_derived_independently(sample, sets):
    for by_kind in sets.values():
        _check_independently(sample, by_kind)


def _check_independently(sample: Store, by: dict[str, Exercise]) -> None:
    q = by["key-offset"].question
    topic, key = re.search(r"topic (\S+) with the key '(.+)'", q).groups()
    offsets = [m.physical_offset for m in sample.entries() if isinstance(m, Message) and m.topic == topic
               and key in m.keys]
    assert by["key-offset"].expected == (offsets[0],) and len(offsets) == 1

    q = by["key-slot"].question
    slots, key, topic = re.search(r"have (\d+) slots.*key '(.+)' of topic (\S+) land", q).groups()
    assert by["key-slot"].expected == (abs(java_string_hash(f"{topic}#{key}")) % int(slots),)

    msg_id = re.search(r"msgId ([0-9A-F]{32})", by["decode-msgid"].question).group(1)
    d = decode_offset_msg_id(msg_id)
    assert by["decode-msgid"].expected == (d.ip, d.port, d.offset)
    assert sample.message_at(d.offset).msg_id == msg_id

    name = re.search(r"index file (\d{17})", by["index-items"].question).group(1)
    raw = (SAMPLE / "index" / name).read_bytes()
    assert by["index-items"].expected == (struct.unpack_from(">i", raw, 36)[0] - 1,)
    name = re.search(r"Index file (\d{17})", by["index-used-slots"].question).group(1)
    raw = (SAMPLE / "index" / name).read_bytes()
    used = sum(1 for s in struct.iter_unpack(">i", raw[40:40 + 128 * 4]) if s[0])
    assert by["index-used-slots"].expected == (used,)

    topic, qid, name, pos = re.search(r"In (\S+) queue (\d+), consume-queue file (\d{20}) has a unit at byte position "
                                      r"(\d+)", by["cq-queue-offset"].question).groups()
    qo = by["cq-queue-offset"].expected[0]
    unit = sample.queue(topic, int(qid)).unit(qo)
    assert (Path(unit.file).name, unit.position) == (name, int(pos))

    qo, topic, qid = re.search(r"Unit (\d+) of (\S+) queue (\d+)", by["cq-points-at"].question).groups()
    raw = (SAMPLE / "consumequeue" / topic / qid / "00000000000000000000").read_bytes()
    if int(qo) < 40:
        assert by["cq-points-at"].expected == (struct.unpack_from(">q", raw, int(qo) * 20)[0],)

    seg = re.search(r"segment (\d{20})", by["segment-end"].question).group(1)
    data = (SAMPLE / "commitlog" / seg).read_bytes()
    blank = data.find(bytes.fromhex("CBD43194")) - 4
    assert by["segment-end"].expected == (int(seg) + blank,) and blank in (65518, 65513)

    tag = re.search(r"tag '(.+)'", by["tags-code"].question).group(1)
    msg = next(m for m in sample.entries() if isinstance(m, Message) and m.tags == tag and m.transaction != "PREPARED")
    assert by["tags-code"].expected == (sample.queue(msg.topic, msg.queue_id).unit(msg.queue_offset).tags_code,)

    code, stored = map(int, re.search(r"tagsCode (\d+); .* stored at (\d+)", by["delay-tagscode"].question).groups())
    assert by["delay-tagscode"].expected == (code - stored,) and code - stored in (10_000, 30_000, 60_000)

    half = int(re.search(r"physical offset (\d+)", by["transaction-commit"].question).group(1))
    commits = [m.physical_offset for m in sample.entries() if isinstance(m, Message)
               and m.transaction == "COMMIT" and m.prepared_transaction_offset == half]
    assert by["transaction-commit"].expected == (tuple(commits) or ("none",))

    ex = by["collision-item"]
    name, item = re.search(r"index file (\d{17}).*item (\d+) belong", ex.question).groups()
    reader = next(r for r in sample.index_files() if r.name == name)
    msg = sample.message_at(reader.item(int(item)).phy_offset)
    assert ex.answer.split("#", 1)[1] in msg.keys and index_key_hash(ex.answer) == reader.item(int(item)).key_hash

    ex = by["id-kind"]
    text = re.search(r"is ([0-9A-F]{32}) an", ex.question).group(1)
    uniq = [m for m in sample.entries() if isinstance(m, Message) and m.unique_key == text]
    assert ex.expected == (("unique key",) if uniq else ("offset msgId",))

    qo = int(re.search(r"queue offset (\d+)", by["cq-file-name"].question).group(1))
    assert by["cq-file-name"].expected == (qo * 20 // 800 * 800,) and len(by["cq-file-name"].answer) == 20


def test_seeds_give_different_variants_of_the_same_set(sample, sets):
    for kind in KINDS:
        assert sets[0][kind].question != sets[1][kind].question, kind
    again = {e.kind: e for e in generate(sample, 1, len(KINDS))}
    assert again == sets[1]  # deterministic per seed
    assert [e.question for e in generate(sample, 7, 12)] == [e.question for e in generate(sample, 7, 12)]


def test_more_exercises_than_kinds_repeat_kinds_with_other_variants(sample):
    exercises = generate(sample, 0, len(KINDS) + 5)
    assert len(exercises) == len(KINDS) + 5 and len({e.id for e in exercises}) == len(exercises)
    repeated = exercises[len(KINDS):]
    assert [e.kind for e in repeated] == list(KINDS[:5])
    assert all(e.check(e.answer).correct for e in exercises)
    assert generate(sample, 0, 3) == exercises[:3]


def test_a_store_without_some_cases_gets_the_other_kinds(pristine_store):
    root, facts = pristine_store
    with Store(root) as s:
        exercises = generate(s, 0, len(KINDS))
    kinds = [e.kind for e in exercises]
    assert "collision-item" not in kinds and len(kinds) >= 10
    assert all(e.check(e.answer).correct for e in exercises)
    commit = next(e for e in exercises if e.kind == "transaction-commit")
    assert commit.expected == (facts["commit"],)


def test_exercise_view_hides_the_answer_unless_asked(sets):
    ex = sets[0]["key-offset"]
    view = exercise_view(ex)
    assert "answer" not in view and "explanation" not in view and view["question"] == ex.question
    assert exercise_view(ex, with_answer=True)["answer"] == ex.answer


@pytest.mark.parametrize(("text", "expected"), [
    ("65518", 65518), ("65,518", 65518), ("65_518", 65518), ("0xFFEE", 65518), ("0XffEE", 65518),
    ("ffee", 65518), ("offset 65518.", 65518), ("-12", -12), ("at byte 42 of the file", 42),
])
def test_parse_int_is_tolerant(text, expected):
    assert parse_int(text) == expected


def test_parse_int_refuses_ambiguity_and_reads_twos_complement_when_asked():
    assert parse_int("1 2") is None and parse_int("") is None and parse_int("none") is None
    assert parse_int("0xFFFFFFFFCD0E83F2", signed_width=64) == -854686734  # spec §14.2
    assert parse_int("0xCD0E83F2", signed_width=64) == -854686734
    assert parse_int("0xCD0E83F2") == 0xCD0E83F2


@pytest.mark.parametrize(("text", "ms"), [
    ("10000", 10000), ("10000 ms", 10000), ("10 s", 10000), ("10s", 10000), ("10 seconds", 10000),
    ("1 min", 60000), ("1m 30s", 90000), ("10", 10000), ("0.5 s", 500),
])
def test_parse_duration_reads_units(text, ms):
    assert parse_duration_ms(text, expected_ms=10000 if text == "10" else None) == ms


def test_parse_duration_refuses_unknown_units():
    assert parse_duration_ms("10 parsecs") is None and parse_duration_ms("soon") is None


@pytest.mark.parametrize("text", [
    "10.20.0.5:10911 56961", "10.20.0.5, port 10911, offset 56961", "ip 10.20.0.5 port 10911 offset 0xDE81",
    "10.20.0.5:10911:56961",
])
def test_parse_host_offset_accepts_several_spellings(text):
    assert parse_host_offset(text) == ("10.20.0.5", 10911, 56961)


def test_parse_host_offset_reads_ipv6_and_refuses_missing_parts():
    assert parse_host_offset("[2001:db8:20::31]:40722 38172") == ("2001:db8:20::31", 40722, 38172)
    assert parse_host_offset("10911 56961") is None and parse_host_offset("10.20.0.5:10911") is None


def test_choice_answers_accept_short_and_full_spellings(sets):
    ex = sets[0]["collision-item"]
    key = ex.answer.split("#", 1)[1]
    assert ex.check(key).correct and ex.check(ex.answer).correct and ex.check(f"'{ex.answer}'").correct
    assert not ex.check(key.swapcase()).correct  # issue 33: another case is another key string
    ex = sets[0]["id-kind"]
    for spelling in (("UNIQ_KEY", "unique key", "it is a unique key") if ex.answer == "unique key"
                     else ("offset msgId", "offset", "an offset msgid")):
        assert ex.check(spelling).correct, spelling
    assert not ex.check("both").correct


def test_none_answers_for_a_rolled_back_transaction(sample):
    rolled = [e for seed in range(6) for e in generate(sample, seed, len(KINDS))
              if e.kind == "transaction-commit" and e.expected == ("none",)]
    assert rolled, "the sample store's order-1134 transaction was rolled back"
    ex = rolled[0]
    for text in ("none", "None", "rolled back", "-", "no commit"):
        assert ex.check(text).correct, text
    assert not ex.check("41641").correct and "half message itself" in ex.check("41641").explanation


def test_tags_code_accepts_the_java_int_in_hex_or_64_bit_form(sample):
    ex = next(e for seed in range(20) for e in generate(sample, seed, len(KINDS))
              if e.kind == "tags-code" and e.expected[0] < 0)
    value = ex.expected[0]
    assert ex.check(str(value)).correct
    assert ex.check(f"0x{value & 0xFFFFFFFF:08X}").correct and ex.check(f"0x{value & (2**64 - 1):016X}").correct
    assert "unsigned" in ex.check(str(value + 2**32)).explanation
    assert index_key("a", "b") == "a#b"  # the helper the questions rely on


def test_a_store_past_its_retention_gets_the_expired_min_exercise(sample):
    """sample_store_aged: the kind after KINDS; its answer is the queue's min offset, the first unit at or above the
    log's first offset (re-derived from the units themselves), and the file's first unit gets its own hint."""
    assert "expired-min" not in {e.kind for e in generate(sample, 0, 3 * len(KINDS))}  # nothing expired there
    with Store(SAMPLE.parent / "sample_store_aged") as aged:
        found = [e for e in generate(aged, 0, len(KINDS) + len(RETENTION_KINDS)) if e.kind == "expired-min"]
        assert len(found) == 1
        ex = found[0]
        topic, queue_id = re.search(r"of (\S+) queue (\d+) \(", ex.question).groups()
        first = aged.commitlog.retention_floor
        cq = aged.queue(topic, int(queue_id))
        start, path = cq.files[0]
        data = path.read_bytes()
        units = [struct.unpack_from(">q", data, p)[0] for p in range(0, len(data), 20)]
        expected = start // 20 + next(n for n, phy in enumerate(units) if phy >= first)
    assert ex.check(str(expected)).correct and ex.answer == str(expected)
    assert expected > start // 20
    wrong = ex.check(str(start // 20))
    assert not wrong.correct and "removed by retention" in wrong.explanation
    assert ex.command.startswith("rmq-inspect info ")
