"""``rmq-inspect groups`` and ``rmq-inspect group`` (issue 30 item 2): tables and --json against how the store was
written, the documented exit codes (1 an unknown group, 2 bad arguments, 3 offsets unreadable), no traceback, and
store text (a group name with escape sequences) escaped on the terminal."""

from __future__ import annotations

import json

import pytest
from external_tools import import_or_skip
from hostile_text import DANGEROUS, unsafe_in
from hostile_text import run as hostile_run

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from tests.offsets_support import T0, offsets_store, v1_offsets_db


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """g on T: queue 0 holds a0..a4, committed 2; queue 1 holds b0..b2, committed 3 (caught up)."""
    root = tmp_path_factory.mktemp("groups-cli") / "store"
    with StoreWriter(root, clock=lambda: T0, consumer_offsets={("T", "g"): {0: 2, 1: 3}}) as w:
        for i in range(5):
            w.append(MessageSpec(topic="T", queue_id=0, body=f"a{i}".encode(), tags="ta", store_timestamp=T0 + i))
        for i in range(3):
            w.append(MessageSpec(topic="T", queue_id=1, body=f"b{i}".encode(), store_timestamp=T0 + 10 + i))
        w.append(MessageSpec(topic="%DLQ%g", body=b"dead", store_timestamp=T0 + 20))
    return root


def test_groups_table_and_json(store, cli):
    code, out, err = cli("groups", str(store))
    assert code == 0 and "Traceback" not in err
    (line,) = [ln for ln in out.splitlines() if "│ g " in ln]
    cells = [c.strip() for c in line.split("│")[1:-1]]
    assert cells == ["g", "T", "2", "3", "-", "1 in 1 queue(s)", "yes", "config/consumerOffset.json"]
    code, out, _ = cli("groups", str(store), "--json")
    data = json.loads(out)
    (g,) = data["groups"]
    assert code == 0 and data["offsets_source"] == "config/consumerOffset.json"
    assert (g["group"], g["queues"], g["lag"], g["retry"], g["dlq"]["messages"]) == ("g", 2, 3, None, 1)


def test_group_table_then_pending_with_limit(store, cli):
    code, out, err = cli("group", str(store), "g", "--limit", "2")
    assert code == 0
    assert "total lag 3" in out and "DLQ: 1 in 1 queue(s)" in out
    assert "pending: messages after the committed offsets (2 of 3)" in out
    assert "a2" in out and "a3" in out and "a4" not in out
    assert "--limit 2: 1 more pending message(s) not listed" in err


def test_group_json_values(store, cli):
    code, out, _ = cli("group", str(store), "g", "--json")
    data = json.loads(out)
    q0, q1 = data["queues"]
    assert code == 0 and (q0["committed_offset"], q0["max_offset"], q0["lag"]) == (2, 5, 3)
    assert (q0["last_consumed"]["queue_offset"], q0["first_unconsumed"]["store_timestamp"]) == (1, T0 + 2)
    assert (q1["lag"], q1["first_unconsumed"], q1["last_consumed"]["store_timestamp"]) == (0, None, T0 + 12)
    # the sides are read light: `show` at their physical offset gives the message
    code, out, _ = cli("show", str(store), str(q0["first_unconsumed"]["physical_offset"]), "--json")
    assert code == 0 and json.loads(out)["queue_offset"] == 2 and json.loads(out)["topic"] == "T"
    assert [m["body_preview"] for m in data["pending"]] == ["a2", "a3", "a4"]
    assert (data["pending_limit"], data["more_pending"]) == (20, 0)


def test_exit_codes(store, cli):
    code, _, err = cli("group", str(store), "nosuch")
    assert code == 1 and "no consumer group 'nosuch'" in err and "groups here: g" in err
    code, _, err = cli("group", str(store), "g", "--limit", "-1")
    assert code == 2 and "Traceback" not in err
    code, _, err = cli("group", str(store))
    assert code == 2


def test_unreadable_offsets_database_exit_3(tmp_path, cli):
    import_or_skip("rocksdict")
    root = offsets_store(tmp_path)
    v1_offsets_db(root, {"TopicTest@g1": b'{"offsetTable":{0:1}}'})
    (root / "config" / "consumerOffsets" / "CURRENT").write_text("MANIFEST-999999\n")
    for argv in (("groups", str(root)), ("group", str(root), "g1", "--json")):
        code, out, err = cli(*argv)
        assert code == 3 and "Traceback" not in out + err
        assert err.startswith("rmq-inspect: config/consumerOffsets: ") and "RocksDB" in err


def test_damaged_config_is_a_warning_not_a_traceback(tmp_path, cli):
    root = offsets_store(tmp_path)
    (root / "config" / "consumerOffset.json").write_text('{"offsetTable":{"TopicTest@g1":{0:1}}}')
    (root / "config" / "subscriptionGroup.json").write_text('{"subscriptionGroupTable":')
    code, out, err = cli("group", str(root), "g1")
    assert code == 0 and "Traceback" not in out + err
    assert "config/subscriptionGroup.json" in err and "(bad-config)" in err


def test_a_group_name_with_escapes_is_shown_escaped(tmp_path):
    group = "g" + "".join(DANGEROUS)
    root = tmp_path / "store"
    with StoreWriter(root, clock=lambda: T0, consumer_offsets={("T", group): {0: 0}}) as w:
        w.append(MessageSpec(topic="T", body=b"x\x1b[2J", tags="t\x1b]0;PWNED\x07", store_timestamp=T0))
    for argv in (("groups", str(root)), ("group", str(root), group)):
        code, out, err = hostile_run(*argv)
        assert code == 0 and "Traceback" not in out + err, err[-300:]
        assert not unsafe_in(out) and not unsafe_in(err), unsafe_in(out)[:3]
        assert "\\x1b[2J" in out
