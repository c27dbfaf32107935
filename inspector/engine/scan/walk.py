"""Walking record boundaries and consuming runs of clean records without decoding them.

A *clean* record is one ``decode_message`` accepts whose PHYSICALOFFSET equals its position (and, when
asked, whose body CRC and ``__CRC32#`` property check out). The walks here only ever consume runs of
clean records and stop at the first record that is anything else (a BLANK, the zero tail, damage, a CRC
mismatch): the caller's record-by-record path (:mod:`inspector.engine.read.commitlog.careful`) handles that record,
reports whatever is wrong with it and hands back. So the fast path decides nothing the slow path would
decide differently; it only skips the Python work for records with nothing to report.

Each walk runs a compiled kernel (:mod:`inspector.engine.scan.kernel_source`) when numba is in use, else
the ``struct`` path below; the Python checks of one record (:func:`_clean_py`) also serve batch.py.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from inspector.engine.model.crc import rocketmq_crc32
from inspector.engine.scan.kernels import compiled_for
from inspector.engine.scan.record_layout import (
    BORN_V6,
    CHECK_BODY_CRC,
    CHECK_COMPRESSED,
    CHECK_CRC_PROPERTY,
    CRC_NAME,
    CRC_PROPERTY,
    CRC_TAIL,
    ENTRY_HEADER,
    ENTRY_STRUCT,
    FIXED_LENGTH,
    MIN_RECORD_SIZE,
    STORE_V6,
    SYSFLAG_AT,
    V1,
    V2,
    as_array,
)
from parsers.commitlog import COMPRESSED_FLAG

# --- boundary walk ------------------------------------------------------------------------------------------

_HEAD_PY = struct.Struct(">ii")
_I64 = struct.Struct(">q")
_ENTRY_PY = ENTRY_STRUCT


def entry_end(buf, pos: int, limit: int, segment_start: int) -> int:
    """The end of the DLedger entry at ``pos`` when its header is one recovery accepts (magic 1, size > 44,
    pos field = segment_start + pos, body length + 48 = size, within ``limit``), else -1 (kernel: _nb_entry)."""
    if limit - pos < ENTRY_HEADER:
        return -1
    magic, size, _, _, at, _, _, _, body = _ENTRY_PY.unpack_from(buf, pos)
    if magic != 1 or size <= ENTRY_HEADER - 4 or size > limit - pos or at != segment_start + pos or (
            body + ENTRY_HEADER != size):
        return -1
    return pos + size


def walk_boundaries(buf, start: int = 0, limit: int | None = None, *, segment_start: int = 0,
                    stop_at: int | None = None, max_records: int = 1 << 16,
                    entry_header: int = 0) -> tuple[np.ndarray, int]:
    """Record starts from ``start`` while each record's head checks out, as RocketMQ's recovery walks.

    A record is taken when its magic is a message magic, TOTALSIZE is at least the smallest record and fits
    before ``limit``, PHYSICALOFFSET equals ``segment_start`` + its position, and it ends at or before
    ``stop_at`` (default ``limit``). Returns (positions as int64, position after the last record taken);
    at most ``max_records`` are taken per call (call again from the returned position).
    """
    arr = as_array(buf)
    limit = arr.size if limit is None else limit
    stop_at = limit if stop_at is None else stop_at
    out = np.empty(max(0, max_records), dtype=np.int64)
    k = compiled_for(stop_at - start)
    if k is not None:
        n, end = k.walk(arr, start, limit, segment_start, stop_at, out, entry_header)
        return out[:n], int(end)
    return _walk_py(buf if not isinstance(buf, np.ndarray) else arr.data, start, limit, segment_start, stop_at, out,
                    entry_header)


def _walk_py(buf, pos, limit, segment_start, stop_at, out, hdr=0):
    n = 0
    cap = out.size
    head, i64 = _HEAD_PY.unpack_from, _I64.unpack_from
    minimum = MIN_RECORD_SIZE
    positions = []
    while n < cap and limit - pos >= 36 + hdr:
        rec, lim = pos, limit
        if hdr:
            lim = entry_end(buf, pos, limit, segment_start)
            if lim < 0:
                break
            rec = pos + hdr
        total, magic = head(buf, rec)
        if (magic != V1 and magic != V2) or total < minimum or total > lim - rec or rec + total > stop_at:
            break
        if (hdr and rec + total != lim) or i64(buf, rec + 28)[0] != segment_start + rec:
            break
        positions.append(rec)
        n += 1
        pos = rec + total
    out[:n] = positions
    return out[:n], pos


# --- clean runs: check without decoding -----------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """A run of clean records: how many, where it ended, store timestamps.

    ``first_store_timestamp`` is the first non-zero one (as ``scan_segment`` reports it),
    ``max_store_timestamp`` the largest, at least 0; all 0 for an empty run.
    """

    count: int
    end: int
    first_store_timestamp: int
    last_store_timestamp: int
    max_store_timestamp: int
    last_position: int = -1  # where the run's last record starts (check_run; recovery's last record); -1: not told
    start: int = -1  # where the run starts (check_run: its ``start``, a DLedger entry's start); -1: not told


def check_run(buf, start: int, limit: int, *, segment_start: int, stop_at: int | None = None,
              flags: int = CHECK_BODY_CRC, soft_stop: int | None = None, entry_header: int = 0) -> Run:
    """Consume clean records from ``start`` up to ``stop_at`` (default ``limit``); stop at any other record.

    ``flags``: CHECK_BODY_CRC (BODYCRC must match the body), CHECK_CRC_PROPERTY (a ``__CRC32#`` property,
    when present, must match the record), CHECK_COMPRESSED (the body is not compressed). ``soft_stop``: also stop at the first record boundary at or past
    it (``run.end >= soft_stop``: call again from there). ``entry_header``: 48 in a DLedger data file, where
    ``start`` is an entry's start and each record follows its entry's header and fills the entry.
    """
    arr = as_array(buf)
    stop_at = limit if stop_at is None else stop_at
    soft_stop = stop_at if soft_stop is None else soft_stop
    k = compiled_for(stop_at - start)
    if k is not None:
        stats = np.zeros(5, dtype=np.int64)
        n, end = k.check_run(arr, start, limit, stop_at, soft_stop, segment_start, flags, CRC_NAME, stats,
                             entry_header)
        return Run(int(n), int(end), int(stats[0]), int(stats[1]), int(stats[2]), int(stats[4]), start)
    return _check_run_py(buf if not isinstance(buf, np.ndarray) else arr.data, start, limit, stop_at,
                         soft_stop, segment_start, flags, entry_header)


def find_clean(buf, start: int, limit: int, *, segment_start: int, flags: int = 0,
               max_scan: int = 1 << 22, entry_header: int = 0) -> int:
    """The first position in [start, start + max_scan) where a clean record starts, or -1.

    Used to split a segment between threads: a thread started there walks the same records as a walk from
    the segment start would, as long as the earlier thread's walk arrives exactly there (callers check).
    """
    arr = as_array(buf)
    stop = min(limit, start + max_scan)
    k = compiled_for(stop - start)
    if k is not None:
        return int(k.find_clean(arr, start, stop, limit, segment_start, flags, CRC_NAME, entry_header))
    data = arr.data if arr.size else b""
    magics = (struct.pack(">i", V1), struct.pack(">i", V2))
    h = entry_header  # a DLedger data file: look for records 48 bytes after the entry starts looked for
    at = start + h
    while at < stop + h:
        hits = [i for i in (bytes(data[at + 4 : stop + h + 4]).find(m) for m in magics) if i >= 0]
        if not hits:
            return -1
        cand = at + min(hits)
        if cand >= stop + h:
            return -1
        if clean_entry_py(data, cand - h, limit, segment_start, flags, h)[1] is not None:
            return cand - h
        at = cand + 1
    return -1


_HEAD9 = struct.Struct(">iiiiiqqiq")
_I32, _I16, _I8 = struct.Struct(">i"), struct.Struct(">h"), struct.Struct(">b")


def _record_layout_py(buf, pos: int, limit: int):
    """decode_message's checks, without building anything: (total, magic, sys_flag, host widths, offsets) or None."""
    if limit - pos < 8:
        return None
    total, magic = _HEAD_PY.unpack_from(buf, pos)
    if (magic != V1 and magic != V2) or total < MIN_RECORD_SIZE or total > limit - pos:
        return None
    end = pos + total
    sys_flag = _I32.unpack_from(buf, pos + 36)[0]
    bh = 20 if sys_flag & BORN_V6 else 8
    sh = 20 if sys_flag & STORE_V6 else 8
    tlw = 2 if magic == V2 else 1
    if total < FIXED_LENGTH + bh + sh + tlw:
        return None
    p = pos + 48 + bh + 8 + sh
    if p + 16 > end:
        return None
    body_len = _I32.unpack_from(buf, p + 12)[0]
    p += 16
    body_pos = p
    if body_len < 0 or p + body_len > end:
        return None
    p += body_len
    if p + tlw > end:
        return None
    topic_len = (_I16 if tlw == 2 else _I8).unpack_from(buf, p)[0]
    p += tlw
    if topic_len < 0 or p + topic_len + 2 > end:
        return None
    topic_pos = p
    p += topic_len
    props_len = _I16.unpack_from(buf, p)[0]
    p += 2
    if props_len < 0 or p + props_len != end:
        return None
    return total, magic, sys_flag, bh, sh, body_pos, body_len, topic_pos, topic_len, p, props_len


