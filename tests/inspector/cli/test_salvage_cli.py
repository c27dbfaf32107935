"""``rmq-inspect salvage``: --plan writes nothing (exit 0 nothing lost, 4 data lost), --out writes a store that
verifies clean, bad input is a one-line error with its exit code (2 usage, 3 not a store), store text escaped."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from store_digest import tree_digest as digest

sys.path.insert(0, str(Path(__file__).parents[2] / "hardening"))
from damage_scenarios import zeroed_page_mid_segment  # noqa: E402

SAMPLE = Path(__file__).parents[3] / "sample_store"


def _damaged(tmp_path) -> Path:
    root = Path(shutil.copytree(SAMPLE, tmp_path / "a"))
    zeroed_page_mid_segment(root)
    return root


def test_plan_of_a_sound_store_is_exit_0(cli, tmp_path):
    code, out, err = cli("salvage", str(SAMPLE), "--plan")
    assert code == 0 and "nothing damaged in the commitlog" in out and err == ""


def test_plan_names_the_lost_span_and_its_records(cli, tmp_path):
    root = _damaged(tmp_path)
    before = digest(root)
    code, out, err = cli("salvage", str(root), "--plan", "--json", "--limit", "2")
    plan = json.loads(out)
    assert code == 4 and digest(root) == before
    lost = [s for s in plan["spans"] if s["state"] == "lost"]
    assert len(lost) == 1 and (lost[0]["lost_records_total"], lost[0]["lost_records_listed"]) == (11, 2)
    assert lost[0]["placeholders"] == 11 and "a partial answer" in err
    code, out, _ = cli("salvage", str(root), "--plan")
    assert code == 4 and "Records lost" in out and "PaymentEvents" in out


def test_out_writes_a_store_that_verifies_clean(cli, tmp_path):
    root = _damaged(tmp_path)
    code, out, err = cli("salvage", str(root), "--out", str(tmp_path / "new"))
    assert code == 4 and "salvaged store written to" in out
    code, out, err = cli("verify", str(tmp_path / "new"), "--json")
    assert code == 0 and json.loads(out)["errors"] == 0


def test_bad_input(cli, tmp_path):
    root = _damaged(tmp_path)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep").write_text("x")
    code, out, err = cli("salvage", str(root), "--out", str(busy))
    assert code == 2 and "not empty" in err and out == ""
    code, out, err = cli("salvage", str(root), "--plan", "--from-replica", str(tmp_path / "nothing"))
    assert code == 3 and out == ""
    code, out, err = cli("salvage", str(root))
    assert code == 2 and "--plan" in err  # one of --plan / --out is required
    assert sorted(p.name for p in busy.iterdir()) == ["keep"]


def test_a_segment_named_off_the_grid_is_refused(cli, tmp_path):
    root = Path(shutil.copytree(SAMPLE, tmp_path / "a"))
    (root / "commitlog" / f"{131072:020d}").rename(root / "commitlog" / f"{131000:020d}")
    code, out, err = cli("salvage", str(root), "--out", str(tmp_path / "new"))
    assert code == 2 and "off it" in err and f"{131000:020d}" in err and not (tmp_path / "new").exists()
