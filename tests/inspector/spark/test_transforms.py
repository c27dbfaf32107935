"""The jobs' pure DataFrame transforms on tiny hand-made frames (expected values written out, not recomputed)."""

from __future__ import annotations

import datetime as dt

import pytest
from pyspark.sql import Row
from pyspark.testing import assertDataFrameEqual

from inspector.spark.jobs.export import with_store_date
from inspector.spark.jobs.keyindex import keyindex_rows
from inspector.spark.jobs.rebuild_cq import before_end
from inspector.spark.jobs.stats import hourly, queue_stats
from inspector.spark.jobs.verify import first_findings, summary
from inspector.spark.schemas import DISPATCH, FINDING, HOURLY, KEYINDEX, MESSAGE, MESSAGE_COLUMNS, QUEUE_STATS

MIDNIGHT = 1_758_240_000_000  # 2025-09-19 00:00:00 UTC
PARTS = (False, None, False, "NOT_TYPE", False, False, False, False, 0)


def msg(**kw) -> tuple:
    """A MESSAGE row: defaults for everything not given."""
    d = dict(store="/s", segment="00000000000000000000", file="commitlog/00000000000000000000", position=0,
             physical_offset=0, total_size=100, magic_version=1, body_crc=0, body_crc_ok=True, queue_id=0, flag=0,
             queue_offset=0, stored_physical_offset=0, sys_flag=0, sys_flag_parts=PARTS, born_timestamp=MIDNIGHT,
             born_host="10.0.0.1:1", store_timestamp=MIDNIGHT, store_host="10.0.0.2:10911", reconsume_times=0,
             prepared_transaction_offset=0, topic="T", properties={}, tags=None, keys=[], unique_key=None,
             msg_id="0A00000200002A9F0000000000000000", transaction="NOT_TYPE", compression=None, body_length=2,
             body_base64="aGk=", body_truncated=False, dledger=None, inner_batch=None, trace=None)
    d.update(kw)
    return tuple(d[c] for c in MESSAGE_COLUMNS)


@pytest.fixture(scope="module")
def frame(spark):
    def make(rows, schema=MESSAGE):
        return spark.createDataFrame(rows, schema)

    return make


def test_store_date_is_the_utc_day_whatever_the_session_zone(spark, frame):
    df = frame([msg(physical_offset=1, store_timestamp=MIDNIGHT - 1), msg(physical_offset=2, store_timestamp=MIDNIGHT)])
    zone = spark.conf.get("spark.sql.session.timeZone")
    try:
        spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
        got = with_store_date(df).select("physical_offset", "store_date")
        assertDataFrameEqual(got, [Row(physical_offset=1, store_date=dt.date(2025, 9, 18)),
                                   Row(physical_offset=2, store_date=dt.date(2025, 9, 19))])
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)


def test_queue_stats(frame):
    h = 3_600_000
    rows = [
        msg(queue_id=1, physical_offset=10, total_size=100, body_length=10, store_timestamp=MIDNIGHT + 10,
            born_timestamp=MIDNIGHT + 9, tags="x", keys=["k1", "k2"], compression="ZLIB"),
        msg(queue_id=1, physical_offset=20, total_size=200, body_length=20, store_timestamp=MIDNIGHT + h,
            born_timestamp=MIDNIGHT + h - 2, tags="x", keys=["k1"]),
        msg(queue_id=1, physical_offset=30, total_size=300, body_length=30, store_timestamp=MIDNIGHT + 2 * h,
            born_timestamp=MIDNIGHT + 2 * h - 100, keys=[]),
        msg(topic="U", physical_offset=40, total_size=50, body_length=5, store_timestamp=MIDNIGHT + 5,
            born_timestamp=MIDNIGHT + 5),
    ]
    got = queue_stats(frame(rows), top_keys=1)
    expected = [
        ("/s", "T", 1, 3, 600, 60, MIDNIGHT + 10, MIDNIGHT + 2 * h, 2, 100, 100, 100, 1, 2, [("k1", 2)], 1, 1 / 3),
        ("/s", "U", 0, 1, 50, 5, MIDNIGHT + 5, MIDNIGHT + 5, 0, 0, 0, 0, 0, 0, [], 0, 0.0),
    ]
    assertDataFrameEqual(got, frame(expected, QUEUE_STATS), checkRowOrder=True)


def test_hourly(frame):
    h = 3_600_000
    rows = [msg(store_timestamp=MIDNIGHT + 1), msg(store_timestamp=MIDNIGHT + h - 1), msg(store_timestamp=MIDNIGHT + h),
            msg(queue_id=2, store_timestamp=MIDNIGHT)]
    hour = dt.datetime(2025, 9, 19, 0, 0, tzinfo=dt.UTC)
    expected = [("/s", "T", 0, hour, 2), ("/s", "T", 0, hour + dt.timedelta(hours=1), 1), ("/s", "T", 2, hour, 1)]
    assertDataFrameEqual(hourly(frame(rows)), frame(expected, HOURLY), checkRowOrder=True)


