"""A damaged 5.x timer store (issue 18, bad input): a timerwheel of the wrong size, a unit pointing past the
commitlog, a torn unit, a bad magic, a timercheck shorter than 56 bytes. Each is a named finding (file, offset,
code), verify exits 4, the read commands exit 0 with a one-line warning naming it, no traceback, and the store
is unchanged byte for byte."""

from __future__ import annotations

import json
import shutil
import struct
from collections.abc import Callable
from pathlib import Path

import pytest
from test_read_only import snapshot

from inspector.cli.main import main
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry

T = 1_700_000_000_500
LOG = "timerlog/00000000000000000000"
FILE_SIZE = 52 * 20 + 16  # 20 units and the end blank: a small timer log keeps the copies cheap


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("timer-good") / "store"
    small = Geometry(segment_size=64 << 10, cq_file_size=20 * 64, index_slots=64, index_items=256)
    with StoreWriter(root, small, timer_file_size=FILE_SIZE) as w:
        w.append(MessageSpec("Orders", b"due", keys=["a"], deliver_ms=T + 3000, store_timestamp=T))
        w.append(MessageSpec("Orders", b"pending", keys=["b"], deliver_ms=T + 60_000, store_timestamp=T + 10))
        w.append(MessageSpec("Pay", b"plain", store_timestamp=T + 10_000))
    return root


def _patch(rel: str, position: int, data: bytes) -> Callable[[Path], None]:
    def damage(root: Path) -> None:
        with open(root / rel, "r+b") as f:
            f.seek(position)
            f.write(data)
    return damage


def _cut(rel: str, size: int) -> Callable[[Path], None]:
    def damage(root: Path) -> None:
        with open(root / rel, "r+b") as f:
            f.truncate(size)
    return damage


# name -> (damage, the finding that must be reported, codes that may come with it)
CASES = {
    "timerwheel_wrong_size": (_cut("timerwheel", 1000), ("timerwheel", 0, "timerwheel-size"),
                              {"timer-chain-broken", "timer-slot-num"}),
    "unit_past_the_commitlog": (_patch(LOG, 52 + 28, struct.pack(">q", 1 << 40)),
                                (LOG, 52, "timer-past-commitlog"), set()),
    "torn_unit": (_patch(LOG, 52 + 16, bytes(36)), (LOG, 52, "timer-torn-unit"),
                  {"timer-record-mismatch", "timer-delete-unmatched"}),
    "bad_magic": (_patch(LOG, 52 + 12, struct.pack(">i", 0x31)), (LOG, 52, "timer-bad-unit"),
                  {"timer-chain-broken", "timercheck-flush-pos"}),
    "timercheck_short": (_cut("config/timercheck", 40), ("config/timercheck", 40, "timercheck-short"), set()),
}


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.mark.parametrize("name", sorted(CASES))
def test_damage_is_named_and_nothing_is_written(name, good, tmp_path, capsys) -> None:
    damage, finding, companions = CASES[name]
    root = tmp_path / "store"
    shutil.copytree(good, root)
    damage(root)
    before = snapshot(root)
    code, out, _ = _run(capsys, "verify", str(root), "--json")
    problems = {(p["file"], p["offset"], p["code"]) for p in json.loads(out)["problems"]}
    assert code == 4
    assert finding in problems
    assert {p[2] for p in problems} - {finding[2]} <= companions
    for argv in (["timer", str(root)], ["timer", str(root), "--json"], ["timer", str(root), "--wheel"],
                 ["timer", str(root), "--summary", "--json"], ["info", str(root)]):
        code, _, err = _run(capsys, *argv)
        assert code == 0, argv
        if finding[2] != "timer-past-commitlog":  # that one is verify's: timer's rows say it
            assert f"{finding[0]} @ {finding[1]}" in err and finding[2] in err, argv
    if finding[2] == "timer-past-commitlog":
        _, out, _ = _run(capsys, "timer", str(root), "--json")
        assert "outside the commitlog" in json.loads(out.splitlines()[1])["record_problem"]
    assert snapshot(root) == before


def test_the_undamaged_store_verifies_clean(good, capsys) -> None:
    code, out, err = _run(capsys, "verify", str(good), "--json")
    assert code == 0 and json.loads(out)["problems"] == []


def test_a_timer_file_that_cannot_be_read_is_exit_3(good, tmp_path, capsys) -> None:
    root = tmp_path / "store"
    shutil.copytree(good, root)
    (root / "timerwheel").unlink()
    (root / "timerwheel").mkdir()  # a folder where the wheel file should be
    code, out, err = _run(capsys, "timer", str(root), "--json")
    assert code == 3 and "timerwheel @ 0: not a regular file" in err
    assert len(out.splitlines()) == 2  # the timer log's units are still listed
    code, out, _ = _run(capsys, "verify", str(root), "--json")
    assert code == 4 and ("timerwheel", 0, "unreadable-file") in {(p["file"], p["offset"], p["code"])
                                                                  for p in json.loads(out)["problems"]}
