"""Property: whatever text a producer put in a store, no command prints a control character from it.

Stores are written with ``rmq-inspect write`` from messages whose every text field mixes terminal escapes, C1 and
bidi controls, markup and arbitrary text (``hostile_text``); every read command then runs with table output and
with ``--json``. Tables and stderr must hold no character the terminal sanitiser escapes (the line feed aside),
no traceback, and a documented exit code; JSON must parse and give the store's text back exactly (nothing
escaped for the terminal in it). ``RMQ_STORE_TEXT_EXAMPLES`` sets the number of stores (default 25).
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
from pathlib import Path

from hostile_text import group_names, run, store_messages, unsafe_in, write_store_text
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from inspector.engine import Message, Store

EXAMPLES = int(os.environ.get("RMQ_STORE_TEXT_EXAMPLES", "25"))
# no shrinking: an example writes a store and runs some thirty commands, and shrinking one took over five minutes;
# a failure is reported as generated (with its seed to replay it)
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                phases=[Phase.explicit, Phase.reuse, Phase.generate])


def table_commands(store: str, m: dict, msg) -> dict[tuple[str, ...], set[int]]:
    """Every read command on the message ``m`` (its record ``msg``), with the exit codes it may give (README)."""
    # a key that argparse would take for an option ("-x") is not typed
    key = next((k for k in m["keys"] if not k.startswith("-")), "absent")
    return {
        ("info", store): {0},
        ("census", store): {0, 4},
        ("verify", store): {0, 4},
        ("preflight", store): {0, 4},
        ("messages", store): {0},
        # a pending timer message's topic has no queue yet: not found
        ("messages", store, "--topic", m["topic"], "--queue", str(msg.queue_id)): {0, 1},
        ("messages", store, "--topic", m["topic"]): {0},
        ("show", store, str(msg.physical_offset)): {0},
        ("show", store, msg.msg_id): {0},
        # no trace record mentions it: exit 1 after the index and a scan of the (absent) trace topics
        ("trace", store, msg.msg_id): {1},
        # the story of the message: its records and the groups' progress (a hostile group name among them)
        ("story", store, msg.msg_id): {0},
        # by TOPIC KEY (store text in the REF echoed back), and a store topic as the trace topic named in a note
        ("story", store, m["topic"], "--", key): {0, 1},
        ("trace", store, msg.msg_id, f"--trace-topic={m['topic']}"): {0, 1},
        ("key", store, m["topic"], key): {0, 1},
        ("chain", store, m["topic"], key): {0, 1},
        ("hex", store, str(msg.physical_offset), "--length", "512"): {0},
        # grep: every hit's context is store text (a key as a fixed string, and any byte but a line feed)
        # (an empty key is an empty pattern: refused, exit 2, as it would match every message)
        ("grep", store, "--fixed", key): {0, 1} if key else {2},
        ("grep", store, ".", "--limit", "5"): {0, 1},
        ("decode-id", msg.msg_id, "--store", store): {0},
        # the timer views: a store without timer messages has no timer store (not found)
        ("timer", store): {0, 1},
        ("timer", store, "--wheel"): {0, 1},
        ("timer", store, "--summary"): {0, 1},
        ("groups", store): {0},  # a group's name is store text too (issue 30)
    }


def assert_clean(argv: tuple[str, ...], code: int, out: str, err: str, allowed: set[int]) -> None:
    assert code in allowed, (argv, code, err[-500:])
    assert "Traceback" not in out + err, (argv, err[-2000:])
    assert not unsafe_in(out), (argv, unsafe_in(out)[:3])
    assert not unsafe_in(err), (argv, unsafe_in(err)[:3])


@FUZZ
@given(messages=store_messages(timers=True), group=st.one_of(st.none(), group_names))
def test_no_command_prints_a_control_character_from_the_store(messages, group):
    with tempfile.TemporaryDirectory(prefix="rmq-store-text-") as folder:
        code, out, err = write_store_text(Path(folder), messages, group)
        assert_clean(("write",), code, out, err, {0})
        store = str(Path(folder) / "store")
        with Store(store) as s:
            records = [e for e in s.entries() if isinstance(e, Message)]
        # the first message's record (a timer message's is in rmq_sys_wheel_timer), and the last's
        last = next(r for r in reversed(records) if r.topic == messages[-1]["topic"] or "deliver_ms" in messages[-1])
        # the store-wide commands (info, census, verify, the timer views ...) are the same argv for both
        # messages: each distinct command line runs once
        commands = {**table_commands(store, messages[0], records[0]), **table_commands(store, messages[-1], last)}
        if group is not None:  # its view; unknown (1) when the first topic names no offsets file entry ("@")
            commands[("group", store, "--", group)] = {0, 1}
        for argv, allowed in commands.items():
            assert_clean(argv, *run(*argv), allowed)


@FUZZ
@given(messages=store_messages())
def test_json_gives_the_store_text_back_exactly(messages):
    with tempfile.TemporaryDirectory(prefix="rmq-store-text-") as folder:
        code, _, err = write_store_text(Path(folder), messages)
        assert code == 0, err
        store = str(Path(folder) / "store")
        code, out, err = run("messages", store, "--json")
        assert code == 0 and "Traceback" not in err
        # split on line feeds only: str.splitlines also splits at U+0085 and U+2028, which JSON leaves raw
        lines = [json.loads(line) for line in out.split("\n") if line]
        assert len(lines) == len(messages)
        for m, view in zip(messages, lines, strict=True):
            assert_same_text(m, view)
            code, out, _ = run("show", store, str(view["physical_offset"]), "--json")
            assert code == 0
            assert_same_text(m, json.loads(out))
        # the story's JSON gives the topic back exactly too (its record at the REF's offset)
        code, out, _ = run("story", store, str(lines[0]["physical_offset"]), "--json")
        assert code == 0
        assert [r["topic"] for r in json.loads(out)["records"]
                if r["physical_offset"] == lines[0]["physical_offset"] and r["role"] != "lmq"] == [messages[0]["topic"]]
        code, out, _ = run("info", store, "--json")
        assert code == 0 and {m["topic"] for m in messages} <= {t["topic"] for t in json.loads(out)["topics"]}


def assert_same_text(m: dict, view: dict) -> None:
    """The store text of a JSON message view is exactly what the producer wrote."""
    assert view["topic"] == m["topic"]
    assert base64.b64decode(view["body_base64"]) == m["body"].encode()
    assert view["tags"] == (m["tags"] or None) or view["properties"].get("TAGS") == m["tags"]
    for name, value in m["properties"].items():  # an empty value is no property to the broker's decoder
        assert view["properties"].get(name, "") == value
    if "unique_key" in m:
        assert view["unique_key"] == m["unique_key"]
    if "producer_group" in m:
        assert view["properties"].get("PGROUP", "") == m["producer_group"]
