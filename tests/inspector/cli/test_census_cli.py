"""`rmq-inspect census`, the census line of `info`, and a path that is no store given to every command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.engine import census, census_view

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "sample_store"
NO_STORE = "no RocketMQ store here (no commitlog/, consumequeue/, index/, checkpoint or config/)"


def test_census_table_and_json(cli):
    code, out, err = cli("census", str(SAMPLE))
    assert code == 0
    for kind in ("commitlog", "consumequeue", "index", "checkpoint", "lock", "config", "unknown", "total"):
        assert f"│ {kind} " in out
    assert "census: 6 kind(s), 33 file(s) in 31 folder(s)" in out
    assert " ".join(err.split()) == "warning: README.md @ 0: not part of a RocketMQ store (spec part 2 §20) (unknown-file)"
    code, out, _ = cli("census", str(SAMPLE), "--json")
    assert code == 0 and json.loads(out) == census_view(census(str(SAMPLE)))


def test_census_exit_4_on_what_the_broker_would_not_start_with(tmp_path, cli):
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    (root / "commitlog" / "00000000000000000001").write_bytes(b"")  # apache/rocketmq#3257
    (root / "stray.log").write_bytes(b"x")
    code, out, err = cli("census", str(root), "--json")
    doc = json.loads(out)
    assert code == 4 and doc["errors"] == 1
    assert {(p["file"], p["code"], p["severity"]) for p in doc["problems"]} == {
        ("commitlog/00000000000000000001", "empty-segment", "error"), ("README.md", "unknown-file", "warning"),
        ("stray.log", "unknown-file", "warning")}
    code, out, err = cli("census", str(root))
    assert code == 4 and "error: commitlog/00000000000000000001 @ 0: an empty file in commitlog/" in " ".join(err.split())


def test_info_has_the_census_line(cli):
    code, out, _ = cli("info", str(SAMPLE))
    assert code == 0 and "census: 6 kind(s), 33 file(s) in 31 folder(s)" in out
    assert "1 unknown or misplaced (README.md) (`rmq-inspect census` lists them)" in out
    code, out, _ = cli("info", str(SAMPLE), "--json")
    assert code == 0 and "census" not in json.loads(out)  # the document is `census --json`'s


def _commands(path: str, out: Path) -> list[list[str]]:
    return [["info", path], ["info", path, "--json"], ["census", path], ["census", path, "--json"],
            ["verify", path], ["verify", path, "--json"], ["messages", path], ["messages", path, "--json"],
            ["messages", path, "--follow", "--idle-timeout", "0.1"], ["show", path, "0"],
            ["key", path, "T", "K"], ["chain", path, "T", "K"], ["hex", path, "0"], ["tui", path], ["web", path],
            ["rebuild", path, "--out", str(out)], ["decode-id", "0A6C73D900002A9F0000000000004010", "--store", path],
            ["tour", path, "--all"], ["exercises", path, "--answer-key"], [path]]


@pytest.mark.parametrize("case", ["empty", "commitlog", "queue", "nested"])  # a DLedger root opens (issue 19)
def test_every_command_refuses_a_path_that_is_no_store(tmp_path, cli, case):
    expected = {
        "empty": (tmp_path / "x", NO_STORE + "; the folder is empty"),
        "commitlog": (SAMPLE / "commitlog", f"this is the commitlog folder of a store: open its parent ({SAMPLE})"),
        "queue": (SAMPLE / "consumequeue" / "OrderEvents" / "0",
                  f"this is consumequeue/OrderEvents/0 inside a store: open the store root ({SAMPLE})"),
        "nested": (tmp_path / "x", f"the store is one level down: open {tmp_path / 'x' / 'store'}"),
    }
    path, answer = expected[case]
    if path == tmp_path / "x":
        path.mkdir()
    if case == "nested":
        (path / "store" / "commitlog").mkdir(parents=True)
    for argv in _commands(str(path), tmp_path / "out"):
        code, out, err = cli(*argv)
        assert (code, out, err) == (2, "", f"rmq-inspect: {path}: {answer}\n"), argv
    assert not (tmp_path / "out").exists()


def test_as_a_process(tmp_path):
    """The installed entry point, as a user runs it: `rmq-inspect EMPTY_DIR`, `STORE/commitlog`, `verify /tmp`."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p))
    for argv, tail in (([str(tmp_path)], NO_STORE + "; the folder is empty"),
                       ([str(SAMPLE / "commitlog")], f"this is the commitlog folder of a store: open its parent ({SAMPLE})"),
                       (["verify", "/tmp"], NO_STORE), (["info", "/tmp"], NO_STORE)):
        proc = subprocess.run([sys.executable, "-m", "inspector.cli.main", *argv], capture_output=True, text=True,
                              env=env, timeout=120, cwd=REPO)
        assert proc.returncode == 2 and proc.stdout == "", (argv, proc.stderr)
        assert proc.stderr.startswith(f"rmq-inspect: {argv[-1]}: {tail}") and proc.stderr.count("\n") == 1
    proc = subprocess.run([sys.executable, "-m", "inspector.cli.main", "census", str(SAMPLE), "--json"],
                          capture_output=True, text=True, env=env, timeout=120, cwd=REPO)
    assert proc.returncode == 0 and json.loads(proc.stdout)["errors"] == 0


def test_a_file_name_that_is_no_utf8(tmp_path, cli):
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    name = os.fsdecode(b"junk-\xff\xfe")  # a lone surrogate pair of escapes in Python's view
    (root / name).write_bytes(b"x")
    code, out, _ = cli("census", str(root), "--json")
    assert code == 0 and out.isascii()
    assert name in {p["file"] for p in json.loads(out)["problems"]}
    code, out, err = cli("census", str(root))
    assert code == 0 and "junk-\\xff\\xfe" in err and "Traceback" not in err


def test_a_dledger_root_opens(tmp_path, cli):
    """Issue 19: a DLedger store root (no commitlog/ yet), its member folder and its data/ open as the store."""
    path = tmp_path / "x"
    (path / "dledger-n0" / "data").mkdir(parents=True)
    (path / "config").mkdir()
    for where in (path, path / "dledger-n0", path / "dledger-n0" / "data"):
        code, out, err = cli("info", str(where), "--json")
        assert code == 0 and err == "", (where, err)
