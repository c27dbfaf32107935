"""Spark jobs on the DLedger sample (issue 19): export and verify read the entries as the engine does."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

from inspector.cli.main import main as rmq_inspect
from inspector.engine import Message, Store
from inspector.engine.maintain.rebuild.rebuild import rebuild
from inspector.spark.jobs import keyindex, rebuild_cq, stats

SAMPLE = Path(__file__).resolve().parents[3] / "sample_store_dledger"


def test_export_and_verify_a_dledger_store(spark, tmp_path, capsys):
    assert rmq_inspect(["spark", "export", str(SAMPLE), "--out", str(tmp_path / "out")]) == 0
    assert "exported 402 message(s) from 4 segment(s)" in capsys.readouterr().out
    rows = spark.read.parquet(str(tmp_path / "out" / "messages")).select("physical_offset").collect()
    assert 65_584 in {r.physical_offset for r in rows} and len(rows) == 402
    assert rmq_inspect(["spark", "verify", str(SAMPLE)]) == 0
    assert "checked 402 message(s), 402 consume-queue unit(s)" in capsys.readouterr().out


def _info(capsys) -> dict:
    capsys.readouterr()
    assert rmq_inspect(["info", str(SAMPLE), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_stats_of_a_dledger_store_equal_info(spark, tmp_path, capsys):
    """Per queue, the message counts info reads from the consume queues; per data file, info's record counts;
    the bytes are the records' own (the 48-byte entry headers are not message bytes)."""
    info = _info(capsys)
    assert stats.main([str(SAMPLE), "--out", str(tmp_path / "stats")], spark) == 0
    queues = {(r.topic, r.queue_id): r for r in spark.read.parquet(str(tmp_path / "stats" / "queues")).collect()}
    expected = {(q["topic"], q["queue_id"]): q["message_count"] for t in info["topics"] for q in t["queues"]
                if q["message_count"]}
    assert {k: q.messages for k, q in queues.items()} == expected
    with Store(SAMPLE) as store:
        sizes: dict[tuple, int] = {}
        for m in store.entries():
            if isinstance(m, Message):
                sizes[(m.topic, m.queue_id)] = sizes.get((m.topic, m.queue_id), 0) + m.total_size
    assert {k: q.bytes for k, q in queues.items()} == sizes
    segments = spark.read.parquet(str(tmp_path / "stats" / "segments")).orderBy("segment_index").collect()
    assert [(r.segment, r.messages) for r in segments] == [(s["name"], s["messages"]) for s in info["segments"]]
    assert [s["file"] for s in info["segments"]][1:] == [f"dledger-n0/data/{r.segment}" for r in segments[1:]]


def test_keyindex_of_a_dledger_store_equals_key(spark, tmp_path, capsys):
    """Every (topic, key) of the store: the key table's hits are the index files' ones (`key`), at the record
    offsets pos + 48."""
    out = tmp_path / "ki"
    assert keyindex.main([str(SAMPLE), "--out", str(out)], spark) == 0
    rows = spark.read.parquet(str(out)).collect()
    grouped: dict[tuple, set] = {}
    for r in rows:
        grouped.setdefault((r.topic, r.key), set()).add(r.physical_offset)
    with Store(SAMPLE) as store:
        for (topic, key), offsets in grouped.items():
            hits = {h.message.physical_offset for h in store.lookup_key(topic, key)}
            assert offsets == hits, (topic, key)
    assert len(grouped) > 500
    # the first entry of the first data file (pos 65,536, by hand): its record is at 65,536 + 48
    first = min(r.physical_offset for r in rows if r.physical_offset >= 65_536)
    assert first == 65_584
    capsys.readouterr()
    topic, key = next(iter(sorted(grouped)))
    assert rmq_inspect(["key", str(SAMPLE), topic, key, "--keyindex", str(out), "--json"]) == 0
    via_table = {m["physical_offset"] for m in json.loads(capsys.readouterr().out)["messages"]}
    assert rmq_inspect(["key", str(SAMPLE), topic, key, "--json"]) == 0
    via_index = {m["physical_offset"] for m in json.loads(capsys.readouterr().out)["messages"]}
    assert via_table == via_index == grouped[(topic, key)]


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_rebuild_cq_of_a_dledger_store_is_byte_identical(spark, tmp_path):
    out = tmp_path / "cq"
    assert rebuild_cq.main([str(SAMPLE), "--out", str(out)], spark) == 0
    with Store(SAMPLE) as store:
        rebuild(store, tmp_path / "single")
    got, want = _tree(out / "consumequeue"), _tree(tmp_path / "single" / "consumequeue")
    assert len(got) == 20 and got == want
    assert want == _tree(SAMPLE / "consumequeue")  # and both equal what the writer's dispatch wrote


