"""Retry, dead-letter and delivered copies from ``rmq-inspect write``'s JSON Lines (``{"send_back": REF, ...}``,
``{"deliver": REF}``: the writer's ``send_back`` and ``deliver``), read back with ``story``: every copy where the
broker puts it, with the role the story gives it, and each bad record a clear refusal naming the line and the
field (exit 2), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.engine import open_store, story_of

T0 = 1_700_000_000_000
UK = "7F000001000000000000000000000A01"
ORIGINAL = {"topic": "PaymentEvents", "body": "pay-1", "tags": "paid", "unique_key": UK, "store_timestamp": T0}


def _write(tmp_path: Path, lines: list[dict | str], capsys) -> tuple[int, str, str, Path]:
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n",
                   encoding="utf-8")
    out = tmp_path / "store"
    code = main(["write", str(out), str(src), "--json"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err, out


def test_failed_twice_then_dead_lettered_by_number_and_by_unique_key(tmp_path, capsys):
    lines = [ORIGINAL,
             {"send_back": 0, "group": "billing", "max_reconsume_times": 2, "store_timestamp": T0 + 100},
             "",  # a blank line is no record: the numbers count records
             {"deliver": 1, "store_timestamp": T0 + 10_100},
             {"send_back": UK, "group": "billing", "max_reconsume_times": 2, "store_timestamp": T0 + 10_200},
             {"deliver": UK, "store_timestamp": T0 + 40_200},
             {"send_back": UK, "group": "billing", "max_reconsume_times": 2, "store_timestamp": T0 + 40_300}]
    code, out, err, store_dir = _write(tmp_path, lines, capsys)
    assert code == 0, err
    records = json.loads(out)["records"]
    assert [(r["topic"], r["queue_id"]) for r in records] == [
        ("PaymentEvents", 0), ("SCHEDULE_TOPIC_XXXX", 2), ("%RETRY%billing", 0),  # level 3 + 0: queue 2
        ("SCHEDULE_TOPIC_XXXX", 3), ("%RETRY%billing", 0), ("%DLQ%billing", 0)]  # then level 3 + 1
    with open_store(store_dir) as store:
        story = story_of(store, UK)
        copies = [store.message_at(r["physical_offset"]) for r in records]
    assert [(r.role, r.physical_offset) for r in story.records] == [
        ("original", records[0]["physical_offset"]), ("retry-scheduled", records[1]["physical_offset"]),
        ("retry", records[2]["physical_offset"]), ("retry-scheduled", records[3]["physical_offset"]),
        ("retry", records[4]["physical_offset"]), ("dead-letter", records[5]["physical_offset"])]
    assert [m.reconsume_times for m in copies] == [0, 1, 1, 2, 2, 3]
    assert {m.properties["ORIGIN_MESSAGE_ID"] for m in copies[1:]} == {records[0]["msg_id"]}
    assert all(m.body == b"pay-1" and m.unique_key == UK for m in copies)
    assert [m.store_timestamp for m in copies] == [T0, T0 + 100, T0 + 10_100, T0 + 10_200, T0 + 40_200, T0 + 40_300]


def test_a_delay_level_and_straight_to_the_dlq(tmp_path, capsys):
    lines = [ORIGINAL, {"send_back": 0, "group": "g", "delay_level": 5, "store_timestamp": T0 + 1},
             {"send_back": 0, "group": "h", "delay_level": -1, "store_timestamp": T0 + 2}]
    code, out, err, store_dir = _write(tmp_path, lines, capsys)
    assert code == 0, err
    records = json.loads(out)["records"]
    assert [(r["topic"], r["queue_id"]) for r in records][1:] == [("SCHEDULE_TOPIC_XXXX", 4), ("%DLQ%h", 0)]
    with open_store(store_dir) as store:
        roles = [r.role for r in story_of(store, UK).records]
    assert roles == ["original", "retry-scheduled", "dead-letter"]


@pytest.mark.parametrize(("line", "says"), [
    ({"send_back": 0}, "line 2: missing field group"),
    ({"send_back": 0, "group": ""}, "line 2: field group must name the consumer group"),
    ({"send_back": 0, "group": 5}, "line 2: field group must be str, not 5"),
    ({"send_back": True, "group": "g"}, "line 2: field send_back must be a record's number"),
    ({"send_back": -1, "group": "g"}, "line 2: field send_back must be a record's number"),
    ({"send_back": "x" * 200, "group": "g"}, "line 2: field send_back must be a record's number"),
    ({"send_back": 0, "group": "g", "delay_level": -2}, "line 2: field delay_level must be an integer in [-1,"),
    ({"send_back": 0, "group": "g", "max_reconsume_times": "3"}, "line 2: field max_reconsume_times must be int"),
    ({"send_back": 0, "group": "g", "topic": "T"}, "line 2: unknown field(s) of a send_back record: topic"),
    ({"deliver": 0, "group": "g"}, "line 2: unknown field(s) of a deliver record: group"),
    ({"deliver": 0, "send_back": 0}, "line 2: give either send_back or deliver, not both"),
    ({"deliver": 0}, "line 2: deliver: record 0 is no parked record"),
    ({"deliver": 7}, "line 2: deliver: no record 7 among the last"),
    ({"send_back": "7F000001000000000000000000000B02", "group": "g"},
     "line 2: send_back: no record with UNIQ_KEY '7F000001000000000000000000000B02' was written before"),
    ({"send_back": 0, "group": "g", "store_timestamp": -5}, "line 2: field store_timestamp must be an integer in"),
])
def test_a_bad_copy_record_is_refused_naming_line_and_field(tmp_path, capsys, line, says):
    code, _, err, store_dir = _write(tmp_path, [ORIGINAL, line], capsys)
    assert code == 2 and says in err and "Traceback" not in err
    assert not store_dir.exists()  # nothing published
