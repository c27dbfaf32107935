"""verify on batch consume queues: each 46-byte unit against its record (spec §4.3, §2.10)."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import pytest

from inspector.engine.maintain.verify.verify import verify
from inspector.engine.read.store.store import Store

sys.path.insert(0, str(Path(__file__).parents[4]))
from batch_store import BATCH_TOPIC, write_batch_store  # noqa: E402

BCQ = f"batchconsumequeue/{BATCH_TOPIC}/0/00000000000000000000"


def _patch(path: Path, position: int, data: bytes) -> None:
    with open(path, "r+b") as f:
        f.seek(position)
        f.write(data)


def _report(root: Path):
    with Store(root) as store:
        return verify(store)


def test_a_clean_batch_store_verifies(tmp_path) -> None:
    root = tmp_path / "s"
    write_batch_store(root)
    report = _report(root)
    assert report.problems == () and report.cq_units == 5  # 2 plain units + 3 batch units


def test_batch_size_zero_is_a_finding_naming_file_and_offset(tmp_path) -> None:
    root = tmp_path / "s"
    write_batch_store(root)
    _patch(root / BCQ, 46 + 36, struct.pack(">h", 0))  # unit 1: batchSize 0 (INNER_NUM 0)
    found = {(p.file, p.offset, p.code) for p in _report(root).errors}
    assert (BCQ, 46, "bcq-bad-unit") in found
    assert (BCQ, 92, "bcq-gap") in found  # base 7 no longer follows 0 + 4


@pytest.mark.parametrize("field, value, words", [
    (28, struct.pack(">q", 5), "INNER_BASE 4 (unit's msgBaseOffset 5)"),  # msgBaseOffset
    (36, struct.pack(">h", 2), "INNER_NUM 3 (unit's batchSize 2)"),  # batchSize
    (8, struct.pack(">i", 494), "size 495 (unit says 494)"),  # size
    (20, struct.pack(">q", 1), "store time"),  # store timestamp
    (12, struct.pack(">q", 77), "tagsCode 0 (unit says 77)"),  # tagsCode
])
def test_unit_disagreeing_with_its_record(tmp_path, field, value, words) -> None:
    root = tmp_path / "s"
    write_batch_store(root)
    _patch(root / BCQ, 46 + field, value)
    mismatches = [p for p in _report(root).errors if p.code == "bcq-mismatch"]
    assert [(p.file, p.offset) for p in mismatches] == [(BCQ, 46)]
    assert words in mismatches[0].reason


def test_record_whose_inner_num_disagrees_with_its_body(tmp_path) -> None:
    root = tmp_path / "s"
    results = write_batch_store(root)
    log = root / "commitlog" / "00000000000000000000"
    record = log.read_bytes()[results[2].physical_offset : results[2].physical_offset + results[2].total_size]
    at = record.index(b"INNER_NUM\x013")
    _patch(log, results[2].physical_offset + at, b"INNER_NUM\x012")  # properties are outside the body CRC
    _patch(root / BCQ, 46 + 36, struct.pack(">h", 2))  # and the unit agrees with the record
    errors = _report(root).errors
    reasons = [p.reason for p in errors if p.code == "bcq-mismatch" and p.offset == 46]
    assert reasons and "3 inner message(s) in its body, INNER_NUM says 2" in reasons[0]
    assert any(p.code == "bcq-gap" and p.offset == 92 for p in errors)