def test_a_dledger_member_chosen_for_the_jobs(spark, tmp_path, capsys):
    """Two members under one root: --dledger-member reaches every executor, and verify warns as `verify` does."""
    from inspector.spark.jobs import verify as verify_job

    root = tmp_path / "two"
    shutil.copytree(SAMPLE, root)
    shutil.copytree(root / "dledger-n0", root / "dledger-n1")
    capsys.readouterr()
    assert verify_job.main([str(root), "--dledger-member", "n1", "--json"], spark) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(p["file"], p["code"], p["severity"]) for p in doc["problems"]] == [
        ("dledger-n1", "dledger-members", "warning")]
    assert "dledger-n1 is read (--dledger-member n1); not read: dledger-n0" in doc["problems"][0]["reason"]
    out = tmp_path / "cq"
    assert rebuild_cq.main([str(root), "--dledger-member", "n1", "--out", str(out)], spark) == 0
    assert _tree(out / "consumequeue") == _tree(SAMPLE / "consumequeue")
    assert verify_job.main([str(root), "--dledger-member", "n7"], spark) == 2


def _damaged(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(SAMPLE, root)
    if name == "currterm":
        (root / "dledger-n0" / "currterm").write_bytes(b"voteLeader=n0\ncurrTerm=x\n")
    else:  # index unit 40 says term 9 (the entry says 1): recovery rewrites the index from there
        index = root / "dledger-n0" / "index" / f"{0:020d}"
        b = bytearray(index.read_bytes())
        struct.pack_into(">q", b, 40 * 32 + 24, 9)
        index.write_bytes(bytes(b))
    return root


def test_spark_verify_gives_verify_dledger_findings_and_preview(spark, tmp_path, capsys):
    """The DLedger checks (index units against the entries, Raft indexes, terms, checkpoint, currterm) and the
    recovery preview, from the headers the segment tasks table: the same as `verify --json`."""
    from inspector.spark import plan
    from inspector.spark.jobs import verify as verify_job
    from inspector.spark.tasks import StoreRef, verify_segments

    reports = []
    list(verify_segments(plan.plan_segments([StoreRef(str(SAMPLE))]), reports.append))
    # each task compared its entries with their index units: a few numbers a segment reach the driver
    assert [None if r.entry_heads is None else (r.entry_heads.first_index, r.entry_heads.count)
            for r in reports] in ([None, (0, 143), (143, 143), (286, 16)], [None] * 4)  # no numba: no tables
    for name in ("currterm", "unit"):
        root = _damaged(tmp_path, name)
        capsys.readouterr()
        rc = rmq_inspect(["verify", str(root), "--json"])
        want = json.loads(capsys.readouterr().out)
        assert verify_job.main([str(root), "--json"], spark) == rc == 4
        got = json.loads(capsys.readouterr().out)
        assert got["problems"] == want["problems"] and got["dledger_recovery"] == want["dledger_recovery"], name
        assert {p["code"] for p in got["problems"]} == {"currterm": {"dledger-currterm"},
                                                        "unit": {"dledger-index-unit"}}[name]
