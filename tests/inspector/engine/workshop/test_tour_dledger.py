"""The tour on the DLedger sample (issue 19): the record step explains the 48-byte entry header first."""

from __future__ import annotations

from pathlib import Path

from inspector.engine import Store
from inspector.engine.workshop.tour_steps import tour_steps

SAMPLE = Path(__file__).resolve().parents[4] / "sample_store_dledger"


def test_the_record_step_explains_the_entry_header() -> None:
    with Store(SAMPLE) as store:
        steps = tour_steps(store)
    record = next(s for s in steps if s.id == "record")
    assert record.available and "48 bytes come first, at pos 65536" in record.text
    assert "pos + 48 = 65584" in record.text
    target = record.target
    assert (target.start, target.end) == (65_536, 65_584 + 412)
    labels = [h.label for h in target.highlights]
    assert labels[:5] == ["E1 entry magic", "E2 entry size", "E3 entry index", "E4 entry term", "E5 entry pos"]
    assert "1 TOTALSIZE" in labels
    assert all(s.available or s.missing_reason for s in steps)
