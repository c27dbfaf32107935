"""The executor-side walk and the driver-side sums, without Spark: they must agree with the engine."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from inspector.engine import Message, Store
from inspector.engine.present.views import message_view
from inspector.engine.read.store.answers import recover
from inspector.spark import plan
from inspector.spark.schemas import MESSAGE, MESSAGE_COLUMNS
from inspector.spark.tasks import (
    SegmentTask,
    SegmentWalk,
    StoreRef,
    message_row,
    message_rows,
    segment_entries,
)

REPO = Path(__file__).resolve().parents[3]


def walk_all(root: Path) -> list:
    reports = []
    for task in plan.plan_segments([StoreRef(str(root))]):
        w = SegmentWalk(task)
        for _ in w.entries():
            pass
        reports.append(w.report)
    return reports


def row_as_view(row: tuple) -> dict:
    """A MESSAGE row as a dict (structs as dicts); the null objects JSON leaves out, left out."""
    d = dict(zip(MESSAGE_COLUMNS, row, strict=True))
    for name in ("sys_flag_parts", "dledger", "inner_batch", "trace"):
        if d[name] is None:
            del d[name]
        else:
            d[name] = dict(zip(MESSAGE[name].dataType.fieldNames(), d[name], strict=True))
    del d["store"], d["segment"]
    return d


def test_message_rows_carry_every_message_view_field(sample_store):
    with Store(sample_store) as store:
        msgs = [e for e in store.entries() if isinstance(e, Message)]
        for msg in msgs:
            row = message_row(msg, str(sample_store), msg.file.rsplit("/", 1)[-1])
            assert row_as_view(row) == message_view(msg)
    assert len(msgs) > 300


def test_dledger_rows_carry_their_entry(tmp_path):
    """On a DLedger store each row has its entry's Raft index and term (message_view's "dledger"), in the
    per-record rows and in the Arrow batches alike; a plain store's are null (above)."""
    from inspector.spark.arrow import message_batches

    root = Path(__file__).resolve().parents[3] / "sample_store_dledger"
    with Store(root) as store:
        msgs = {m.physical_offset: m for m in store.entries() if isinstance(m, Message)}
    for msg in msgs.values():
        row = row_as_view(message_row(msg, str(root), msg.file.rsplit("/", 1)[-1]))
        assert row == message_view(msg)
    arrow = [r for b in message_batches(plan.plan_segments([StoreRef(str(root))]), lambda _: None)
             for r in b.to_pylist()]
    assert len(arrow) == len(msgs) == 100 + 302  # commitlog/ records, then the entries
    for r in arrow:
        m = msgs[r["physical_offset"]]
        assert r["dledger"] == message_view(m).get("dledger")
    dledger = [r["dledger"] for r in arrow if r["dledger"] is not None]
    assert len(dledger) == 302 and {d["term"] for d in dledger} == {1, 2, 4}


def test_rows_without_body_keep_its_length(sample_store):
    with Store(sample_store) as store:
        msg = store.message_at(0)
    d = dict(zip(MESSAGE_COLUMNS, message_row(msg, "s", "seg", with_body=False), strict=True))
    assert d["body_base64"] is None and d["body_truncated"] is None and d["body_length"] == len(msg.body) > 0


@pytest.mark.parametrize("which", ["sample", "multi"])
def test_segment_reports_equal_scan_segment_and_the_log_end(which, sample_store, multi_store):
    root = sample_store if which == "sample" else multi_store
    reports = walk_all(root)
    with Store(root) as store:
        for r, scan in zip(reports, store.scans(), strict=True):
            assert (r.messages, r.data_end, r.blank_position, r.blank_size, r.first_store_timestamp,
                    r.last_store_timestamp, tuple(r.problems)) == (
                scan.messages, scan.data_end, scan.blank_position, scan.blank_size, scan.first_store_timestamp,
                scan.last_store_timestamp, scan.problems)
            assert r.error is None
        assert plan.log_end(store, reports) == store.max_offset()
        assert plan.recovery(store, reports) == recover(store)


