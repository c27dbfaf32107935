"""The writer's trace messages from JSON Lines (``rmq-inspect write``, a ``trace`` list per line): each type's
body equals the bytes packed here by hand from the client encoder's format, its KEYS are the encoder's
transKey set (so the index finds the records by the traced msgId), and a record the layout cannot hold is a
clear refusal (exit 2), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.engine import decode_trace, open_store
from tests.trace_store import (
    END_TX,
    END_TX_TEXT,
    PUB,
    RECALL,
    RECALL_TEXT,
    SUB_AFTER,
    SUB_BEFORE,
    SUB_TEXT,
    UK,
)

S, F = "\x01", "\x02"


def _write(tmp_path: Path, lines: list[dict], capsys) -> tuple[int, str, Path]:
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    out = tmp_path / "store"
    code = main(["write", str(out), str(src)])
    return code, capsys.readouterr().err, out


def test_each_type_from_json_lines_is_the_encoders_bytes(tmp_path, capsys):
    pub = dict(PUB, offset_msg_id="0A0000010000291F0000000000000000", msg_type=0)
    cloud = dict(SUB_AFTER, shape="5.x CLOUD channel, no time or group")
    del cloud["timestamp"], cloud["group"]
    code, err, root = _write(tmp_path, [
        {"trace": [pub], "store_timestamp": 1}, {"trace": [SUB_BEFORE, SUB_AFTER], "store_timestamp": 2},
        {"trace": [END_TX], "store_timestamp": 3}, {"trace": [RECALL], "store_timestamp": 4},
        {"trace": [cloud], "topic": "rmq_sys_TRACE_DATA_r1", "store_timestamp": 5}], capsys)
    assert code == 0, err
    store = open_store(str(root))
    msgs = [m for m in store.entries(0) if hasattr(m, "body")]
    pub_text = S.join(["Pub", str(PUB["timestamp"]), "DefaultRegion", "pg", "TopicTest", UK, "TagA",
                       "order-1 order-2", "127.0.0.1:10911", "5", "3", "0", "0A0000010000291F0000000000000000",
                       "true"]) + F
    cloud_text = S.join(["SubAfter", "req-1", UK, "7", "false", "order-1 order-2", "1"]) + S + F  # 5.3.1 CLOUD
    assert [m.body.decode() for m in msgs] == [pub_text, SUB_TEXT, END_TX_TEXT, RECALL_TEXT, cloud_text]
    assert [m.topic for m in msgs][-2:] == ["RMQ_SYS_TRACE_TOPIC", "rmq_sys_TRACE_DATA_r1"]
    assert msgs[0].keys == [UK, "order-1", "order-2"]  # transKey: the msgId, then the keys split
    (after,) = decode_trace(msgs[-1]).records
    assert (after.shape, after.timestamp, after.context_code) == ("5.x CLOUD channel, no time or group", None, 1)
    assert [h.message.physical_offset for h in store.lookup_key("RMQ_SYS_TRACE_TOPIC", UK)] != []


@pytest.mark.parametrize(("record", "says"), [
    ({"type": "Pull"}, "trace record type 'Pull'"),
    (dict(RECALL, shape="old"), "shape 'old'"),
    ({k: v for k, v in RECALL.items() if k != "success"}, "missing success"),
    (dict(RECALL, extra=1), "no field extra"),
    (dict(RECALL, success="yes"), "success 'yes' is no true or false"),
    (dict(RECALL, timestamp=1 << 63), "is no Java long"),
    (dict(RECALL, group="a\x01b"), "group 'a\\x01b' is no string"),
    (dict(END_TX, transaction_state="MAYBE"), "is no transaction state"),
    (dict(PUB, msg_type="Fast_Msg"), "is no MessageType"),
])
def test_a_record_the_layout_cannot_hold_is_refused(tmp_path, capsys, record, says):
    code, err, _ = _write(tmp_path, [{"trace": [record]}], capsys)
    assert code == 2 and says in err and "Traceback" not in err


@pytest.mark.parametrize(("line", "says"), [
    ({"trace": [RECALL], "body": "x"}, "give trace, not body"),
    ({"trace": []}, "non-empty list"),
    ({"trace": ["Recall"]}, "non-empty list"),
])
def test_a_trace_line_of_another_shape_is_refused(tmp_path, capsys, line, says):
    code, err, _ = _write(tmp_path, [line], capsys)
    assert code == 2 and says in err
