"""The single-process ``stats`` (``store_stats``) and the Spark ``stats`` job count alike (issue 31 item 4: shared
definitions): per topic and queue the same messages, bytes, body bytes, compressed records and first / last store
times, on the sample store and the multi-segment store (neither has inner-batch records, which Spark counts per
inner message)."""

from __future__ import annotations

from inspector.engine import Store, store_stats
from inspector.spark.jobs import stats


def test_single_process_stats_equal_the_spark_job(spark, sample_store, multi_store, tmp_path):
    out = tmp_path / "stats"
    assert stats.main([str(sample_store), str(multi_store), "--out", str(out)], spark) == 0
    spark_rows = {(r.store, f"{r.topic}#{r.queue_id}"): (r.messages, r.bytes, r.body_bytes, r.compressed,
                                                         r.first_store_timestamp, r.last_store_timestamp)
                  for r in spark.read.parquet(str(out / "queues")).collect()}
    ours = {}
    for root in (sample_store, multi_store):
        with Store(root) as s:
            result = store_stats(s, "queue")
        assert result.total.inner_batch == 0
        for key, c in result.rows.items():
            ours[(str(root.resolve()), key)] = (c.messages, c.bytes, c.body_bytes, c.compressed,
                                                c.first_store_timestamp, c.last_store_timestamp)
    assert ours == spark_rows and len(ours) > 19
