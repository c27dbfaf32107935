"""The numba source of every kernel: plain Python functions that :func:`inspector.engine.scan.kernels._compile`
jits in this module's namespace.

They stay in one file on purpose: numba's cache (``cache=True``) invalidates a compiled kernel only when its
own source file changes, so a kernel calling a helper defined in another file would keep running the old
helper after that file is edited (numba documents the limitation). Each kernel has a pure-Python twin in
walk.py, batch.py or verify_kernels.py, and tests/inspector/engine/scan/test_bulk.py holds the two equal.
"""

from __future__ import annotations

import numpy as np

from inspector.engine.scan.record_layout import (
    BORN_V6,
    CHECK_BODY_CRC,
    CHECK_COMPRESSED,
    CHECK_CRC_PROPERTY,
    CRC_TAIL,
    ENTRY_BODY_LENGTH_AT,
    ENTRY_HEADER,
    ENTRY_INDEX_AT,
    ENTRY_POS_AT,
    ENTRY_TERM_AT,
    FIXED_LENGTH,
    MIN_RECORD_SIZE,
    STORE_V6,
    SYSFLAG_AT,
    UNIT_INDEX_AT,
    UNIT_POS_AT,
    UNIT_SIZE,
    UNIT_SIZE_AT,
    UNIT_TERM_AT,
    V1,
    V2,
)
from parsers.commitlog import COMPRESSED_FLAG
from parsers.consumequeue import CQ_EXT_ADDR_LIMIT

# Plain Python source, compiled by kernels._compile() with numba.njit(cache=True, nogil=True). Integers are int64
# throughout (numba wraps on overflow, which _u64 relies on); the Python paths never call these.

_crc_c = None  # the C CRC function (an ExternalFunction), set by kernels._compile before anything is compiled
_memchr_c = None  # libc memchr, likewise
_memcpy_c = None  # libc memcpy, likewise (reads a unit of a consume-queue file mapped elsewhere)


def _nb_u32(b, p):
    return (np.int64(b[p]) << 24) | (np.int64(b[p + 1]) << 16) | (np.int64(b[p + 2]) << 8) | np.int64(b[p + 3])


def _nb_i32(b, p):
    v = _nb_u32(b, p)
    return v - 4294967296 if v >= 2147483648 else v


def _nb_i16(b, p):
    v = (np.int64(b[p]) << 8) | np.int64(b[p + 1])
    return v - 65536 if v >= 32768 else v


def _nb_i8(b, p):
    v = np.int64(b[p])
    return v - 256 if v >= 128 else v


def _nb_i64(b, p):
    return (_nb_u32(b, p) << 32) | _nb_u32(b, p + 4)


def _nb_crc(b, p, n):
    if n <= 0:
        return np.int64(0)
    return np.int64(_crc_c(np.uint32(0), np.int64(b.ctypes.data) + p, np.uint64(n))) & 0x7FFFFFFF


def _nb_layout(b, pos, limit):
    """decode_message's checks: (end, sys_flag, bh, sh, body_pos, body_len, topic_pos, topic_len, props_pos,
    props_len), end = -1 when the record is not a well-formed message."""
    bad = (np.int64(-1), np.int64(0), np.int64(0), np.int64(0), np.int64(0), np.int64(0), np.int64(0),
           np.int64(0), np.int64(0), np.int64(0))
    if pos < 0 or limit - pos < 8:
        return bad
    total = _nb_i32(b, pos)
    magic = _nb_i32(b, pos + 4)
    if (magic != V1 and magic != V2) or total < MIN_RECORD_SIZE or total > limit - pos:
        return bad
    end = pos + total
    sys_flag = _nb_i32(b, pos + 36)
    bh = np.int64(20) if sys_flag & BORN_V6 else np.int64(8)
    sh = np.int64(20) if sys_flag & STORE_V6 else np.int64(8)
    tlw = np.int64(2) if magic == V2 else np.int64(1)
    if total < FIXED_LENGTH + bh + sh + tlw:
        return bad
    p = pos + 48 + bh + 8 + sh
    if p + 16 > end:
        return bad
    body_len = _nb_i32(b, p + 12)
    p += 16
    body_pos = p
    if body_len < 0 or p + body_len > end:
        return bad
    p += body_len
    if p + tlw > end:
        return bad
    topic_len = _nb_i16(b, p) if tlw == 2 else _nb_i8(b, p)
    p += tlw
    if topic_len < 0 or p + topic_len + 2 > end:
        return bad
    topic_pos = p
    p += topic_len
    props_len = _nb_i16(b, p)
    p += 2
    if props_len < 0 or p + props_len != end:
        return bad
    return (end, sys_flag, bh, sh, body_pos, body_len, topic_pos, topic_len, p, props_len)


def _nb_property(b, p, n, name):
    """(position, length) of the value Properties.as_map() keeps for ``name`` (no 0x01 in it), or (-1, 0)."""
    end = p + n
    s = p
    found = np.int64(-1)
    found_len = np.int64(0)
    m = name.size
    while s < end:
        e = _nb_find(b, s, end, 2)
        if m > 0 and s + m + 1 < e and b[s + m] == 1:
            same = True
            for k in range(m):
                if b[s + k] != name[k]:
                    same = False
                    break
            if same:
                found = s + m + 1
                found_len = e - s - m - 1
        s = e + 1
    return found, found_len


