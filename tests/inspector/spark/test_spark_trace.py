"""Spark's trace table: ``export --traces`` on a writer-made store (tests/trace_store.py) gives one row per trace
record with the values the store was made with, and the pure transform on a tiny frame (a compressed body says
it was not decoded)."""

from __future__ import annotations

import base64
import json

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.tracewrite import trace_spec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.spark.jobs import export
from inspector.spark.schemas import MESSAGE
from tests.inspector.spark.test_transforms import msg
from tests.trace_store import END_TX, PUB, SUB_AFTER, T0, UK, UK_TX, write_trace_store


def test_export_traces_rows_are_the_records_written(spark, tmp_path):
    root = tmp_path / "store"
    at = write_trace_store(root)
    out = tmp_path / "out"
    assert export.main([str(root), "--out", str(out), "--traces"], spark) == 0
    rows = {(r.trace_physical_offset, r["index"]): r for r in spark.read.parquet(str(out / "traces")).collect()}
    assert sorted(rows) == sorted([(at["sub"], 0), (at["sub"], 1), (at["pub"], 0), (at["tx"], 0),
                                   (at["recall"], 0), (at["other"], 0)])
    after = rows[(at["sub"], 1)]
    assert (after.type, after.msg_id, after.cost_time, after.success, after.timestamp, after.group) == (
        "SubAfter", UK, 7, False, T0 + 57, "cg")
    pub = rows[(at["pub"], 0)]
    assert (pub.offset_msg_id, pub.body_length, pub.msg_type, pub.trace_topic) == (
        at["msg_id"], 5, "Normal_Msg", "RMQ_SYS_TRACE_TOPIC")
    tx = rows[(at["tx"], 0)]
    assert (tx.msg_id, tx.transaction_state, tx.from_transaction_check) == (UK_TX, "COMMIT_MESSAGE", False)
    other = rows[(at["other"], 0)]
    assert other.type is None and "SubAfter with 3 fields" in other.other_shape


def test_trace_table_transform_on_a_tiny_frame(spark):
    body = b"Recall\x011\x01r\x01g\x01T\x01M1\x01true\x02"
    b64 = base64.b64encode(body).decode()  # MESSAGE rows carry the body as --json does (issue 28)
    frame = spark.createDataFrame([msg(topic="RMQ_SYS_TRACE_TOPIC", body_base64=b64, physical_offset=10),
                                   msg(topic="rmq_sys_TRACE_DATA_r1", body_base64="AA==", physical_offset=20,
                                       compression="ZLIB"),
                                   msg(topic="T", body_base64=b64, physical_offset=30)], MESSAGE)
    rows = {r.trace_physical_offset: r for r in export.trace_table(spark, frame).collect()}
    assert sorted(rows) == [10, 20]  # topic T is no trace topic
    assert (rows[10].type, rows[10].msg_id, rows[10].success, rows[10].timestamp) == ("Recall", "M1", True, 1)
    assert rows[20].type is None and "ZLIB-compressed" in rows[20].other_shape


def test_export_rows_carry_the_trace_object_and_the_configs_trace_topic(spark, tmp_path):
    """Issue 30: a message row (Parquet and JSON Lines) of a trace topic's record has ``messages --json``'s
    ``trace`` object (null for another record), the broker config's msgTraceTopicName included, and --traces
    rows cover that topic too."""
    root = tmp_path / "custom"
    with StoreWriter(root, clock=lambda: T0) as w:
        plain = w.append(MessageSpec("TopicTest", b"x", unique_key=UK, store_timestamp=T0)).physical_offset
        mine = w.append(trace_spec([PUB, SUB_AFTER], topic="MyTrace", store_timestamp=T0 + 9)).physical_offset
        default = w.append(trace_spec([END_TX], store_timestamp=T0 + 10)).physical_offset
    conf = tmp_path / "broker.conf"
    conf.write_text("msgTraceTopicName=MyTrace\n", encoding="utf-8")
    out = tmp_path / "out"
    argv = [str(root), "--out", str(out), "--format", "both", "--traces", "--broker-config", str(conf)]
    assert export.main(argv, spark) == 0
    lines = [json.loads(line) for f in sorted((out / "messages-jsonl").glob("*.json"))
             for line in f.read_text(encoding="utf-8").splitlines()]
    by_offset = {line["physical_offset"]: line["trace"] for line in lines}
    assert by_offset[plain] is None
    assert by_offset[mine]["summary"] == "2 trace records: Pub, SubAfter" and by_offset[mine]["terminated"]
    assert [(r["type"], r["msg_id"], r["cost_time"]) for r in by_offset[mine]["records"]] == [
        ("Pub", UK, 3), ("SubAfter", UK, 7)]
    assert by_offset[default]["records"][0]["transaction_id"] == "tx-9"
    parquet = {r.physical_offset: r.trace for r in export.read_messages(spark, str(out / "messages")).collect()}
    assert parquet[plain] is None and parquet[mine].records[1].success is False
    traces = spark.read.parquet(str(out / "traces")).collect()
    assert sorted((r.trace_topic, r.type) for r in traces) == [
        ("MyTrace", "Pub"), ("MyTrace", "SubAfter"), ("RMQ_SYS_TRACE_TOPIC", "EndTransaction")]
