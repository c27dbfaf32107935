"""The commitlog record layout the scan kernels are written against, derived from the construct schema.

``parsers.commitlog.MessageRecord`` stays the single declaration of the record layout: the fixed offsets
used by every fast path in this package are derived from it at import time (:data:`HEAD`), and the import
fails when the schema no longer puts the fields where the kernels read them. Also here: the flags of a
check run and :func:`as_array`, the one way a buffer becomes the uint8 array every kernel reads.
"""

from __future__ import annotations

import numpy as np

from parsers import commitlog as cl
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

