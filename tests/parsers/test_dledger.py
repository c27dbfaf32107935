"""DLedger schemas (spec part 2 §16) against bytes written out by hand with struct.pack, and the properties
files against what DLedger's own code (IOUtils.properties2String on a Java 8 / Java 17 Properties) writes."""

from __future__ import annotations

import struct

import construct
import pytest

from parsers import dledger


def test_entry_header_is_48_bytes_in_encode_order() -> None:
    # DLedgerEntryCoder.encode: magic, size, index, term, pos, channel, chainCrc, bodyCrc, body length
    data = struct.pack(">iiqqqiiii", 1, 48 + 91, 0, 1, 1 << 30, 0, 0, 0, 91)
    assert dledger.EntryHeader.sizeof() == dledger.ENTRY_HEADER_SIZE == len(data)
    parsed = dledger.EntryHeader.parse(data)
    assert (parsed.magic, parsed.size, parsed.index, parsed.term, parsed.pos, parsed.body_length) == (
        1, 139, 0, 1, 1 << 30, 91)
    assert data[dledger.POS_OFFSET:dledger.POS_OFFSET + 8] == struct.pack(">q", 1 << 30)
    assert dledger.EntryHeader.build(parsed) == data


def test_end_marker_and_index_unit_by_hand() -> None:
    assert dledger.EndOfFile.build({"remaining": 4000}) == struct.pack(">ii", -1, 4000)
    with pytest.raises(construct.ConstError):
        dledger.EndOfFile.parse(struct.pack(">ii", 1, 4000))
    # DLedgerEntryCoder.encodeIndex: magic, pos, size, index, term
    unit = struct.pack(">iqiqq", 1, 65_536, 139, 5, 2)
    assert dledger.IndexUnit.sizeof() == dledger.INDEX_UNIT_SIZE == len(unit)
    assert dict(dledger.IndexUnit.parse(unit), _io=None) == dict(magic=1, pos=65_536, size=139, index=5, term=2,
                                                                  _io=None)
    assert dledger.INDEX_FILE_SIZE == 167_772_160


def test_properties_files_as_java_writes_them() -> None:
    # printed by `java P.java` (OpenJDK 17) and, for a Java 8 Hashtable, the same keys in its order
    assert dledger.DLedgerCheckpoint.build({"endIndex": 41, "committedIndex": 40}) == b"endIndex=41\ncommittedIndex=40\n"
    assert dledger.DLedgerCheckpoint.parse(b"committedIndex=40\nendIndex=41\n") == {"committedIndex": 40,
                                                                                     "endIndex": 41}
    assert dledger.CurrTerm.build({"voteLeader": "n0", "currTerm": 3}) == b"voteLeader=n0\ncurrTerm=3\n"


@pytest.mark.parametrize("text", [
    b"", b"currTerm=3\n", b"voteLeader=n0\ncurrTerm=3", b"voteLeader=n0\ncurrTerm=x\n",
    b"voteLeader=n0\ncurrTerm=03\n", b"voteLeader=n0\ncurrTerm=9223372036854775808\n", b"\xff\xfe\x00garbage",
    b"#comment\nvoteLeader=n0\ncurrTerm=3\n", b"voteLeader=n0\ncurrTerm=3\ncurrTerm=4\n",
])
def test_currterm_that_dledger_did_not_write_is_a_construct_error(text: bytes) -> None:
    with pytest.raises(construct.ConstructError):
        dledger.CurrTerm.parse(text)


def test_a_number_of_thousands_of_digits_is_no_java_long() -> None:
    """Found by the mutation fuzzer: int() of more than 4,300 digits is Python's ValueError, not the schema's."""
    with pytest.raises(construct.ConstructError, match="no Java long"):
        dledger.DLedgerCheckpoint.parse(b"endIndex=" + b"9" * 5000 + b"\ncommittedIndex=1\n")
    with pytest.raises(construct.ConstructError, match="no Java long"):
        dledger.CurrTerm.parse(b"voteLeader=n0\ncurrTerm=-" + b"1" * 21 + b"\n")
