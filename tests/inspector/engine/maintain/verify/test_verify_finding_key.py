"""verify says one fact once (``finding_key``): a config file's findings all stand at offset 0, so its entry tells
them apart, not the reason (which shows a key cut to 60 characters)."""

from __future__ import annotations

import shutil
from pathlib import Path

from inspector.engine import Problem, Store, verify
from inspector.engine.maintain.verify.verify import finding_key

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store"


def test_two_entries_whose_reasons_read_alike_are_two_findings(tmp_path: Path) -> None:
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root)
    long = "T" * 70  # two topic@group keys alike in their first 60 characters, each with a queue id that is none
    (root / "config" / "consumerOffset.json").write_text(
        '{"offsetTable":{"' + long + '@a":{"x":1},"' + long + '@b":{"x":1}}}')
    with Store(root) as store:
        found = [p for p in verify(store).problems if p.code == "bad-config-entry"]
    assert len({p.reason for p in found}) == 1  # the reasons cannot tell them apart
    assert sorted(p.entry for p in found) == [f"{long}@a/x", f"{long}@b/x"]


def test_one_entry_said_by_two_checks_is_one_finding_and_entryless_ones_keep_their_reason() -> None:
    from inspector.engine.maintain.verify.verify import _dedupe

    a = Problem("config/consumerOffset.json", 0, "offset 5 is outside [0, 3]", "consumer-offset-range", "warning",
                entry="T@g/0")
    b = Problem(a.file, 0, "offset 5 is past the queue's end", a.code, a.severity, entry="T@g/0")
    c = Problem("checkpoint", 0, "one thing", "bad-checkpoint")
    d = Problem("checkpoint", 0, "another thing", "bad-checkpoint")
    assert finding_key(a) == finding_key(b) and finding_key(c) != finding_key(d)
    assert list(_dedupe([a, b, c, d])) == [a, c, d]
