"""Salvage from a replica (a span taken only where the copy reads whole and agrees around it), the stand-in
records checked against bytes laid out by hand from the spec (§2.1 record, §2.11 BLANK), and bad input."""

from __future__ import annotations

import shutil
import struct
import sys
from pathlib import Path

import pytest

from inspector.engine import BadInput, Message, Store, salvage, salvage_plan, verify
from inspector.engine.maintain.salvage.filler import FillerCounter, Stamp, fill_span
from inspector.engine.maintain.salvage.lost import LostRecord
from inspector.engine.model.crc import rocketmq_crc32

sys.path.insert(0, str(Path(__file__).parents[4] / "hardening"))
from damage_scenarios import SAMPLE, zeroed_page_mid_segment  # noqa: E402
from store_digest import tree_digest  # noqa: E402

MAGIC_V1 = 0xDAA320A7  # MessageDecoder.MESSAGE_MAGIC_CODE (spec §2.1)
BLANK_MAGIC = 0xCBD43194 - (1 << 32)  # CommitLog.BLANK_MAGIC_CODE, as a Java int


def _damaged(tmp_path) -> Path:
    root = Path(shutil.copytree(SAMPLE, tmp_path / "a"))
    zeroed_page_mid_segment(root)
    return root


def test_a_replica_that_agrees_gives_the_span_back(tmp_path):
    root = _damaged(tmp_path)
    replica = Path(shutil.copytree(SAMPLE, tmp_path / "b"))
    before = tree_digest(root), tree_digest(replica)
    with Store(root) as a, Store(replica) as b:
        plan = salvage_plan(a, b)
        assert [s.state for s in plan.spans if s.state != "intact"] == ["recoverable"]
        assert plan.exit_code == 0
        salvage(a, tmp_path / "out", b)
    assert (tree_digest(root), tree_digest(replica)) == before
    with Store(tmp_path / "out") as out, Store(SAMPLE) as pristine:
        assert verify(out).errors == []
        for seg in pristine.commitlog.segments:  # the log is the undamaged one again, byte for byte
            n = seg.file_size
            assert out.commitlog.read(seg.start_offset, n) == pristine.commitlog.read(seg.start_offset, n)


def test_a_replica_that_differs_around_the_span_is_not_taken(tmp_path):
    root = _damaged(tmp_path)
    replica = Path(shutil.copytree(SAMPLE, tmp_path / "b"))
    with Store(root) as a:
        span = next(s for s in salvage_plan(a).spans if s.state == "lost")
    seg = replica / "commitlog" / f"{0:020d}"
    data = bytearray(seg.read_bytes())
    data[span.start - 10] ^= 0xFF  # the intact record before the span differs in the copy
    seg.write_bytes(bytes(data))
    with Store(root) as a, Store(replica) as b:
        plan = salvage_plan(a, b)
    assert [s.state for s in plan.spans if s.state != "intact"] == ["lost"]
    assert any("differs from this store" in n for n in plan.notes)


