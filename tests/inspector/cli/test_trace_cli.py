"""``rmq-inspect trace`` and the decoded trace records of ``show`` / ``messages --json`` on a writer-made store
(tests/trace_store.py): the timeline by time, --json, a custom --trace-topic, exit 1 when none, 2 for no id, and
store text (a group with an escape sequence) escaped on the terminal."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hostile_text import run as hostile_run
from hostile_text import unsafe_in
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.engine import Store
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.tracewrite import trace_spec
from inspector.engine.maintain.write.writer import StoreWriter
from tests.trace_store import PUB, SUB_AFTER, T0, UK, write_trace_store


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("trace-cli") / "store"
    return root, write_trace_store(root)


def test_trace_json_is_the_timeline(made, cli):
    root, at = made
    code, out, _ = cli("trace", str(root), UK, "--json")
    view = json.loads(out)
    assert code == 0 and view["source"] == "index" and view["trace_topics"] == ["RMQ_SYS_TRACE_TOPIC"]
    assert [(r["type"], r["physical_offset"], r["time"]) for r in view["records"]] == [
        ("Pub", at["pub"], T0 + 1), ("SubBefore", at["sub"], T0 + 50), ("SubAfter", at["sub"], T0 + 57)]
    assert view["records"][0]["offset_msg_id"] == at["msg_id"] and view["records"][2]["success"] is False


def test_trace_table_and_exit_codes(made, cli):
    root, _ = made
    code, out, _ = cli("trace", str(root), UK)
    assert code == 0 and "through the index" in out and "SubAfter" in out and "req-1" in out
    code, _, err = cli("trace", str(root), "7F00000100002A9F00000000000000FF")
    assert code == 1 and "no trace record mentions" in err
    # the one-line answer of exit 1, as every command gives it (test_corruption_commands.py); --json: the records
    assert [line for line in err.splitlines() if line.startswith("rmq-inspect: ")] == [
        "rmq-inspect: no trace record mentions 7F00000100002A9F00000000000000FF"]
    code, out, err = cli("trace", str(root), "7F00000100002A9F00000000000000FF", "--json")
    assert code == 1 and json.loads(out)["records"] == [] and "Traceback" not in err
    code, _, err = cli("trace", str(root), "not-an-id")
    assert code == 2 and "Traceback" not in err


def test_trace_takes_every_ref_show_takes(made, cli):
    """REF as show reads it (Store.locate): the physical offset and the offset msgId give UK's timeline too."""
    root, at = made
    records = None
    for ref in (UK, at["msg_id"], str(at["message"]), f" {at['message']} ", str(at["msg_id"]).lower()):
        code, out, _ = cli("trace", str(root), ref, "--json")
        view = json.loads(out)
        assert code == 0 and set(view["ids"]) == {UK, at["msg_id"]}, ref
        got = [(r["type"], r["physical_offset"]) for r in view["records"]]
        assert got == (records or got) == [("Pub", at["pub"]), ("SubBefore", at["sub"]), ("SubAfter", at["sub"])]
        records = got
    code, out, err = cli("trace", str(root), str(at["message"]))
    assert code == 0 and f"trace records of {UK}, {at['msg_id']}" in out


def test_trace_of_an_offset_that_is_no_message(made, cli):
    root, at = made
    code, _, err = cli("trace", str(root), "999999999")
    assert code == 1 and "past the end of the log" in err and "Traceback" not in err
    for ref, exit_code in (("-5", 2), ("1.5", 2), ("Z" * 32, 2), ("12", 3)):  # 12: inside a record, as show says
        code, _, err = cli("trace", str(root), ref)
        assert code == exit_code and "Traceback" not in err and err.count("\n") == 1, ref
        assert (code, err) == cli("show", str(root), ref)[::2], ref
    code, _, err = cli("trace", str(root), str(at["pub"]))  # a trace message itself: said, exit 1
    assert code == 1 and f"the record at physical offset {at['pub']} is itself a trace message" in err


