"""Every command on the DLedger sample (issue 19): exit codes, record offsets pos + 48, the entry beside them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SAMPLE = str(REPO / "sample_store_dledger")
FIRST_ENTRY_RECORD = 65_584  # the first DLedger entry is at dividedCommitlogOffset 65,536: its record at + 48
MSG_ID = "0A14000500002A9F0000000000010030"


def test_info(cli) -> None:
    code, out, err = cli("info", SAMPLE, "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert [s["file"] for s in data["segments"]][1] == "dledger-n0/data/00000000000000065536"
    dl = data["dledger"]
    assert (dl["entries"], dl["first_index"], dl["last_index"], dl["divided_commitlog_offset"]) == (302, 0, 301, 65_536)
    assert dl["currterm"] == {"voteLeader": "n0", "currTerm": 4}
    # the term timeline: terms 1, 2, 4 from Raft index 0, 120, 230 (scripts/make_sample_store_dledger.py)
    assert [(t["term"], t["first_index"]) for t in dl["terms"]] == [(1, 0), (2, 120), (4, 230)]
    assert dl["terms"][0]["first_pos"] == 65_536 and dl["terms"][0]["first_record_offset"] == FIRST_ENTRY_RECORD
    assert all(t["first_store_timestamp"] for t in dl["terms"])
    code, out, _ = cli("info", SAMPLE)
    assert code == 0 and "Term timeline" in out and "dividedCommitlogOffset" in out


def test_messages_and_show(cli) -> None:
    code, out, _ = cli("messages", SAMPLE, "--from", str(FIRST_ENTRY_RECORD), "--limit", "1", "--json")
    row = json.loads(out.splitlines()[0])
    assert code == 0 and row["physical_offset"] == FIRST_ENTRY_RECORD
    assert row["dledger"] == {"raft_index": 0, "term": 1, "entry_position": 0, "entry_size": 460}
    code, out, _ = cli("show", SAMPLE, MSG_ID, "--json")
    shown = json.loads(out)
    assert code == 0 and shown["physical_offset"] == FIRST_ENTRY_RECORD and shown["msg_id"] == MSG_ID


def test_key_chain_and_decode_id(cli) -> None:
    code, out, _ = cli("key", SAMPLE, "PaymentEvents", "order-1149", "--json")
    hits = json.loads(out)["messages"]
    assert code == 0 and {m["physical_offset"] for m in hits} == {100_052, 138_438}
    assert all(m["dledger"]["term"] in (1, 2, 4) for m in hits)
    code, out, _ = cli("chain", SAMPLE, "PaymentEvents", "order-1149")
    assert code == 0 and "138438" in out
    code, out, _ = cli("decode-id", MSG_ID, "--store", SAMPLE)
    assert code == 0 and "yes, at 65584" in out


def test_hex_verify_census(cli) -> None:
    assert cli("hex", SAMPLE, str(FIRST_ENTRY_RECORD), "--length", "16")[0] == 0
    code, out, _ = cli("verify", SAMPLE)
    assert code == 0 and "checked 402 message(s), 402 consume-queue unit(s)" in out
    assert cli("census", SAMPLE)[0] == 0


def test_rebuild_is_byte_identical_to_the_writers_dispatch(tmp_path, cli) -> None:
    out = tmp_path / "rebuilt"
    assert cli("rebuild", SAMPLE, "--out", str(out))[0] == 0
    sample = Path(SAMPLE)
    written = sorted(p.relative_to(sample) for d in ("consumequeue", "index") for p in (sample / d).rglob("*")
                     if p.is_file())
    rebuilt = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert written == rebuilt
    assert [p for p in written if (sample / p).read_bytes() != (out / p).read_bytes()] == []


@pytest.mark.parametrize("where", ["dledger-n0/data", "dledger-n0", "commitlog"])
def test_a_folder_of_the_store_is_the_store(cli, where: str) -> None:
    code, out, _ = cli("show", f"{SAMPLE}/{where}", str(FIRST_ENTRY_RECORD), "--json")
    assert code == 0 and json.loads(out)["dledger"]["raft_index"] == 0


def test_hex_draws_the_entry_header_band(cli) -> None:
    code, out, _ = cli("hex", SAMPLE, "65536", "--length", "96", "--json")
    regions = json.loads(out)["regions"]
    assert code == 0 and [r["kind"] for r in regions] == ["entry", "message"]
    entry = regions[0]
    assert (entry["start"], entry["end"], entry["label"]) == (65_536, 65_584, "DLedger entry 0, term 1")
    assert [(f["number"], f["start"], f["length"]) for f in entry["fields"]] == [
        ("E1", 65_536, 4), ("E2", 65_540, 4), ("E3", 65_544, 8), ("E4", 65_552, 8), ("E5", 65_560, 8),
        ("E6", 65_568, 4), ("E7", 65_572, 4), ("E8", 65_576, 4), ("E9", 65_580, 4)]
    code, out, _ = cli("hex", SAMPLE, "130960", "--length", "32", "--json")
    end = next(r for r in json.loads(out)["regions"] if r["kind"] == "blank")
    assert end["label"] == "DLedger end of file (-1, 100 bytes)"