def _nb_clean(b, pos, limit, seg_start, flags, crc_name):
    """_nb_layout of a clean record (PHYSICALOFFSET, and the CRCs ``flags`` ask for, check out), else end -1."""
    lay = _nb_layout(b, pos, limit)
    end = lay[0]
    if end < 0:
        return lay
    bad = (np.int64(-1),) + lay[1:]
    if _nb_i64(b, pos + 28) != seg_start + pos:
        return bad
    if flags & CHECK_BODY_CRC:
        if _nb_crc(b, lay[4], lay[5]) != _nb_i32(b, pos + 8):
            return bad
    if flags & CHECK_COMPRESSED and _nb_i32(b, pos + SYSFLAG_AT) & COMPRESSED_FLAG:
        return bad
    if flags & CHECK_CRC_PROPERTY:
        vpos, vlen = _nb_property(b, lay[8], lay[9], crc_name)
        if vpos >= 0:
            if vlen != 10:
                return bad
            expected = np.int64(0)
            for k in range(9, -1, -1):
                c = np.int64(b[vpos + k])
                if c < 48 or c > 57:
                    return bad
                expected = expected * 10 + (c - 48)
            if _nb_crc(b, pos, end - pos - CRC_TAIL) != expected:
                return bad
    return lay



def _nb_entry(b, pos, limit, seg_start):
    """A DLedger entry at ``pos`` (spec part 2 §16) that recovery accepts: its end (pos + size), else -1.
    magic 1, size > 44, pos field = seg_start + pos, body length + 48 = size, the entry within ``limit``."""
    if limit - pos < ENTRY_HEADER:
        return np.int64(-1)
    size = _nb_i32(b, pos + 4)
    if (_nb_i32(b, pos) != 1 or size <= ENTRY_HEADER - 4 or size > limit - pos
            or _nb_i64(b, pos + ENTRY_POS_AT) != seg_start + pos
            or _nb_i32(b, pos + ENTRY_BODY_LENGTH_AT) + ENTRY_HEADER != size):
        return np.int64(-1)
    return pos + size

def _nb_intern(tab, b, p, n):
    """Slot of the bytes b[p:p+n] in an open-addressing table (hash, position, length, free); -1 when full."""
    h = np.int64(-3750763034362895579)  # FNV-1a 64 offset basis, as a signed int64
    for k in range(n):
        h = (h ^ np.int64(b[p + k])) * np.int64(1099511628211)
    h ^= n
    cap = tab.shape[0] - 1
    s = h & (cap - 1)
    while True:
        if tab[s, 1] < 0:
            if tab[cap, 0] * 4 >= cap * 3:
                return np.int64(-1)
            tab[s, 0] = h
            tab[s, 1] = p
            tab[s, 2] = n
            tab[s, 3] = -2  # free for the caller (verify_run: the topic's hashCode prefix)
            tab[cap, 0] += 1
            return s
        if tab[s, 0] == h and tab[s, 2] == n:
            q = tab[s, 1]
            same = True
            for k in range(n):
                if b[q + k] != b[p + k]:
                    same = False
                    break
            if same:
                return s
        s = (s + 1) & (cap - 1)


def _nb_record_at(b, pos, limit, seg_start, hdr):
    """(record position, limit it must end at) for a walk at ``pos``: the record itself in a commitlog segment
    (hdr 0); in a DLedger data file (hdr 48) the record after a sound entry header, which it must fill (limit =
    the entry's end; -1 when the header is not sound)."""
    if hdr == 0:
        return pos, limit
    return pos + hdr, _nb_entry(b, pos, limit, seg_start)


def _kn_walk(b, pos, limit, seg_start, stop_at, out, hdr):
    n = 0
    cap = out.size
    while n < cap and limit - pos >= 36 + hdr:
        rec, lim = _nb_record_at(b, pos, limit, seg_start, hdr)
        if lim < 0:
            break
        total = _nb_i32(b, rec)
        magic = _nb_i32(b, rec + 4)
        if (magic != V1 and magic != V2) or total < MIN_RECORD_SIZE or total > lim - rec or rec + total > stop_at:
            break
        if hdr and rec + total != lim:
            break
        if _nb_i64(b, rec + 28) != seg_start + rec:
            break
        out[n] = rec
        n += 1
        pos = rec + total
    return n, pos


def _kn_check_run(b, pos, limit, stop_at, soft, seg_start, flags, crc_name, stats, hdr):
    n = 0
    first = np.int64(0)
    last = np.int64(0)
    top = np.int64(0)
    at = np.int64(-1)
    while pos < stop_at and pos < soft:
        rec, lim = _nb_record_at(b, pos, limit, seg_start, hdr)
        if lim < 0:
            break
        lay = _nb_clean(b, rec, lim, seg_start, flags, crc_name)
        end = lay[0]
        if end < 0 or end > stop_at or (hdr and end != lim):
            break
        ts = _nb_i64(b, rec + 48 + lay[2])
        if first == 0:
            first = ts
        last = ts
        if ts > top:
            top = ts
        at = rec
        n += 1
        pos = end
    stats[0] = first
    stats[1] = last
    stats[2] = top
    stats[3] = n
    stats[4] = at
    return n, pos