def _crc_property_ok_py(buf, pos: int, total: int, props_pos: int, props_len: int) -> bool:
    """True when the record has no ``__CRC32#`` property or its value (10 ASCII digits) matches."""
    vpos, vlen = _property_py(buf, props_pos, props_len, CRC_PROPERTY)
    if vpos < 0:
        return True
    digits = bytes(buf[vpos : vpos + vlen])
    if vlen != 10 or not all(48 <= c <= 57 for c in digits):
        return False
    return int(digits[::-1]) == rocketmq_crc32(buf[pos : pos + total - CRC_TAIL])


def _property_py(buf, pos: int, length: int, name: bytes) -> tuple[int, int]:
    """(position, length) of the value ``Properties.as_map()`` keeps for ``name``, (-1, 0) when absent."""
    end = pos + length
    found = (-1, 0)
    raw = bytes(buf[pos:end])
    at = 0
    for part in raw.split(b"\x02"):
        sep = part.find(b"\x01")
        if sep > 0 and sep < len(part) - 1 and part[:sep] == name:
            found = (pos + at + sep + 1, len(part) - sep - 1)
        at += len(part) + 1
    return found


def _clean_py(buf, pos, limit, segment_start, flags):
    """The layout of a clean record at pos, or None."""
    layout = _record_layout_py(buf, pos, limit)
    if layout is None:
        return None
    total, _, _, _, _, body_pos, body_len, _, _, props_pos, props_len = layout
    if _I64.unpack_from(buf, pos + 28)[0] != segment_start + pos:
        return None
    if flags & CHECK_BODY_CRC:
        if rocketmq_crc32(buf[body_pos : body_pos + body_len]) != _I32.unpack_from(buf, pos + 8)[0]:
            return None
    if flags & CHECK_CRC_PROPERTY and not _crc_property_ok_py(buf, pos, total, props_pos, props_len):
        return None
    if flags & CHECK_COMPRESSED and _I32.unpack_from(buf, pos + SYSFLAG_AT)[0] & COMPRESSED_FLAG:
        return None
    return layout


