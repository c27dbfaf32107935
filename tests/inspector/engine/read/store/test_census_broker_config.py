"""The census where the broker's configuration puts the commitlog: outside the root, split over several folders
(``storePathCommitLog=a,b``), or under the root by another name; a ``commitlog/`` it does not name is said."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from split_commitlog import split_commitlog, split_under_root

from inspector.cli.main import main
from inspector.engine import BadInput, census, census_summary, load_broker_config

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store"
SEGMENT = 65536  # the sample store's segment size


def test_a_split_commitlog_outside_the_root_is_counted_there(tmp_path: Path) -> None:
    root, conf, dirs = split_commitlog(SAMPLE, tmp_path)
    plain = census(root)
    assert plain.kind("commitlog") is None and plain.moved == ()  # without the file: no commitlog at all
    c = census(root, load_broker_config(conf))
    commitlog = c.kind("commitlog")
    assert (commitlog.files, commitlog.folders, commitlog.apparent_bytes) == (3, 2, 3 * SEGMENT)
    assert c.problems == census(SAMPLE).problems  # README.md only
    assert c.moved == (f"commitlog in {dirs[0]}, {dirs[1]} (storePathCommitLog, {conf} line 1)",)
    assert f"(commitlog in {dirs[0]}, {dirs[1]} (storePathCommitLog, {conf} line 1))" in census_summary(c)
    assert c.total.files == census(SAMPLE).total.files


def test_an_empty_file_in_a_configured_folder_stops_the_broker(tmp_path: Path, capsys) -> None:
    root, conf, dirs = split_commitlog(SAMPLE, tmp_path)
    (dirs[1] / "00000000000000000001").write_bytes(b"")  # apache/rocketmq#3257, in the second folder
    assert main(["census", str(root), "--broker-config", str(conf), "--json"]) == 4
    doc = json.loads(capsys.readouterr().out)
    assert [(p["file"], p["code"]) for p in doc["problems"] if p["severity"] == "error"] == \
        [(f"{dirs[1]}/00000000000000000001", "empty-segment")]
    assert doc["moved"] and doc["kinds"][0]["kind"] == "commitlog"


def test_folders_under_the_root_by_other_names_and_an_unused_commitlog(tmp_path: Path, capsys) -> None:
    root, conf, _ = split_under_root(SAMPLE, tmp_path)
    (root / "commitlog").mkdir()  # left over from before the broker.conf moved it: this broker ignores it
    c = census(root, load_broker_config(conf))
    assert (c.kind("commitlog").files, c.kind("commitlog").folders) == (3, 2)
    assert {(p.file, p.code, p.severity) for p in c.problems} == {
        ("README.md", "unknown-file", "warning"), ("commitlog", "commitlog-unused", "warning")}
    assert c.moved == (f"commitlog in log0, log1 (storePathCommitLog, {conf} line 2)",)
    assert main(["census", str(root), "--broker-config", str(conf)]) == 0
    out, err = capsys.readouterr()
    assert "(commitlog in log0, log1 (storePathCommitLog" in " ".join(out.split())
    assert "commitlog @ 0: a commitlog/ folder the broker's configuration does not name" in " ".join(err.split())


def test_a_folder_nested_under_the_root_is_not_counted_twice(tmp_path: Path) -> None:
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root)
    (root / "data").mkdir()
    (root / "commitlog").rename(root / "data" / "cl")
    conf = tmp_path / "b.conf"
    conf.write_text(f"storePathCommitLog={root / 'data' / 'cl'}\n")
    c = census(root, load_broker_config(conf))
    assert c.kind("commitlog").files == 3
    assert c.total.files == census(SAMPLE).total.files  # data/cl's segments are not also in data/ (unknown)
    assert c.kind("unknown").folders == 1  # data/ itself: no broker writes it


def test_a_missing_configured_folder_is_bad_input(tmp_path: Path, capsys) -> None:
    conf = tmp_path / "b.conf"
    conf.write_text(f"# moved\nstorePathCommitLog={tmp_path / 'nowhere'}\n")
    with pytest.raises(BadInput):
        census(SAMPLE, load_broker_config(conf))
    assert main(["census", str(SAMPLE), "--broker-config", str(conf)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and f"{conf}: line 2: commitlog folder" in err


def test_info_census_line_follows_the_broker_config(tmp_path: Path, capsys) -> None:
    root, conf, dirs = split_commitlog(SAMPLE, tmp_path)
    assert main(["info", str(root), "--broker-config", str(conf)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "census: 6 kind(s), 33 file(s) in 32 folder(s)" in out and "(commitlog in " in out


def test_a_commitlog_folder_holding_a_big_tree_is_counted_up_to_a_bound(tmp_path: Path, monkeypatch) -> None:
    """storePathCommitLog=/ made the whole file system a stray folder of the log (the long fuzz run: 34 s). The
    walk under stray folders stops at a bound and says so, with what it counted as lower bounds."""
    import inspector.engine.read.store.census as census_module

    monkeypatch.setattr(census_module, "_WALKED", 50)
    log = tmp_path / "log"
    log.mkdir()
    tree = log / "big"  # a folder in the commitlog folder: a stray the census walks whole
    for d in range(10):
        (tree / f"d{d}").mkdir(parents=True)
        for f in range(10):
            (tree / f"d{d}" / f"f{f}").write_bytes(b"x")
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root)
    conf = tmp_path / "broker.conf"
    conf.write_text(f"storePathCommitLog={log}\n")
    c = census(root, load_broker_config(conf))
    cut = [p for p in c.problems if p.code == "census-cut"]
    assert len(cut) == 1 and "stopped counting after 50 entries" in cut[0].reason
    assert c.kind("unknown").files + c.kind("unknown").folders < 111  # not all 100 files and 11 folders
