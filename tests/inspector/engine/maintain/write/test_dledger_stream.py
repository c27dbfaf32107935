"""verify's DLedger index check fed as the walk goes (maintain/dledger_stream.py): on the DLedger sample, pristine
and damaged, the findings and the recovery preview are the same whatever the index chunk size (units compared
across chunk and index-file boundaries: the sample's index files hold 256 units each) and the same as when no
row is fed at all (every header then read back from the data files)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from inspector.engine import Store
from inspector.engine.maintain.verify import verify as verify_module
from inspector.engine.maintain.write.dledger_stream import IndexStream
from inspector.engine.read.dledger.dledger import member_of
from tests.store_digest import patch_bytes

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store_dledger"
INDEX0 = "dledger-n0/index/00000000000000000000"
INDEX1 = "dledger-n0/index/00000000000000008192"


def _damaged(tmp_path: Path, kind: str) -> Path:
    root = tmp_path / kind
    shutil.copytree(SAMPLE, root)
    if kind == "unit-term":  # a unit in the second index file disagrees with its entry
        patch_bytes(root / INDEX1, 7 * 32 + 24, struct.pack(">q", 9))
    elif kind == "unit-first":  # the very first unit
        patch_bytes(root / INDEX0, 12, struct.pack(">i", 5))
    elif kind == "fewer-units":  # the index ends before the data: the last 20 units zeroed
        raw = (root / INDEX1).read_bytes()
        used = len(raw.rstrip(b"\0")) // 32 + 1
        patch_bytes(root / INDEX1, (used - 20) * 32, bytes(20 * 32))
    elif kind == "record":  # an entry's record damaged: the walk tables no row for it
        data = sorted((root / "dledger-n0/data").iterdir())[1]
        patch_bytes(data, 48 + 4, b"\xde\xad\xbe\xef")  # the first entry's record's magic code
    elif kind == "term-falls":  # unit and entry agree on a term below the one before
        _, pos, *_ = struct.unpack_from(">iqiqq", (root / INDEX1).read_bytes(), 3 * 32)
        seg = max(int(p.name) for p in (root / "dledger-n0/data").iterdir() if int(p.name) <= pos)
        patch_bytes(root / f"dledger-n0/data/{seg:020d}", pos - seg + 16, struct.pack(">q", 0))
        patch_bytes(root / INDEX1, 3 * 32 + 24, struct.pack(">q", 0))
    return root


class _Unfed(IndexStream):
    """A stream the walk's rows never reach: the full checks then read every header from the data files."""

    def add(self, rows) -> None:
        pass


def _verify_with(root: Path, monkeypatch, chunk_units: int | None = None, unfed: bool = False) -> tuple:
    if chunk_units is not None or unfed:
        kind = _Unfed if unfed else IndexStream
        monkeypatch.setattr(verify_module, "index_stream", lambda store: kind(
            member_of(store.root, store.dledger_data), chunk_units or 65536))
    with Store(root) as store:
        report = verify_module.verify(store)
    monkeypatch.undo()
    return tuple((p.file, p.offset, p.code, p.reason) for p in report.problems), report.dledger_recovery


@pytest.mark.parametrize("kind", ["pristine", "unit-term", "unit-first", "fewer-units", "record", "term-falls"])
def test_the_same_findings_whatever_the_chunks(tmp_path, monkeypatch, kind) -> None:
    root = SAMPLE if kind == "pristine" else _damaged(tmp_path, kind)
    default = _verify_with(root, monkeypatch)
    for chunk in (1, 3, 100, 256, 1000):
        assert _verify_with(root, monkeypatch, chunk) == default, chunk
    assert _verify_with(root, monkeypatch, unfed=True) == default
    if kind == "pristine":
        assert default[0] == () and "nothing truncated" in default[1]
    else:
        assert any(p[0].startswith("dledger-n0/") for p in default[0]), "the damage is a finding"


