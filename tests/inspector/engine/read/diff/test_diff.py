"""diff of two stores with known answers: identical copies, a rebuilt copy, one flipped byte, one missing segment,
one extra record, a config field."""

from __future__ import annotations

import shutil
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


def _diff(a: Path, b: Path, limit: int = 100):
    with open_store(a) as sa, open_store(b) as sb:
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
