"""Entries of commitlog/, index/ and consumequeue/ the engine does not read: each said, none skipped silently."""

from __future__ import annotations

import shutil
from pathlib import Path

from inspector.engine.read.store.store import Store
from inspector.engine.read.store.strays import offset_name, queue_id_name, unknown_entries

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store"


def test_the_sample_store_has_none() -> None:
    assert unknown_entries(SAMPLE) == []


def test_names() -> None:
    assert offset_name("0" * 20) == 0 and offset_name("9" * 20) is None and offset_name("0" * 19) is None
    assert queue_id_name("3") == 3 and queue_id_name("-1") is None and queue_id_name("99999999999") is None


def test_each_unknown_entry_is_a_finding_and_skipped(tmp_path: Path) -> None:
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    (root / "commitlog" / ("9" * 20)).write_bytes(b"x")
    (root / "commitlog" / "abc").write_bytes(b"x")
    (root / "index" / "notatime").write_bytes(b"x")
    (root / "consumequeue" / "OrderEvents" / "abc").mkdir()
    (root / "consumequeue" / "OrderEvents" / "3" / "junk").write_bytes(b"x")
    (root / "consumequeue" / "stray.txt").write_bytes(b"x")
    found = {(p.file, p.code, p.severity) for p in unknown_entries(root)}
    assert found == {
        ("commitlog/" + "9" * 20, "bad-file-name", "error"), ("commitlog/abc", "unknown-file", "warning"),
        ("index/notatime", "unknown-file", "warning"), ("consumequeue/OrderEvents/abc", "unknown-file", "warning"),
        ("consumequeue/OrderEvents/3/junk", "unknown-file", "warning"),
        ("consumequeue/stray.txt", "unknown-file", "warning"),
    }
    with Store(root) as store, Store(SAMPLE) as good:
        assert [s.file for s in store.segments] == [s.file for s in good.segments]
        assert store.queue_ids() == good.queue_ids()
        assert [r.rel for r in store.index_files()] == [r.rel for r in good.index_files()]
        assert found <= {(p.file, p.code, p.severity) for p in store.problems()}


def test_a_folder_of_many_strays_lists_some_and_counts_the_rest(tmp_path, monkeypatch) -> None:
    """Issue 35: the entries past the cap were not looked at; now every one is, and one finding counts those
    not listed."""
    from inspector.engine.read.store import strays

    monkeypatch.setattr(strays, "_LISTED", 3)
    (tmp_path / "index").mkdir()
    for i in range(7):
        (tmp_path / "index" / f"stray{i}").write_bytes(b"")
    found = strays.unknown_entries(tmp_path)
    assert [p.code for p in found] == ["unknown-file"] * 3 + ["unknown-files-more"]
    assert found[3].file == "index/stray3" and "4 more entries of index/" in found[3].reason