def test_keyindex_rows_follow_the_index_service(frame):
    rows = [
        msg(physical_offset=1, unique_key="U1", keys=["a", "a", "U1"], queue_offset=7, msg_id="M1"),
        msg(physical_offset=2, keys=["b"], transaction="ROLLBACK", msg_id="M2"),  # never indexed
        msg(physical_offset=3, topic="V", keys=["b", ""], msg_id="M3"),
    ]
    expected = [
        ("T", "U1", "unique_key", 1, MIDNIGHT, "/s", 0, 7, "M1"),
        ("T", "a", "key", 1, MIDNIGHT, "/s", 0, 7, "M1"),
        ("V", "b", "key", 3, MIDNIGHT, "/s", 0, 0, "M3"),
        ("V", "", "key", 3, MIDNIGHT, "/s", 0, 0, "M3"),
    ]
    got = keyindex_rows(frame(rows))
    assertDataFrameEqual(got, frame(expected, KEYINDEX))


def test_first_findings_keep_the_first_report_of_a_place(frame):
    rows = [
        ("/s", 2, 0, 0, "consumequeue/T/0/0", 20, "cq-dangling", "error", "later", None),
        ("/s", 1, 3, 1, "commitlog/1", 40, "crc-mismatch", "error", "second", None),
        ("/s", 1, 3, 0, "commitlog/1", 0, "bad-magic", "error", "first", None),
        ("/s", 4, 0, 0, "commitlog/1", 40, "crc-mismatch", "warning", "duplicate", None),
        ("/t", 4, 0, 0, "commitlog/1", 40, "crc-mismatch", "warning", "other store", None),
    ]
    got = first_findings(frame(rows, FINDING))
    assertDataFrameEqual(got.select("store", "reason"),
                         [Row(store="/s", reason="first"), Row(store="/s", reason="second"),
                          Row(store="/s", reason="later"), Row(store="/t", reason="other store")], checkRowOrder=True)
    assertDataFrameEqual(summary(got), [Row(store="/s", errors=3, warnings=0), Row(store="/t", errors=0, warnings=1)])


def test_first_findings_tell_a_config_files_entries_apart_as_verify_does(frame):
    """At offset 0 (a config file) the entry names the fact, or when there is none the reason
    (``verify.finding_key``): two entries whose reasons read alike are two findings, one entry said by two
    checks is one."""
    f = "config/consumerOffset.json"
    rows = [
        ("/s", 4, 0, 0, f, 0, "bad-config-entry", "warning", "T...@a: not a number", "T@a/x"),
        ("/s", 4, 0, 1, f, 0, "bad-config-entry", "warning", "T...@a: not a number", "T@b/x"),
        ("/s", 4, 0, 2, f, 0, "consumer-offset-range", "warning", "offset 5 is outside [0, 3]", "T@g/0"),
        ("/s", 4, 0, 3, f, 0, "consumer-offset-range", "warning", "offset 5 is past the queue's end", "T@g/0"),
        ("/s", 4, 0, 4, "checkpoint", 0, "bad-checkpoint", "error", "one thing", None),
        ("/s", 4, 0, 5, "checkpoint", 0, "bad-checkpoint", "error", "another thing", None),
    ]
    got = first_findings(frame(rows, FINDING))
    assert [r.seq for r in got.collect()] == [0, 1, 2, 4, 5]


def test_a_finding_row_carries_the_problems_entry():
    from inspector.engine import Problem
    from inspector.spark.tasks import finding_row

    row = finding_row("/s", 4, 0, 7, Problem("config/topics.json", 0, "r", "bad-config-entry", "warning", entry="T"))
    assert dict(zip(FINDING.fieldNames(), row, strict=True)) == {
        "store": "/s", "phase": 4, "task": 0, "seq": 7, "file": "config/topics.json", "offset": 0,
        "code": "bad-config-entry", "severity": "warning", "reason": "r", "entry": "T"}


def test_before_end_keeps_records_before_each_end_grouped_by_queue_in_log_order(spark, frame):
    def rec(store, topic, q, off):
        return (store, topic, q, off, off, 10, 0, 0, off, 0, 0)

    rows = [rec("/a", "T", 0, 50), rec("/a", "T", 0, 10), rec("/a", "T", 1, 20), rec("/a", "T", 0, 100),
            rec("/b", "T", 0, 5), rec("/b", "T", 0, 1000), rec("/b", "U", 3, 7)]
    ends = spark.createDataFrame([("/a", 100), ("/b", 500)], "store string, end_offset long")
    got = before_end(frame(rows, DISPATCH), ends)
    assert got.columns == list(DISPATCH.fieldNames())
    parts = [[tuple(r)[:4] for r in p] for p in got.rdd.glom().collect()]
    queues = {}
    for i, part in enumerate(parts):
        assert part == sorted(part)
        for r in part:
            assert queues.setdefault(r[:3], i) == i  # one partition per queue
    assert sorted(r for p in parts for r in p) == [("/a", "T", 0, 10), ("/a", "T", 0, 50), ("/a", "T", 1, 20),
                                                   ("/b", "T", 0, 5), ("/b", "U", 3, 7)]
