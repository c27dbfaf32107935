"""A case-insensitive (ASCII) byte search over a mapped segment, for grep -i: the compiled kernel
(``_kn_find_fold``: libc memchr for both cases of the literal's rarest byte, then a folded compare) when numba is
in use, else the bytes lowered a window at a time and ``bytes.find`` (tests hold the two equal)."""

from __future__ import annotations

import numpy as np

from inspector.engine.scan.kernels import compiled_for
from inspector.engine.scan.record_layout import as_array

# Bytes by how often they occur in text and JSON, commonest first (English letter frequencies, then the JSON
# punctuation and digits): the anchor of a search is the literal's byte latest in this order.
_COMMON = b' e"taoinsrhldcu:,mfpgwyb0123456789.-_{}[]vkxjqz'
_RANK = {c: i for i, c in enumerate(_COMMON)}
WINDOW = 4 << 20  # the Python path lowers this much at a time


def anchor_of(literal: bytes) -> int:
    """The position in ``literal`` (lower case) of its rarest byte; a byte not in the table counts as rarest."""
    return max(range(len(literal)), key=lambda i: _RANK.get(literal[i], len(_COMMON)))


def find_folded(buf, literal: bytes, start: int, end: int) -> int:
    """The first position in [start, end) where ``literal`` (ASCII lower case) occurs with ASCII letters in either
    case, or -1."""
    if not literal or end - start < len(literal):
        return -1 if literal else start
    k = compiled_for(end - start)
    if k is not None:
        arr = as_array(buf)
        return int(k.find_fold(arr, start, end, np.frombuffer(literal, dtype=np.uint8), anchor_of(literal)))
    overlap = len(literal) - 1
    at = start
    while at < end - overlap:
        stop = min(end, at + WINDOW + overlap)
        i = bytes(buf[at:stop]).lower().find(literal)
        if i >= 0:
            return at + i
        at = stop - overlap
    return -1