def _kn_decode_run(b, pos, limit, stop_at, soft, seg_start, flags, crc_name, t, topics, ips, hdr):
    cap = t.shape[1]
    n = 0
    cut = False
    while pos < stop_at:
        if n >= cap or pos >= soft:
            cut = True
            break
        rec, lim = _nb_record_at(b, pos, limit, seg_start, hdr)
        if lim < 0:
            break
        lay = _nb_clean(b, rec, lim, seg_start, flags, crc_name)
        end = lay[0]
        if end < 0 or end > stop_at or (hdr and end != lim):
            break
        bh = lay[2]
        sh = lay[3]
        p = rec + 48
        born_ip = _nb_intern(ips, b, p, bh - 4)
        store_ip = _nb_intern(ips, b, p + bh + 8, sh - 4)
        topic = _nb_intern(topics, b, lay[6], lay[7])
        if born_ip < 0 or store_ip < 0 or topic < 0:
            cut = True  # a table is full: the caller starts a new batch here
            break
        t[0, n] = rec
        t[1, n] = end - rec
        t[2, n] = _nb_i32(b, rec + 4)
        t[3, n] = _nb_i32(b, rec + 8)
        t[4, n] = _nb_i32(b, rec + 12)
        t[5, n] = _nb_i32(b, rec + 16)
        t[6, n] = _nb_i64(b, rec + 20)
        t[7, n] = _nb_i64(b, rec + 28)
        t[8, n] = lay[1]
        t[9, n] = _nb_i64(b, rec + 40)
        t[10, n] = born_ip
        t[11, n] = _nb_i32(b, p + bh - 4)
        p += bh
        t[12, n] = _nb_i64(b, p)
        p += 8
        t[13, n] = store_ip
        t[14, n] = _nb_i32(b, p + sh - 4)
        p += sh
        t[15, n] = _nb_i32(b, p)
        t[16, n] = _nb_i64(b, p + 4)
        t[17, n] = lay[4]
        t[18, n] = lay[5]
        t[19, n] = topic
        t[20, n] = lay[8]
        t[21, n] = lay[9]
        n += 1
        pos = end
    return n, pos, cut


def _kn_crc_many(b, positions, lengths, out):
    for i in range(positions.size):
        out[i] = _nb_crc(b, positions[i], lengths[i])


def _kn_entry_units(u, count, rows, first, number, prev_term, out):
    """DLedger index units u[0 : count * 32] (unit numbers ``number``..) against the walk's rows[:, first + k]
    (record offset, record size, Raft index, term): out[k] = 0 when unit k is (1, offset - 48, size + 48, its
    number, term), its entry's index follows the previous one and its term does not fall (``prev_term``: the
    term before the first), else a bit per failed check (1 unit differs, 2 index gap, 4 term falls, 8 the row
    is another entry's). Returns how many units failed."""
    bad = 0
    last_index = rows[2, first] - 1 if count else 0
    for k in range(count):
        p = k * UNIT_SIZE
        r = first + k
        flags = 0
        if _nb_i64(u, p + UNIT_POS_AT) + ENTRY_HEADER != rows[0, r]:
            flags |= 8
        if (_nb_i32(u, p) != 1 or _nb_i32(u, p + UNIT_SIZE_AT) != rows[1, r] + ENTRY_HEADER
                or _nb_i64(u, p + UNIT_INDEX_AT) != number + k
                or rows[2, r] != number + k or _nb_i64(u, p + UNIT_TERM_AT) != rows[3, r]):
            flags |= 1
        if rows[2, r] != last_index + 1:
            flags |= 2
        if rows[3, r] < prev_term:
            flags |= 4
        last_index = rows[2, r]
        prev_term = rows[3, r]
        out[k] = flags
        if flags:
            bad += 1
    return bad


def _kn_property_codes(b, positions, lengths, name, tab, codes):
    """codes[i] = the slot in the intern table ``tab`` (``_nb_intern``) of record i's value of property ``name``,
    the one Properties.as_map() keeps (``_nb_property``), -1 when it has none. Returns False when the table
    filled up: the caller takes the Python path."""
    for i in range(positions.size):
        at, n = _nb_property(b, positions[i], lengths[i], name)
        if at < 0:
            codes[i] = -1
            continue
        s = _nb_intern(tab, b, at, n)
        if s < 0:
            return False
        codes[i] = s
    return True


def _kn_gather(b, positions, out):
    """out[i] = b[positions[i] : positions[i] + out.shape[1]] (DLedger entry headers at their index units' pos)."""
    width = out.shape[1]
    for i in range(positions.size):
        p = positions[i]
        for k in range(width):
            out[i, k] = b[p + k]


def _kn_find_clean(b, start, stop, limit, seg_start, flags, crc_name, hdr):
    p = max(start, 0) + hdr
    while p < stop + hdr and p + 8 <= limit:
        if b[p + 4] == 0xDA and b[p + 5] == 0xA3 and b[p + 6] == 0x20 and (b[p + 7] == 0xA7 or b[p + 7] == 0xAB):
            lim = limit
            if hdr:  # the record of a DLedger entry: the entry starts 48 bytes before it
                lim = _nb_entry(b, p - hdr, limit, seg_start)
            if lim >= 0:
                end = _nb_clean(b, p, lim, seg_start, flags, crc_name)[0]
                if end >= 0 and (hdr == 0 or end == lim):
                    return p - hdr
        p += 1
    return -1

def _nb_ascii_hash(b, p, n, h):
    """Java String.hashCode continued over ASCII bytes (as int64 in [0, 2^32)); -1 when a byte is not ASCII."""
    k = 0
    while k + 4 <= n:
        c0 = np.int64(b[p + k])
        c1 = np.int64(b[p + k + 1])
        c2 = np.int64(b[p + k + 2])
        c3 = np.int64(b[p + k + 3])
        if (c0 | c1 | c2 | c3) >= 128:
            return np.int64(-1)
        h = (h * 923521 + c0 * 29791 + c1 * 961 + c2 * 31 + c3) & 0xFFFFFFFF
        k += 4
    while k < n:
        c = np.int64(b[p + k])
        if c >= 128:
            return np.int64(-1)
        h = (h * 31 + c) & 0xFFFFFFFF
        k += 1
    return h


