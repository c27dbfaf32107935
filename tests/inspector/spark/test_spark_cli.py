"""``rmq-inspect spark ...``: usage, errors before any session starts, and a job run through the real entry point."""

from __future__ import annotations

import pytest
from split_commitlog import split_commitlog

from inspector.cli.main import main as rmq_inspect
from inspector.spark import cli


def test_usage_and_unknown_jobs(capsys):
    assert cli.main(["--help"]) == 0
    assert "rebuild-cq" in capsys.readouterr().out
    assert cli.main([]) == 2
    assert cli.main(["frobnicate", "x"]) == 2
    assert "unknown job" in capsys.readouterr().err


@pytest.mark.parametrize("job", ["export", "stats", "verify", "keyindex", "rebuild-cq"])
def test_every_job_has_help(job, capsys):
    assert cli.main([job, "--help"]) == 0
    out = capsys.readouterr().out
    assert f"rmq-inspect spark {job}" in out and "--master" in out and "--conf" in out


def test_bad_arguments_fail_before_a_session_starts(tmp_path, capsys):
    assert cli.main(["export", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2
    assert "cannot open store" in capsys.readouterr().err
    assert cli.main(["export", str(tmp_path)]) == 2  # --out is required
    assert cli.main(["stats", str(tmp_path), "--conf", "no-equals-sign"]) == 2


def test_a_job_through_rmq_inspect_reuses_the_active_session(spark, sample_store, capsys):
    assert rmq_inspect(["spark", "verify", str(sample_store)]) == 0
    assert "checked 402 message(s), 402 consume-queue unit(s)" in capsys.readouterr().out
    assert spark.range(3).count() == 3  # the job did not stop the session it did not build


def test_the_lookup_and_the_dispatcher_load_no_spark():
    """``rmq-inspect key --keyindex`` and ``rmq-inspect spark --help`` must not start a JVM or import pyspark."""
    import subprocess
    import sys

    code = ("import sys, inspector.spark.keyindex, inspector.spark.cli, inspector.spark.tasks, inspector.spark.plan;"
            "print(sorted(m for m in ('pyspark', 'py4j') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_local_workers_import_the_drivers_files(spark):
    """Local mode ships no zip: the Python workers import this checkout (and reuse numba's on-disk cache)."""
    import inspector

    def where(_):
        import inspector as mod

        return mod.__file__

    assert spark.sparkContext.parallelize([0], 1).map(where).collect() == [inspector.__file__]


def test_broker_config_is_read_on_the_driver(sample_store, tmp_path, capsys):
    from inspector.spark.jobs.common import refs_from_args

    root, conf, _ = split_commitlog(sample_store, tmp_path)
    bad = tmp_path / "bad.conf"
    bad.write_text("maxHashSlotNum=many\n")
    assert cli.main(["stats", str(root), "--broker-config", str(bad)]) == 2
    assert f"{bad}: line 1: maxHashSlotNum must be" in capsys.readouterr().err
    args = type("Args", (), {"stores": [str(root)], "segment_size": None, "cq_file_size": None, "index_slots": None,
                             "index_items": None, "broker_config": str(conf)})()
    (ref,) = refs_from_args(args)
    with ref.open() as store:
        assert [s.name for s in store.segments] == sorted(p.name for p in (sample_store / "commitlog").iterdir())


def test_a_job_reads_a_split_commitlog_given_by_broker_config(spark, sample_store, tmp_path, capsys):
    root, conf, _ = split_commitlog(sample_store, tmp_path)
    assert rmq_inspect(["spark", "verify", str(root), "--broker-config", str(conf)]) == 0
    assert "checked 402 message(s), 402 consume-queue unit(s)" in capsys.readouterr().out


def test_a_folder_that_is_no_store_fails_before_a_session_starts(tmp_path, sample_store, capsys):
    """The answer every command gives (exit 2, where the store is), before any JVM starts."""
    for job in ("export", "stats", "verify", "keyindex", "rebuild-cq"):
        argv = [job, str(sample_store / "commitlog")] + (["--out", str(tmp_path / "o")] if job != "verify" else [])
        assert rmq_inspect(["spark", *argv]) == 2
        err = " ".join(capsys.readouterr().err.split())
        assert f"this is the commitlog folder of a store: open its parent ({sample_store.resolve()})" in err
    assert cli.main(["stats", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "no RocketMQ store here" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_spark_verify_of_an_aged_store_is_clean_with_its_info_findings(spark, tmp_path, capsys):
    """Retention's leftovers (tests/aged_store.py) are info findings in the Spark job too: exit 0, counted apart."""
    import json

    from aged_store import age_store, write_store

    write_store(tmp_path / "s")
    age_store(tmp_path / "s", 2)
    assert rmq_inspect(["spark", "verify", str(tmp_path / "s"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert (doc["errors"], doc["warnings"], doc["info"]) == (0, 0, 7)
    assert {p["code"] for p in doc["problems"]} == {"cq-expired", "index-expired"}
