"""What counts as a store root, and the one-line answer for every path that is not one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inspector.engine import BadInput, check_store_root, not_a_store
from inspector.engine.read.config.storeroot import NO_STORE, unopenable

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store"


@pytest.mark.parametrize("entries", [["commitlog/"], ["consumequeue/"], ["index/"], ["checkpoint"], ["config/"],
                                     ["checkpoint", "config/"], ["batchconsumequeue/"], ["timerlog/", "timerwheel"],
                                     ["commitlog/", "dledger-n0/"], ["lock", "abort", "checkpoint"]])
def test_a_store_has_one_of_the_marker_entries(tmp_path: Path, entries: list[str]) -> None:
    for e in entries:
        (tmp_path / e.rstrip("/")).mkdir() if e.endswith("/") else (tmp_path / e).write_bytes(b"")
    assert not_a_store(tmp_path) is None
    check_store_root(tmp_path)


def test_the_sample_store_is_one() -> None:
    assert not_a_store(SAMPLE) is None


def test_every_real_store_is_one(realdata: Path) -> None:
    real = sorted(realdata.glob("*/*/store")) + sorted(realdata.glob("*/*/store/unit_test_store"))
    assert len(real) >= 9
    for root in real:  # checkpoint + config/ only, config/ only, checkpoint only, commitlog/ only
        assert not_a_store(root) is None, root


def test_an_empty_folder_and_a_lock_alone_are_no_store(tmp_path: Path) -> None:
    assert not_a_store(tmp_path) == NO_STORE + "; the folder is empty"
    (tmp_path / "lock").write_bytes(b"")
    (tmp_path / "notes.txt").write_bytes(b"")
    assert not_a_store(tmp_path) == NO_STORE
    with pytest.raises(BadInput, match=r"no RocketMQ store here \(no commitlog/") as e:
        check_store_root(tmp_path)
    assert e.value.file == str(tmp_path)


@pytest.mark.parametrize("rel, answer", [
    ("commitlog", "this is the commitlog folder of a store: open its parent ({root})"),
    ("consumequeue", "this is the consumequeue folder of a store: open its parent ({root})"),
    ("index", "this is the index folder of a store: open its parent ({root})"),
    ("config", "this is the config folder of a store: open its parent ({root})"),
    ("consumequeue/OrderEvents", "this is consumequeue/OrderEvents inside a store: open the store root ({root})"),
    ("consumequeue/OrderEvents/0", "this is consumequeue/OrderEvents/0 inside a store: open the store root ({root})"),
])
def test_a_folder_of_a_store_names_the_store(rel: str, answer: str) -> None:
    assert not_a_store(SAMPLE / rel) == answer.format(root=SAMPLE)


def test_an_empty_commitlog_of_a_store_with_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "commitlog").mkdir()  # a broker just started: still a store, and its commitlog/ is not
    assert not_a_store(tmp_path) is None
    assert not_a_store(tmp_path / "commitlog") == f"this is the commitlog folder of a store: open its parent ({tmp_path})"


def test_a_consumequeue_with_a_topic_named_index_is_still_a_folder_of_the_store(tmp_path: Path) -> None:
    (tmp_path / "commitlog").mkdir()
    (tmp_path / "consumequeue" / "index" / "0").mkdir(parents=True)
    assert not_a_store(tmp_path / "consumequeue").startswith("this is the consumequeue folder of a store")


def test_a_store_root_that_happens_to_sit_in_an_index_folder(tmp_path: Path) -> None:
    store = tmp_path / "index" / "store"
    shutil.copytree(SAMPLE, store)
    assert not_a_store(store) is None


def test_dledger(tmp_path: Path) -> None:
    member = tmp_path / "dledger-n0"
    (member / "data").mkdir(parents=True)
    (member / "index").mkdir()
    (member / "checkpoint").write_bytes(b"")
    (tmp_path / "consumequeue").mkdir()
    (tmp_path / "checkpoint").write_bytes(b"")
    # issue 19: DLedger stores are read; the member folder, its data/ and index/ open the store they belong to
    assert not_a_store(tmp_path) is None
    assert not_a_store(member) is None and not_a_store(member / "data") is None
    assert not_a_store(member / "index") is None
    (member / "data" / "x").mkdir()
    assert not_a_store(member / "data" / "x").startswith("this is dledger-n0/data/x of a DLedger store: open the "
                                                         f"store root ({tmp_path})")
    (tmp_path / "commitlog").mkdir()  # the segments from before DLedger was switched on: readable
    assert not_a_store(tmp_path) is None
    assert not_a_store(tmp_path / "commitlog") is None  # the old part of a DLedger log: the store opens


def test_a_store_one_level_down(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE, tmp_path / "store")
    assert not_a_store(tmp_path) == f"the store is one level down: open {tmp_path / 'store'}"
    other = tmp_path / "x"
    shutil.copytree(SAMPLE, other / "broker-a")
    assert not_a_store(other) == NO_STORE + "; 1 folder(s) here hold one: broker-a"


def test_a_copied_commitlog_folder_is_said_to_look_like_one(tmp_path: Path) -> None:
    for seg in (SAMPLE / "commitlog").iterdir():
        shutil.copyfile(seg, tmp_path / seg.name)
    assert "3 file(s) named by a 20-digit offset look like a commitlog folder" in not_a_store(tmp_path)


def test_paths_that_cannot_be_opened_are_left_to_unopenable(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"x")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    for p in (tmp_path / "nope", tmp_path / "file", tmp_path / "loop"):
        assert not_a_store(p) is None and unopenable(p) is not None
        with pytest.raises(BadInput):
            check_store_root(p)
    assert unopenable(tmp_path / "file") == "not a directory"


def test_a_root_whose_commitlog_a_broker_conf_puts_elsewhere_is_taken_as_given(tmp_path: Path) -> None:
    assert not_a_store(tmp_path, commitlog_elsewhere=True) is None
    check_store_root(tmp_path, commitlog_elsewhere=True)
    with pytest.raises(BadInput):
        check_store_root(tmp_path / "nope", commitlog_elsewhere=True)  # missing is still missing
