"""The guided tour: every step finds its case in the store it is given, and points at the right bytes.

Each target is checked against the store's own bytes or the engine's other look-ups, not against the tour's
text. The sample store has every case; a writer-built store lacks the hash collision, an empty one lacks
almost everything, and a damaged copy has a torn tail the tour must point at.
"""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest

from inspector.engine import Store
from inspector.engine.model.geometry import Geometry
from inspector.engine.read.store.answers import find_collisions, recover
from inspector.engine.workshop.tour_steps import STEP_IDS, tour_steps
from inspector.engine.workshop.tour_targets import (
    ChainTarget,
    CqTarget,
    DirectoryTarget,
    HexTarget,
    IdsTarget,
    IndexHeaderTarget,
    RebuildTarget,
    RecoveryTarget,
    step_view,
)
from parsers.java import index_key, index_key_hash, java_string_hash
from parsers.msgid import decode_offset_msg_id

SAMPLE = Path(__file__).resolve().parents[4] / "sample_store"

KINDS = {"directory": DirectoryTarget, "record": HexTarget, "segment-end": HexTarget, "cq-unit": CqTarget,
         "key-chain": ChainTarget, "index-header": IndexHeaderTarget, "collision": ChainTarget, "ids": IdsTarget,
         "delay": CqTarget, "transaction": HexTarget, "torn-tail": RecoveryTarget, "rebuild": RebuildTarget,
         "retention": HexTarget, "retry-dlq": HexTarget}


@pytest.fixture(scope="module")
def sample():
    with Store(SAMPLE) as s:
        yield s


@pytest.fixture(scope="module")
def steps(sample):
    return {s.id: s for s in tour_steps(sample)}


def _bytes(store: Store, start: int, end: int) -> bytes:
    return store.commitlog.read(start, end - start)


def test_the_tour_has_every_step_in_order_and_the_sample_store_has_every_case(sample):
    steps = tour_steps(sample)
    assert [s.id for s in steps] == list(STEP_IDS) and [s.number for s in steps] == list(range(1, 15))
    for s in steps:
        assert s.available and s.missing_reason is None, s.id
        assert isinstance(s.target, KINDS[s.id]), s.id
        assert s.target.kind == {DirectoryTarget: "directory", HexTarget: "hex", CqTarget: "cq", ChainTarget: "chain",
                                 IndexHeaderTarget: "index-header", IdsTarget: "ids", RecoveryTarget: "recovery",
                                 RebuildTarget: "rebuild"}[type(s.target)]
        assert len(re.findall(r"[.!?](\s|$)", s.text)) >= 3, f"{s.id}: a few sentences"
        assert s.commands and all(c.startswith("rmq-inspect ") for c in s.commands)
    assert tour_steps(sample) == steps  # deterministic


def test_steps_are_plain_frozen_data_and_serialise(steps):
    for s in steps.values():
        with pytest.raises(AttributeError):
            s.title = "changed"  # type: ignore[misc]
        view = step_view(s)
        assert json.loads(json.dumps(view)) == view
        assert view["target"]["kind"] == s.target.kind
    cq = step_view(steps["cq-unit"])["target"]
    assert [h["label"] for h in cq["highlights"]] == ["physical offset", "size", "tagsCode"]


def test_directory_step_lists_the_folders_that_exist(steps):
    t = steps["directory"].target
    paths = {e.path: e for e in t.entries}
    assert set(paths) == {"commitlog/", "consumequeue/", "index/", "checkpoint", "config/", "lock"}
    # the column counts files: 20 consume-queue files (OrderEvents queue 3 has two) for 19 queues (issue 27: it
    # said 19, the number of queues, which the text gives)
    assert (paths["commitlog/"].count, paths["consumequeue/"].count, paths["index/"].count) == (3, 20, 3)
    assert "(19 queues of 8 topics here)" in steps["directory"].text
    assert "abort" not in paths and "shut down cleanly" in steps["directory"].text


def test_record_step_marks_every_field_of_one_ordinary_record(sample, steps):
    t = steps["record"].target
    msg = sample.message_at(t.start)
    assert t.end == msg.end_offset and msg.transaction == "NOT_TYPE" and msg.tags and msg.keys
    spans = t.highlights
    assert spans[0].start == t.start and spans[-1].end == t.end
    assert all(a.end == b.start for a, b in zip(spans, spans[1:], strict=False))  # contiguous, in order
    assert [s.label.split(" ", 1)[1] for s in spans][:3] == ["TOTALSIZE", "MAGICCODE", "BODYCRC"]
    raw = _bytes(sample, t.start, t.end)
    assert struct.unpack(">i", raw[:4])[0] == msg.total_size and raw[4:8].hex().upper() == "DAA320A7"
    assert f"TOTALSIZE = {msg.total_size - len(msg.body) - len(msg.topic)}" not in steps["record"].text
    assert f"= 91 + {len(msg.body)} + {len(msg.topic)}" in steps["record"].text


