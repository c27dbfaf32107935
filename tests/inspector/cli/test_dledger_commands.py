"""Every command on the DLedger sample (issue 19): exit codes, record offsets pos + 48, the entry beside them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli.main import main

REPO = Path(__file__).resolve().parents[3]
SAMPLE = str(REPO / "sample_store_dledger")
FIRST_ENTRY_RECORD = 65_584  # the first DLedger entry is at dividedCommitlogOffset 65,536: its record at + 48
MSG_ID = "0A14000500002A9F0000000000010030"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def test_info(capsys) -> None:
    code, out, err = run(capsys, "info", SAMPLE, "--json")
    assert code == 0 and err == ""
    assert "dledger-n0/data/00000000000000065536" in out or "00000000000000065536" in out


def test_messages_and_show(capsys) -> None:
    code, out, _ = run(capsys, "messages", SAMPLE, "--from", str(FIRST_ENTRY_RECORD), "--limit", "1", "--json")
    row = json.loads(out.splitlines()[0])
    assert code == 0 and row["physical_offset"] == FIRST_ENTRY_RECORD
    assert row["dledger"] == {"raft_index": 0, "term": 1, "entry_position": 0, "entry_size": 460}
    code, out, _ = run(capsys, "show", SAMPLE, MSG_ID, "--json")
    shown = json.loads(out)
    assert code == 0 and shown["physical_offset"] == FIRST_ENTRY_RECORD and shown["msg_id"] == MSG_ID


def test_key_chain_and_decode_id(capsys) -> None:
    code, out, _ = run(capsys, "key", SAMPLE, "PaymentEvents", "order-1149", "--json")
    hits = json.loads(out)["messages"]
    assert code == 0 and {m["physical_offset"] for m in hits} == {100_052, 138_438}
    assert all(m["dledger"]["term"] in (1, 2, 4) for m in hits)
    code, out, _ = run(capsys, "chain", SAMPLE, "PaymentEvents", "order-1149")
    assert code == 0 and "138438" in out
    code, out, _ = run(capsys, "decode-id", MSG_ID, "--store", SAMPLE)
    assert code == 0 and "yes, at 65584" in out


def test_hex_verify_census(capsys) -> None:
    assert run(capsys, "hex", SAMPLE, str(FIRST_ENTRY_RECORD), "--length", "16")[0] == 0
    code, out, _ = run(capsys, "verify", SAMPLE)
    assert code == 0 and "checked 402 message(s), 402 consume-queue unit(s)" in out
    assert run(capsys, "census", SAMPLE)[0] == 0


def test_rebuild_is_byte_identical_to_the_writers_dispatch(tmp_path, capsys) -> None:
    out = tmp_path / "rebuilt"
    assert run(capsys, "rebuild", SAMPLE, "--out", str(out))[0] == 0
    sample = Path(SAMPLE)
    written = sorted(p.relative_to(sample) for d in ("consumequeue", "index") for p in (sample / d).rglob("*")
                     if p.is_file())
    rebuilt = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert written == rebuilt
    assert [p for p in written if (sample / p).read_bytes() != (out / p).read_bytes()] == []


@pytest.mark.parametrize("where", ["dledger-n0/data", "dledger-n0", "commitlog"])
def test_a_folder_of_the_store_is_the_store(capsys, where: str) -> None:
    code, out, _ = run(capsys, "show", f"{SAMPLE}/{where}", str(FIRST_ENTRY_RECORD), "--json")
    assert code == 0 and json.loads(out)["dledger"]["raft_index"] == 0