def _check_run_py(buf, pos, limit, stop_at, soft_stop, segment_start, flags, hdr=0) -> Run:
    n = first = last = top = 0
    at = -1
    start = pos
    while pos < stop_at and pos < soft_stop:
        rec, layout = clean_entry_py(buf, pos, limit, segment_start, flags, hdr)
        if layout is None or rec + layout[0] > stop_at:
            break
        ts = _I64.unpack_from(buf, rec + 48 + layout[3])[0]
        if first == 0:
            first = ts
        last = ts
        top = max(top, ts)
        at = rec
        n += 1
        pos = rec + layout[0]
    return Run(n, pos, first, last, top, at, start)


def clean_entry_py(buf, pos: int, limit: int, segment_start: int, flags: int, hdr: int):
    """(record position, _clean_py layout) at ``pos``; in a DLedger data file (``hdr`` 48) the record after a
    sound entry header that fills its entry; layout None when not clean."""
    if not hdr:
        return pos, _clean_py(buf, pos, limit, segment_start, flags)
    end = entry_end(buf, pos, limit, segment_start)
    if end < 0:
        return pos, None
    layout = _clean_py(buf, pos + hdr, end, segment_start, flags)
    return pos + hdr, layout if layout is not None and pos + hdr + layout[0] == end else None

