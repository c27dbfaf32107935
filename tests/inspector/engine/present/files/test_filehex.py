"""file_hex: a window of a consume-queue, batch consume-queue or index file with its units named (issue 33)."""

from __future__ import annotations

import os
import shutil
import struct
from pathlib import Path

import pytest

from inspector.engine import BadInput, NotFound, Store, StoreError, file_hex, store_file

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store"
CQ = "consumequeue/OrderEvents/0/00000000000000000000"
INDEX = "index/20250919090000196"


@pytest.fixture
def store():
    with Store(SAMPLE) as s:
        yield s


def test_units_are_named_with_the_parsers_values_and_queue_offsets(store):
    hexed = file_hex(store, CQ, 30, 40)  # starts inside unit 1, ends inside unit 3
    assert [r.label for r in hexed.regions] == ["unit 1, queue offset 1", "unit 2, queue offset 2",
                                                "unit 3, queue offset 3"]
    unit = hexed.regions[1]
    raw = (SAMPLE / CQ).read_bytes()[40:60]
    offset, size, tags = struct.unpack(">qiq", raw)
    assert [(f.name, f.start, f.length, f.value) for f in unit.fields] == [
        ("CQ offset (commitlog)", 40, 8, f"{offset:,}"), ("size", 48, 4, f"{size:,}"), ("tags code", 52, 8, f"{tags:,}")]
    assert store.message_at(offset).topic == "OrderEvents" and store.message_at(offset).queue_offset == 2
    assert hexed.problem is None and hexed.size == 800


def test_the_unwritten_tail_and_a_torn_unit(tmp_path):
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    with open(root / CQ, "ab") as f:
        f.write(b"\x01" * 7)
    with Store(root) as s:
        hexed = file_hex(s, CQ, 700, 200)
    kinds = [(r.kind, r.label) for r in hexed.regions]
    assert kinds[0] == ("unit", "unit 35, queue offset 35")
    assert ("zero", "unit 36, queue offset 36 (not written)") in kinds
    assert hexed.regions[-1].kind == "damaged" and hexed.regions[-1].start == 800
    assert hexed.problem == "file size 807 is not a multiple of the 20-byte unit: the last 7 bytes are a torn unit"


def test_index_header_slots_and_items(store):
    hexed = file_hex(store, INDEX, 0, 48)
    header, *slots = hexed.regions
    assert header.kind == "header" and [f.name for f in header.fields] == [
        "beginTimestamp", "endTimestamp", "beginPhyOffset", "endPhyOffset", "hashSlotCount", "indexCount"]
    assert [s.label for s in slots] == ["slot 0", "slot 1"]
    items_at = 40 + 128 * 4
    item = file_hex(store, INDEX, items_at + 20, 20).regions[0]
    assert item.label == "item 1" and [f.name for f in item.fields] == ["keyHash", "phyOffset", "timeDiff (s)",
                                                                       "prevIndex"]
    assert hexed.layout == "header 40 + 128 slots x 4 + 512 items x 20 = 10,792 bytes"


def test_store_file_takes_only_queue_and_index_files_inside_the_store(store):
    assert store_file(store, SAMPLE / CQ) == CQ
    assert store_file(store, INDEX) == INDEX
    with pytest.raises(NotFound):
        store_file(store, "index/nope")
    with pytest.raises(BadInput, match="not a consume-queue"):
        store_file(store, "commitlog/00000000000000000000")
    with pytest.raises(BadInput, match="not inside the store"):
        store_file(store, "../README.md")


def test_a_fifo_where_the_file_was_is_refused_never_waited_on(tmp_path):
    # store_file looked at a regular file; the broker's directory changed under the viewer: one line, no hang
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    with Store(root) as s:
        rel = store_file(s, CQ)
        (root / CQ).unlink()
        os.mkfifo(root / CQ)
        with pytest.raises(StoreError, match="not a regular file"):
            file_hex(s, rel, 0, 64)
