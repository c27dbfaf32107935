"""Each named corruption scenario: the engine reports exactly the expected findings (file, offset, code)."""

from __future__ import annotations

import json

import pytest

from inspector.cli.main import main
from inspector.engine import Store
from inspector.engine.maintain.verify.verify import verify

pytestmark = pytest.mark.timeout(120)


def _unexpected(found: set, damage) -> set:
    """Findings neither expected nor a tolerated knock-on (file prefix, code)."""
    expected = damage.findings | damage.knock_on
    return {f for f in found - expected
            if not any(f[0].startswith(prefix) and f[2] == code for prefix, code in damage.tolerated)}


def test_verify_reports_exactly_the_damage(damaged):
    _, root, damage = damaged
    with Store(root) as store:
        report = verify(store)
        slow = verify(store, fast=False)
    found = {(p.file, p.offset, p.code) for p in report.problems}
    assert damage.findings <= found, sorted(damage.findings - found)
    assert damage.knock_on <= found, sorted(damage.knock_on - found)[:10]
    assert not _unexpected(found, damage), sorted(_unexpected(found, damage))[:10]
    assert {(p.file, p.offset, p.code) for p in slow.problems} == found  # the record-by-record path agrees
    for p in report.problems:  # each names its file and a position inside it
        assert p.file and p.offset >= 0 and p.reason, p


def test_the_walk_shows_the_commitlog_findings(damaged):
    """What info, messages and the TUI's background walk see, without verify's cross-checks."""
    _, root, damage = damaged
    with Store(root) as store:
        walk = {(p.file, p.offset, p.code) for p in [*store.problems(), *(p for s in store.scans() for p in s.problems)]}
    assert damage.walk_findings <= walk, sorted(damage.walk_findings - walk)
    commitlog_walk = {f for f in walk if f[0].startswith("commitlog")}
    assert commitlog_walk <= damage.findings, sorted(commitlog_walk - damage.findings)


def test_verify_json_and_exit_code(damaged, capsys):
    _, root, damage = damaged
    code = main(["verify", str(root), "--json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    found = {(p["file"], p["offset"], p["code"]) for p in doc["problems"]}
    assert damage.findings <= found
    errors = [p for p in doc["problems"] if p["severity"] == "error"]
    assert code == (4 if errors else 0) and doc["errors"] == len(errors)
    assert "Traceback" not in err


def test_info_json_lists_the_walk_findings(damaged, capsys):
    _, root, damage = damaged
    assert main(["info", str(root), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    found = {(p["file"], p["offset"], p["code"]) for p in doc["problems"]}
    assert damage.walk_findings <= found
    if not damage.findings:  # the preallocated segment: nothing wrong, and info says what the zero file is
        assert doc["segments"][-1]["preallocated"] and not doc["problems"]
