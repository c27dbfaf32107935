"""The committed DLedger sample ``sample_store_dledger/``: regenerating it with
``scripts/make_sample_store_dledger.py`` gives byte-identical files, its digest is recorded, and a few of its
bytes are held against the spec (part 2 §16) by hand."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

from external_tools import import_or_skip
from test_sample_store import _files, _store_digest

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_store_dledger"
SCRIPT = REPO / "scripts" / "make_sample_store_dledger.py"
# changes on purpose only with the scenario, the writer or the script: regenerate and record the new value
STORE_SHA256 = "eb3c420d52e33bb7fbddd18f076668e4b683457779fd0696522bb33f8a7b4ed4"


def test_committed_store_has_the_recorded_hash() -> None:
    assert _store_digest(SAMPLE) == STORE_SHA256, "sample_store_dledger/ changed: see STORE_SHA256"


def test_regenerating_gives_identical_bytes(tmp_path: Path) -> None:
    import_or_skip("lz4.frame")
    import_or_skip("zstandard")
    out = tmp_path / "regenerated"
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(out)], check=True, capture_output=True, timeout=120)
    committed, fresh = _files(SAMPLE), _files(out)
    assert list(fresh) == list(committed)
    assert [name for name in committed if committed[name].read_bytes() != fresh[name].read_bytes()] == []


def test_small_and_shaped_as_the_readme_says() -> None:
    assert sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file()) < 1024 * 1024
    home = SAMPLE / "dledger-n0"
    assert sorted(p.name for p in (home / "data").iterdir()) == [
        "00000000000000065536", "00000000000000131072", "00000000000000196608"]
    assert (home / "checkpoint").read_bytes() == b"endIndex=301\ncommittedIndex=301\n"
    assert (home / "currterm").read_bytes() == b"voteLeader=n0\ncurrTerm=4\n"
    old = (SAMPLE / "commitlog" / "00000000000000000000").read_bytes()
    # the last old record ends at 39,727; DLedgerCommitLog's BLANK: remaining 25,809, magic 0xCBD43194, zeros
    assert old[39_727:39_735] == struct.pack(">iI", 25_809, 0xCBD43194) and old[39_735:] == bytes(25_801)
    data = (home / "data" / "00000000000000065536").read_bytes()
    assert data[:48] == struct.pack(">iiqqqiiii", 1, 460, 0, 1, 65_536, 0, 0, 0, 412)
    assert data[48 + 28:48 + 36] == struct.pack(">q", 65_584)  # PHYSICALOFFSET = pos + 48
    index = (home / "index" / "00000000000000000000").read_bytes()
    assert index[:32] == struct.pack(">iqiqq", 1, 65_536, 460, 0, 1)