def test_matched_rows_are_rebuilt_from_their_units() -> None:
    """A stream that stops matching keeps the rows from there; the matched ones come back from the units."""
    with Store(SAMPLE) as store:
        member = member_of(store.root, store.dledger_data)
        runs, _ = member.index_runs()
        units = np.concatenate([r.units for r in runs])
        rows = np.stack([units["pos"].astype(np.int64) + 48, units["size"].astype(np.int64) - 48,
                         units["index"].astype(np.int64), units["term"].astype(np.int64)])
        stream = IndexStream(member, chunk_units=10)
        stream.add(rows[:, :100])
        odd = rows[:, 100:].copy()
        odd[3, 50] = 99  # a term no unit holds
        stream.add(odd)
        assert stream.finish() is None and stream.matched == 150
        assert np.array_equal(stream.rows(units), np.concatenate([rows[:, :150], odd[:, 50:]], axis=1))
        whole = IndexStream(member, chunk_units=7)
        whole.add(rows)
        assert whole.finish() == (int(rows[2, -1]), int(rows[3, -1]), int(rows[0, -1] + rows[1, -1]))


def _pristine_rows_by_file() -> list[np.ndarray]:
    """The walk's rows of the sample's entries (record offset, size, Raft index, term), one array per data file:
    what each Spark verify task tables (data files of 64 KiB; rows equal the pristine units)."""
    with Store(SAMPLE) as store:
        runs, _ = member_of(store.root, store.dledger_data).index_runs()
        starts = [s.start_offset for s in store.commitlog.segments if s.entry_header]
    units = np.concatenate([r.units for r in runs])
    rows = np.stack([units["pos"].astype(np.int64) + 48, units["size"].astype(np.int64) - 48,
                     units["index"].astype(np.int64), units["term"].astype(np.int64)])
    cuts = np.searchsorted(rows[0], starts[1:])
    return np.split(rows, cuts, axis=1)


@pytest.mark.parametrize("kind", ["pristine", "unit-term", "unit-first", "fewer-units"])
def test_spark_tasks_pieces_give_the_same_checks(tmp_path, kind) -> None:
    """Each task compares its data file's entries with their units (positioned at their Raft index) and hands
    the driver MatchedEntries, or its rows when one differs: the driver's checks equal the local stream's."""
    from inspector.engine.maintain.verify.dledger import check_dledger, dledger_segment_heads
    from inspector.engine.maintain.write.dledger_stream import MatchedEntries

    root = SAMPLE if kind == "pristine" else _damaged(tmp_path, kind)
    per_file = _pristine_rows_by_file()  # these damages leave the data (so the walk's rows) as they were
    assert [p.shape[1] for p in per_file] == [143, 143, 16]
    with Store(root) as store:
        pieces = [dledger_segment_heads(store, [p]) for p in per_file]
        local = check_dledger(store, [], per_file)
        driver = check_dledger(store, [], pieces)
        assert (driver.problems, driver.recovery) == (local.problems, local.recovery)
    matched = [isinstance(p, MatchedEntries) for p in pieces]
    assert matched == {"pristine": [True] * 3, "unit-term": [True, False, True],
                       "unit-first": [False, True, True], "fewer-units": [True, False, False]}[kind]
    if kind == "pristine":
        assert driver.problems == () and [p.first_index for p in pieces] == [0, 143, 286]
    else:
        assert driver.problems


def test_matched_pieces_out_of_order_are_not_taken_on_trust() -> None:
    """A piece that does not start at the next unit, or whose term falls, stops the comparison: the full checks
    then read those headers back from the data (and find nothing wrong in the sample itself)."""
    from inspector.engine.maintain.verify.dledger import check_dledger, dledger_segment_heads

    per_file = _pristine_rows_by_file()
    with Store(SAMPLE) as store:
        pieces = [dledger_segment_heads(store, [p]) for p in per_file]
        member = member_of(store.root, store.dledger_data)
        stream = IndexStream(member)
        stream.add_matched(pieces[1])  # entries 143.. first: not the next units
        assert not stream.sound
        stream.close()
        swapped = check_dledger(store, [], [pieces[0], pieces[2], pieces[1]])
        assert swapped.problems == () and "nothing truncated" in swapped.recovery
