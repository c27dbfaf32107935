"""Several DLedger members under one root (dledger-n0/, dledger-n1/): one is read, chosen by --dledger-member, the
folder given, or the broker config's dLegerSelfId (5.3.1 MessageStoreConfig.dLegerSelfId), else the first by name;
info, verify and census say which is read and which are not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.engine import BadInput, Store, census, census_summary, load_broker_config
from inspector.engine.read.dledger.members import choose_member
from tests.store_digest import tree_digest

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store_dledger"


@pytest.fixture
def two(tmp_path: Path) -> Path:
    """The sample with a second member: a copy of dledger-n0 whose currterm says term 9 (to tell them apart)."""
    root = tmp_path / "two"
    shutil.copytree(SAMPLE, root)
    shutil.copytree(root / "dledger-n0", root / "dledger-n1")
    (root / "dledger-n1" / "currterm").write_bytes(b"voteLeader=n1\ncurrTerm=9\n")
    return root


def _info(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main(["info", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_choose_member_order_of_choices(tmp_path: Path) -> None:
    conf = tmp_path / "broker.conf"
    conf.write_text("brokerName=b\ndLegerSelfId=n1\n")
    config = load_broker_config(conf)
    names = ["dledger-n1", "dledger-n0"]
    assert choose_member(names).read == "dledger-n0"
    assert choose_member(names).others == ("dledger-n1",)
    assert choose_member(names, config=config).how == f"dLegerSelfId=n1 in {conf} line 2"
    assert choose_member(names, "n0", config).read == "dledger-n0"  # the flag wins over the broker config
    assert choose_member(names, "dledger-n1").read == "dledger-n1"
    assert choose_member(["dledger-n0"]).problem() is None  # one member: nothing to say
    assert choose_member([]) is None
    for bad in ("n7", "../x", ""):
        if bad == "":
            assert choose_member(names, bad).read == "dledger-n0"  # an empty flag is no flag
            continue
        with pytest.raises(BadInput):
            choose_member(names, bad)


def test_the_first_by_name_is_read_with_a_warning(two: Path, capsys) -> None:
    before = tree_digest(two)
    data = _info(capsys, str(two))
    assert data["dledger"]["member"] == "dledger-n0" and data["dledger"]["currterm"]["currTerm"] == 4
    (warning,) = [p for p in data["problems"] if p["code"] == "dledger-members"]
    assert warning["file"] == "dledger-n0" and warning["severity"] == "warning"
    assert "dledger-n0 is read (the first by name); not read: dledger-n1" in warning["reason"]
    capsys.readouterr()
    assert main(["verify", str(two), "--json"]) == 0  # a warning: exit 0
    found = json.loads(capsys.readouterr().out)
    assert [p["code"] for p in found["problems"]] == ["dledger-members"]
    capsys.readouterr()
    assert main(["census", str(two), "--json"]) == 0
    c = json.loads(capsys.readouterr().out)
    assert "DLedger member dledger-n0 read, not dledger-n1; 1 unknown or misplaced (README.md)" in c["summary"]
    assert "dledger-members" in {p["code"] for p in c["problems"]}
    assert tree_digest(two) == before


def test_a_member_chosen_by_flag_folder_or_broker_config(two: Path, tmp_path: Path, capsys) -> None:
    conf = tmp_path / "broker.conf"
    conf.write_text("dLegerSelfId = n1\n")
    for args in ([str(two), "--dledger-member", "n1"], [str(two / "dledger-n1")], [str(two / "dledger-n1" / "data")],
                 [str(two), "--broker-config", str(conf)]):
        data = _info(capsys, *args)
        assert data["dledger"]["member"] == "dledger-n1" and data["dledger"]["currterm"]["currTerm"] == 9, args
        assert [s["file"].split("/")[0] for s in data["segments"]] == ["commitlog"] + ["dledger-n1"] * 3
        (warning,) = [p for p in data["problems"] if p["code"] == "dledger-members"]
        assert "dledger-n1 is read" in warning["reason"] and "not read: dledger-n0" in warning["reason"]
    with Store(two, dledger_member="n1") as store:
        assert store.dledger_data == "dledger-n1/data"
        assert store.message_at(65_584).raft_index == 0
    c = census(two, dledger_member="n1")
    assert "DLedger member dledger-n1 read, not dledger-n0" in census_summary(c)


@pytest.mark.parametrize("command", ["info", "verify", "messages", "census"])
def test_a_member_that_is_not_there_is_one_line_exit_2(two: Path, capsys, command: str) -> None:
    before = tree_digest(two)
    capsys.readouterr()
    assert main([command, str(two), "--dledger-member", "n7"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "no DLedger member dledger-n7" in err and "members: dledger-n0, dledger-n1" in err and str(two) in err
    assert main([command, str(two), "--dledger-member", "../n0"]) == 2
    assert "is no self id" in capsys.readouterr().err
    assert tree_digest(two) == before


def test_one_member_says_nothing(capsys) -> None:
    data = _info(capsys, str(SAMPLE))
    assert not [p for p in data["problems"] if p["code"] == "dledger-members"]
    assert data["dledger"]["member"] == "dledger-n0"


def test_decode_id_takes_the_member_with_its_store(two: Path, capsys) -> None:
    msg_id = "0A14000500002A9F0000000000010030"  # the first entry's record, 65,584 = pos 65,536 + 48
    capsys.readouterr()
    assert main(["decode-id", msg_id, "--store", str(two), "--dledger-member", "n1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["offset_msg_id"]["found"] is True
    assert main(["decode-id", msg_id, "--dledger-member", "n1"]) == 2
    assert capsys.readouterr().err.strip() == "rmq-inspect: --dledger-member goes with --store"
    assert main(["decode-id", msg_id, "--store", str(two), "--dledger-member", "n9"]) == 2
