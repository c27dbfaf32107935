"""``rmq-inspect story`` on writer-made stores (tests/story_store.py): the table and --json, the REF forms, the
exit codes (0 found, 1 unknown or expired, 2 bad REF, 3 store unreadable), --no-scan's "not searched", notes for
partial answers, and store text escaped on the terminal."""

from __future__ import annotations

import json
import shutil

import pytest

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.tracewrite import trace_spec
from inspector.engine.maintain.write.writer import StoreWriter
from tests.story_store import T0, R, write_story_store


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("story-cli") / "store"
    return root, write_story_store(root)


def test_story_json_is_the_engine_view(made, cli):
    root, at = made
    code, out, err = cli("story", str(root), R, "--json")
    view = json.loads(out)
    assert code == 0 and view["unique_key"] == R
    assert [(r["role"], r["physical_offset"]) for r in view["records"] if r["role"] != "trace"] == [
        ("original", at["original"]), ("retry-scheduled", at["parked1"]), ("retry", at["retry1"]),
        ("retry-scheduled", at["parked2"]), ("retry", at["retry2"]), ("dead-letter", at["dlq"])]
    assert [(g["group"], g["topic"], g["consumed"]) for g in view["groups"]] == [
        ("G", "TopicTest", True), ("H", "TopicTest", False), ("G", "%RETRY%G", True), ("G", "%RETRY%G", False)]
    assert "searched: every topic's index for UNIQ_KEY" in err


def test_story_table_and_the_ref_forms(made, cli):
    root, at = made
    code, out, _ = cli("story", str(root), R)
    assert code == 0 and f"story of {R}" in out and "dead-letter" in out and "%DLQ%G" in out
    assert "consumer groups (offsets from config/consumerOffset.json)" in out and "SubAfter" in out
    for ref in ((at["msg_id"],), (str(at["dlq"]),), ("TopicTest", "order-1")):
        code, out, _ = cli("story", str(root), *ref, "--json")
        assert code == 0 and json.loads(out)["unique_key"] == R


def test_exit_codes(made, tmp_path, cli):
    root, _ = made
    code, _, err = cli("story", str(root), "7F00000100002A9F00000000000000FF")
    assert code == 1 and "no message with id" in err and "Traceback" not in err
    code, _, err = cli("story", str(root), "TopicTest", "no-such-key")
    assert code == 1 and "no message indexed under TopicTest#no-such-key" in err
    code, _, err = cli("story", str(root), "not-a-ref")
    assert code == 2 and "Traceback" not in err
    code, _, err = cli("story", str(tmp_path / "missing"), R)
    assert code == 2 and "Traceback" not in err
    copy = tmp_path / "unreadable"
    shutil.copytree(root, copy)
    segment = copy / "commitlog" / "00000000000000000000"
    data = bytearray(segment.read_bytes())
    data[4:8] = b"\0\0\0\0"  # the original's magic code: a REF at its offset names an unreadable record
    segment.write_bytes(bytes(data))
    code, _, err = cli("story", str(copy), "0")
    assert code == 3 and "Traceback" not in err and "@ 0" in err


def test_a_trace_topic_no_topic_has_is_a_note_without_a_broker_config(made, cli):
    """Found by the argument fuzzer (issue 35): ``--trace-topic`` naming no topic, on a store with no broker.conf,
    ended in an AttributeError (the note looked for the config file the name would have come from)."""
    root, _ = made
    code, out, err = cli("story", str(root), R, "--trace-topic", "No\x1b]0;T\x07Topic")
    assert code == 0 and "Traceback" not in out + err
    assert "trace topic No\\x1b]0;T\\x07Topic (asked for) is no topic of this store" in out + err
    assert "\x1b" not in out + err


def test_no_scan_says_what_was_not_searched(tmp_path, cli):
    root = tmp_path / "s"
    with StoreWriter(root, clock=lambda: T0) as w:
        w.append(MessageSpec("TopicTest", b"x", unique_key=R, store_timestamp=T0))
    shutil.rmtree(root / "index")  # no index file: the whole log is unindexed
    code, _, err = cli("story", str(root), "0", "--no-scan")
    assert code == 0 and "was not searched (scan turned off)" in err
    code, _, err = cli("story", str(root), "0")
    assert code == 0 and "scanned" in err and "which no index covers" in err


def test_store_text_is_escaped_and_a_trace_body_of_another_shape_is_noted(tmp_path, cli):
    root = tmp_path / "hostile"
    with StoreWriter(root, clock=lambda: T0, consumer_offsets={("Topic\x1b[31m", "g\x1b]0;x\x07"): {0: 1}}) as w:
        w.append(MessageSpec("Topic\x1b[31m", b"x", unique_key=R, store_timestamp=T0))
        w.append(trace_spec([{"type": "SubBefore", "timestamp": T0 + 5, "region_id": "r", "group": "cg\x1b[2J",
                              "request_id": "q", "msg_id": R, "retry_times": 0, "keys": ""}],
                            store_timestamp=T0 + 6))
        w.append(MessageSpec("RMQ_SYS_TRACE_TOPIC", f"SubAfter\x01q\x01{R}\x01x\x02".encode(), keys=[R],
                             store_timestamp=T0 + 7))
    code, out, err = cli("story", str(root), R)
    assert code == 0 and "\x1b" not in out + err and "\x07" not in out + err
    assert "Topic\\x1b[31m" in out and "cg\\x1b[2J" in out
    assert "record(s) of another shape" in err
    code, out, _ = cli("story", str(root), R, "--json")
    view = json.loads(out)
    assert view["records"][0]["topic"] == "Topic\x1b[31m" and view["groups"][0]["group"] == "g\x1b]0;x\x07"


def test_a_budget_spent_at_once_answers_with_what_was_read_and_says_so(made, cli):
    root, _ = made
    code, out, err = cli("story", str(root), R, "--budget", "0.000001", "--json")
    view = json.loads(out)
    assert code == 0 and view["records"][0]["role"] == "original"
    assert "note: stopped" in " ".join(err.split()) and "not" in err
    code, _, err = cli("story", str(root), R, "--budget", "-1")
    assert code == 2
