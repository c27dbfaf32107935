"""DLedger 0.4.0+ entries a copy of the DLedger sample gets after its last entry (301): a NOOP (magic 2, Raft
index 302, term 5), a CONFIG_CHANGE (magic 3, 303), then a NORMAL entry (304) whose record is entry 301's with its
PHYSICALOFFSET moved to the new pos + 48, and index units for all three. Packed by hand (DLedgerEntryCoder.encode's
field order); used by test_dledger_newer_magics.py and the README's /tmp/dl04 example."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "sample_store_dledger"
LAST_FILE = 196_608  # dledger-n0/data/00000000000000196608: entries 286..301, then zeros
UNITS_PER_FILE = 8192 // 32  # the sample's index files hold 256 units
CONFIG_BODY = b"peers=n0-n1;n1"


def _header(magic: int, size: int, index: int, term: int, pos: int, body_length: int) -> bytes:
    # magic, size, Raft index, term, pos, channel, chain CRC, body CRC, body length (spec part 2 §16)
    return struct.pack(">iiqqqiiii", magic, size, index, term, pos, 0, 0, 0, body_length)


def _unit(magic: int, pos: int, size: int, index: int, term: int) -> bytes:
    return struct.pack(">iqiqq", magic, pos, size, index, term)  # DLedgerEntryCoder.encodeIndex


def newer_entries_store(root: Path) -> tuple[Path, dict]:
    """A copy of the DLedger sample at ``root`` with the three entries appended; their positions."""
    shutil.copytree(SAMPLE, root)
    data = root / "dledger-n0" / "data" / f"{LAST_FILE:020d}"
    index = root / "dledger-n0" / "index" / f"{UNITS_PER_FILE * 32:020d}"
    b, ix = bytearray(data.read_bytes()), bytearray(index.read_bytes())
    magic, pos, size, last, term = struct.unpack_from(">iqiqq", ix, (301 - UNITS_PER_FILE) * 32)
    assert (magic, last, term) == (1, 301, 4)
    record = bytearray(b[pos - LAST_FILE + 48 : pos - LAST_FILE + size])
    noop = pos + size
    config = noop + 48
    normal = config + 48 + len(CONFIG_BODY)
    struct.pack_into(">q", record, 28, normal + 48)  # PHYSICALOFFSET of the copy: its own entry's pos + 48
    entries = (_header(2, 48, 302, 5, noop, 0)
               + _header(3, 48 + len(CONFIG_BODY), 303, 5, config, len(CONFIG_BODY)) + CONFIG_BODY
               + _header(1, 48 + len(record), 304, 5, normal, len(record)) + bytes(record))
    at = noop - LAST_FILE
    assert b[at : at + len(entries)] == bytes(len(entries))  # zeros there before
    b[at : at + len(entries)] = entries
    units = (_unit(2, noop, 48, 302, 5) + _unit(3, config, 48 + len(CONFIG_BODY), 303, 5)
             + _unit(1, normal, 48 + len(record), 304, 5))
    u = (302 - UNITS_PER_FILE) * 32
    ix[u : u + len(units)] = units
    data.write_bytes(bytes(b))
    index.write_bytes(bytes(ix))
    (root / "dledger-n0" / "currterm").write_bytes(b"voteLeader=n0\ncurrTerm=5\n")  # the new leader's term
    return root, {"noop": noop, "config": config, "normal": normal, "file": f"dledger-n0/data/{LAST_FILE:020d}"}
