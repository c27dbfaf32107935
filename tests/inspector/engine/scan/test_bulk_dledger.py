"""The bulk paths step DLedger entries (header 48, record, next entry at pos + size; spec part 2 §16): the
kernels and their Python twins agree with the careful step on the DLedger sample, whole and damaged, with one
thread or several."""

from __future__ import annotations

import random
import shutil
import struct
from pathlib import Path

import pytest
from test_bulk import BOTH, _path, careful_entries, needs_numba  # noqa: F401 - _path: the autouse fixture

from inspector.engine.maintain.verify.verify import verify
from inspector.engine.model.records import Message, Problem
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.store.store import Store
from inspector.engine.scan.batch import MessageBatch
from inspector.engine.scan.kernels import need_compiled, numba_enabled
from inspector.engine.scan.walk import check_run, find_clean

SAMPLE = Path(__file__).resolve().parents[4] / "sample_store_dledger"
DATA = "dledger-n0/data/00000000000000065536"


@pytest.fixture(autouse=True)
def _loaded(request):
    """With the numba path asked for, load the kernels first: a small file would otherwise take the Python path."""
    if numba_enabled() and not (hasattr(request.node, "callspec") and request.node.callspec.params.get("python")):
        need_compiled()


@BOTH
def test_runs_step_over_entry_headers(python) -> None:
    data = (SAMPLE / DATA).read_bytes()
    run = check_run(data, 0, len(data), segment_start=65_536, entry_header=48)
    assert run.count == 143 and run.end == 65_436  # the -1 end marker (100 bytes remain): the careful step's
    assert struct.unpack_from(">ii", data, run.end) == (-1, 100)
    assert check_run(data, 0, len(data), segment_start=65_536).count == 0  # not records at an entry's start
    second = struct.unpack_from(">i", data, 4)[0]
    assert find_clean(data, 1, len(data), segment_start=65_536, entry_header=48) == second


def _expand(items) -> list:
    return [m for item in items for m in (item.messages() if isinstance(item, MessageBatch) else [item])]


@BOTH
def test_batches_expand_to_the_careful_entries(python) -> None:
    with Store(SAMPLE) as store:
        log = store.commitlog
        walks = [(seg, _expand(log.segment_batches(seg, batch_size=7))) for seg in log.segments]
        assert [entries for _, entries in walks] == [careful_entries(log, seg) for seg, _ in walks]
        entries = [m for seg, found in walks if seg.entry_header for m in found if isinstance(m, Message)]
        assert len(entries) == 302 and all(m.raft_index is not None for m in entries)


def _damaged_copy(tmp_path: Path, seed: int) -> Path:
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root)
    rng = random.Random(seed)
    for path in sorted((root / "dledger-n0" / "data").iterdir())[:2]:
        raw = bytearray(path.read_bytes())
        for _ in range(3):
            raw[rng.randrange(60_000)] = rng.randrange(256)
        path.write_bytes(bytes(raw))
    return root


@needs_numba
@pytest.mark.parametrize("seed", range(4))
def test_threads_and_verify_agree_with_the_careful_walk(tmp_path, seed: int, monkeypatch) -> None:
    root = _damaged_copy(tmp_path, seed) if seed else SAMPLE
    with Store(root) as store:
        slow = verify(store, fast=False)
    monkeypatch.setattr(CommitLog, "PARALLEL_MIN_BYTES", 0)  # threads on tiny segments too
    monkeypatch.setattr(CommitLog, "PARALLEL_CHUNK", 4096)
    with Store(root) as store:
        fast = verify(store, workers=2)
        log = store.commitlog
        for seg in log.segments:
            entries = careful_entries(log, seg)
            summary = log.summarise_segment(seg, workers=3)
            assert summary.scan.messages == sum(isinstance(e, Message) for e in entries)
            assert summary.problems == tuple(e for e in entries if isinstance(e, Problem))
    assert fast == slow


@needs_numba
def test_entry_units_flags_each_check() -> None:
    """The compiled pass verify uses when the walk tabled every entry (verify_kernels.entry_units)."""
    import numpy as np

    from inspector.engine.read.dledger.dledger import UNIT_DTYPE
    from inspector.engine.scan.verify_kernels import entry_units

    # three entries at pos 0, 148, 296 (records of 100 bytes), Raft index 5, 6, 7, terms 1, 2, 2
    rows = np.array([[48, 196, 344], [100, 100, 100], [5, 6, 7], [1, 2, 2]], dtype=np.int64)
    units = np.zeros(3, UNIT_DTYPE)
    units["magic"], units["pos"], units["size"], units["index"], units["term"] = 1, [0, 148, 296], 148, [5, 6, 7], [1, 2, 2]
    assert entry_units(units, rows, 0, 5, -1).tolist() == [0, 0, 0]
    bad = units.copy()
    bad["term"][1] = 9
    assert entry_units(bad, rows, 0, 5, -1).tolist() == [0, 1, 0]
    falls = rows.copy()
    falls[3] = [2, 1, 1]
    units["term"] = [2, 1, 1]
    assert entry_units(units, falls, 0, 5, -1).tolist() == [0, 4, 0]
    gap = rows.copy()
    gap[2] = [5, 7, 8]
    assert entry_units(units, gap, 0, 5, -1).tolist()[1] & 3 == 3  # unit 6 != entry 7, and 5 -> 7 is a gap
    assert entry_units(units, rows, 0, 5, 3).tolist()[0] & 4  # a term below the previous file's last term


@BOTH
def test_index_unit_checks_name_the_same_unit_on_both_paths(python, tmp_path) -> None:
    """With the kernels: the compiled pass, then numpy; without: numpy over units gathered from the data."""
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root)
    index = root / "dledger-n0" / "index" / "00000000000000000000"
    raw = bytearray(index.read_bytes())
    raw[5 * 32 + 24: 5 * 32 + 32] = struct.pack(">q", 9)  # unit 5's term
    index.write_bytes(bytes(raw))
    with Store(root) as store:
        report = verify(store)
    assert [(p.file, p.offset, p.code) for p in report.problems] == [
        ("dledger-n0/index/00000000000000000000", 160, "dledger-index-unit")]
    assert report.dledger_recovery.endswith("it rewrites the index from dledger-n0/index/00000000000000000000 @ 160")


def test_gather_refuses_a_slice_outside_the_buffer() -> None:
    """The compiled gather reads without bounds checks: an index unit's pos near 2^63 reached it past the file
    (a segfault, found by the mutation fuzzer); now an IndexError, and verify_dledger no longer asks."""
    import numpy as np

    from inspector.engine.scan.verify_kernels import gather

    buf = bytearray(range(64))
    assert gather(buf, np.array([0, 32]), 32)[1][0] == 32
    for bad in ([33], [-1], [(1 << 63) - 2]):
        with pytest.raises(IndexError):
            gather(buf, np.array(bad, dtype=np.int64), 32)