def _nb_signed32(h):
    return h - 4294967296 if h >= 2147483648 else h


def _nb_index_hash(h):
    """IndexFile.indexKeyHashMethod of an unsigned 32-bit hashCode."""
    v = _nb_signed32(h)
    if v == -2147483648:
        return np.int64(0)
    return -v if v < 0 else v


def _nb_find(b, p, end, c):
    """Position of the first byte ``c`` in b[p:end] (libc memchr), or ``end``."""
    if p >= end:
        return end
    base = np.int64(b.ctypes.data)
    found = _memchr_c(base + p, np.int32(c), np.uint64(end - p))
    return end if found == 0 else found - base


def _nb_properties(b, p, n, names, offs, vpos, vlen):
    """For each wanted name j (names[offs[j]:offs[j+1]], none containing 0x01) the value Properties.as_map()
    keeps, (vpos[j], vlen[j]), or (-1, 0): the last segment ``name 0x01 value`` with a non-empty value."""
    k = offs.size - 1
    for j in range(k):
        vpos[j] = -1
        vlen[j] = 0
    end = p + n
    s = p
    while s < end:
        e = _nb_find(b, s, end, 2)
        for j in range(k):
            m = offs[j + 1] - offs[j]
            if s + m + 1 < e and b[s + m] == 1:
                same = True
                for x in range(m):
                    if b[s + x] != names[offs[j] + x]:
                        same = False
                        break
                if same:
                    vpos[j] = s + m + 1
                    vlen[j] = e - s - m - 1
                    break
        s = e + 1


def _nb_crc_property_ok(b, pos, end, vpos, vlen):
    """No __CRC32# property, or ten ASCII digits that (reversed) equal the CRC of the record's head."""
    if vpos < 0:
        return True
    if vlen != 10:
        return False
    expected = np.int64(0)
    for k in range(9, -1, -1):
        c = np.int64(b[vpos + k])
        if c < 48 or c > 57:
            return False
        expected = expected * 10 + (c - 48)
    return _nb_crc(b, pos, end - pos - CRC_TAIL) == expected


def _kn_verify_run(b, pos, limit, stop_at, soft, seg_start, flags, names, offs, t, keyh, topics, stats, hdr):
    cap = t.shape[1]
    n = 0
    nk = 0
    first = np.int64(0)
    last = np.int64(0)
    top = np.int64(0)
    cut = 0
    vpos = np.empty(offs.size - 1, dtype=np.int64)
    vlen = np.empty(offs.size - 1, dtype=np.int64)
    while pos < stop_at:
        if pos >= soft:
            cut = 1
            break
        rec, lim = _nb_record_at(b, pos, limit, seg_start, hdr)
        if lim < 0:
            break
        lay = _nb_clean(b, rec, lim, seg_start, flags & (CHECK_BODY_CRC | CHECK_COMPRESSED), names)
        end = lay[0]
        if end < 0 or end > stop_at or (hdr and end != lim):
            break
        _nb_properties(b, lay[8], lay[9], names, offs, vpos, vlen)
        if flags & CHECK_CRC_PROPERTY and not _nb_crc_property_ok(b, rec, end, vpos[0], vlen[0]):
            break
        if n >= cap or nk + 64 > keyh.size:
            cut = 1
            break
        topic = _nb_intern(topics, b, lay[6], lay[7])
        if topic < 0:
            cut = 1
            break
        ts = _nb_i64(b, rec + 48 + lay[2])
        if first == 0:
            first = ts
        last = ts
        if ts > top:
            top = ts
        info = 0
        code = np.int64(0)
        known = True
        if vpos[1] >= 0:
            h = _nb_ascii_hash(b, vpos[1], vlen[1], np.int64(0))
            if h < 0:
                known = False
            else:
                code = _nb_signed32(h)
        if known:
            info |= 1
        tx = lay[1] & 12
        if tx == 0 or tx == 8:
            info |= 2
        if vpos[2] >= 0:
            info |= 8
        if vpos[5] >= 0:
            info |= 16
        k0 = nk
        good = True
        ht = topics[topic, 3]
        if ht == -2:
            ht = _nb_ascii_hash(b, lay[6], lay[7], np.int64(0))
            if ht >= 0:
                ht = (ht * 31 + 35) & 0xFFFFFFFF  # '#'
            topics[topic, 3] = ht
        if ht < 0:
            good = False
        else:
            if vpos[3] >= 0:
                h = _nb_ascii_hash(b, vpos[3], vlen[3], ht)
                if h < 0:
                    good = False
                else:
                    keyh[nk] = _nb_index_hash(h)
                    nk += 1
            if good and vpos[4] >= 0:
                s = vpos[4]
                stop = vpos[4] + vlen[4]
                while s <= stop and good:
                    e = s
                    while e < stop and b[e] != 32:
                        e += 1
                    if e > s:
                        h = _nb_ascii_hash(b, s, e - s, ht)
                        if h < 0 or nk - k0 >= 60:
                            good = False
                        else:
                            keyh[nk] = _nb_index_hash(h)
                            nk += 1
                    s = e + 1
        if good:
            info |= 4
        else:
            nk = k0
        t[0, n] = seg_start + rec
        t[1, n] = end - rec
        t[2, n] = _nb_i32(b, rec + 12)
        t[3, n] = _nb_i64(b, rec + 20)
        t[4, n] = code
        t[5, n] = ts
        t[6, n] = k0
        t[7, n] = nk - k0
        t[8, n] = topic
        t[9, n] = info
        t[10, n] = _nb_i64(b, pos + 8) if hdr else 0  # a DLedger entry's Raft index and term (its header at pos)
        t[11, n] = _nb_i64(b, pos + 16) if hdr else 0
        n += 1
        pos = end
    stats[0] = first
    stats[1] = last
    stats[2] = top
    stats[3] = n
    stats[4] = nk
    stats[5] = cut
    return n, pos


