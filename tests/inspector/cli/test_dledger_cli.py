"""``rmq-inspect write --dledger``: the options reach the writer; wrong ones are one line and exit 2."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from inspector.cli.main import main

LINES = '{"topic":"T","body":"aGVsbG8=","store_timestamp":1700000000000}\n' * 3


def test_write_dledger_with_a_pre_dledger_part_and_two_terms(tmp_path: Path) -> None:
    (tmp_path / "m.jsonl").write_text(LINES)
    out = tmp_path / "s"
    assert main(["write", str(out), str(tmp_path / "m.jsonl"), "--dledger", "--pre-dledger", "1", "--dledger-term",
                 "1:3", "--segment-size", "4096", "--dledger-index-file-size", "1024", "--dledger-self-id", "n1"]) == 0
    home = out / "dledger-n1"
    assert (home / "currterm").read_bytes() == b"voteLeader=n1\ncurrTerm=3\n"
    assert (home / "checkpoint").read_bytes() == b"endIndex=1\ncommittedIndex=1\n"
    data = (home / "data" / "00000000000000004096").read_bytes()
    index = (home / "index" / "00000000000000000000").read_bytes()
    assert len(index) == 1024
    size = struct.unpack(">i", data[4:8])[0]
    assert index[:64] == struct.pack(">iqiqq", 1, 4096, size, 0, 1) + struct.pack(">iqiqq", 1, 4096 + size, size, 1, 3)


@pytest.mark.parametrize("extra", [["--pre-dledger", "2"], ["--dledger", "--dledger-term", "x:1"],
                                   ["--dledger", "--dledger-term", "3:0"], ["--dledger", "--dledger-self-id", "abc"],
                                   ["--dledger", "--dledger-index-file-size", "33"],
                                   ["--dledger", "--dledger-term", "0:2", "--dledger-term", "4:1"]])
def test_bad_dledger_options_exit_2_and_write_nothing(tmp_path: Path, capsys, extra: list[str]) -> None:
    (tmp_path / "m.jsonl").write_text(LINES)
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main(["write", str(tmp_path / "s"), str(tmp_path / "m.jsonl"), *extra]))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len([ln for ln in err.splitlines() if ln.startswith("rmq-inspect")]) == 1
    assert not (tmp_path / "s").exists()