def test_segment_end_step_highlights_the_blank_record(sample, steps):
    t = steps["segment-end"].target
    spans = {s.label: s for s in t.highlights}
    magic, size = spans["2 MAGICCODE"], spans["1 TOTALSIZE"]
    assert t.focus == "MAGICCODE" and magic.start == size.end
    assert _bytes(sample, magic.start, magic.end).hex().upper() == "CBD43194"
    seg = sample.commitlog.segment_for(size.start)
    left = struct.unpack(">i", _bytes(sample, size.start, size.end))[0]
    assert size.start + left == seg.end_offset  # the BLANK's size reaches the end of the file
    assert (size.start, left) == (65518, 18)  # sample_store/README.md case 2
    assert set(_bytes(sample, magic.end, seg.end_offset)) == {0}
    nxt = steps["segment-end"].extra[0]
    first = sample.message_at(nxt.start)
    assert nxt.start == seg.end_offset and first.total_size + 8 > left
    assert f"{first.total_size} + 8 = {first.total_size + 8} > {left}" in steps["segment-end"].text


def test_cq_unit_step_points_at_a_unit_and_its_record(sample, steps):
    t = steps["cq-unit"].target
    raw = (SAMPLE / t.file).read_bytes()[t.position:t.position + 20]
    assert raw.hex().upper() == t.unit_hex
    assert struct.unpack(">qiq", raw) == (t.physical_offset, t.size, t.tags_code)
    assert int(Path(t.file).name) // 20 + t.position // 20 == t.queue_offset
    assert int(Path(t.file).name) > 0  # the sample store's second file of OrderEvents queue 3: named by bytes
    msg = sample.message_at(t.physical_offset)
    assert (msg.topic, msg.queue_id, msg.queue_offset, msg.total_size) == (t.topic, t.queue_id, t.queue_offset, t.size)
    assert t.tags_code == java_string_hash(msg.tags) and t.record_end == msg.end_offset
    record = steps["cq-unit"].extra[0]
    assert record.start == t.physical_offset and record.focus == "QUEUEOFFSET"


def test_key_chain_step_follows_a_real_chain(sample, steps):
    t = steps["key-chain"].target
    assert t.key_string == index_key(t.topic, t.key) and t.key_hash == index_key_hash(t.key_string) == abs(t.hash_code)
    assert t.slot == t.key_hash % t.slot_count and t.slot_position == 40 + 4 * t.slot
    data = (SAMPLE / t.file).read_bytes()
    assert struct.unpack_from(">i", data, t.slot_position)[0] == t.slot_value == t.items[0]
    assert len(t.items) >= 3 and t.matching_items and t.other_hash_items and not t.collision_items
    assert set(t.matching_items) | set(t.other_hash_items) == set(t.items)
    reader = next(r for r in sample.index_files() if r.rel == t.file)
    for n, nxt in zip(t.items, t.items[1:], strict=False):
        assert reader.item(n).prev_index == nxt  # each item links to the next older one
    for n in t.matching_items:
        msg = sample.message_at(reader.item(n).phy_offset)
        assert msg.topic == t.topic and (t.key in msg.keys or t.key == msg.unique_key)


def test_index_header_step_reads_the_two_misread_counters(sample, steps):
    t = steps["index-header"].target
    raw = (SAMPLE / t.file).read_bytes()[:40]
    assert dict(t.values) == dict(zip(("begin_timestamp", "end_timestamp", "begin_phy_offset", "end_phy_offset",
                                       "hash_slot_count", "index_count"), struct.unpack(">qqqqii", raw), strict=True))
    assert t.fields == ("hash_slot_count", "index_count") and [(s.start, s.end) for s in t.highlights] == [(32, 36), (36, 40)]
    values = dict(t.values)
    assert t.used_slots == values["hash_slot_count"] < t.slot_count == 128
    assert t.items_written == values["index_count"] - 1
    assert f"hashSlotCount is {values['hash_slot_count']} here" in steps["index-header"].text


