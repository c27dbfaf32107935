"""parsers/trace.py: trace bodies as the client's TraceDataEncoder writes them (strings packed here by hand from
encoderFromContextBean at rocketmq-all-4.9.8 / 5.3.1), parsed to named fields and built back byte for byte."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.trace import (
    OtherShape,
    TraceRecordFields,
    build_trace_body,
    parse_trace_body,
)

S, F = "\x01", "\x02"  # CONTENT_SPLITOR, FIELD_SPLITOR

PUB = S.join(["Pub", "1700000000123", "DefaultRegion", "pg", "TopicTest", "C0A8000100002A9F0000000000000001",
              "TagA", "k1 k2", "10.0.0.1:10911", "11", "3", "0", "0A00000100002A9F0000000000001234", "true"]) + F
SUB_BEFORE = S.join(["SubBefore", "1700000000200", "DefaultRegion", "cg", "req-1",
                     "C0A8000100002A9F0000000000000001", "2", "k1 k2"]) + F
SUB_AFTER = S.join(["SubAfter", "req-1", "C0A8000100002A9F0000000000000001", "17", "false", "k1 k2", "1",
                    "1700000000300", "cg"]) + F
SUB_AFTER_CLOUD_5 = S.join(["SubAfter", "req-2", "C0A8000100002A9F0000000000000001", "5", "true", "k1", "0"]) + S + F
END_TX = S.join(["EndTransaction", "1700000000400", "DefaultRegion", "pg", "TopicTx",
                 "C0A8000100002A9F0000000000000002", "null", "null", "10.0.0.1:10911", "1", "tx-9",
                 "ROLLBACK_MESSAGE", "true"]) + F
RECALL = S.join(["Recall", "1700000000500", "DefaultRegion", "pg", "TopicDelay",
                 "C0A8000100002A9F0000000000000003", "true"]) + F


def _one(text: str) -> TraceRecordFields:
    body = parse_trace_body(text.encode())
    assert build_trace_body(body) == text.encode()
    (record,) = body.records
    assert isinstance(record, TraceRecordFields), record
    return record


def test_pub_fields_named_and_typed():
    r = _one(PUB)
    assert (r.type, r.shape) == ("Pub", "4.x/5.x")
    assert r.fields == {"timestamp": 1700000000123, "region_id": "DefaultRegion", "group": "pg", "topic": "TopicTest",
                        "msg_id": "C0A8000100002A9F0000000000000001", "tags": "TagA", "keys": "k1 k2",
                        "store_host": "10.0.0.1:10911", "body_length": 11, "cost_time": 3, "msg_type": 0,
                        "offset_msg_id": "0A00000100002A9F0000000000001234", "success": True}


def test_pub_older_and_client_host_shapes():
    older = PUB.replace(S + "0A00000100002A9F0000000000001234", "")
    assert "offset_msg_id" not in _one(older).fields
    with_host = PUB[:-1] + S + "10.0.0.9@4242" + F
    assert _one(with_host).fields["client_host"] == "10.0.0.9@4242"


def test_sub_before_sub_after_end_transaction_recall():
    assert _one(SUB_BEFORE).fields["retry_times"] == 2
    after = _one(SUB_AFTER)
    assert (after.fields["cost_time"], after.fields["success"], after.fields["context_code"],
            after.fields["timestamp"], after.fields["group"]) == (17, False, 1, 1700000000300, "cg")
    cloud = _one(SUB_AFTER_CLOUD_5)
    assert "timestamp" not in cloud.fields and cloud.fields["context_code"] == 0
    tx = _one(END_TX)
    assert (tx.fields["transaction_state"], tx.fields["from_transaction_check"], tx.fields["msg_type"],
            tx.fields["keys"]) == ("ROLLBACK_MESSAGE", True, 1, "null")
    assert _one(RECALL).fields == {"timestamp": 1700000000500, "region_id": "DefaultRegion", "group": "pg",
                                   "topic": "TopicDelay", "msg_id": "C0A8000100002A9F0000000000000003",
                                   "success": True}


def test_a_batch_body_holds_records_in_order():
    text = PUB + SUB_BEFORE + SUB_AFTER + END_TX
    body = parse_trace_body(text.encode())
    assert [r.type for r in body.records] == ["Pub", "SubBefore", "SubAfter", "EndTransaction"]
    assert body.terminated and build_trace_body(body) == text.encode()


def test_other_shapes_say_why_and_build_back():
    cases = {
        "Nope" + S + "1" + F: "type 'Nope' is none of",
        PUB.replace(S + "true" + F, F).replace(S + "0A00000100002A9F0000000000001234", ""): "Pub with 11 fields",
        PUB.replace("1700000000123", "17x"): "timestamp is '17x', not a number",
        PUB.replace("1700000000123", "9" * 19): "past a Java long",
        PUB.replace(S + "11" + S, S + "2147483648" + S): "body_length is '2147483648', past a Java int",
        PUB.replace(S + "true" + F, S + "TRUE" + F): "success is 'TRUE', not true or false",
        END_TX.replace("ROLLBACK_MESSAGE", "MAYBE"): "transaction_state is 'MAYBE'",
        PUB.replace(S + "0" + S, S + "9" + S, 1): "not a MessageType ordinal",
        "": None,
    }
    for text, reason in cases.items():
        body = parse_trace_body(text.encode())
        assert build_trace_body(body) == text.encode()
        if reason is None:
            assert body.records == ()
            continue
        (record,) = body.records
        assert isinstance(record, OtherShape) and reason in record.reason, (text, record)


def test_4_9_8_cloud_sub_after_runs_into_the_next_record():
    # 4.9.8 ends a CLOUD SubAfter with CONTENT_SPLITOR and no FIELD_SPLITOR: two records become one other shape
    glued = S.join(["SubAfter", "r", "m", "1", "true", "k", "0"]) + S + SUB_BEFORE
    body = parse_trace_body(glued.encode())
    assert isinstance(body.records[0], OtherShape) and len(body.records) == 1


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300) | st.lists(st.sampled_from([PUB, SUB_BEFORE, SUB_AFTER, END_TX, RECALL, S, F,
                                                           "x", "\xff", "Pub"])).map(lambda p: "".join(p).encode()))
def test_any_bytes_parse_without_raising_and_build_back(data):
    assert build_trace_body(parse_trace_body(data)) == data
