"""The commitlog record layout the scan kernels are written against, derived from the construct schema.

``parsers.commitlog.MessageRecord`` stays the single declaration of the record layout: the fixed offsets
used by every fast path in this package are derived from it at import time (:data:`HEAD`), and the import
fails when the schema no longer puts the fields where the kernels read them. Also here: the flags of a
check run and :func:`as_array`, the one way a buffer becomes the uint8 array every kernel reads.
"""

from __future__ import annotations

import struct

import numpy as np

from parsers import commitlog as cl
from parsers import dledger as dl
from parsers.java import CRC_PROPERTY_NAME, CRC_PROPERTY_TAIL_LENGTH

# --- the layout, derived from the construct schema -------------------------------------------------------------


def _fixed_head() -> dict[str, int]:
    """Offset of every fixed-width field before the first variable one (BORNHOST), from MessageRecord."""
    offsets, at = {}, 0
    for sub in cl.MessageRecord.subcons:
        try:
            size = sub.sizeof()
        except Exception:  # noqa: BLE001 - construct raises SizeofError for the first variable field
            offsets[sub.name] = at
            break
        offsets[sub.name] = at
        at += size
    return offsets


HEAD = _fixed_head()
"""``{field name: offset}`` of fields 1-10 (born_host is the first variable-width one)."""

_EXPECTED_HEAD = {"total_size": 0, "magic_code": 4, "body_crc": 8, "queue_id": 12, "flag": 16, "queue_offset": 20,
                  "physical_offset": 28, "sys_flag": 36, "born_timestamp": 40, "born_host": 48}
if HEAD != _EXPECTED_HEAD:  # the kernels (kernel_source.py and the Python paths) are written against these offsets
    raise ImportError(f"MessageRecord layout changed: {HEAD}; update the kernels in inspector/engine/scan/")

MIN_RECORD_SIZE = cl.record_length(0, 0, 0)
V1, V2, BLANK = cl.MAGIC_V1, cl.MAGIC_V2, cl.MAGIC_BLANK
BORN_V6, STORE_V6 = cl.BORNHOST_V6_FLAG, cl.STOREHOSTADDRESS_V6_FLAG
FIXED_LENGTH = cl.record_length(0, 0, 0, 0, V1) - 8 - 8 - 1  # 74: calMsgLength without hosts and topic length
CRC_PROPERTY = CRC_PROPERTY_NAME.encode()
CRC_NAME = np.frombuffer(CRC_PROPERTY, dtype=np.uint8)
CRC_TAIL = CRC_PROPERTY_TAIL_LENGTH

# flags of check runs
CHECK_BODY_CRC = 1
CHECK_CRC_PROPERTY = 2
CHECK_COMPRESSED = 4  # a record whose sysFlag says its body is compressed is not clean: verify decompresses it
SYSFLAG_AT = 36  # position of SYSFLAG in a record


# --- buffers ------------------------------------------------------------------------------------------------


def as_array(buf) -> np.ndarray:
    """A read-only uint8 numpy view of bytes, a memoryview or an mmap (no copy)."""
    if isinstance(buf, np.ndarray):
        return buf
    if len(buf) == 0:
        empty = np.zeros(0, dtype=np.uint8)
        empty.flags.writeable = False  # the same (read-only) array type as a mapped file's
        return empty
    arr = np.frombuffer(buf, dtype=np.uint8)
    arr.flags.writeable = False
    return arr



# --- the DLedger entry header before a record (spec part 2 §16), derived from parsers.dledger ------------------
# parsers.dledger.EntryHeader / IndexUnit are the one declaration; every fast path reads these derived forms.

ENTRY_HEADER = dl.ENTRY_HEADER_SIZE  # 48: the record starts here; the header's fields sit at ENTRY_AT
ENTRY_STRUCT = struct.Struct(dl.ENTRY_HEADER_FORMAT)  # magic, size, index, term, pos, channel, crcs, body length
ENTRY_AT = dl.ENTRY_AT
ENTRY_INDEX_AT, ENTRY_TERM_AT, ENTRY_POS_AT, ENTRY_BODY_LENGTH_AT = (
    ENTRY_AT["index"], ENTRY_AT["term"], ENTRY_AT["pos"], ENTRY_AT["body_length"])
_ENTRY_NAMES = list(ENTRY_AT)
ENTRY_INDEX_TERM = struct.Struct(  # the Raft index and the term after it, read at ENTRY_INDEX_AT
    ">" + dl.ENTRY_HEADER_FORMAT[1 + _ENTRY_NAMES.index("index") : 2 + _ENTRY_NAMES.index("term")])
UNIT_AT = dl.INDEX_UNIT_AT  # a DLedger index unit's fields: magic, pos, size, index, term
UNIT_SIZE = dl.INDEX_UNIT_SIZE
UNIT_POS_AT, UNIT_SIZE_AT, UNIT_INDEX_AT, UNIT_TERM_AT = UNIT_AT["pos"], UNIT_AT["size"], UNIT_AT["index"], UNIT_AT["term"]


def _dtype(fmt: str, at: dict[str, int], end: int) -> np.dtype:
    """A big-endian structured dtype of the fields of ``at`` (struct codes ``fmt``) that end by byte ``end``."""
    widths = {"l": "i4", "q": "i8"}
    names = [n for n, code in zip(at, fmt[1:], strict=True) if at[n] + int(widths[code][1]) <= end]
    return np.dtype({"names": names, "formats": [">" + widths[c] for c in fmt[1 : 1 + len(names)]],
                     "offsets": [at[n] for n in names], "itemsize": end})


HEADER_DTYPE = _dtype(dl.ENTRY_HEADER_FORMAT, ENTRY_AT, ENTRY_HEADER)
HEADER_HEAD_DTYPE = _dtype(dl.ENTRY_HEADER_FORMAT, ENTRY_AT, ENTRY_AT["channel"])  # magic..pos: what a unit repeats
UNIT_DTYPE = _dtype(dl.INDEX_UNIT_FORMAT, dl.INDEX_UNIT_AT, dl.INDEX_UNIT_SIZE)


def entry_index_term(buf, record_positions: np.ndarray, entry_header: int) -> tuple[np.ndarray, np.ndarray]:
    """The Raft index and term (int64 arrays) of the DLedger entry before each record at ``record_positions``
    in ``buf`` (``entry_header``: 48, a DLedger data file's; a plain segment's records have none)."""
    raw = as_array(buf)
    heads = record_positions.astype(np.int64) - entry_header
    index = raw[heads[:, None] + ENTRY_INDEX_AT + np.arange(8)].view(">i8").reshape(-1).astype(np.int64)
    term = raw[heads[:, None] + ENTRY_TERM_AT + np.arange(8)].view(">i8").reshape(-1).astype(np.int64)
    return index, term
