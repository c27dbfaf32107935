"""diff of two stores with known answers: identical copies, a rebuilt copy, one flipped byte, one missing segment,
one extra record, a config field."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from inspector.engine import diff_view, open_store, rebuild, store_diff
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from tests.multi_segment_store import GEOMETRY, write_multi_segment_store


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    return write_multi_segment_store(tmp_path_factory.mktemp("diff") / "a")


def _copy(base: Path, tmp_path: Path, name: str = "b") -> Path:
    return Path(shutil.copytree(base, tmp_path / name))


def _diff(a: Path, b: Path, limit: int = 100, slots_b: int = GEOMETRY.index_slots):
    """Each store opened with its index geometry (else its index files are not read)."""
    with open_store(a, index_slots=GEOMETRY.index_slots, index_items=GEOMETRY.index_items) as sa, \
            open_store(b, index_slots=slots_b, index_items=GEOMETRY.index_items) as sb:
        return store_diff(sa, sb, limit)


def test_identical_copy(base, tmp_path):
    d = _diff(base, _copy(base, tmp_path))
    assert d.identical and diff_view(d)["first_divergence"] is None


def test_rebuilt_copy_has_no_queue_difference(base, tmp_path):
    b = _copy(base, tmp_path)
    shutil.rmtree(b / "consumequeue")
    with open_store(base) as s:
        rebuild(s, tmp_path / "rebuilt", GEOMETRY)
    shutil.copytree(tmp_path / "rebuilt" / "consumequeue", b / "consumequeue")
    d = _diff(base, b)
    assert d.queues == [] and d.differing == [] and d.only_in_a == []


def test_one_flipped_byte(base, tmp_path):
    b = _copy(base, tmp_path)
    seg = b / "commitlog" / "00000000000000065536"
    data = bytearray(seg.read_bytes())
    data[1000] ^= 0xFF
    seg.write_bytes(bytes(data))
    d = _diff(base, b)
    assert d.first_divergence == 65536 + 1000
    assert [(r.start, r.end) for r in d.differing] == [(66536, 66537)]
    assert len(d.records) == 1 and d.records[0].offset <= 66536 and d.records[0].fields
    assert not (d.only_in_a or d.only_in_b or d.queues or d.files)


def test_one_missing_segment(base, tmp_path):
    b = _copy(base, tmp_path)
    (b / "commitlog" / "00000000000000131072").unlink()
    d = _diff(base, b)
    assert [(r.start, r.end) for r in d.only_in_a] == [(131072, 196608)]
    assert d.first_divergence == 131072
    assert not (d.only_in_b or d.differing or d.records or d.queues or d.files)


def test_one_extra_record(base, tmp_path):
    b = tmp_path / "b"
    with StoreWriter(b, GEOMETRY) as w:  # the base store's 1,500 messages and one more
        for i in range(1501):
            w.append(MessageSpec(topic=f"T{i % 3}", queue_id=i % 2, body=b"m" * 100, keys=[f"k{i}"],
                                 store_timestamp=1_758_272_400_000 + i))
    d = _diff(base, b)
    assert len(d.differing) == 1 and len(d.records) == 1
    assert d.first_divergence == d.differing[0].start
    # the record starts two bytes earlier: its TOTALSIZE's high bytes are zero, like A's unwritten space
    assert d.first_divergence - 4 < d.records[0].offset <= d.first_divergence
    assert d.records[0].note.startswith("a record only in B")
    assert [(q.topic, q.queue_id, q.max_a, q.max_b, q.first_differing_unit) for q in d.queues] == [
        ("T0", 0, 250, 251, 250)]
    # the writer stamps what it wrote last: the checkpoint's times and the config files' dataVersion follow it
    assert d.files and all(f.file == "checkpoint" or f.field.startswith("dataVersion.") for f in d.files)


def test_config_field(base, tmp_path):
    b = _copy(base, tmp_path)
    (b / "config").mkdir(exist_ok=True)
    (b / "config" / "consumerOffset.json.bak").write_text('{"offsetTable": {"T0@g": {"0": 7}}}')
    d = _diff(base, b)
    assert [(f.file, f.field, f.a, f.b) for f in d.files] == [
        ("config/consumerOffset.json.bak", "offsetTable.T0@g.0", None, "7")]


def test_limit_says_what_it_left_out(base, tmp_path):
    b = _copy(base, tmp_path)
    seg = b / "commitlog" / "00000000000000000000"
    data = bytearray(seg.read_bytes())
    for pos in (100, 5000, 9000):
        data[pos] ^= 1
    seg.write_bytes(bytes(data))
    d = _diff(base, b, limit=2)
    assert len(d.differing) == 2 and d.left_out == ["1 more differing byte range(s) past --limit 2"]
    assert diff_view(d)["partial"] is True


def test_a_rebuilt_index_of_another_geometry_holds_the_same_items(base, tmp_path):
    """Other slot counts put the items elsewhere (the files differ byte for byte): compared by what they point at."""
    b = _copy(base, tmp_path)
    shutil.rmtree(b / "index")
    slots = GEOMETRY.index_slots // 2 + 1
    with open_store(base, index_slots=GEOMETRY.index_slots, index_items=GEOMETRY.index_items) as s:
        rebuild(s, tmp_path / "rebuilt", replace(GEOMETRY, index_slots=slots))
    shutil.copytree(tmp_path / "rebuilt" / "index", b / "index")
    d = _diff(base, b, slots_b=slots)
    assert (d.index_only_in_a, d.index_only_in_b, d.index_items) == (0, 0, [])
    assert d.identical


def test_index_items_of_one_store_only_are_counted_listed_and_named(base, tmp_path):
    b = _copy(base, tmp_path)
    shutil.rmtree(b / "index")
    with open_store(base, index_slots=GEOMETRY.index_slots, index_items=GEOMETRY.index_items) as s:
        items = sum(len(r.items()) for r in s.index_files())
    d = _diff(base, b, limit=3)
    assert (d.index_only_in_a, d.index_only_in_b) == (items, 0) and items > 3
    assert [i.side for i in d.index_items] == ["A"] * 3
    assert all(i.key.startswith("T") and "#" in i.key for i in d.index_items)  # TOPIC#KEY of the record
    assert d.left_out == [f"{items - 3} more index item(s) present in one store only past --limit 3"]
    assert diff_view(d)["index_only_in_a"] == items


def test_an_extra_record_brings_its_index_items(base, tmp_path):
    b = tmp_path / "b"
    with StoreWriter(b, GEOMETRY) as w:
        for i in range(1501):
            w.append(MessageSpec(topic=f"T{i % 3}", queue_id=i % 2, body=b"m" * 100, keys=[f"k{i}"],
                                 store_timestamp=1_758_272_400_000 + i))
    d = _diff(base, b)
    assert d.index_only_in_a == 0 and d.index_only_in_b >= 1
    assert "T0#k1500" in {i.key for i in d.index_items if i.side == "B"}


def _set_term(store: Path, raft_index: int, term: int) -> None:
    path = store / "dledger-n0" / "index" / ("0" * 20)
    data = bytearray(path.read_bytes())
    data[raft_index * 32 + 24 : raft_index * 32 + 32] = term.to_bytes(8, "big")  # IndexUnit.term
    path.write_bytes(bytes(data))


def test_dledger_terms_same_and_diverging(tmp_path):
    sample = Path(__file__).resolve().parents[5] / "sample_store_dledger"
    a, b = _copy(sample, tmp_path, "a"), _copy(sample, tmp_path, "b")
    same = _diff(a, b)
    assert same.identical and same.terms is not None and same.terms.same
    assert same.terms.last_index_a == same.terms.last_index_b > 5
    _set_term(b, 5, 99)
    d = _diff(a, b)
    assert (d.terms.diverges_at, d.terms.term_a, d.terms.term_b) == (5, 1, 99)  # the sample's first leader's term
    assert not d.identical and diff_view(d)["dledger_terms"]["same"] is False


def test_dledger_terms_stream_in_chunks_and_count_what_one_holds_past_the_other(tmp_path, monkeypatch):
    """Read side by side a chunk at a time: the same answer with 2-unit chunks as with the default ones."""
    from inspector.engine.read.dledger.dledger import DLedgerMember

    sample = Path(__file__).resolve().parents[5] / "sample_store_dledger"
    a, b = _copy(sample, tmp_path, "a"), _copy(sample, tmp_path, "b")
    _set_term(b, 7, 42)
    last = _diff(a, b).terms.last_index_b
    index = max((f for f in (b / "dledger-n0" / "index").iterdir() if int(f.name) <= last * 32), key=lambda f: int(f.name))
    at = last * 32 - int(index.name)  # DLedger writes entry i's unit at i * 32 of the index files
    data = bytearray(index.read_bytes())
    data[at : at + 32] = bytes(32)  # B's last entry gone from its index
    index.write_bytes(bytes(data))
    default = _diff(a, b).terms
    chunked = DLedgerMember.index_chunks
    monkeypatch.setattr(DLedgerMember, "index_chunks",
                        lambda self, *args, **kw: chunked(self, *args, **{**kw, "chunk_units": 2}))
    small = _diff(a, b).terms
    assert default == small
    assert (small.diverges_at, small.term_b, small.only_in_a, small.only_in_b) == (7, 42, 1, 0)
    assert small.last_index_b == last - 1