def _kn_index_match(f, items_at, first, count, lo, hi, t, n, keyh, ok, stats):
    """Items first.. (0-based; item number = index + 1) in file order while they point below ``hi``: bit i
    of ``ok`` (little-endian bit order) set where the item points at a record of the table (sorted by offset, covering [lo, hi)) whose index keys
    include the item's hash and links to an older item, and points no lower than an earlier item (the broker
    adds items in log order). Returns where it stopped; stats = [min, max] store timestamp of the records of ok
    items, whether there is one, the highest offset an item pointed at so far (-1 before the first)."""
    i = first
    hint = 0
    while i < count:
        ipos = items_at + (i + 1) * 20
        phy = _nb_i64(f, ipos + 4)
        if phy >= hi:
            break
        behind = phy < stats[3]
        if phy > stats[3]:
            stats[3] = phy
        if phy >= lo and n > 0 and not behind:
            a = hint
            if not (a < n and t[0, a] == phy):
                if a + 1 < n and t[0, a + 1] == phy:
                    a += 1
                else:
                    a = 0
                    z = n
                    while a < z:
                        mid = (a + z) // 2
                        if t[0, mid] < phy:
                            a = mid + 1
                        else:
                            z = mid
            hint = a
            if a < n and t[0, a] == phy and t[9, a] & 4:
                prev = _nb_i32(f, ipos + 16)
                if prev >= 0 and prev < i + 1:
                    h = _nb_i32(f, ipos)
                    for x in range(t[6, a], t[6, a] + t[7, a]):
                        if keyh[x] == h:
                            ok[i >> 3] |= np.uint8(1 << (i & 7))
                            ts = t[5, a]
                            if stats[2] == 0 or ts < stats[0]:
                                stats[0] = ts
                            if stats[2] == 0 or ts > stats[1]:
                                stats[1] = ts
                            stats[2] = 1
                            break
        i += 1
    return i


def _kn_index_chains(f, slots_at, slot_count, items_at, item_count, count, size, reached):
    """Walk every slot's chain as verify does; (used slots, items reached, 1 if anything is wrong)."""
    used = 0
    nreached = 0
    for slot in range(slot_count):
        spos = slots_at + slot * 4
        if spos + 4 > size:
            break
        value = _nb_i32(f, spos)
        if value == 0:
            continue
        if value < 0 or value >= count:
            return used, nreached, 1
        used += 1
        number = value
        while number > 0:
            if number >= item_count or number >= count:
                return used, nreached, 1
            ipos = items_at + number * 20
            if ipos + 20 > size:
                return used, nreached, 1
            key_hash = _nb_i32(f, ipos)
            if key_hash < 0 or key_hash % slot_count != slot or reached[number]:
                return used, nreached, 1
            reached[number] = 1
            nreached += 1
            prev = _nb_i32(f, ipos + 16)
            if prev >= number:
                return used, nreached, 1
            number = prev
    return used, nreached, 0


def _kn_chain_items(f, items_at, slot_count, first, stop, last):
    """Items first..stop-1 of a file laid out as IndexFile.putKey writes it: each links to the previous item
    of its slot (``last``, updated). 1 when they all do, 0 at the first that does not."""
    for number in range(first, stop):
        ipos = items_at + number * 20
        key_hash = _nb_i32(f, ipos)
        if key_hash < 0:
            return 0
        slot = key_hash % slot_count
        if _nb_i32(f, ipos + 16) != last[slot]:
            return 0
        last[slot] = number
    return 1


def _kn_chain_slots(f, slots_at, first, stop, last):
    """Slots first..stop-1 each hold their newest item (``last``): how many are in use, or -1."""
    used = 0
    for slot in range(first, stop):
        value = _nb_i32(f, slots_at + slot * 4)
        if value != last[slot]:
            return -1
        if value != 0:
            used += 1
    return used