def test_show_and_messages_json_decode_trace_bodies(made, cli):
    root, at = made
    code, out, _ = cli("show", str(root), str(at["tx"]))
    assert code == 0 and "trace (1 trace record: EndTransaction)" in out and "COMMIT_MESSAGE" in out
    code, out, _ = cli("show", str(root), str(at["tx"]), "--json")
    assert json.loads(out)["trace"]["records"][0]["transaction_id"] == "tx-9"
    code, out, _ = cli("messages", str(root), "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [bool(line.get("trace")) for line in lines] == [False, True, True, True, True, True]
    assert lines[-1]["trace"]["records"][0]["type"] is None  # the other shape, with its reason
    assert "SubAfter with 3 fields" in lines[-1]["trace"]["records"][0]["other_shape"]


def test_custom_trace_topic_and_escaped_store_text(tmp_path, cli):
    root = tmp_path / "custom"
    with StoreWriter(root, clock=lambda: T0) as w:
        w.append(MessageSpec("TopicTest", b"x", unique_key=UK, store_timestamp=T0))
        w.append(trace_spec([dict(PUB, group="pg\x1b[31mred"), SUB_AFTER], topic="MyTrace", store_timestamp=T0 + 9))
    code, _, _ = cli("trace", str(root), UK)
    assert code == 1  # MyTrace is no trace topic unless named
    code, out, _ = cli("trace", str(root), UK, "--trace-topic", "MyTrace")
    assert code == 0 and "Pub" in out and "\x1b" not in out and "pg\\x1b[31mred" in out


PIECES = ["Pub", "SubAfter", UK, "1", "true", "\x01", "\x02", "\x1b]0;PWNED\x07", "\u202e", "\x9b", "[bold]", "é"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.lists(st.sampled_from(PIECES) | st.text(max_size=4), max_size=30).map("".join)
       | st.binary(max_size=60).map(lambda b: b.decode("latin-1")))
def test_any_trace_body_shows_without_a_control_character(tmp_path_factory, body):
    root = tmp_path_factory.mktemp("hostile-trace") / "store"
    with StoreWriter(root, clock=lambda: T0) as w:
        at = w.append(MessageSpec("RMQ_SYS_TRACE_TOPIC", body.encode("utf-8", "surrogatepass"), keys=[UK],
                                  store_timestamp=T0)).physical_offset
    for argv, allowed in ((("show", str(root), str(at)), {0}), (("trace", str(root), UK), {0, 1}),
                          (("trace", str(root), UK, "--json"), {0, 1})):
        code, out, err = hostile_run(*argv)
        assert code in allowed and "Traceback" not in out + err, (argv, err[-300:])
        if "--json" not in argv:
            assert not unsafe_in(out) and not unsafe_in(err), (argv, unsafe_in(out)[:3])


def test_the_broker_configs_trace_topic_decodes_everywhere(tmp_path, cli):
    root = tmp_path / "custom"
    with StoreWriter(root, clock=lambda: T0) as w:
        w.append(MessageSpec("TopicTest", b"x", unique_key=UK, store_timestamp=T0))
        at = w.append(trace_spec([PUB, SUB_AFTER], topic="MyTrace", store_timestamp=T0 + 9)).physical_offset
    conf = tmp_path / "broker.conf"
    conf.write_text("msgTraceTopicName=MyTrace\n", encoding="utf-8")
    code, out, _ = cli("show", str(root), str(at), "--json")
    assert code == 0 and "trace" not in json.loads(out)  # without the config MyTrace is a topic like another
    code, out, _ = cli("show", str(root), str(at), "--json", "--broker-config", str(conf))
    assert [r["type"] for r in json.loads(out)["trace"]["records"]] == ["Pub", "SubAfter"]
    code, out, _ = cli("show", str(root), str(at), "--broker-config", str(conf))
    assert "trace (2 trace records: Pub, SubAfter)" in out
    code, out, _ = cli("messages", str(root), "--json", "--broker-config", str(conf))
    assert [bool(json.loads(line).get("trace")) for line in out.splitlines()] == [False, True]
    code, out, _ = cli("messages", str(root), "--json", "--follow", "--from", "0", "--idle-timeout", "0.2",
                       "--broker-config", str(conf))
    assert code == 0 and [bool(json.loads(line).get("trace")) for line in out.splitlines()] == [False, True]
    code, out, _ = cli("trace", str(root), UK, "--json", "--broker-config", str(conf))
    assert code == 0 and json.loads(out)["trace_topics"] == ["MyTrace"]


# --- bad input: a clear answer, a documented exit code, never a traceback ------------------------------------------

GONE = "7F00000100002A9F00000000000000EE"  # a UNIQ_KEY no message of the store has


@pytest.fixture(scope="module")
def odd(tmp_path_factory):
    """M (UK); a trace-topic message indexed under UK whose body is no trace record (bytes no UTF-8 either);
    a Pub of GONE, a message the store does not hold."""
    root = tmp_path_factory.mktemp("trace-bad") / "store"
    with StoreWriter(root, clock=lambda: T0) as w:
        w.append(MessageSpec("TopicTest", b"x", unique_key=UK, store_timestamp=T0))
        other = w.append(MessageSpec("RMQ_SYS_TRACE_TOPIC", b"\xff\xfeHello\x01world", keys=[UK],
                                     store_timestamp=T0 + 1)).physical_offset
        w.append(trace_spec([dict(PUB, msg_id=GONE, offset_msg_id="7F00000100002A9F0000000000ABCDEF")],
                            store_timestamp=T0 + 2))
    return root, other


def test_a_trace_body_of_another_shape(odd, cli):
    root, other = odd
    code, out, err = cli("trace", str(root), UK)
    assert code == 1 and out == "" and "Traceback" not in err
    assert "1 record(s) of another shape" in err and f"no trace record mentions {UK}" in err
    code, out, err = cli("show", str(root), str(other), "--json")
    record = json.loads(out)["trace"]["records"][0]
    assert code == 0 and record["type"] is None and "is none of Pub, SubBefore" in record["other_shape"]
    code, out, err = cli("show", str(root), str(other))
    assert code == 0 and "1 of another shape" in out and "\\xff" in out


def test_a_trace_record_whose_msgid_names_nothing(odd, cli):
    root, _ = odd
    code, out, err = cli("trace", str(root), GONE, "--json")
    view = json.loads(out)
    assert code == 0 and view["ids"] == [GONE] and [r["type"] for r in view["records"]] == ["Pub"]
    assert view["notes"] == [f"no message with id {GONE} in this store: only the trace records can answer"]
    code, out, err = cli("trace", str(root), GONE)
    assert code == 0 and "Pub" in out and "only the trace records can answer" in err


def test_a_custom_trace_topic_that_does_not_exist(odd, cli, tmp_path):
    root, _ = odd
    code, out, err = cli("trace", str(root), GONE, "--trace-topic", "Nope\x1b[31m", "--json")
    assert code == 0 and [r["type"] for r in json.loads(out)["records"]] == ["Pub"]  # the default topic still read
    assert "trace topic Nope\x1b[31m (asked for) is no topic of this store; read only RMQ_SYS_TRACE_TOPIC" in \
        json.loads(out)["notes"]
    code, out, err = cli("trace", str(root), GONE, "--trace-topic", "Nope\x1b[31m")
    assert code == 0 and "\x1b" not in err and "trace topic Nope\\x1b[31m (asked for) is no topic" in err
    conf = tmp_path / "broker.conf"
    conf.write_text("msgTraceTopicName=Missing\n", encoding="utf-8")
    code, _, err = cli("trace", str(root), UK, "--broker-config", str(conf))
    assert code == 1 and "Traceback" not in err
    assert f"trace topic Missing (msgTraceTopicName of {conf}) is no topic of this store" in " ".join(err.split())


def test_a_compressed_trace_body_that_does_not_decompress(tmp_path, cli):
    """The trace producer compresses a large body (sysFlag ZLIB); bytes that do not inflate are named, not a
    traceback: show's trace object carries the error, trace's note names the message."""
    root = tmp_path / "store"
    with StoreWriter(root, clock=lambda: T0) as w:
        w.append(MessageSpec("TopicTest", b"x", unique_key=UK, store_timestamp=T0))
        at = w.append(replace(trace_spec([PUB], store_timestamp=T0 + 1), compression="zlib")).physical_offset
    segment = root / "commitlog" / f"{0:020d}"
    data = bytearray(segment.read_bytes())
    with Store(root) as store:
        body = store.message_at(at).body
    where = data.index(body, at)
    data[where:where + 2] = b"\x00\x00"  # no zlib header any more
    segment.write_bytes(bytes(data))
    code, out, err = cli("show", str(root), str(at), "--json")
    assert code == 0 and json.loads(out)["trace"]["error"].startswith("the body does not decompress")
    code, out, err = cli("trace", str(root), UK)
    assert code == 1 and "Traceback" not in err
    assert f"trace message @ {at}: the body does not decompress" in " ".join(err.split())