def test_recovery_from_reports_on_damaged_and_aborted_stores(multi_store, damaged_copy, patch):
    root = damaged_copy(multi_store, "torn")
    segs = sorted((root / "commitlog").iterdir())
    patch(segs[5], 1000, b"\xff" * 64)  # a bad record mid-log: recovery stops there
    patch(segs[6], 0, b"\0" * 8)
    reports = walk_all(root)
    for mode in (None, "normal", "abnormal"):
        with Store(root) as store:
            expected = recover(store, mode)
            assert plan.recovery(store, reports, mode) == expected
            if mode != "abnormal":  # abnormal starts at the newest segment the checkpoint vouches for: the last
                assert expected.stop_problem is not None and expected.end_offset < store.max_offset()
    (root / "abort").write_bytes(b"")
    (root / "checkpoint").unlink()
    reports = walk_all(root)
    with Store(root) as store:
        expected = recover(store)
        assert expected.mode == "abnormal" and expected.stop_problem is not None
        assert plan.recovery(store, reports) == expected


def test_a_failed_segment_is_reported_and_the_others_go_on(sample_store):
    ref = StoreRef(str(sample_store))
    good = plan.plan_segments([ref])
    bad = SegmentTask(ref, 1, "00000000000000099999", "commitlog/00000000000000099999", 99999, 65536)
    reports: list = []
    rows = list(message_rows([good[0], bad, good[2]], reports.append, with_body=False))
    assert [r.error is None for r in reports] == [True, False, True]
    assert "changed since the job was planned" in reports[1].error
    with Store(sample_store) as store:
        expected = sum(1 for i in (0, 2) for e in segment_entries(store, i) if isinstance(e, Message))
    assert len(rows) == expected
    with Store(sample_store) as store, pytest.raises(Exception, match="not walked|changed"):
        plan.recovery(store, reports)


def test_store_refs_are_absolute_unique_and_must_open(sample_store, tmp_path):
    refs = plan.store_refs([sample_store, str(sample_store) + "/", sample_store / "commitlog" / ".."])
    assert [r.path for r in refs] == [str(sample_store.resolve())]
    with pytest.raises(Exception, match="cannot open store|not a directory|no commitlog"):
        plan.store_refs([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(Exception, match="no commitlog segment"):
        plan.store_refs([tmp_path / "empty"])


def test_the_project_zip_alone_is_enough_to_read_a_store(sample_store, tmp_path):
    """What the executors get: parsers, inspector and construct, imported from the zip (python -S)."""
    from inspector.spark.session import project_zip

    path = project_zip(tmp_path)
    assert project_zip(tmp_path) == path  # content-addressed: built once
    names = set(zipfile.ZipFile(path).namelist())
    assert {"parsers/commitlog.py", "inspector/engine/read/store/store.py", "inspector/spark/tasks.py",
            "construct/__init__.py"} <= names
    assert not any("__pycache__" in n for n in names)
    # -S: no site (so no editable install of ours); numpy, a compiled engine dependency the workers must have,
    # comes from site-packages appended after the zip
    code = ("import sys; sys.path.insert(0, sys.argv[1]); sys.path.append(sys.argv[3]);"
            "from inspector.engine import Store; import inspector, construct;"
            "s = Store(sys.argv[2]); print(len(s.segments), sum(1 for _ in s.entries()) > 0,"
            "inspector.__file__.startswith(sys.argv[1]), construct.__file__.startswith(sys.argv[1]))")
    import numpy

    site = str(Path(numpy.__file__).parents[1])
    env = {**os.environ, "RMQ_INSPECT_NO_NUMBA": "1"}  # importability is the point here, not compiled kernels
    out = subprocess.run([sys.executable, "-S", "-c", code, str(path), str(sample_store), site], capture_output=True,
                         text=True, timeout=60, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "True", "True", "True"]