def _kn_mark_queues(t, n, codes, qkeys, qfiles, f_first, f_count, f_addr, f_mark, marks, f_low, schedule,
                    unit):
    """Rows 0..n-1 of a verify table (VERIFY_COLUMNS): marks[f_mark[f] + local] = 1 for each record that gets a
    unit (info: units and tags known; not a DELAY record of the ``schedule`` topic id) whose consume-queue unit
    points back at it (offset, size, tagsCode or a ConsumeQueueExt address). ``codes``: the table's topic code ->
    topic id; ``qkeys`` (sorted): topic id * 2^33 + queue id + 2^31 of each queue q, whose files are
    qfiles[q]..qfiles[q + 1]-1 (by first queue offset ``f_first``, ``f_count`` units at address ``f_addr``, read
    through ``unit``, a 20-byte scratch). f_low[f]: the lowest unit index looked at in file f."""
    scratch = np.int64(unit.ctypes.data)
    for r in range(n):
        info = t[9, r]
        if info & 3 != 3:  # INFO_TAGS | INFO_UNITS
            continue
        tid = codes[t[8, r]]
        if tid < 0 or (tid == schedule and info & 8):  # a DELAY record's tagsCode is its delivery time
            continue
        key = tid * 8589934592 + t[2, r] + 2147483648
        a = 0
        z = qkeys.size
        while a < z:
            mid = (a + z) // 2
            if qkeys[mid] < key:
                a = mid + 1
            else:
                z = mid
        if a == qkeys.size or qkeys[a] != key:
            continue
        qoff = t[3, r]
        f = -1
        for g in range(qfiles[a], qfiles[a + 1]):
            if f_first[g] > qoff:
                break
            f = g
        if f < 0:
            continue
        local = qoff - f_first[f]
        if local >= f_count[f]:
            continue
        if local < f_low[f]:
            f_low[f] = local
        _memcpy_c(scratch, f_addr[f] + local * 20, np.uint64(20))
        if _nb_i64(unit, 0) == t[0, r] and _nb_i32(unit, 8) == t[1, r]:
            tags = _nb_i64(unit, 12)
            if tags == t[4, r] or tags <= CQ_EXT_ADDR_LIMIT:  # a ConsumeQueueExt address holds no tags hash
                marks[f_mark[f] + local] = 1


# --- JSON Lines of clean records (views_bulk._BatchEncoder's kernel twin) -------------------------------------


def _nb_put(out, o, src, s, n):
    for k in range(n):
        out[o + k] = src[s + k]
    return o + n


def _nb_lit(out, o, lits, lit_offs, k):
    """Literal ``k`` of views_bulk._LITERALS."""
    return _nb_put(out, o, lits, lit_offs[k], lit_offs[k + 1] - lit_offs[k])


def _nb_dec(out, o, v):
    """``v`` (int64) in decimal. Unsigned arithmetic: numba's signed // and % carry Python's floor semantics."""
    if v < 0:
        out[o] = 45  # '-'
        o += 1
        u = np.uint64(0) - np.uint64(v)  # also right for -2^63
    else:
        u = np.uint64(v)
    ten = np.uint64(10)
    n = 1
    w = u
    while w >= ten:
        w //= ten
        n += 1
    for k in range(n - 1, -1, -1):
        out[o + k] = np.uint8(np.uint64(48) + u % ten)
        u //= ten
    return o + n


def _nb_hex16(out, o, v):
    """16 upper-case hex digits of ``v`` as an unsigned 64-bit value."""
    for k in range(15, -1, -1):
        d = v & 15
        out[o + k] = 48 + d if d < 10 else 55 + d
        v = (v >> 4) & 0x0FFFFFFFFFFFFFFF
    return o + 16


def _nb_utf8_len(b, p, end):
    """Length of the strictly valid UTF-8 sequence starting at ``p`` (lead byte >= 0x80), or 0: invalid, overlong
    or a surrogate (the Python twin would decode those with surrogateescape and escape them: not ours)."""
    c = b[p]
    if c < 0xC2 or c > 0xF4:
        return 0
    n = 2 if c < 0xE0 else (3 if c < 0xF0 else 4)
    if p + n > end:
        return 0
    for k in range(1, n):
        if b[p + k] & 0xC0 != 0x80:
            return 0
    c1 = b[p + 1]
    if (c == 0xE0 and c1 < 0xA0) or (c == 0xED and c1 >= 0xA0) or (c == 0xF0 and c1 < 0x90) \
            or (c == 0xF4 and c1 >= 0x90):
        return 0
    return n


def _nb_jstr(out, o, b, p, n):
    """``b[p:p+n]`` as a JSON string the way orjson writes it; -1 when this kernel leaves it to Python (a control
    character, or bytes that are no valid UTF-8)."""
    out[o] = 34
    o += 1
    end = p + n
    while p < end:
        c = b[p]
        if c < 0x20:
            return -1
        if c < 0x80:
            if c == 34 or c == 92:  # '"' and '\'
                out[o] = 92
                o += 1
            out[o] = c
            o += 1
            p += 1
        else:
            k = _nb_utf8_len(b, p, end)
            if k == 0:
                return -1
            for j in range(k):
                out[o + j] = b[p + j]
            o += k
            p += k
    out[o] = 34
    return o + 1


def _nb_b64(out, o, b, p, n, table, pairs):
    """Standard base64 with padding (``table``: the 64 letters; ``pairs``: the two letters of each 12-bit value,
    4096 x 2 bytes, so a 3-byte group takes two lookups)."""
    end = p + n - n % 3
    while p < end:
        v = (np.int64(b[p]) << 16) | (np.int64(b[p + 1]) << 8) | np.int64(b[p + 2])
        hi = (v >> 12) << 1
        lo = (v & 4095) << 1
        out[o] = pairs[hi]
        out[o + 1] = pairs[hi + 1]
        out[o + 2] = pairs[lo]
        out[o + 3] = pairs[lo + 1]
        o += 4
        p += 3
    rest = n % 3
    if rest == 1:
        v = np.int64(b[p]) << 16
        out[o] = table[v >> 18]
        out[o + 1] = table[(v >> 12) & 63]
        out[o + 2] = 61
        out[o + 3] = 61
        o += 4
    elif rest == 2:
        v = (np.int64(b[p]) << 16) | (np.int64(b[p + 1]) << 8)
        out[o] = table[v >> 18]
        out[o + 1] = table[(v >> 12) & 63]
        out[o + 2] = table[(v >> 6) & 63]
        out[o + 3] = 61
        o += 4
    return o


