"""One verdict per fact (issue 29 item 3): census, verify, info and preflight (``--json``) give each finding the
same severity, the table's (``inspector/engine/model/verdicts.py``), on every damaged store of the corruption
table, an empty stray segment (apache/rocketmq#3257, where census said the broker will not start and verify a
warning) and an aged store; and the exit codes that follow from it, table and JSON."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

from inspector.cli.main import main as cli_main
from inspector.engine.model.verdicts import VERDICTS
from tests.aged_store import age_store, write_store
from tests.hardening.damage_scenarios import (
    DATA_SCENARIOS,
    SAMPLE,
    make,
    restore_permissions,
    running_as_root,
)

STRAY = f"{3 * 65536:020d}"  # the segment after the sample store's last one, empty


def _json(*argv: str) -> tuple[int, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli_main(list(argv))
    return code, json.loads(out.getvalue())


def _findings(root: Path) -> dict[tuple[str, int, str], set[tuple[str, str]]]:
    """(file, offset, code) -> {(command, severity)} of census, verify, info and preflight (--json)."""
    found: dict[tuple[str, int, str], set[tuple[str, str]]] = defaultdict(set)
    for command in ("census", "verify", "info"):
        _, out = _json(command, str(root), "--json")
        for p in out["problems"]:
            found[(p["file"], p["offset"], p["code"])].add((command, p["severity"]))
    _, out = _json("preflight", str(root), "--json")
    for p in out["refusals"]:  # what stops the start: an error by definition
        found[(p["file"], p["offset"], p["code"])].add(("preflight", "error"))
    return found


def _assert_one_verdict(found: dict[tuple[str, int, str], set[tuple[str, str]]]) -> None:
    for (file, offset, code), said in found.items():
        severities = {s for _, s in said}
        assert len(severities) == 1, (file, offset, code, said)
        if code in VERDICTS:
            assert severities == {VERDICTS[code].severity}, (file, offset, code, said)


@pytest.mark.parametrize("scenario", DATA_SCENARIOS, ids=lambda s: s.name)
def test_census_verify_info_and_preflight_agree_on_every_damaged_store(scenario, tmp_path: Path) -> None:
    if scenario.needs_permissions and running_as_root():
        pytest.skip("chmod does not stop root")
    try:
        root, _ = make(scenario, tmp_path)
        found = _findings(root)
        _assert_one_verdict(found)
    finally:
        restore_permissions(tmp_path)


def test_an_empty_stray_segment_is_an_error_everywhere(tmp_path: Path) -> None:
    """apache/rocketmq#3257: census said the broker will not start (exit 4), verify a warning (exit 0)."""
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    (root / "commitlog" / STRAY).write_bytes(b"")
    found = _findings(root)
    _assert_one_verdict(found)
    assert found[(f"commitlog/{STRAY}", 0, "empty-segment")] == {
        ("census", "error"), ("verify", "error"), ("info", "error"), ("preflight", "error")}


def test_an_aged_store_gives_info_everywhere(tmp_path: Path) -> None:
    write_store(tmp_path, 600)
    age_store(tmp_path, 1, cleanup=False)
    found = _findings(tmp_path)
    _assert_one_verdict(found)
    assert {s for said in found.values() for _, s in said} == {"info"}


def _text(*argv: str) -> tuple[int, str]:
    """The exit code, and stdout and stderr together (the tables' findings go to either)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli_main(list(argv))
    return code, out.getvalue()


@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_the_stray_store_exits_as_the_verdict_says(tmp_path: Path, as_json: bool) -> None:
    """verify exited 0 on it (a warning): now 4, as census and preflight (README, Changes); info reports, exit 0."""
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    (root / "commitlog" / STRAY).write_bytes(b"")
    flag = ["--json"] if as_json else []
    for command, expected in (("census", 4), ("verify", 4), ("preflight", 4), ("info", 0)):
        code, out = _text(command, str(root), *flag)
        assert code == expected, (command, out)
        assert "empty-segment" in out and f"commitlog/{STRAY}" in out
        if not as_json and command in ("census", "info", "preflight"):
            assert f"error: commitlog/{STRAY} @ 0" in out
    code, out = _text("verify", str(root), "--json")
    assert json.loads(out)["errors"] == 1 and not json.loads(out)["ok"]


def test_an_empty_last_queue_file_is_an_error_for_census_and_verify(tmp_path: Path) -> None:
    """4.9.8's load refuses it (5.1.3+ deletes it): census said nothing, verify a warning (exit 0)."""
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    queue = sorted(p for p in (root / "consumequeue").glob("*/*") if p.is_dir())[0]
    last = sorted(queue.iterdir())[-1]
    empty = queue / f"{int(last.name) + last.stat().st_size:020d}"
    empty.write_bytes(b"")
    rel = str(empty.relative_to(root))
    found = _findings(root)
    _assert_one_verdict(found)
    # info reads no queue file's length: its census line counts it among what the broker would not start with
    assert found[(rel, 0, "wrong-cq-file-size")] == {("census", "error"), ("verify", "error"), ("preflight", "error")}
    assert "1 the broker would not start with" in " ".join(_text("info", str(root))[1].split())
    assert _text("verify", str(root))[0] == 4 and _text("census", str(root))[0] == 4
