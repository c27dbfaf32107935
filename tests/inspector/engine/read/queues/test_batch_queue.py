"""Batch consume queues read from disk (spec §4.3) and inner-batch records unwrapped (spec §2.10)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from inspector.engine.model.errors import NotFound, StoreError
from inspector.engine.model.records import InnerMessage
from inspector.engine.read.queues.batchconsumequeue import BCQ_UNIT_DTYPE, inner_messages
from inspector.engine.read.store.store import Store
from parsers.consumequeue import BatchConsumeQueueUnit

sys.path.insert(0, str(Path(__file__).parents[4]))
from batch_store import BATCH_TOPIC, T0, write_batch_store  # noqa: E402


@pytest.fixture(scope="module")
def batch_store(tmp_path_factory):
    root = tmp_path_factory.mktemp("bcq-read") / "store"
    results = write_batch_store(root)
    with Store(root) as store:
        yield store, results


def test_dtype_equals_the_schema() -> None:
    values = dict(physical_offset=168, size=589, tags_code=-5, store_timestamp=T0, msg_base_offset=4, batch_size=3,
                  compacted_offset=-1, reserved=0)
    unit = np.frombuffer(BatchConsumeQueueUnit.build(values), dtype=BCQ_UNIT_DTYPE)[0]
    assert BCQ_UNIT_DTYPE.itemsize == 46
    assert {name: int(unit[name]) for name in BCQ_UNIT_DTYPE.names} == values


def test_batch_queues_are_listed_beside_the_plain_ones(batch_store) -> None:
    store, _ = batch_store
    assert store.queue_ids() == [("Plain", 0)]
    assert store.batch_queue_ids() == [(BATCH_TOPIC, 0)]
    assert BATCH_TOPIC in store.topics()
    infos = {(i.topic, i.kind): i for i in store.queue_infos()}
    batch = infos[(BATCH_TOPIC, "batchconsumequeue")]
    assert (batch.min_offset, batch.max_offset, batch.message_count, batch.units) == (0, 8, 8, 3)
    assert batch.files == (f"batchconsumequeue/{BATCH_TOPIC}/0/00000000000000000000",)
    assert infos[("Plain", "consumequeue")].message_count == 2


def test_each_inner_message_is_its_own_row(batch_store) -> None:
    store, results = batch_store
    rows = list(store.queue_messages(BATCH_TOPIC, 0))
    assert [u.queue_offset for u, _ in rows] == list(range(8))
    assert [m.queue_offset for _, m in rows] == list(range(8))
    messages = [m for _, m in rows]
    assert [m.body for m in messages[:7]] == [f"inner body {i}".encode() for i in range(7)]
    assert messages[7].body == b"single" and not isinstance(messages[7], InnerMessage)
    assert [m.keys for m in messages] == [[f"key{i}"] for i in range(8)]
    assert [m.tags for m in messages[:7]] == [f"Tag{i % 2}" for i in range(7)]
    keys = results[1].inner_unique_keys + results[2].inner_unique_keys
    assert tuple(m.unique_key for m in messages[:7]) == keys
    assert [m.physical_offset for m in messages] == [results[1].physical_offset] * 4 + \
        [results[2].physical_offset] * 3 + [results[3].physical_offset]
    assert [(m.inner_index, m.inner_count, m.base_queue_offset) for m in messages[4:7]] == [(0, 3, 4), (1, 3, 4),
                                                                                          (2, 3, 4)]
    assert messages[5].properties["n"] == "5" and all(m.body_crc_ok for m in messages)
    assert [u.position for u, _ in rows] == [0] * 4 + [46] * 3 + [92]


@pytest.mark.parametrize("start, first", [(0, 0), (2, 2), (4, 4), (5, 5), (7, 7)])
def test_from_inside_a_batch_starts_at_that_message(batch_store, start, first) -> None:
    store, _ = batch_store
    rows = list(store.queue_messages(BATCH_TOPIC, 0, start))
    assert [m.queue_offset for _, m in rows] == list(range(first, 8))


def test_lookups_by_queue_offset_and_time(batch_store) -> None:
    store, results = batch_store
    assert store.message_by_queue_offset(BATCH_TOPIC, 0, 5).body == b"inner body 5"
    assert store.message_by_queue_offset(BATCH_TOPIC, 0, 7).body == b"single"
    with pytest.raises(NotFound):
        store.message_by_queue_offset(BATCH_TOPIC, 0, 8)
    bcq = store.queue(BATCH_TOPIC, 0)
    assert bcq.unit(6).physical_offset == results[2].physical_offset and bcq.unit(6).queue_offset == 6
    with pytest.raises(NotFound):
        bcq.unit(8)
    assert store.queue_offset_by_time(BATCH_TOPIC, 0, T0 + 2) == 4
    assert store.queue_offset_by_time(BATCH_TOPIC, 0, T0 + 3) == 7


def test_inner_messages_of_a_record(batch_store) -> None:
    store, results = batch_store
    record = store.message_at(results[1].physical_offset)
    inner = inner_messages(record)
    assert [m.queue_offset for m in inner] == [0, 1, 2, 3]
    assert all(m.topic == BATCH_TOPIC and m.store_timestamp == T0 + 1 and m.flag == 0 for m in inner)


def test_a_cut_inner_body_is_an_error_naming_the_record(batch_store) -> None:
    from dataclasses import replace

    store, results = batch_store
    record = store.message_at(results[1].physical_offset)
    with pytest.raises(StoreError, match="runs past|less than") as e:
        inner_messages(replace(record, body=record.body[:-5]))
    assert e.value.file == "commitlog/00000000000000000000" and e.value.offset == results[1].physical_offset


def test_inner_keys_are_found_though_the_broker_does_not_index_them(batch_store) -> None:
    store, results = batch_store
    hits = store.lookup_key(BATCH_TOPIC, "key5")
    assert [(h.message.queue_offset, h.message.body, h.matched_by) for h in hits] == [(5, b"inner body 5", "key")]
    assert "does not index" in hits[0].note and hits[0].index_file.startswith("batchconsumequeue/")
    inner_key = results[2].inner_unique_keys[0]
    assert [h.message.queue_offset for h in store.lookup_unique_key(inner_key)] == [4]
    assert [h.message.body for h in store.lookup_key(BATCH_TOPIC, "key7")] == [b"single"]  # through the index
    assert store.lookup_key(BATCH_TOPIC, "key5", T0 + 3) == []  # outside the time window
    assert store.find(inner_key).physical_offset == results[2].physical_offset


def test_hex_layout_names_each_inner_item_field(batch_store) -> None:
    from inspector.engine.present.layout import message_fields

    store, results = batch_store
    record = store.message_at(results[1].physical_offset)
    spans = message_fields(record)
    assert spans[0].start == record.physical_offset and spans[-1].end == record.end_offset
    assert all(a.end == b.start for a, b in zip(spans, spans[1:], strict=False))  # contiguous, in order
    inner = [s for s in spans if s.number.startswith("15b.")]
    assert len(inner) == 4 * 8 and inner[0].start == spans[14].end  # right after BODY length
    bodies = [s.value for s in inner if s.name.endswith(" body")]
    assert bodies == [f"inner body {i}" for i in range(4)]
    plain = store.message_at(results[3].physical_offset)
    assert [s.number for s in message_fields(plain)].count("15b") == 1


def test_strays_in_batchconsumequeue_are_listed(tmp_path) -> None:
    root = tmp_path / "s"
    write_batch_store(root)
    (root / "batchconsumequeue" / BATCH_TOPIC / "0" / "notes.txt").write_text("x")
    (root / "batchconsumequeue" / BATCH_TOPIC / "q1").mkdir()
    with Store(root) as store:
        found = {(p.file, p.code) for p in store.unknown_files()}
        assert store.batch_queue(BATCH_TOPIC, 0).info().max_offset == 8
    assert found == {(f"batchconsumequeue/{BATCH_TOPIC}/0/notes.txt", "unknown-file"),
                     (f"batchconsumequeue/{BATCH_TOPIC}/q1", "unknown-file")}


def test_a_unit_whose_last_offset_passes_a_java_long_is_a_bad_unit(tmp_path) -> None:
    """Issue 35: msgBaseOffset 2^63-1 + batchSize wraps negative in Java; it was an OverflowError in verify."""
    import struct

    root = tmp_path / "s"
    write_batch_store(root)
    rel = "batchconsumequeue/Direct5BatchCQ/0/00000000000000000000"
    with open(root / rel, "r+b") as f:
        f.seek(2 * 46 + 28)
        f.write(struct.pack(">q", (1 << 63) - 1))
    with Store(root) as s:
        items = list(s.batch_queue("Direct5BatchCQ", 0).units(0))
        info = s.batch_queue("Direct5BatchCQ", 0).info()
    bad = [p for p in items if getattr(p, "code", None) == "bcq-bad-unit"]
    assert [(p.file, p.offset) for p in bad] == [(rel, 92)] and "past the largest Java long" in bad[0].reason
    assert info.max_offset < 1 << 63