def _nb_same(b, p, n, q, m):
    if n != m:
        return False
    for k in range(n):
        if b[p + k] != b[q + k]:
            return False
    return True


def _nb_is(b, p, n, lits, lit_offs, k):
    """Whether ``b[p:p+n]`` is literal ``k``."""
    s = lit_offs[k]
    if n != lit_offs[k + 1] - s:
        return False
    for j in range(n):
        if b[p + j] != lits[s + j]:
            return False
    return True


def _nb_middle(out, o, b, pp, pl, lits, lit_offs, names, lens):
    """``"properties":{..},"tags":..,"keys":[..],"unique_key":..`` as views_bulk writes it (string2messageProperties:
    parts split by 0x02, name and value by the first 0x01, empty names or values dropped); -1: leave the record to
    Python (a repeated name: a dict keeps its first place and last value; or a string _nb_jstr refuses)."""
    count = 0
    tags_p = -1
    tags_n = 0
    keys_p = -1
    keys_n = 0
    uniq_p = -1
    uniq_n = 0
    o = _nb_lit(out, o, lits, lit_offs, 20)  # "properties":{
    end = pp + pl
    p = pp
    while p < end:
        q = p
        while q < end and b[q] != 2:
            q += 1
        s = p
        while s < q and b[s] != 1:
            s += 1
        if s < q and s > p and q > s + 1:  # a name and a value
            for k in range(count):
                if _nb_same(b, names[k], lens[k], p, s - p):
                    return -1
            if count == names.size:
                return -1
            names[count] = p
            lens[count] = s - p
            if count > 0:
                out[o] = 44
                o += 1
            count += 1
            o = _nb_jstr(out, o, b, p, s - p)
            if o < 0:
                return -1
            out[o] = 58
            o = _nb_jstr(out, o + 1, b, s + 1, q - s - 1)
            if o < 0:
                return -1
            if _nb_is(b, p, s - p, lits, lit_offs, 32):  # TAGS
                tags_p, tags_n = s + 1, q - s - 1
            elif _nb_is(b, p, s - p, lits, lit_offs, 33):  # KEYS
                keys_p, keys_n = s + 1, q - s - 1
            elif _nb_is(b, p, s - p, lits, lit_offs, 34):  # UNIQ_KEY
                uniq_p, uniq_n = s + 1, q - s - 1
        p = q + 1
    o = _nb_lit(out, o, lits, lit_offs, 21)  # },"tags":
    o = _nb_lit(out, o, lits, lit_offs, 23) if tags_p < 0 else _nb_jstr(out, o, b, tags_p, tags_n)
    o = _nb_lit(out, o, lits, lit_offs, 22)  # ,"keys":[
    first = True
    p = keys_p
    end = keys_p + keys_n
    while keys_p >= 0 and p < end:  # KEYS split on single spaces, empty pieces dropped
        q = p
        while q < end and b[q] != 32:
            q += 1
        if q > p:
            if not first:
                out[o] = 44
                o += 1
            first = False
            o = _nb_jstr(out, o, b, p, q - p)
        p = q + 1
    o = _nb_lit(out, o, lits, lit_offs, 24)  # ],"unique_key":
    return _nb_lit(out, o, lits, lit_offs, 23) if uniq_p < 0 else _nb_jstr(out, o, b, uniq_p, uniq_n)


