"""rmq-inspect on a store with a BatchCQ topic: messages in queue order (one row per inner message), show, info,
verify (clean: exit 0; a damaged batch unit: exit 4 naming file and offset)."""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2]))
from batch_store import BATCH_TOPIC, write_batch_store  # noqa: E402

BCQ = f"batchconsumequeue/{BATCH_TOPIC}/0/00000000000000000000"


@pytest.fixture(scope="module")
def batch_store(tmp_path_factory):
    root = tmp_path_factory.mktemp("bcq-cli") / "store"
    return root, write_batch_store(root)


def test_messages_in_queue_order_one_row_per_inner_message(batch_store, cli) -> None:
    root, results = batch_store
    code, out, err = cli("messages", str(root), "--topic", BATCH_TOPIC, "--queue", "0", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and err == ""
    assert [r["queue_offset"] for r in rows] == list(range(8))
    assert [r["keys"] for r in rows] == [[f"key{i}"] for i in range(8)]
    assert rows[5]["physical_offset"] == results[2].physical_offset
    assert rows[5]["inner_batch"] == {"index": 1, "count": 3, "base_queue_offset": 4,
                                      "item_position": rows[5]["inner_batch"]["item_position"]}
    assert "inner_batch" not in rows[7]
    code, out, _ = cli("messages", str(root), "--topic", BATCH_TOPIC, "--queue", "0", "--json", "--from", "5")
    assert code == 0 and [json.loads(line)["queue_offset"] for line in out.splitlines()] == [5, 6, 7]


def test_messages_table(batch_store, cli) -> None:
    root, _ = batch_store
    code, out, _ = cli("messages", str(root), "--topic", BATCH_TOPIC, "--queue", "0", "--from", "2")
    assert code == 0 and "inner body 2" in out and "inner body 1" not in out and "6 message(s)" in out


def test_show_lists_the_inner_messages(batch_store, cli) -> None:
    root, results = batch_store
    offset = str(results[2].physical_offset)
    code, out, _ = cli("show", str(root), offset, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["sys_flag_parts"]["inner_batch"] and doc["inner_messages_error"] is None
    assert [m["queue_offset"] for m in doc["inner_messages"]] == [4, 5, 6]
    code, out, _ = cli("show", str(root), offset)
    assert code == 0 and "inner messages (3; INNER_NUM 3, INNER_BASE 4)" in out and "inner body 6" in out


def test_info_counts_batch_queues(batch_store, cli) -> None:
    root, _ = batch_store
    code, out, _ = cli("info", str(root), "--json")
    topic = next(t for t in json.loads(out)["topics"] if t["topic"] == BATCH_TOPIC)
    assert code == 0 and topic["message_count"] == 8
    assert [(q["kind"], q["max_offset"], q["units"]) for q in topic["queues"]] == [("batchconsumequeue", 8, 3)]
    code, out, _ = cli("info", str(root))
    assert code == 0 and "0 (batch CQ)" in out and "8 in 3 unit(s)" in out


def test_verify_clean_then_a_damaged_batch_unit(tmp_path, cli) -> None:
    root = tmp_path / "s"
    write_batch_store(root)
    code, out, _ = cli("verify", str(root))
    assert code == 0 and "no problems" in out
    with open(root / BCQ, "r+b") as f:
        f.seek(46 + 36)
        f.write(struct.pack(">h", 0))  # unit 1: batchSize 0
    code, out, err = cli("verify", str(root), "--json")
    problems = json.loads(out)["problems"]
    assert code == 4 and "Traceback" not in err
    assert {(p["file"], p["offset"], p["code"]) for p in problems} == {(BCQ, 46, "bcq-bad-unit"), (BCQ, 92, "bcq-gap")}
    code, out, err = cli("verify", str(root))
    assert code == 4 and "bcq-bad-unit" in out and "batchSize 0" in out


def test_write_a_batch_topic_from_json_lines(tmp_path, cli) -> None:
    lines = tmp_path / "in.jsonl"
    lines.write_text("\n".join([
        json.dumps({"topic": BATCH_TOPIC, "store_timestamp": 1, "batch": [{"body": "a", "keys": ["ka"]},
                                                                          {"body": "b", "keys": ["kb"]}]}),
        json.dumps({"topic": BATCH_TOPIC, "store_timestamp": 2, "body": "c"}),
    ]) + "\n")
    out = tmp_path / "s"
    code, _, err = cli("write", str(out), str(lines), "--batch-topic", BATCH_TOPIC)
    assert code == 0, err
    code, text, _ = cli("messages", str(out), "--topic", BATCH_TOPIC, "--queue", "0", "--json")
    rows = [json.loads(line) for line in text.splitlines()]
    assert [(r["queue_offset"], r["keys"]) for r in rows] == [(0, ["ka"]), (1, ["kb"]), (2, [])]
    code, _, err = cli("write", str(tmp_path / "t"), str(lines))  # without --batch-topic: refused
    assert code == 2 and "line 1" in err and "not a BatchCQ topic" in err and not (tmp_path / "t").exists()


def test_key_finds_an_inner_message(batch_store, cli) -> None:
    root, _ = batch_store
    code, out, _ = cli("key", str(root), BATCH_TOPIC, "key2", "--json")
    doc = json.loads(out)
    assert code == 0 and [(m["queue_offset"], m["inner_batch"]["index"]) for m in doc["messages"]] == [(2, 2)]


def test_a_malformed_inner_batch_body_is_named_not_a_traceback(tmp_path, cli) -> None:
    root = tmp_path / "s"
    results = write_batch_store(root)
    record = results[2].physical_offset
    with open(root / "commitlog" / "00000000000000000000", "r+b") as f:
        f.seek(record + 84 + 4 + 16)  # BODY starts at 88 (IPv4 hosts); the first item's body length
        f.write(struct.pack(">i", 9999))
    code, out, err = cli("messages", str(root), "--topic", BATCH_TOPIC, "--queue", "0", "--json")
    assert code == 0 and "Traceback" not in err
    assert [json.loads(line)["queue_offset"] for line in out.splitlines()] == [0, 1, 2, 3, 7]
    said = " ".join(err.split())  # the console wraps long lines
    assert f"{BCQ} @ 46" in said and "body length 9999 runs past" in said
    code, out, err = cli("show", str(root), str(record), "--json")
    assert code == 0 and json.loads(out)["inner_messages_error"].endswith("body length 9999 runs past the record's body")
    code, out, _ = cli("verify", str(root), "--json")
    assert code == 4 and any(p["code"] == "bcq-mismatch" and p["offset"] == 46 for p in json.loads(out)["problems"])
