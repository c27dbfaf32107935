"""Damaged DLedger stores (issue 19): each damage is a named finding with file and offset, verify's exit code,
a recovery preview that says where DLedger's own recovery would stop, no traceback, the store unchanged."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest

from inspector.cli.main import main
from tests.store_digest import patch_bytes, tree_digest

SAMPLE = Path(__file__).resolve().parents[2] / "sample_store_dledger"
DATA = "dledger-n0/data"
INDEX = "dledger-n0/index/00000000000000000000"


def _unit(root: Path, n: int) -> tuple[int, int, int, int, int]:
    """(magic, pos, size, index, term) of index unit n, read by hand (8 KiB index files: 256 units each)."""
    name = f"dledger-n0/index/{n // 256 * 8192:020d}"
    return struct.unpack_from(">iqiqq", (root / name).read_bytes(), n % 256 * 32)


def _verify(root: Path, capsys) -> tuple[int, dict, str]:
    before = tree_digest(root)
    code = main(["verify", str(root), "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert tree_digest(root) == before  # nothing written to the store
    return code, json.loads(out), err


def _damage(tmp_path: Path, kind: str) -> Path:
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root)
    if kind == "pos":  # dledger#285: "pos 0 != ..." - an entry whose pos field is not its place
        patch_bytes(root / DATA / "00000000000000131072", 24, struct.pack(">q", 0))
    elif kind == "torn":  # the last entry's record half written (a crash), zeros after it
        _, pos, size, _, _ = _unit(root, 301)
        patch_bytes(root / DATA / "00000000000000196608", pos - 196_608 + size - 100, bytes(100))
    elif kind == "index":  # index unit 5 says another term than its entry
        patch_bytes(root / INDEX, 5 * 32 + 24, struct.pack(">q", 9))
    elif kind == "currterm":
        (root / "dledger-n0" / "currterm").write_bytes(b"\x00\x17garbage\xff\n")
    return root


def test_an_entry_whose_pos_is_not_its_place(tmp_path, capsys) -> None:
    code, report, _ = _verify(_damage(tmp_path, "pos"), capsys)
    assert code == 4
    found = {(p["file"], p["offset"], p["code"]) for p in report["problems"]}
    assert (f"{DATA}/00000000000000131072", 0, "dledger-pos") in found
    pos_finding = next(p for p in report["problems"] if p["code"] == "dledger-pos")
    assert "pos 0 != 131072" in pos_finding["reason"]
    n = next(k for k in range(302) if _unit(SAMPLE, k)[1] == 131_072)  # the entry's index unit: pos differs
    assert (f"dledger-n0/index/{n // 256 * 8192:020d}", n % 256 * 32, "dledger-index-unit") in found
    assert report["dledger_recovery"].startswith("DLedger recovery would stop at pos 131072 ")


def test_a_torn_last_entry(tmp_path, capsys) -> None:
    _, pos, _, _, _ = _unit(SAMPLE, 301)
    code, report, _ = _verify(_damage(tmp_path, "torn"), capsys)
    at = [p for p in report["problems"] if p["file"] == f"{DATA}/00000000000000196608"]
    assert at and at[0]["offset"] == pos - 196_608 and at[0]["code"] == "record-in-progress"
    assert at[0]["severity"] == "warning" and "torn tail" in at[0]["reason"]
    assert code in (0, 4) and (code == 4) == any(p["severity"] == "error" for p in report["problems"])


def test_an_index_unit_that_disagrees_with_its_entry(tmp_path, capsys) -> None:
    code, report, _ = _verify(_damage(tmp_path, "index"), capsys)
    assert code == 4
    unit = next(p for p in report["problems"] if p["code"] == "dledger-index-unit")
    assert (unit["file"], unit["offset"]) == (INDEX, 160)
    assert "term 9 != 1" in unit["reason"]
    assert "rewrites the index from dledger-n0/index/00000000000000000000 @ 160" in report["dledger_recovery"]


def test_a_garbage_currterm(tmp_path, capsys) -> None:
    code, report, _ = _verify(_damage(tmp_path, "currterm"), capsys)
    assert code == 4
    (finding,) = [p for p in report["problems"] if p["code"] == "dledger-currterm"]
    assert finding["file"] == "dledger-n0/currterm" and finding["reason"].startswith("line 1: ")
    assert "term 0" in finding["reason"]


@pytest.mark.parametrize("kind", ["pos", "torn", "index", "currterm"])
def test_every_read_command_completes_on_the_damage(tmp_path, capsys, kind) -> None:
    root = _damage(tmp_path, kind)
    before = tree_digest(root)
    for argv in (["info", str(root)], ["messages", str(root), "--limit", "500"], ["show", str(root), "65584"],
                 ["census", str(root)], ["hex", str(root), "131072", "--length", "64"]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code in (0, 1, 3, 4) and "Traceback" not in out + err, argv
    assert tree_digest(root) == before
