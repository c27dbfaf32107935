"""Spark's trace table: ``export --traces`` on a writer-made store (tests/trace_store.py) gives one row per trace
record with the values the store was made with, and the pure transform on a tiny frame (a compressed body says
it was not decoded)."""

from __future__ import annotations

import base64

from inspector.spark.jobs import export
from inspector.spark.schemas import MESSAGE
from tests.inspector.spark.test_transforms import msg
from tests.trace_store import T0, UK, UK_TX, write_trace_store


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
