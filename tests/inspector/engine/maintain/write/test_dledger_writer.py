"""inspector.engine.maintain.write.dledger_log through StoreWriter: DLedger entries, end markers, index units, the
pre-DLedger part and its BLANK, checkpoint and currterm (spec part 2 §16), held against bytes written out here
by hand from the spec with struct.pack, not against our own reader."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from test_writer import STORE, VECTOR_14_7, new_writer, small, vector_spec

from inspector.engine.maintain.write.dledger_log import DLedgerOptions
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.model.errors import BadInput
from parsers.commitlog import MAGIC_BLANK

HEADER = ">iiqqqiiii"  # magic, size, index, term, pos, channel, chainCrc, bodyCrc, body length
UNIT = ">iqiqq"  # magic, pos, size, index, term


def filler(record_size: int, topic: str = "Filler", **kw) -> MessageSpec:
    """A record of exactly ``record_size`` bytes: no properties, 91 + body + topic."""
    return MessageSpec(topic, b"\0" * (record_size - 91 - len(topic)), unique_key="", cluster=None,
                       store_timestamp=STORE - 5, **kw)


def test_vector_record_as_a_dledger_entry(tmp_path: Path) -> None:
    """The §14.7 record at offset 16,400 as a DLedger broker stores it: entry at pos 16,352, header by hand."""
    root = tmp_path / "store"
    with new_writer(root, small(index_slots=1000), dledger=DLedgerOptions(terms={0: 1, 1: 3})) as w:
        first = w.append(filler(16_352 - 48))  # entry 0 at pos 0: 48 + 16,304 bytes
        result = w.append(vector_spec())
    assert (first.physical_offset, result.physical_offset, result.total_size) == (48, 16_400, 202)
    assert result.msg_id == "0A6C73D900002A9F0000000000004010"  # the same msgId as a plain broker's (§14.3)
    home = root / "dledger-n0"
    data = (home / "data" / "00000000000000000000").read_bytes()
    assert len(data) == 64 * 1024
    assert data[:48] == struct.pack(HEADER, 1, 16_352, 0, 1, 0, 0, 0, 0, 16_304)
    assert data[16_352:16_400] == struct.pack(HEADER, 1, 250, 1, 3, 16_352, 0, 0, 0, 202)
    assert data[16_400:16_602] == VECTOR_14_7  # PHYSICALOFFSET = pos + 48 = 0x4010
    assert data[16_602:] == bytes(len(data) - 16_602)
    index = (home / "index" / "00000000000000000000").read_bytes()
    assert len(index) == 167_772_160
    assert index[:64] == struct.pack(UNIT, 1, 0, 16_352, 0, 1) + struct.pack(UNIT, 1, 16_352, 250, 1, 3)
    assert index[64:4096] == bytes(4096 - 64)
    assert (home / "checkpoint").read_bytes() == b"endIndex=1\ncommittedIndex=1\n"
    assert (home / "currterm").read_bytes() == b"voteLeader=n0\ncurrTerm=3\n"
    assert list((root / "commitlog").iterdir()) == []
    # dispatch is the plain broker's at pos + 48
    cq = (root / "consumequeue" / "TopicTest" / "0" / "00000000000000000000").read_bytes()
    assert cq[:20] == bytes.fromhex("0000000000004010 000000CA 000000000027A807")


def test_end_marker_and_next_data_file(tmp_path: Path) -> None:
    root = tmp_path / "store"
    options = DLedgerOptions(self_id="n2", index_file_size=64)  # 2 units a file
    with new_writer(root, small(segment_size=1024), dledger=options) as w:
        results = [w.append(filler(400, topic=f"T{n}")) for n in range(3)]
    data = root / "dledger-n2" / "data"
    assert sorted(p.name for p in data.iterdir()) == ["00000000000000000000", "00000000000000001024"]
    first = (data / "00000000000000000000").read_bytes()
    # entries 0 and 1 take 2 x 448 = 896; 448 + 8 > 128 left: -1 and the remaining 128, then zeros
    assert first[896:904] == struct.pack(">ii", -1, 128) and first[904:] == bytes(120)
    second = (data / "00000000000000001024").read_bytes()
    assert second[:48] == struct.pack(HEADER, 1, 448, 2, 1, 1024, 0, 0, 0, 400)
    assert second[48 + 28:48 + 36] == struct.pack(">q", 1072)  # the record's PHYSICALOFFSET
    assert [r.physical_offset for r in results] == [48, 496, 1072]
    index = root / "dledger-n2" / "index"
    assert sorted(p.name for p in index.iterdir()) == ["00000000000000000000", "00000000000000000064"]
    assert (index / "00000000000000000064").read_bytes() == struct.pack(UNIT, 1, 1024, 448, 2, 1) + bytes(32)
    assert (root / "dledger-n2" / "currterm").read_bytes() == b"voteLeader=n2\ncurrTerm=1\n"


def test_pre_dledger_part_padded_with_a_blank(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with new_writer(root, small(segment_size=1024), dledger=DLedgerOptions(pre_dledger=1)) as w:
        old, new = w.append(filler(300)), w.append(filler(300, topic="Fill2"))
    assert (old.physical_offset, new.physical_offset) == (0, 1024 + 48)
    segment = (root / "commitlog" / "00000000000000000000").read_bytes()
    assert struct.unpack(">q", segment[28:36]) == (0,)
    assert segment[300:308] == struct.pack(">ii", 724, MAGIC_BLANK) and segment[308:] == bytes(716)
    data = (root / "dledger-n0" / "data" / "00000000000000001024").read_bytes()
    assert data[:48] == struct.pack(HEADER, 1, 348, 0, 1, 1024, 0, 0, 0, 300)
    assert (root / "dledger-n0" / "checkpoint").read_bytes() == b"endIndex=0\ncommittedIndex=0\n"


def test_no_entry_yet(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with new_writer(root, small(), dledger=DLedgerOptions()):
        pass
    assert (root / "dledger-n0" / "data" / "00000000000000000000").stat().st_size == 64 * 1024
    assert (root / "dledger-n0" / "checkpoint").read_bytes() == b"endIndex=-1\ncommittedIndex=-1\n"


@pytest.mark.parametrize("kw", [dict(self_id="node0"), dict(self_id="../x1"), dict(pre_dledger=-1),
                                dict(index_file_size=33), dict(terms={0: 2, 5: 2}), dict(terms={0: 1, -1: 0})])
def test_bad_options_are_bad_input(kw: dict) -> None:
    with pytest.raises(BadInput):
        DLedgerOptions(**kw)
