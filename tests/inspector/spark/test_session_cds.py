"""The driver JVM's class-data archive (inspector.spark.session.class_data_options): dumped once, then used."""

from __future__ import annotations

import os
import time

import pytest
from external_tools import JAVA, need

from inspector.spark import session


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv(session.CDS_ENV, raising=False)
    need(JAVA)
    if session.cds_archive() is None:
        pytest.skip("this JDK has no dynamic class-data archives (JDK 13+ with a release file)")
    return tmp_path / "rmq-inspect"


def _age(path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_first_session_dumps_then_later_ones_use_the_archive(cache) -> None:
    archive = session.cds_archive()
    assert archive.parent == cache and archive.suffix == ".jsa"
    first = session.class_data_options()
    assert f"-XX:ArchiveClassesAtExit={archive}.{os.getpid()}.part" in first
    assert "-Xshare:auto" in first  # a bad archive is ignored by the JVM, never fatal
    assert session.class_data_options() == ""  # a dump is under way: no second one
    part = archive.with_name(f"{archive.name}.{os.getpid()}.part")
    part.write_bytes(b"\0" * (2 << 20))  # what the JVM writes at exit
    assert session.class_data_options() == ""  # maybe still being written
    _age(part, 2 * session._PART_AGE_S)
    other = archive.with_name(f"{archive.name}.1.part")
    other.write_bytes(b"\0" * (2 << 20))
    _age(other, 3 * session._PART_AGE_S)
    used = session.class_data_options()
    assert used.startswith(f"-XX:SharedArchiveFile={archive} ")
    assert archive.exists() and not list(cache.glob("*.part")) and not list(cache.glob("*.dumping"))
    assert session.class_data_options() == used


def test_archive_can_be_turned_off(cache, monkeypatch) -> None:
    monkeypatch.setenv(session.CDS_ENV, "0")
    assert session.cds_archive() is None and session.class_data_options() == ""


def test_the_session_jvm_runs_without_arrow_java_read_checks(spark) -> None:
    """ARROW_JAVA_OPTIONS reached the JVM that reads the workers' batches (local mode: the driver's), next to
    the class-data options, and executors get them too."""
    system = spark.sparkContext._jvm.java.lang.System
    assert system.getProperty("arrow.enable_unsafe_memory_access") == "true"
    assert system.getProperty("arrow.enable_null_check_for_get") == "false"
    conf = spark.sparkContext.getConf()
    assert session.ARROW_JAVA_OPTIONS in conf.get("spark.driver.extraJavaOptions")
    assert session.ARROW_JAVA_OPTIONS in conf.get("spark.executor.extraJavaOptions")


def test_archives_of_installs_that_are_gone_are_removed(cache, tmp_path) -> None:
    """Each venv has its own archive (~190 MB): one whose Spark install is gone (its .jars note names a missing
    folder), or without a note and a week old, is removed; this install's and a living one's stay."""
    cache.mkdir(parents=True, exist_ok=True)
    living = tmp_path / "venv-b" / "jars"
    living.mkdir(parents=True)
    files = {
        "gone": ["spark-cds-aaaa.jsa", "spark-cds-aaaa.jsa.7.part", "spark-cds-aaaa.jsa.dumping"],
        "living": ["spark-cds-bbbb.jsa"],
        "legacy-old": ["spark-cds-cccc.jsa.9.part", "spark-cds-cccc.jsa.dumping"],
        "legacy-new": ["spark-cds-dddd.jsa"],
    }
    for names in files.values():
        for name in names:
            (cache / name).write_bytes(b"x")
    (cache / "spark-cds-aaaa.jars").write_text(str(tmp_path / "venv-a" / "jars"))
    (cache / "spark-cds-bbbb.jars").write_text(str(living))
    for name in files["legacy-old"]:
        _age(cache / name, 8 * 86_400)
    first = session.class_data_options()
    left = sorted(p.name for p in cache.iterdir())
    archive = session.cds_archive()
    assert first.startswith("-XX:ArchiveClassesAtExit=")  # this install's own dump is claimed, its note written
    assert left == sorted([*files["living"], "spark-cds-bbbb.jars", *files["legacy-new"],
                           f"{archive.name}.dumping", archive.name.removesuffix(".jsa") + ".jars"])
    assert (cache / (archive.name.removesuffix(".jsa") + ".jars")).read_text() == str(session._jars_folder())
