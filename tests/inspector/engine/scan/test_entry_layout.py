"""The DLedger entry header's fast forms (struct, numpy dtypes, offsets the kernels read) are derived from the one
declaration, parsers.dledger.EntryHeader / IndexUnit: each reads what the construct schema reads."""

from __future__ import annotations

import numpy as np

from inspector.engine.scan import record_layout as rl
from parsers.dledger import EntryHeader, IndexUnit

HEADER = dict(magic=1, size=48 + 99, index=7, term=3, pos=4096, channel=0, chain_crc=-2, body_crc=5, body_length=99)
UNIT = dict(magic=1, pos=4096, size=147, index=7, term=3)


def test_the_struct_and_the_dtypes_read_what_the_schema_builds() -> None:
    raw = EntryHeader.build(HEADER)
    assert rl.ENTRY_STRUCT.size == rl.ENTRY_HEADER == len(raw) == 48
    assert rl.ENTRY_STRUCT.unpack(raw) == tuple(HEADER.values())
    header = np.frombuffer(raw, rl.HEADER_DTYPE)[0]
    assert {n: int(header[n]) for n in rl.HEADER_DTYPE.names} == HEADER
    head = np.frombuffer(raw[: rl.HEADER_HEAD_DTYPE.itemsize], rl.HEADER_HEAD_DTYPE)[0]
    assert {n: int(head[n]) for n in rl.HEADER_HEAD_DTYPE.names} == dict(list(HEADER.items())[:5])
    assert rl.ENTRY_INDEX_TERM.unpack_from(raw, rl.ENTRY_INDEX_AT) == (7, 3)
    assert (rl.ENTRY_POS_AT, rl.ENTRY_BODY_LENGTH_AT, rl.ENTRY_TERM_AT) == (24, 44, 16)
    unit = np.frombuffer(IndexUnit.build(UNIT), rl.UNIT_DTYPE)[0]
    assert {n: int(unit[n]) for n in rl.UNIT_DTYPE.names} == UNIT and rl.UNIT_DTYPE.itemsize == rl.UNIT_SIZE


def test_index_and_term_of_many_records_in_one_call() -> None:
    entries = [dict(HEADER, index=i, term=10 + i, pos=i * 60) for i in range(3)]
    buf = b"".join(EntryHeader.build(e) + b"r" * 12 for e in entries)  # a 12-byte "record" after each header
    positions = np.array([48, 108, 168])
    index, term = rl.entry_index_term(buf, positions, 48)
    assert index.tolist() == [0, 1, 2] and term.tolist() == [10, 11, 12]