def test_placeholder_and_blank_bytes_by_hand():
    lost = LostRecord(1000, 300, "TopicA", 2, 7, 0)
    stamp = Stamp(1_700_000_000_000, 1_699_999_999_000, "10.0.0.1:10911", "10.0.0.2:4000")
    pieces, dropped = fill_span(1000, 1400, [lost], stamp, after="next-segment", counter=FillerCounter())
    assert dropped == [] and [p.kind for p in pieces] == ["placeholder", "blank"]
    rec = pieces[0].data
    assert len(rec) == 300
    total, magic, body_crc, queue_id, flag, queue_offset, phy, sys_flag = struct.unpack_from(">iIiiiqqi", rec, 0)
    assert (total, magic, queue_id, flag, queue_offset, phy, sys_flag) == (300, MAGIC_V1, 2, 0, 7, 1000, 0)
    # BORNTIMESTAMP at 40, BORNHOST 48 (IPv4 + port), STORETIMESTAMP 56, STOREHOSTADDRESS 64, then
    # RECONSUMETIMES 72, PREPAREDTRANSACTIONOFFSET 76, BODYLENGTH 84 (spec §2.1)
    born_ts, = struct.unpack_from(">q", rec, 40)
    assert born_ts == 1_699_999_999_000
    assert rec[48:52] == bytes([10, 0, 0, 2]) and struct.unpack_from(">i", rec, 52) == (4000,)
    store_ts, = struct.unpack_from(">q", rec, 56)
    assert store_ts == 1_700_000_000_000
    assert rec[64:68] == bytes([10, 0, 0, 1]) and struct.unpack_from(">i", rec, 68) == (10911,)
    body_len, = struct.unpack_from(">i", rec, 84)
    body = rec[88:88 + body_len]
    assert body_crc == rocketmq_crc32(body) and body.startswith(b"rmq-inspect salvage")
    topic_len = rec[88 + body_len]
    assert rec[89 + body_len:89 + body_len + topic_len] == b"TopicA"
    props_len, = struct.unpack_from(">h", rec, 89 + body_len + topic_len)
    props = rec[91 + body_len + topic_len:]
    assert len(props) == props_len
    assert props.split(b"\x02")[0] == b"TAGS\x01RMQ_SALVAGE_LOST"
    blank = pieces[1].data
    assert struct.unpack(">ii", blank) == (100, BLANK_MAGIC) and (pieces[1].offset, pieces[1].size) == (1300, 100)


def test_bad_input_writes_nothing(tmp_path):
    root = _damaged(tmp_path)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x").write_text("mine")
    with Store(root) as a:
        with pytest.raises(BadInput, match="not empty"):
            salvage(a, busy)
        with pytest.raises(BadInput, match="outside the store"):
            salvage(a, root / "inside")
    assert (busy / "x").read_text() == "mine" and not (root / "inside").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging left


def test_a_gap_too_small_for_a_filler_gives_up_the_placeholder_after_it():
    """Between two lost records 10 bytes nobody names: no record is that small, so the second record's place is
    given to a filler that covers the gap and it (said as a record without a placeholder)."""
    a, b = LostRecord(0, 300, "T", 0, 0, 0), LostRecord(310, 300, "T", 0, 1, 0)
    pieces, dropped = fill_span(0, 700, [a, b], Stamp(), after="data", counter=FillerCounter())
    assert [(p.kind, p.offset, p.size) for p in pieces] == [("placeholder", 0, 300), ("filler", 300, 400)]
    assert dropped == [b] and all(len(p.data) == p.size for p in pieces)


def test_a_record_made_a_transaction_half_keeps_its_queue_unit(tmp_path):
    """A record whose SYSFLAG now says PREPARED (4) while its queue unit says the broker dispatched it: kept as it
    read, the rebuild would leave its unit out (CommitLogDispatcherBuildConsumeQueue dispatches only NOT_TYPE and
    COMMIT) and every later unit of its queue would move down one. Its transaction bits are cleared, at byte 36."""
    root = Path(shutil.copytree(SAMPLE, tmp_path / "store"))
    with Store(root) as s:
        msg = next(m for m in s.entries() if isinstance(m, Message) and m.queue_offset > 0 and m.sys_flag & 0xC == 0
                   and m.physical_offset < 65536)
        units = {(q.topic, q.queue_id): q.message_count for q in s.queue_infos()}
    seg = root / "commitlog" / f"{0:020d}"
    data = bytearray(seg.read_bytes())
    assert struct.unpack_from(">i", data, msg.physical_offset + 36)[0] == msg.sys_flag  # spec §2.1: SYSFLAG at 36
    struct.pack_into(">i", data, msg.physical_offset + 36, msg.sys_flag | 4)
    seg.write_bytes(bytes(data))
    with Store(root) as s:
        result = salvage(s, tmp_path / "out")
    assert result.plan.sysflag_repairs == [(msg.physical_offset, msg.sys_flag)]
    out = tmp_path / "out" / "commitlog" / f"{0:020d}"
    assert struct.unpack_from(">i", out.read_bytes(), msg.physical_offset + 36)[0] == msg.sys_flag
    with Store(tmp_path / "out") as new:
        assert verify(new).errors == []
        assert {(q.topic, q.queue_id): q.message_count for q in new.queue_infos()} == units