def test_collision_step_finds_the_sample_store_coupons(sample, steps):
    t = steps["collision"].target
    assert {t.key, t.other_key} == {"coupon-Aa7K", "coupon-BB7K"} and t.topic == "OrderEvents"
    assert java_string_hash(index_key(t.topic, t.key)) == java_string_hash(index_key(t.topic, t.other_key))
    assert t.collision_items and t.matching_items
    reader = next(r for r in sample.index_files() if r.rel == t.file)
    for n in t.collision_items:
        msg = sample.message_at(reader.item(n).phy_offset)
        assert t.other_key in msg.keys and t.key not in msg.keys
    assert find_collisions(sample)[0].key_hash == t.key_hash


def test_ids_step_gives_both_ids_of_one_message(sample, steps):
    t = steps["ids"].target
    msg = sample.message_at(t.physical_offset)
    assert t.msg_id == msg.msg_id and t.unique_key == msg.unique_key
    assert decode_offset_msg_id(t.msg_id).offset == t.physical_offset
    assert dict(t.msg_id_fields)["physical offset"] == str(t.physical_offset)
    assert dict(t.unique_key_fields)["producer host"] == msg.born_host.ip


def test_delay_step_shows_a_delivery_time_as_tags_code(sample, steps):
    t = steps["delay"].target
    assert t.topic == "SCHEDULE_TOPIC_XXXX"
    msg = sample.message_at(t.physical_offset)
    level = int(msg.properties["DELAY"])
    assert t.queue_id == level - 1 and t.tags_code == msg.store_timestamp + Geometry().delay_ms(level)
    assert (t.physical_offset, t.tags_code) == (56961, 1758282591903)  # sample_store/README.md case 6
    assert "delivery time" in t.tags_meaning
    delivered = steps["delay"].extra[1]
    copy = sample.message_at(delivered.start)
    assert copy.topic == msg.properties["REAL_TOPIC"] and copy.unique_key == msg.unique_key


def test_transaction_step_links_commit_half_and_op(sample, steps):
    t = steps["transaction"].target
    commit = sample.message_at(t.start)
    assert commit.transaction == "COMMIT" and t.focus == "PREPARED TRANSACTION OFFSET"
    span = next(s for s in t.highlights if s.label.endswith("PREPARED TRANSACTION OFFSET"))
    assert struct.unpack(">q", _bytes(sample, span.start, span.end))[0] == commit.prepared_transaction_offset
    half_view, op_view = steps["transaction"].extra
    half = sample.message_at(half_view.start)
    assert half.physical_offset == commit.prepared_transaction_offset and half.topic == "RMQ_SYS_TRANS_HALF_TOPIC"
    op = sample.message_at(op_view.start)
    assert op.topic == "RMQ_SYS_TRANS_OP_HALF_TOPIC" and str(half.queue_offset) in op.body.decode().split(",")
    assert (half.physical_offset, commit.physical_offset, op.physical_offset) == (35717, 36317, 36856)


def test_torn_tail_step_explains_a_clean_end(sample, steps):
    t = steps["torn-tail"].target
    r = recover(sample)
    assert not t.torn and t.end_offset == r.end_offset == sample.max_offset() and t.problem_offset is None
    assert t.start == r.last_record_offset and {s.label for s in t.highlights} == {"last record", "zeros: end of the log"}
    assert set(_bytes(sample, t.end_offset, t.end)) == {0}
    assert "no torn tail" in steps["torn-tail"].text


def test_torn_tail_step_points_at_a_real_torn_tail(store_copy):
    root, facts = store_copy
    with Store(root) as s:
        last = s.message_at(facts["last"])
        seg = s.commitlog.segment_for(last.physical_offset)
    path = root / seg.file
    data = bytearray(path.read_bytes())
    pos = last.physical_offset - seg.start_offset
    data[pos + 40:pos + last.total_size] = bytes(last.total_size - 40)  # the record was only partly written
    path.write_bytes(bytes(data))
    with Store(root) as s:
        step = next(x for x in tour_steps(s) if x.id == "torn-tail")
    t = step.target
    assert step.available and t.torn and t.problem_offset == last.physical_offset == t.end_offset
    assert t.highlights[-1].start == last.physical_offset and "torn tail" in step.text


def test_rebuild_step_counts_what_rebuild_would_write(sample, steps):
    t = steps["rebuild"].target
    assert t.cq_units == sum(q.message_count for q in sample.queue_infos()) == 402
    assert t.index_items == sum(r.header.items_written for r in sample.index_files()) == 1283
    assert (t.min_offset, t.end_offset, t.queues, t.index_files) == (0, 164823, 19, 3)
    assert t.command.startswith("rmq-inspect rebuild ") and "--out" in t.command


