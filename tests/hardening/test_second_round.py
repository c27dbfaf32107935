"""The second round of hostile input (issue 22): what each damage does to the commands, beyond the findings
``test_corruption_findings.py`` checks for every scenario. Each case on a fresh copy of the sample store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from damage_scenarios import SAMPLE, SCENARIOS, UNKNOWN_ENTRIES, WARNING_SCENARIOS, make
from external_tools import import_or_skip

from inspector.cli.main import main
from inspector.engine import Store
from inspector.engine.maintain.verify.verify import verify

pytestmark = pytest.mark.timeout(120)
BY_NAME = {s.name: s for s in SCENARIOS + WARNING_SCENARIOS}


def _damaged(name: str, tmp_path: Path) -> Path:
    return make(BY_NAME[name], tmp_path)[0]


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_a_bad_unit_is_stepped_over(tmp_path, capsys):
    """verify checks every unit of the sample store's queues, the bad ones too; messages --queue prints the rest."""
    root = _damaged("cq_unit_negative", tmp_path)
    with Store(root) as store:
        report = verify(store)
        assert report.cq_units == 402
        assert store.queue("OrderEvents", 3).info().max_offset == 50
    code, out, err = _run(capsys, "messages", str(root), "--topic", "OrderEvents", "--queue", "3", "--json")
    assert code == 0 and len(out.splitlines()) == 48, err  # 50 units, 2 of them no units
    assert err.count("cq-bad-unit") == 2


def test_a_key_lookup_scans_past_an_index_file_it_cannot_trust(tmp_path, capsys):
    root = _damaged("index_header_counts_minus_one", tmp_path)
    code, out, err = _run(capsys, "key", str(root), "OrderEvents", "order-1108", "--json")
    hits = json.loads(out)["messages"]
    assert code == 0 and len(hits) == 3
    assert all("cannot be trusted" in h["note"] and "scanning the commitlog" in h["note"] for h in hits)
    assert "indexCount -1" in err  # and the warning line says why
    with Store(root) as store, Store(SAMPLE) as good:
        assert sorted(h.message.physical_offset for h in store.lookup_key("OrderEvents", "order-1108")) == \
            sorted(h.message.physical_offset for h in good.lookup_key("OrderEvents", "order-1108"))


def test_config_that_is_no_object_is_said_not_emptied_silently(tmp_path, capsys):
    root = _damaged("config_top_level_not_object", tmp_path)
    code, out, err = _run(capsys, "verify", str(root), "--json")
    found = {(p["file"], p["code"]): p["reason"] for p in json.loads(out)["problems"]}
    assert code == 4
    assert "an array" in found[("config/consumerOffset.json", "config-not-object")]
    assert "null" in found[("config/delayOffset.json", "config-not-object")]
    assert "a string" in found[("config/subscriptionGroup.json", "config-not-object")]


def test_a_huge_number_in_config_names_file_and_place(tmp_path, capsys):
    root = _damaged("config_number_too_long", tmp_path)
    code, _, err = _run(capsys, "info", str(root))
    assert code == 0 and "config/delayOffset.json @ 0" in err and "number too long" in err and "line" in err
    code, out, _ = _run(capsys, "verify", str(root), "--json")
    reasons = [p["reason"] for p in json.loads(out)["problems"] if p["file"] == "config/delayOffset.json"]
    assert code == 4 and len(reasons) == 1 and "number too long (5000 characters" in reasons[0]


def test_a_segment_name_past_int64_is_skipped_with_a_finding(tmp_path, capsys):
    root = _damaged("segment_name_past_int64", tmp_path)
    for argv in (["info", str(root)], ["verify", str(root)], ["messages", str(root), "--limit", "3"]):
        code, out, err = _run(capsys, *argv)
        assert code == (4 if argv[0] == "verify" else 0)
        assert "99999999999999999999" in out + err


def test_key_keyindex_on_a_folder_that_is_no_key_table(tmp_path, capsys):
    import_or_skip("pyarrow")
    root = _damaged("extra_preallocated_segment", tmp_path)  # any store folder: not a Parquet table
    (root / "README.md").write_text("not parquet\n")
    code, _, err = _run(capsys, "key", "--keyindex", str(root), "OrderEvents", "order-1108")
    assert code == 2 and err.count("\n") == 1 and "not a key table" in err, err


@pytest.mark.parametrize("ref", ["1" * 5000, "9" * 20, "\u0663"])
def test_show_of_an_impossible_offset_is_bad_input(ref, capsys):
    code, _, err = _run(capsys, "show", str(SAMPLE), ref)
    assert code == 2 and err.count("\n") == 1, err
    assert len(err) < 300


def test_unknown_entries_are_warned_by_every_walk(tmp_path, capsys):
    root = _damaged("unknown_entries", tmp_path)
    code, out, _ = _run(capsys, "verify", str(root), "--json")
    found = {(p["file"], p["offset"], p["code"], p["severity"]) for p in json.loads(out)["problems"]}
    assert code == 0 and found == {(*f, "warning") for f in UNKNOWN_ENTRIES}
    code, out, _ = _run(capsys, "info", str(root), "--json")
    assert {(p["file"], int(p["offset"]), p["code"]) for p in json.loads(out)["problems"]} == UNKNOWN_ENTRIES
    code, _, err = _run(capsys, "messages", str(root), "--limit", "1")
    assert code == 0 and "commitlog/abc @ 0" in err
    for argv in (["show", str(root), "0"], ["key", str(root), "OrderEvents", "order-1108"], ["hex", str(root), "0"],
                 ["messages", str(root), "--topic", "OrderEvents", "--queue", "3", "--json"], ["tour", str(root), "--all"]):
        assert _run(capsys, *argv)[0] == 0, argv
