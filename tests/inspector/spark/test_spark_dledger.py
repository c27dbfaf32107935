"""Spark jobs on the DLedger sample (issue 19): export and verify read the entries as the engine does."""

from __future__ import annotations

from pathlib import Path

from inspector.cli.main import main as rmq_inspect

SAMPLE = Path(__file__).resolve().parents[3] / "sample_store_dledger"


def test_export_and_verify_a_dledger_store(spark, tmp_path, capsys):
    assert rmq_inspect(["spark", "export", str(SAMPLE), "--out", str(tmp_path / "out")]) == 0
    assert "exported 402 message(s) from 4 segment(s)" in capsys.readouterr().out
    rows = spark.read.parquet(str(tmp_path / "out" / "messages")).select("physical_offset").collect()
    assert 65_584 in {r.physical_offset for r in rows} and len(rows) == 402
    assert rmq_inspect(["spark", "verify", str(SAMPLE)]) == 0
    assert "checked 402 message(s), 402 consume-queue unit(s)" in capsys.readouterr().out
