"""A DLedger store read as one commitlog (spec part 2 §16): the old commitlog below dividedCommitlogOffset, the
DLedger data files above, record offsets pos + 48 with the entry's Raft index and term beside them. The
expectations come from the bytes (struct) and from the writer's script constants, not from the reader."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from inspector.engine import Blank, Message, Problem, Store

REPO = Path(__file__).resolve().parents[5]
SAMPLE = REPO / "sample_store_dledger"
DATA = SAMPLE / "dledger-n0" / "data"
TERMS = {0: 1, 120: 2, 230: 4}  # scripts/make_sample_store_dledger.py


def _entries_by_hand() -> list[tuple[int, int, int, int]]:
    """(record offset, size, Raft index, term) of every entry, walked with struct over the data files."""
    found = []
    for path in sorted(DATA.iterdir()):
        data, start, pos = path.read_bytes(), int(path.name), 0
        while pos + 8 <= len(data):
            magic, size = struct.unpack_from(">ii", data, pos)
            if magic != 1:
                break
            _, _, index, term, at, _, _, _, body = struct.unpack_from(">iiqqqiiii", data, pos)
            assert at == start + pos and body + 48 == size
            found.append((start + pos + 48, body, index, term))
            pos += size
    return found


@pytest.fixture(scope="module")
def store():
    s = Store(SAMPLE)
    yield s
    s.close()


def test_one_offset_space_old_commitlog_then_entries(store) -> None:
    messages = [e for e in store.commitlog.entries() if isinstance(e, Message)]
    problems = [e for e in store.commitlog.entries() if isinstance(e, Problem)]
    assert problems == []
    old = [m for m in messages if m.file.startswith("commitlog/")]
    new = [m for m in messages if m.file.startswith("dledger-n0/data/")]
    assert len(old) == 100 and all(m.raft_index is None for m in old)
    assert [(m.physical_offset, m.total_size, m.raft_index, m.raft_term) for m in new] == _entries_by_hand()
    assert [m.raft_index for m in new] == list(range(302))
    assert all(m.raft_term == max(t for i, t in TERMS.items() if i <= m.raft_index) for m in new)
    assert all(m.stored_physical_offset == m.physical_offset for m in messages)
    blanks = [e for e in store.commitlog.entries() if isinstance(e, Blank)]
    assert [(b.file, b.position, b.total_size) for b in blanks][0] == ("commitlog/00000000000000000000", 39_727, 25_809)


def test_message_at_a_record_offset_carries_its_entry(store) -> None:
    msg = store.commitlog.message_at(65_584)
    assert (msg.file, msg.position, msg.raft_index, msg.raft_term) == ("dledger-n0/data/00000000000000065536", 48, 0, 1)
    assert msg.msg_id == "0A14000500002A9F0000000000010030"


def test_walk_from_a_record_offset_or_inside_an_entry(store) -> None:
    first = next(e for e in store.commitlog.entries(65_584) if isinstance(e, Message))
    assert first.physical_offset == 65_584
    following = next(e for e in store.commitlog.entries(65_585) if isinstance(e, Message))
    assert following.physical_offset == 65_584 + 412 + 48
    assert store.commitlog.boundary_before(65_584 + 100) == 65_536


def test_every_queue_unit_points_at_a_record(store) -> None:
    offsets = {m.physical_offset for m in store.commitlog.entries() if isinstance(m, Message)}
    units = [u for topic, qid in store.queue_ids() for u in store.queue(topic, qid).units() if not isinstance(u, Problem)]
    assert len(units) == 402 and {u.physical_offset for u in units} == offsets


@pytest.mark.parametrize("where", ["dledger-n0", "dledger-n0/data", "dledger-n0/index", "commitlog"])
def test_a_folder_of_the_store_opens_the_store(where: str) -> None:
    s = Store(SAMPLE / where)
    try:
        assert s.root == SAMPLE.resolve() and s.commitlog.message_at(65_584).raft_index == 0
    finally:
        s.close()


def test_a_term_file_that_is_a_fifo_or_huge_is_a_finding_not_a_hang(tmp_path):
    """checkpoint and currterm are read as small files (model.files.read_regular, as the config files are): a FIFO would
    block a plain read forever, a huge file would be read whole."""
    import os
    import shutil

    from inspector.engine.read.dledger.dledger import MAX_PROPERTIES_BYTES, DLedgerMember
    from parsers.dledger import CurrTerm, DLedgerCheckpoint

    root = tmp_path / "s"
    shutil.copytree(Path(__file__).resolve().parents[5] / "sample_store_dledger", root)
    home = root / "dledger-n0"
    (home / "currterm").unlink()
    os.mkfifo(home / "currterm")
    with open(home / "checkpoint", "r+b") as f:
        f.truncate(MAX_PROPERTIES_BYTES + 1)
    member = DLedgerMember(root, home)
    term, point = member.properties("currterm", CurrTerm), member.properties("checkpoint", DLedgerCheckpoint)
    assert term.values is None and "not a regular file" in term.fault
    assert point.values is None and "too large" in point.fault


def test_the_term_timeline_is_the_same_in_any_chunks() -> None:
    """dledger_view reads the index a chunk at a time: terms that change at a chunk's first unit, or not, and
    the sample's two index files (256 units each) give one timeline, equal to the whole index read at once."""
    import numpy as np

    from inspector.engine.read.dledger.dledger import _index_timeline, member_of

    root = Path(__file__).resolve().parents[5] / "sample_store_dledger"
    member = member_of(root, "dledger-n0/data")
    runs, _ = member.index_runs()
    units = np.concatenate([r.units for r in runs])
    term = units["term"].astype(np.int64)
    starts = [0, *(np.flatnonzero(np.diff(term)) + 1).tolist()]
    whole = (len(units), int(units["index"][0]), int(units["index"][-1]),
             [(int(term[k]), int(units["index"][k]), int(units["pos"][k])) for k in starts], 0)
    assert [t for t, *_ in whole[3]] == [1, 2, 4]
    for chunk in (1, 2, 3, 97, 256, 65536):
        assert _index_timeline(member, chunk) == whole, chunk
        shown = _index_timeline(member, chunk, terms_shown=2)  # past the cap: counted, not listed
        assert shown[3] == whole[3][:2] and shown[4] == 1, chunk


def test_a_timeline_past_its_cap_says_how_many_more(tmp_path, monkeypatch, capsys) -> None:
    """A damaged index whose terms flip at every unit: info lists the first TERMS_SHOWN changes and counts the
    rest, in the table, the JSON and the web overview."""
    import json
    import sys

    from inspector.cli.main import main
    from inspector.engine.read.dledger import dledger
    from web.app import create_app

    sys.path.insert(0, str(Path(__file__).parents[4]))
    from dledger_terms import TERM_CHANGES, flipping_terms

    root = flipping_terms(tmp_path / "store")
    monkeypatch.setattr(dledger, "TERMS_SHOWN", 10)
    assert main(["info", str(root), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["dledger"]
    assert len(d["terms"]) == 10 and d["terms_more"] == TERM_CHANGES - 10
    assert main(["info", str(root)]) == 0
    assert f"and {TERM_CHANGES - 10:,} more term changes" in capsys.readouterr().out
    page = create_app(str(root)).test_client().get("/").get_data(as_text=True)
    assert 'id="terms-more"' in page and f"{TERM_CHANGES - 10} more term changes" in page
