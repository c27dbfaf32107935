"""``rmq-inspect grep``: the listing (two lines a hit) and JSON Lines on the sample store, the exit codes (0 hits, 1 none, 2 bad
pattern or --in, 3 none while part of the log was unreadable), the partial-answer note, and store text escaped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hostile_text import run, unsafe_in, write_store_text

from inspector.engine import Message, Store

SAMPLE = Path(__file__).parents[3] / "sample_store"


def test_json_lines_name_each_hit(capsys):
    code, out, err = run("grep", str(SAMPLE), "order-1108", "--json", "--limit", "1000")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and lines and err == ""
    with Store(SAMPLE) as s:
        for view in lines:
            msg = s.message_at(view["physical_offset"])
            assert isinstance(msg, Message)
            assert (view["msg_id"], view["unique_key"], view["topic"], view["queue_id"], view["queue_offset"],
                    view["store_timestamp"]) == (msg.msg_id, msg.unique_key, msg.topic, msg.queue_id,
                                                 msg.queue_offset, msg.store_timestamp)
            assert view["match"] == "order-1108" and "order-1108" in view["context"]
    assert [v["physical_offset"] for v in lines] == sorted(v["physical_offset"] for v in lines)


def test_the_listing_and_the_limit_note():
    code, out, err = run("grep", str(SAMPLE), "ORDER-1108", "-i", "--in", "keys", "--limit", "2")
    assert code == 0
    assert out.count("OrderEvents") + out.count("InventoryEvents") + out.count("PaymentEvents") == 2
    assert "keys" in out and "(KEYS)" in out
    assert "partial answer" in err and "--limit 2" in err


def test_no_hit_is_exit_1_and_said():
    code, out, err = run("grep", str(SAMPLE), "no such text anywhere", "--fixed")
    assert (code, out) == (1, "") and "no message matches" in err
    code, out, err = run("grep", str(SAMPLE), "order", "--topic", "NoSuchTopic", "--json")
    assert (code, out, err) == (1, "", "")


def test_an_unknown_topic_names_the_one_meant():
    code, out, err = run("grep", str(SAMPLE), "order", "--topic", "OrderEvent")
    assert (code, out) == (1, "") and len(err.strip().splitlines()) == 1
    assert err.startswith("rmq-inspect: no message matches order")
    assert "no topic 'OrderEvent' in this store's consume queues or topics.json; did you mean OrderEvents?" in err
    code, _, err = run("grep", str(SAMPLE), "order-1108", "--topic", "OrderEvents")
    assert code == 0 and "did you mean" not in err


def test_bad_input_is_exit_2_in_one_line():
    for argv, says in ((["["], "invalid regular expression '['"), (["a(b"], "missing )"),
                       (["x", "--in", "header"], "--in takes"), ([""], "empty")):
        code, out, err = run("grep", str(SAMPLE), *argv)
        assert code == 2 and out == "" and says in err and len(err.strip().splitlines()) == 1, err


def test_part_of_the_log_unreadable_and_no_hit_is_exit_3(tmp_path):
    copy = tmp_path / "s"
    shutil.copytree(SAMPLE, copy)
    first = copy / "commitlog" / "00000000000000000000"
    first.unlink()
    first.mkdir()  # no regular file where a segment should be
    code, _, err = run("grep", str(copy), "no such text anywhere")
    assert code == 3 and "not-a-segment-file" in err and "could not be read" in err
    code, out, _ = run("grep", str(copy), "order", "--json", "--limit", "1")
    assert code == 0 and json.loads(out)["physical_offset"] >= 65536  # the rest is still searched


def test_store_text_is_escaped_on_the_terminal(tmp_path):
    evil = "\x1b]0;PWNED\x07 NEEDLE \u202e[bold]x[/bold]\x9b"
    code, _, err = write_store_text(tmp_path, [{"topic": "T", "body": evil, "tags": evil, "keys": [evil],
                                                "properties": {evil: evil}}])
    assert code == 0, err
    code, out, err = run("grep", str(tmp_path / "store"), "NEEDLE")
    assert code == 0 and "NEEDLE" in out
    assert unsafe_in(out) == [] and unsafe_in(err) == []