def test_a_record_its_crc_property_covers_is_never_rewritten(tmp_path):
    """The same disagreement on a record carrying a matching 5.2+ ``__CRC32#`` property (it covers SYSFLAG): the
    record reads as the broker wrote it, and rewritten it would fail the broker's CRC check on recovery. Salvage
    keeps its bytes; the property still matches in the salvaged store."""
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter
    from parsers.java import CRC_PROPERTY_TAIL_LENGTH, crc_property_digits

    root = tmp_path / "store"
    with StoreWriter(root, clock=lambda: 1_700_000_000_000) as w:
        w.append(MessageSpec("T", b"a", unique_key=""))
        # cluster "": no CLUSTER property after it, so the CRC property is the record's last 20 bytes (spec §2.7)
        half = w.append(MessageSpec("T", b"b", unique_key="", cluster="", properties={"__CRC32#": "0" * 10}))
        w.append(MessageSpec("T", b"c", unique_key=""))
    seg = root / "commitlog" / f"{0:020d}"
    data = bytearray(seg.read_bytes())
    at = half.physical_offset
    size = struct.unpack_from(">i", data, at)[0]
    struct.pack_into(">i", data, at + 36, struct.unpack_from(">i", data, at + 36)[0] | 4)  # PREPARED
    crc = rocketmq_crc32(bytes(data[at : at + size - CRC_PROPERTY_TAIL_LENGTH]))
    data[at + size - 11 : at + size - 1] = crc_property_digits(crc).encode()  # the digits, then 0x02
    seg.write_bytes(bytes(data))
    with Store(root) as s:
        before = s.commitlog.read(at, size)
        assert not [p for p in verify(s).problems if p.code == "crc-property-mismatch"]
        result = salvage(s, tmp_path / "out")
    assert result.plan.sysflag_repairs == [] and result.plan.queue_repairs == []
    with Store(tmp_path / "out") as new:
        assert new.commitlog.read(at, size) == before
        assert not [p for p in verify(new).problems if p.code == "crc-property-mismatch"]


def test_a_record_with_two_fields_repaired_is_counted_once(tmp_path):
    """SYSFLAG made a transaction half and PHYSICALOFFSET changed on the same record: both are rewritten, and the
    plan's verdict counts one record with a field repaired, not two."""
    root = Path(shutil.copytree(SAMPLE, tmp_path / "store"))
    with Store(root) as s:
        msg = next(m for m in s.entries() if isinstance(m, Message) and m.queue_offset > 0 and m.sys_flag & 0xC == 0
                   and m.physical_offset < 65536)
    seg = root / "commitlog" / f"{0:020d}"
    data = bytearray(seg.read_bytes())
    struct.pack_into(">i", data, msg.physical_offset + 36, msg.sys_flag | 4)  # spec §2.1: SYSFLAG at 36
    struct.pack_into(">q", data, msg.physical_offset + 28, msg.physical_offset + 1000)  # PHYSICALOFFSET at 28
    seg.write_bytes(bytes(data))
    with Store(root) as s:
        result = salvage(s, tmp_path / "out")
    assert [at for at, _ in result.plan.sysflag_repairs] == [msg.physical_offset]
    assert list(result.plan.repairs) == [msg.physical_offset]
    assert "1 record(s) with a field repaired" in result.plan.verdict
    with Store(tmp_path / "out") as new:
        assert verify(new).errors == []