def _kn_json_lines(b, t, rows, force_py, mv, flag_i, born_i, store_i, strs, str_offs, bases, lits, lit_offs,
                   seg_start, decompress, out, ends, py, entry_hdr):
    """One JSON line per row of ``rows`` (indices into the batch table ``t``), written to ``out``; ``ends[k]`` is
    where row k's line ends (its start is the previous end), ``py[k] = 1`` for a row left to Python (nothing
    written). Returns the bytes written. What repeats comes from views_bulk: the literal text between fields
    (``lits``), and one table of JSON strings (``strs``: the file, then at ``bases`` the sysFlag parts, the sysFlag
    names, the hosts, their msgId prefixes and the topics), so each line equals its Python twin byte for byte.
    ``entry_hdr`` 48: a DLedger data file's records, each line with its entry (``"dledger"``: Raft index and term
    from the header before the record, the entry's position and size), as message_view gives it.

    The fields up to the topic are written by one loop over (literal, number or string) so each helper has one
    call site: numba inlines them (a call passing arrays costs reference counting) without a large compile."""
    table = lits[lit_offs[35] : lit_offs[36]]  # the base64 alphabet, and its letter pairs
    pairs = lits[lit_offs[36] : lit_offs[37]]
    names = np.empty(64, dtype=np.int64)  # where each property name of a record starts, and its length
    lens = np.empty(64, dtype=np.int64)
    v = np.empty(18, dtype=np.int64)
    o = 0
    for k in range(rows.size):
        i = rows[k]
        if force_py[i]:
            py[k] = 1
            ends[k] = o
            continue
        start = o
        pos = t[0, i]
        f = flag_i[i]
        h = store_i[i]
        # literal j, then a number, or (j in 0, 10, 12, 14, 17) the index of a string of strs
        v[0] = 0
        v[1] = pos
        v[2] = seg_start + pos
        v[3] = t[1, i]
        v[4] = mv[i]
        v[5] = t[3, i]
        v[6] = t[4, i]
        v[7] = t[5, i]
        v[8] = t[6, i]
        v[9] = t[7, i]
        v[10] = bases[0] + f
        v[11] = t[9, i]
        v[12] = bases[2] + born_i[i]
        v[13] = t[12, i]
        v[14] = bases[2] + h
        v[15] = t[15, i]
        v[16] = t[16, i]
        v[17] = bases[4] + t[19, i]
        for j in range(18):
            o = _nb_lit(out, o, lits, lit_offs, j)
            x = v[j]
            if j == 0 or j == 10 or j == 12 or j == 14 or j == 17:
                o = _nb_put(out, o, strs, str_offs[x], str_offs[x + 1] - str_offs[x])
            else:
                o = _nb_dec(out, o, x)
        o = _nb_lit(out, o, lits, lit_offs, 10)  # ,
        o = _nb_middle(out, o, b, t[20, i], t[21, i], lits, lit_offs, names, lens)
        if o < 0:
            o = start
            py[k] = 1
            ends[k] = o
            continue
        o = _nb_lit(out, o, lits, lit_offs, 18)  # ,"msg_id":"
        x = bases[3] + h
        o = _nb_put(out, o, strs, str_offs[x], str_offs[x + 1] - str_offs[x])
        o = _nb_hex16(out, o, t[7, i])
        o = _nb_lit(out, o, lits, lit_offs, 19)  # ",
        x = bases[1] + f
        o = _nb_put(out, o, strs, str_offs[x], str_offs[x + 1] - str_offs[x])
        n = t[18, i]
        o = _nb_dec(out, _nb_lit(out, o, lits, lit_offs, 25), n)  # ,"body_length":
        o = _nb_lit(out, o, lits, lit_offs, 26)  # ,"body_base64":"
        b64_at = o
        o = _nb_b64(out, o, b, t[17, i], n, table, pairs)
        b64_end = o
        o = _nb_lit(out, o, lits, lit_offs, 27)  # ","body_truncated":false
        if entry_hdr:
            at = pos - entry_hdr
            o = _nb_dec(out, _nb_lit(out, o, lits, lit_offs, 37), _nb_i64(b, at + ENTRY_INDEX_AT))  # ,"dledger":{"raft_index":
            o = _nb_dec(out, _nb_lit(out, o, lits, lit_offs, 38), _nb_i64(b, at + ENTRY_TERM_AT))  # ,"term":
            o = _nb_dec(out, _nb_lit(out, o, lits, lit_offs, 39), at)  # ,"entry_position":
            o = _nb_dec(out, _nb_lit(out, o, lits, lit_offs, 40), t[1, i] + entry_hdr)  # ,"entry_size":
            o = _nb_lit(out, o, lits, lit_offs, 41)  # }
        if decompress:
            o = _nb_lit(out, o, lits, lit_offs, 28)  # ,"body_decompressed_base64":"
            for j in range(b64_end - b64_at):
                out[o + j] = out[b64_at + j]
            o += b64_end - b64_at
            o = _nb_dec(out, _nb_lit(out, o, lits, lit_offs, 29), n)  # ","body_decompressed_length":
            o = _nb_lit(out, o, lits, lit_offs, 30)  # ,"decompress_error":null
        o = _nb_lit(out, o, lits, lit_offs, 31)  # }\n
        ends[k] = o
    return o


def _kn_template_lines(out, lits, lit_offs, kinds, cols, ints, tab, tab_offs, idx):
    """Lines from a template (timerviews): literal k, then field k (kind 0: ``ints[cols[k], row]`` in decimal;
    kind 1: table entry ``idx[cols[k], row]`` as is), ..., then the last literal, for every row. The bytes
    written."""
    o = 0
    fields = kinds.shape[0]
    for row in range(ints.shape[1] if ints.shape[0] else idx.shape[1]):
        for k in range(fields):
            o = _nb_lit(out, o, lits, lit_offs, k)
            if kinds[k] == 0:
                o = _nb_dec(out, o, ints[cols[k], row])
            else:
                e = idx[cols[k], row]
                o = _nb_put(out, o, tab, tab_offs[e], tab_offs[e + 1] - tab_offs[e])
        o = _nb_lit(out, o, lits, lit_offs, fields)
    return o


def _kn_find_fold(b, start, end, lit, anchor):
    """The first p in [start, end - len(lit)] where b[p:p + len(lit)] with ASCII letters lowered equals ``lit``
    (lower case), or -1 (grep -i). Candidates come from libc memchr for both cases of ``lit[anchor]`` (a rare
    byte of the literal: memchr skips the text between its occurrences at memory speed)."""
    m = lit.size
    a = lit[anchor]
    up = a - 32 if 97 <= a <= 122 else a
    last = end - m
    p = start + anchor  # where the anchor byte is looked for
    stop = last + anchor + 1
    next_a = _nb_find(b, p, stop, a)
    next_u = next_a if up == a else _nb_find(b, p, stop, up)
    while True:
        q = next_a if next_a < next_u else next_u
        if q >= stop:
            return -1
        s = q - anchor
        j = 0
        while j < m:
            y = b[s + j]
            if 65 <= y <= 90:
                y += 32
            if y != lit[j]:
                break
            j += 1
        if j == m:
            return s
        if q == next_a:
            next_a = _nb_find(b, q + 1, stop, a)
        if q == next_u:
            next_u = next_a if up == a else _nb_find(b, q + 1, stop, up)