def test_retention_step_on_a_fresh_store_points_at_offset_0(sample, steps):
    step = steps["retention"]
    t = step.target
    first = sample.message_at(0)
    assert step.available and (t.start, t.end) == (0, first.end_offset) and t.focus == "PHYSICALOFFSET"
    assert _bytes(sample, t.start, t.start + 4) == struct.pack(">i", first.total_size)
    assert "Nothing has expired" in step.text and "sample_store_aged" in step.text


def test_retention_step_on_the_aged_sample_counts_what_points_below(tmp_path):
    """sample_store_aged/ (retention removed its first two segments): the step shows the log's first record and
    counts the units below each queue's effective min, as verify's cq-expired findings do."""
    from inspector.engine import verify

    with Store(SAMPLE.parent / "sample_store_aged") as aged:
        step = next(x for x in tour_steps(aged) if x.id == "retention")
        first = aged.commitlog.retention_floor
        report = verify(aged)
        t = step.target
        assert step.available and t.start == first == 65_536 and t.highlights
        focus = next(h for h in t.highlights if h.label.endswith("PHYSICALOFFSET"))
        assert struct.unpack(">q", _bytes(aged, focus.start, focus.end))[0] == first
    units = sum(int(p.reason.split(" ", 1)[0]) for p in report.problems if p.code == "cq-expired")
    queues = len({p.file.rsplit("/", 1)[0] for p in report.problems if p.code == "cq-expired"})
    assert f"{units} unit(s) in {queues} queue(s)" in step.text and f"offset {first:,}" in step.text
    assert "index file 20250919112604685" in step.text


def test_retry_dlq_step_follows_the_poison_order_to_its_dead_letter(sample, steps):
    """sample_store's poison order (scripts/sample_store.toml): billing-consumer failed on its PaymentEvents message
    at 86020 three times, each send-back parked in SCHEDULE_TOPIC_XXXX (levels 3, 4, 5) then delivered into
    %RETRY%billing-consumer, and its fourth failure wrote the dead letter at 90151."""
    step = steps["retry-dlq"]
    t = step.target
    dead = sample.message_at(90151)
    assert step.available and step.number == 14 and t.focus == "RECONSUMETIMES"
    assert (t.start, t.end) == (90151, dead.end_offset) and dead.topic == "%DLQ%billing-consumer"
    focus = next(h for h in t.highlights if h.label.endswith("RECONSUMETIMES"))
    assert struct.unpack(">i", _bytes(sample, focus.start, focus.end))[0] == dead.reconsume_times == 4
    assert [(e.start, e.focus) for e in step.extra] == [(86020, "TOPIC"), (86383, "PROPERTIES"),
                                                        (86883, "RECONSUMETIMES")]
    assert [sample.message_at(e.start).topic for e in step.extra] == ["PaymentEvents", "SCHEDULE_TOPIC_XXXX",
                                                                     "%RETRY%billing-consumer"]
    assert "3 such parked copies (delay levels 3, 4, 5) and 3 delivered into %RETRY%billing-consumer" in step.text
    assert "all 8 records" in step.text and "ORIGIN_MESSAGE_ID 0A14000500002A9F0000000000015004" in step.text
    assert step.commands[0].startswith("rmq-inspect story ") and step.commands[0].endswith("0A1401151E276D06D69C5F7499F40168")


def test_a_store_without_a_case_says_so(pristine_store):
    root, facts = pristine_store
    with Store(root) as s:
        assert find_collisions(s) == []
        steps = {x.id: x for x in tour_steps(s)}
    missing = [x for x in steps.values() if not x.available]
    assert [x.id for x in missing] == ["collision", "retry-dlq"]
    assert missing[0].target is None and "No two different keys" in missing[0].missing_reason
    assert missing[1].target is None and "No message of this store was dead-lettered" in missing[1].missing_reason
    assert steps["delay"].target.physical_offset == facts["delayed"]  # found by search, not by a fixed offset
    assert steps["transaction"].target.start == facts["commit"]
    assert steps["transaction"].extra[0].start == facts["half"]


def test_an_empty_store_gives_reasons_not_errors(tmp_path):
    (tmp_path / "commitlog").mkdir()
    with Store(tmp_path) as s:
        steps = tour_steps(s)
    assert [x.id for x in steps if x.available] == ["directory"]
    assert all(x.missing_reason and x.text == x.missing_reason for x in steps if not x.available)


def test_every_highlight_starts_inside_its_hex_window(steps):
    for s in steps.values():
        for target in (s.target, *s.extra):
            if isinstance(target, HexTarget | RecoveryTarget):
                assert target.highlights, s.id
                for span in target.highlights:
                    assert target.start <= span.start < span.end and span.start < target.end, (s.id, span)
