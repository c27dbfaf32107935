"""The bulk commitlog path: walk record boundaries and check or decode whole runs of records at once.

This is the one fast path of the engine (issue 8). ``parsers.commitlog.MessageRecord`` stays the single
declaration of the record layout: the fixed offsets used here are derived from it at import time (see
:data:`HEAD`), and tests/inspector/engine/scan/test_bulk.py holds every result equal to the construct parse
and to :func:`inspector.engine.scan.decode.decode_message` on random, real and sample-store records.

A *clean* record is one ``decode_message`` accepts whose PHYSICALOFFSET equals its position (and, when
asked, whose body CRC and ``__CRC32#`` property check out). The kernels here only ever consume runs of
clean records and stop at the first record that is anything else (a BLANK, the zero tail, damage, a CRC
mismatch): the caller's record-by-record path (:mod:`inspector.engine.read.commitlog`) handles that record,
reports whatever is wrong with it and hands back. So the fast path decides nothing the slow path would
decide differently; it only skips the Python work for records with nothing to report.

Kernels are compiled with numba (``cache=True``) when it is importable; otherwise the same results come
from ``struct`` and numpy (slower). Body CRCs use ISA-L's ``crc32_gzip_refl`` (the ``isal`` package) when
importable, else zlib's ``crc32``; numba kernels call that C function directly, without the GIL, so
several threads can check different segments at once.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import ipaddress
import os
import struct
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from inspector.engine.model.records import RAW_PROPERTIES, Host, Message
from inspector.engine.scan.decode import new_message
from parsers import commitlog as cl
from parsers.consumequeue import CQ_EXT_ADDR_LIMIT
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
if HEAD != _EXPECTED_HEAD:  # the kernels below are written against these offsets
    raise ImportError(f"MessageRecord layout changed: {HEAD}; update inspector/engine/scan/bulk.py")

MIN_RECORD_SIZE = cl.record_length(0, 0, 0)
V1, V2, BLANK = cl.MAGIC_V1, cl.MAGIC_V2, cl.MAGIC_BLANK
BORN_V6, STORE_V6 = cl.BORNHOST_V6_FLAG, cl.STOREHOSTADDRESS_V6_FLAG
FIXED_LENGTH = cl.record_length(0, 0, 0, 0, V1) - 8 - 8 - 1  # 74: calMsgLength without hosts and topic length
CRC_PROPERTY = CRC_PROPERTY_NAME.encode()
_CRC_NAME = np.frombuffer(CRC_PROPERTY, dtype=np.uint8)
CRC_TAIL = CRC_PROPERTY_TAIL_LENGTH

# flags of check runs
CHECK_BODY_CRC = 1
CHECK_CRC_PROPERTY = 2

COLUMNS = (
    "position", "total_size", "magic_code", "body_crc", "queue_id", "flag", "queue_offset",
    "stored_physical_offset", "sys_flag", "born_timestamp", "born_ip", "born_port", "store_timestamp",
    "store_ip", "store_port", "reconsume_times", "prepared_transaction_offset", "body_position", "body_length",
    "topic", "properties_position", "properties_length",
)  # fmt: skip
"""Columns of a decoded batch; ``born_ip``/``store_ip``/``topic`` are codes into the batch's tables."""
_COL = {name: i for i, name in enumerate(COLUMNS)}
INTERN_SLOTS = 1 << 12  # table size for distinct topics / IPs; a batch that fills 3/4 of it ends there

# --- crc -------------------------------------------------------------------------------------------------------


def _crc_library() -> tuple[str, int | None]:
    """(name, address) of a C ``crc(uint32 init, const void *buf, size_t len)``: ISA-L, else zlib."""
    try:
        import isal.isal_zlib as isal_zlib

        fn = ctypes.CDLL(isal_zlib.__file__).crc32_gzip_refl
        return "isal", ctypes.cast(fn, ctypes.c_void_p).value
    except (ImportError, OSError, AttributeError):
        pass
    for candidate in (zlib.__file__ if hasattr(zlib, "__file__") else None, ctypes.util.find_library("z")):
        if not candidate:
            continue
        try:
            fn = ctypes.CDLL(candidate).crc32
            return "zlib", ctypes.cast(fn, ctypes.c_void_p).value
        except (OSError, AttributeError):
            continue
    return "none", None


try:
    from isal.isal_zlib import crc32 as _py_crc32

    CRC_BACKEND = "isal"
except ImportError:  # pragma: no cover - isal is an optional speed-up
    _py_crc32 = zlib.crc32
    CRC_BACKEND = "zlib"


def rocketmq_crc32(data) -> int:
    """``UtilAll.crc32`` (CRC-32 & 0x7FFFFFFF, 0 for empty data) with the fastest CRC available."""
    return _py_crc32(data) & 0x7FFFFFFF if len(data) else 0


# --- numba --------------------------------------------------------------------------------------------------


def _set_cache_dir() -> None:
    """numba caches next to this file; when that is not writable (a system install), in the user cache."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    here = Path(__file__).resolve().parent
    pycache = here / "__pycache__"
    if os.access(pycache if pycache.is_dir() else here, os.W_OK):
        return
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    os.environ["NUMBA_CACHE_DIR"] = str(base / "rmq-inspect" / "numba")


_lock = threading.Lock()
_kernels = None  # the compiled kernels, once loaded; False when numba is unavailable
_force_python = False


def _load():
    """Compile (or load from numba's cache) the kernels; None when numba is not importable or is disabled."""
    global _kernels
    if _kernels is None:
        with _lock:
            if _kernels is None:
                _kernels = False
                if not os.environ.get("RMQ_INSPECT_NO_NUMBA"):
                    _set_cache_dir()
                    try:
                        import numba  # noqa: F401
                    except ImportError:
                        pass
                    else:
                        _kernels = _compile()
    return _kernels or None


def numba_enabled() -> bool:
    """True when the compiled kernels are in use (numba importable and not disabled)."""
    return not _force_python and _load() is not None


@contextlib.contextmanager
def python_only():
    """Use the pure-Python/numpy path inside the block (tests compare both paths)."""
    global _force_python
    before = _force_python
    _force_python = True
    try:
        yield
    finally:
        _force_python = before


def _k():
    return None if _force_python else _load()


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


# --- boundary walk ------------------------------------------------------------------------------------------

_HEAD_PY = struct.Struct(">ii")
_I64 = struct.Struct(">q")


def walk_boundaries(buf, start: int = 0, limit: int | None = None, *, segment_start: int = 0,
                    stop_at: int | None = None, max_records: int = 1 << 16) -> tuple[np.ndarray, int]:
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
    k = _k()
    if k is not None:
        n, end = k.walk(arr, start, limit, segment_start, stop_at, out)
        return out[:n], int(end)
    return _walk_py(buf if not isinstance(buf, np.ndarray) else arr.data, start, limit, segment_start, stop_at, out)


def _walk_py(buf, pos, limit, segment_start, stop_at, out):
    n = 0
    cap = out.size
    head, i64 = _HEAD_PY.unpack_from, _I64.unpack_from
    minimum = MIN_RECORD_SIZE
    positions = []
    while n < cap and limit - pos >= 36:
        total, magic = head(buf, pos)
        if (magic != V1 and magic != V2) or total < minimum or total > limit - pos or pos + total > stop_at:
            break
        if i64(buf, pos + 28)[0] != segment_start + pos:
            break
        positions.append(pos)
        n += 1
        pos += total
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


def check_run(buf, start: int, limit: int, *, segment_start: int, stop_at: int | None = None,
              flags: int = CHECK_BODY_CRC, soft_stop: int | None = None) -> Run:
    """Consume clean records from ``start`` up to ``stop_at`` (default ``limit``); stop at any other record.

    ``flags``: CHECK_BODY_CRC (BODYCRC must match the body), CHECK_CRC_PROPERTY (a ``__CRC32#`` property,
    when present, must match the record). ``soft_stop``: also stop at the first record boundary at or past
    it (``run.end >= soft_stop``: call again from there).
    """
    arr = as_array(buf)
    stop_at = limit if stop_at is None else stop_at
    soft_stop = stop_at if soft_stop is None else soft_stop
    k = _k()
    if k is not None:
        stats = np.zeros(4, dtype=np.int64)
        n, end = k.check_run(arr, start, limit, stop_at, soft_stop, segment_start, flags, _CRC_NAME, stats)
        return Run(int(n), int(end), int(stats[0]), int(stats[1]), int(stats[2]))
    return _check_run_py(buf if not isinstance(buf, np.ndarray) else arr.data, start, limit, stop_at,
                         soft_stop, segment_start, flags)


def find_clean(buf, start: int, limit: int, *, segment_start: int, flags: int = 0,
               max_scan: int = 1 << 22) -> int:
    """The first position in [start, start + max_scan) where a clean record starts, or -1.

    Used to split a segment between threads: a thread started there walks the same records as a walk from
    the segment start would, as long as the earlier thread's walk arrives exactly there (callers check).
    """
    arr = as_array(buf)
    stop = min(limit, start + max_scan)
    k = _k()
    if k is not None:
        return int(k.find_clean(arr, start, stop, limit, segment_start, flags, _CRC_NAME))
    data = arr.data if arr.size else b""
    magics = (struct.pack(">i", V1), struct.pack(">i", V2))
    at = start
    while at < stop:
        hits = [i for i in (bytes(data[at + 4 : stop + 4]).find(m) for m in magics) if i >= 0]
        if not hits:
            return -1
        cand = at + min(hits)
        if cand >= stop:
            return -1
        if _clean_py(data, cand, limit, segment_start, flags) is not None:
            return cand
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
    return layout


def _check_run_py(buf, pos, limit, stop_at, soft_stop, segment_start, flags) -> Run:
    n = first = last = top = 0
    while pos < stop_at and pos < soft_stop:
        layout = _clean_py(buf, pos, limit, segment_start, flags)
        if layout is None or pos + layout[0] > stop_at:
            break
        ts = _I64.unpack_from(buf, pos + 48 + layout[3])[0]
        if first == 0:
            first = ts
        last = ts
        top = max(top, ts)
        n += 1
        pos += layout[0]
    return Run(n, pos, first, last, top)


# --- decoded batches --------------------------------------------------------------------------------------


_FAST_MESSAGE = not hasattr(Message, "__slots__") and not hasattr(Message, "__post_init__")


class MessageBatch:
    """A run of clean records decoded into columns (numpy int64), with topics and hosts interned.

    ``columns[name]`` for every name of :data:`COLUMNS`; ``topics[code]``/``ips[code]`` are the distinct
    topics and IP strings. Properties stay raw until asked for (:meth:`properties_text`,
    :meth:`properties`); :meth:`message` builds the same :class:`Message` ``decode_message`` would.
    The batch keeps a view of the segment: it stays readable after its pages are released.
    """

    def __init__(self, buf: np.ndarray, file: str, segment_start: int, table: np.ndarray, end: int,
                 topics: list[str], ips: list[str]):
        self.buf = buf
        self.file = file
        self.segment_start = segment_start
        self.table = table  # (len(COLUMNS), n) int64
        self.end = end
        self.topics = topics
        self.ips = ips
        self._hosts: dict[tuple[int, int], Host] = {}
        self.cut = False  # True: stopped only because the batch was full
        self.flags = 0  # the CHECK_* flags every record of the batch passed

    def __len__(self) -> int:
        return self.table.shape[1]

    @property
    def columns(self) -> dict[str, np.ndarray]:
        return {name: self.table[i] for i, name in enumerate(COLUMNS)}

    def column(self, name: str) -> np.ndarray:
        return self.table[_COL[name]]

    @property
    def physical_offsets(self) -> np.ndarray:
        return self.table[0] + self.segment_start

    def topic(self, i: int) -> str:
        return self.topics[int(self.table[_COL["topic"], i])]

    def body(self, i: int) -> bytes:
        p = int(self.table[_COL["body_position"], i])
        return self.buf[p : p + int(self.table[_COL["body_length"], i])].tobytes()

    def properties_text(self, i: int) -> str:
        p = int(self.table[_COL["properties_position"], i])
        raw = self.buf[p : p + int(self.table[_COL["properties_length"], i])].tobytes()
        return raw.decode("utf-8", "surrogateescape")

    def properties(self, i: int) -> dict[str, str]:
        """The properties map by RocketMQ's reading rules, parsed on demand."""
        return cl.Properties.from_text(self.properties_text(i)).as_map()

    def messages(self) -> Iterator[Message]:
        """Every record as a :class:`Message` (equal to ``decode_message``'s)."""
        # one list per column (22 containers), not one per row: 32k fresh lists would make the collector
        # walk them again and again while the Messages are built
        t = zip(*(column.tolist() for column in self.table), strict=True)
        buf, file, start = self.buf, self.file, self.segment_start
        crc_ok = _FAST_MESSAGE and bool(self.flags & CHECK_BODY_CRC)
        topics, ips, hosts = self.topics, self.ips, self._hosts
        for row in t:
            (pos, total, magic, body_crc, queue_id, flag, queue_offset, phys, sys_flag, born_ts, born_ip,
             born_port, store_ts, store_ip, store_port, reconsume, prepared, body_pos, body_len, topic,
             props_pos, props_len) = row
            born = hosts.get((born_ip, born_port))
            if born is None:
                born = hosts[(born_ip, born_port)] = Host(ips[born_ip], born_port)
            store = hosts.get((store_ip, store_port))
            if store is None:
                store = hosts[(store_ip, store_port)] = Host(ips[store_ip], store_port)
            fields = dict(
                file=file, position=pos, physical_offset=start + pos, total_size=total, magic_code=magic,
                body_crc=body_crc, queue_id=queue_id, flag=flag, queue_offset=queue_offset,
                stored_physical_offset=phys, sys_flag=sys_flag, born_timestamp=born_ts, born_host=born,
                store_timestamp=store_ts, store_host=store, reconsume_times=reconsume,
                prepared_transaction_offset=prepared, body=buf[body_pos : body_pos + body_len].tobytes(),
                topic=topics[topic],
            )
            # split when first read (records._RawProperties)
            fields[RAW_PROPERTIES] = buf[props_pos : props_pos + props_len].tobytes().decode("utf-8", "surrogateescape")
            if crc_ok:
                fields["body_crc_ok"] = True  # checked on the way in (Message caches it under this name)
            yield new_message(fields)

    def message(self, i: int) -> Message:
        sub = MessageBatch(self.buf, self.file, self.segment_start, self.table[:, i : i + 1], self.end,
                           self.topics, self.ips)
        sub._hosts = self._hosts
        sub.flags = self.flags
        return next(sub.messages())


def _ip_text(raw: bytes) -> str:
    if len(raw) == 4:
        return f"{raw[0]}.{raw[1]}.{raw[2]}.{raw[3]}"
    return str(ipaddress.IPv6Address(raw))


def decode_batch(buf, start: int, limit: int, *, segment_start: int = 0, stop_at: int | None = None,
                 max_records: int = 1 << 15, flags: int = 0, file: str = "",
                 soft_stop: int | None = None) -> MessageBatch:
    """Decode the run of clean records from ``start`` (at most ``max_records``) into a :class:`MessageBatch`.

    Stops before the first record that is not clean (see the module docstring) or would end past
    ``stop_at``; ``batch.end`` is where it stopped. ``batch.cut`` is True when the batch stopped only
    because it is full or reached ``soft_stop``: decode again from ``batch.end``.
    """
    arr = as_array(buf)
    stop_at = limit if stop_at is None else stop_at
    soft_stop = stop_at if soft_stop is None else soft_stop
    table = np.empty((len(COLUMNS), max(0, max_records)), dtype=np.int64)
    k = _k()
    if k is not None:
        topic_tab = np.full((INTERN_SLOTS + 1, 4), -1, dtype=np.int64)
        ip_tab = np.full((INTERN_SLOTS + 1, 4), -1, dtype=np.int64)
        topic_tab[INTERN_SLOTS, 0] = ip_tab[INTERN_SLOTS, 0] = 0
        n, end, cut = k.decode_run(arr, start, limit, stop_at, soft_stop, segment_start, flags, _CRC_NAME, table,
                                   topic_tab, ip_tab)
        batch = MessageBatch(arr, file, segment_start, table[:, :n], int(end), _names(arr, topic_tab, _topic_text),
                             _names(arr, ip_tab, _ip_text))
        batch.cut = bool(cut)
        batch.flags = flags
        return batch
    return _decode_py(arr, start, limit, stop_at, soft_stop, segment_start, flags, table, file)


def _topic_text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _names(arr: np.ndarray, tab: np.ndarray, text) -> list:
    """Text of every used slot of an intern table (a list indexed by slot; unused slots are None)."""
    names: list = [None] * (tab.shape[0] - 1)
    for slot in np.flatnonzero(tab[:-1, 1] >= 0).tolist():
        p, n = int(tab[slot, 1]), int(tab[slot, 2])
        names[slot] = text(arr[p : p + n].tobytes())
    return names


# --- decode: pure Python ---------------------------------------------------------------------------------


def _decode_py(arr: np.ndarray, pos: int, limit: int, stop_at: int, soft_stop: int, segment_start: int,
               flags: int, table: np.ndarray, file: str) -> MessageBatch:
    buf = arr.data if arr.size else b""
    cap = table.shape[1]
    topics: dict[bytes, int] = {}
    ips: dict[bytes, int] = {}
    rows = []
    while len(rows) < cap and pos < stop_at and pos < soft_stop:
        layout = _clean_py(buf, pos, limit, segment_start, flags)
        if layout is None or pos + layout[0] > stop_at:
            break
        total, magic, sys_flag, bh, sh, body_pos, body_len, topic_pos, topic_len, props_pos, props_len = layout
        (_, _, body_crc, queue_id, flag, queue_offset, phys, _, born_ts) = _HEAD9.unpack_from(buf, pos)
        p = pos + 48
        born_raw = bytes(buf[p : p + bh - 4])
        born_port = _I32.unpack_from(buf, p + bh - 4)[0]
        p += bh
        store_ts = _I64.unpack_from(buf, p)[0]
        p += 8
        store_raw = bytes(buf[p : p + sh - 4])
        store_port = _I32.unpack_from(buf, p + sh - 4)[0]
        p += sh
        reconsume = _I32.unpack_from(buf, p)[0]
        prepared = _I64.unpack_from(buf, p + 4)[0]
        topic = topics.setdefault(bytes(buf[topic_pos : topic_pos + topic_len]), len(topics))
        born_ip = ips.setdefault(born_raw, len(ips))
        store_ip = ips.setdefault(store_raw, len(ips))
        rows.append((pos, total, magic, body_crc, queue_id, flag, queue_offset, phys, sys_flag, born_ts, born_ip,
                     born_port, store_ts, store_ip, store_port, reconsume, prepared, body_pos, body_len, topic,
                     props_pos, props_len))
        pos += total
    n = len(rows)
    if n:
        table[:, :n] = np.array(rows, dtype=np.int64).T
    batch = MessageBatch(arr, file, segment_start, table[:, :n], pos, [_topic_text(t) for t in topics],
                         [_ip_text(raw) for raw in ips])
    batch.cut = n == cap or soft_stop <= pos < stop_at
    batch.flags = flags
    return batch


# --- records at given positions (consume-queue and index cross-checks) -------------------------------------


def crc32_many(buf, positions: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``rocketmq_crc32`` of many slices of ``buf`` (int64 array)."""
    arr = as_array(buf)
    positions = np.ascontiguousarray(positions, dtype=np.int64)
    lengths = np.ascontiguousarray(lengths, dtype=np.int64)
    k = _k()
    if k is not None:
        out = np.empty(positions.size, dtype=np.int64)
        k.crc_many(arr, positions, lengths, out)
        return out
    data = arr.data if arr.size else b""
    return np.array([rocketmq_crc32(data[p : p + n]) for p, n in zip(positions.tolist(), lengths.tolist(),
                                                                       strict=True)], dtype=np.int64)



def _need_kernels():
    k = _k()
    if k is None:
        raise RuntimeError("this kernel needs numba (check bulk.numba_enabled() first)")
    return k


VERIFY_COLUMNS = ("physical_offset", "total_size", "queue_id", "queue_offset", "tags_code", "store_timestamp",
                  "keys_start", "keys_count", "topic", "info")
"""Columns of a :class:`VerifyTable`. ``info`` bits: INFO_TAGS (tags_code is the TAGS hashCode, or 0 without
TAGS; unset when TAGS is not ASCII), INFO_UNITS (NOT_TYPE/COMMIT: the record gets a unit), INFO_KEYS
(keys[keys_start : keys_start + keys_count] are the index hashes of topic#UNIQ_KEY and topic#each KEYS
piece; unset when they are not ASCII), INFO_DELAY (a DELAY property)."""
INFO_TAGS, INFO_UNITS, INFO_KEYS, INFO_DELAY = 1, 2, 4, 8
_VERIFY_NAMES = [CRC_PROPERTY, b"TAGS", b"DELAY", b"UNIQ_KEY", b"KEYS"]
_VERIFY_FLAT = np.frombuffer(b"".join(_VERIFY_NAMES), dtype=np.uint8)
_VERIFY_OFFS = np.cumsum([0] + [len(n) for n in _VERIFY_NAMES]).astype(np.int64)


@dataclass
class VerifyTable:
    """What verify's cross-checks need of each clean record of a run, in log order (see VERIFY_COLUMNS)."""

    table: np.ndarray  # (len(VERIFY_COLUMNS), n) int64
    keys: np.ndarray
    topics: dict  # topic code -> name
    low: int  # physical offset range the run covers: [low, high)
    high: int

    def __len__(self) -> int:
        return self.table.shape[1]

    def column(self, name: str) -> np.ndarray:
        return self.table[VERIFY_COLUMNS.index(name)]


_local = threading.local()


def _scratch(max_records: int):
    """Per-thread work arrays of verify_run, reused: fresh big arrays per call would each come from the
    thread's own malloc arena and stay resident after they are freed."""
    have = getattr(_local, "verify", None)
    if have is None or have[0].shape[1] != max_records or have[2].shape[0] != INTERN_SLOTS + 1:
        have = (np.empty((len(VERIFY_COLUMNS), max_records), dtype=np.int64),
                np.empty(max_records * 3 + 64, dtype=np.int64),
                np.empty((INTERN_SLOTS + 1, 4), dtype=np.int64), np.zeros(6, dtype=np.int64))
        _local.verify = have
    return have


def verify_run(buf, start: int, limit: int, *, segment_start: int, stop_at: int | None = None,
               flags: int = CHECK_BODY_CRC | CHECK_CRC_PROPERTY, max_records: int = 1 << 16,
               soft_stop: int | None = None) -> tuple[Run, VerifyTable | None, bool]:
    """check_run that also tables each record for verify's consume-queue and index cross-checks.

    Returns (run, table, cut): ``cut`` when the run stopped only because the table is full or it reached
    ``soft_stop`` (go on from ``run.end``). Without numba the table is None (the cross-checks then look at
    every unit and item).
    """
    stop_at = limit if stop_at is None else stop_at
    soft_stop = stop_at if soft_stop is None else soft_stop
    k = _k()
    if k is None:
        run = check_run(buf, start, limit, segment_start=segment_start, stop_at=stop_at, flags=flags,
                        soft_stop=soft_stop)
        return run, None, soft_stop <= run.end < stop_at
    arr = as_array(buf)
    t, keys, topics, stats = _scratch(max_records)
    topics.fill(-1)
    topics[INTERN_SLOTS, 0] = 0
    n, end = k.verify_run(arr, start, limit, stop_at, soft_stop, segment_start, flags, _VERIFY_FLAT, _VERIFY_OFFS,
                          t, keys, topics, stats)
    run = Run(int(n), int(end), int(stats[0]), int(stats[1]), int(stats[2]))
    used = np.flatnonzero(topics[:-1, 1] >= 0).tolist()
    names = {slot: _topic_text(arr[topics[slot, 1] : topics[slot, 1] + topics[slot, 2]].tobytes()) for slot in used}
    table = VerifyTable(t[:, :n].copy(), keys[: int(stats[4])].copy(), names, segment_start + start,
                        segment_start + int(end))
    return run, table, bool(stats[5])


def index_match(buf, items_at: int, first: int, count: int, table: VerifyTable, ok: np.ndarray,
                stats: np.ndarray) -> int:
    """Check index items ``first``.. (0-based) of an index file (``buf``, items table at ``items_at``) against
    a VerifyTable while they point below ``table.high``: ok[i] = 1 where item i points at a record of the
    table with its key hash among the record's index keys and links to an older item. ``stats``
    [min ts, max ts, any] of those records. Returns the index of the first item not looked at."""
    return int(_need_kernels().index_match(as_array(buf), items_at, first, count, table.low, table.high, table.table,
                                           len(table), table.keys, ok, stats))

def mark_units(buf, first_queue_offset: int, queue_offsets, phys, sizes, tags, marks: np.ndarray) -> int:
    """For records of one queue (int64 arrays), mark the units of one consume-queue file (``buf``) that point
    back at them: same offset and size, and their tagsCode (or a ConsumeQueueExt address). Returns the
    lowest unit index looked at."""
    arr = as_array(buf)
    return int(_need_kernels().mark_units(arr, arr.size // 20, first_queue_offset, queue_offsets, phys, sizes, tags,
                                          marks))


def index_chains(buf, slots_at: int, slot_count: int, items_at: int, item_count: int, count: int, size: int,
                 written: int, release=None) -> tuple[int, int, bool]:
    """Walk every slot's chain of an index file: (slots in use, items reached, unusual). ``unusual`` means
    something verify reports (a bad slot, link, loop or wrong slot) may be there: walk it one by one.

    A file laid out as ``IndexFile.putKey`` writes it (each item links to the previous item of its slot, each
    slot holds its newest item) is recognised in one sequential pass, ``release(start, end)`` called behind
    it; any other is walked chain by chain."""
    k = _need_kernels()
    arr = as_array(buf)
    release = release or (lambda start, end: None)
    step = 1 << 18
    fine = (0 < slot_count and slots_at + slot_count * 4 <= size and items_at + (written + 1) * 20 <= size
            and written < count)
    if fine:
        last = np.zeros(slot_count, dtype=np.int32)
        for first in range(1, written + 1, step):
            stop = min(written + 1, first + step)
            if not k.chain_items(arr, items_at, slot_count, first, stop, last):
                fine = False
                break
            release(items_at + first * 20, items_at + stop * 20)
        used = 0
        for first in range(0, slot_count, step) if fine else ():
            n = k.chain_slots(arr, slots_at, first, min(slot_count, first + step), last)
            if n < 0:
                fine = False
                break
            used += n
            release(slots_at + first * 4, slots_at + min(slot_count, first + step) * 4)
        if fine:
            return int(used), written, False
    reached = np.zeros(max(item_count, 1), dtype=np.uint8)
    used, n, unusual = k.index_chains(arr, slots_at, slot_count, items_at, item_count, count, size, reached)
    return int(used), int(n), bool(unusual)

# --- numba kernels ----------------------------------------------------------------------------------------
# Plain Python source, compiled by _compile() with numba.njit(cache=True, nogil=True). Integers are int64
# throughout (numba wraps on overflow, which _u64 relies on); the Python path above never calls these.

_crc_c = None  # the C CRC function (an ExternalFunction), set by _compile before anything is compiled
_memchr_c = None  # libc memchr, likewise


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


def _kn_walk(b, pos, limit, seg_start, stop_at, out):
    n = 0
    cap = out.size
    while n < cap and limit - pos >= 36:
        total = _nb_i32(b, pos)
        magic = _nb_i32(b, pos + 4)
        if (magic != V1 and magic != V2) or total < MIN_RECORD_SIZE or total > limit - pos or pos + total > stop_at:
            break
        if _nb_i64(b, pos + 28) != seg_start + pos:
            break
        out[n] = pos
        n += 1
        pos += total
    return n, pos


def _kn_check_run(b, pos, limit, stop_at, soft, seg_start, flags, crc_name, stats):
    n = 0
    first = np.int64(0)
    last = np.int64(0)
    top = np.int64(0)
    while pos < stop_at and pos < soft:
        lay = _nb_clean(b, pos, limit, seg_start, flags, crc_name)
        end = lay[0]
        if end < 0 or end > stop_at:
            break
        ts = _nb_i64(b, pos + 48 + lay[2])
        if first == 0:
            first = ts
        last = ts
        if ts > top:
            top = ts
        n += 1
        pos = end
    stats[0] = first
    stats[1] = last
    stats[2] = top
    stats[3] = n
    return n, pos


def _kn_decode_run(b, pos, limit, stop_at, soft, seg_start, flags, crc_name, t, topics, ips):
    cap = t.shape[1]
    n = 0
    cut = False
    while pos < stop_at:
        if n >= cap or pos >= soft:
            cut = True
            break
        lay = _nb_clean(b, pos, limit, seg_start, flags, crc_name)
        end = lay[0]
        if end < 0 or end > stop_at:
            break
        bh = lay[2]
        sh = lay[3]
        p = pos + 48
        born_ip = _nb_intern(ips, b, p, bh - 4)
        store_ip = _nb_intern(ips, b, p + bh + 8, sh - 4)
        topic = _nb_intern(topics, b, lay[6], lay[7])
        if born_ip < 0 or store_ip < 0 or topic < 0:
            cut = True  # a table is full: the caller starts a new batch here
            break
        t[0, n] = pos
        t[1, n] = end - pos
        t[2, n] = _nb_i32(b, pos + 4)
        t[3, n] = _nb_i32(b, pos + 8)
        t[4, n] = _nb_i32(b, pos + 12)
        t[5, n] = _nb_i32(b, pos + 16)
        t[6, n] = _nb_i64(b, pos + 20)
        t[7, n] = _nb_i64(b, pos + 28)
        t[8, n] = lay[1]
        t[9, n] = _nb_i64(b, pos + 40)
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


def _kn_find_clean(b, start, stop, limit, seg_start, flags, crc_name):
    p = max(start, 0)
    while p < stop and p + 8 <= limit:
        if b[p + 4] == 0xDA and b[p + 5] == 0xA3 and b[p + 6] == 0x20 and (b[p + 7] == 0xA7 or b[p + 7] == 0xAB):
            if _nb_clean(b, p, limit, seg_start, flags, crc_name)[0] >= 0:
                return p
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


def _kn_verify_run(b, pos, limit, stop_at, soft, seg_start, flags, names, offs, t, keyh, topics, stats):
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
        lay = _nb_clean(b, pos, limit, seg_start, flags & CHECK_BODY_CRC, names)
        end = lay[0]
        if end < 0 or end > stop_at:
            break
        _nb_properties(b, lay[8], lay[9], names, offs, vpos, vlen)
        if flags & CHECK_CRC_PROPERTY and not _nb_crc_property_ok(b, pos, end, vpos[0], vlen[0]):
            break
        if n >= cap or nk + 64 > keyh.size:
            cut = 1
            break
        topic = _nb_intern(topics, b, lay[6], lay[7])
        if topic < 0:
            cut = 1
            break
        ts = _nb_i64(b, pos + 48 + lay[2])
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
        t[0, n] = seg_start + pos
        t[1, n] = end - pos
        t[2, n] = _nb_i32(b, pos + 12)
        t[3, n] = _nb_i64(b, pos + 20)
        t[4, n] = code
        t[5, n] = ts
        t[6, n] = k0
        t[7, n] = nk - k0
        t[8, n] = topic
        t[9, n] = info
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
    include the item's hash and links to an older item. Returns where it stopped; stats = [min, max] store
    timestamp of the records of ok items."""
    i = first
    hint = 0
    while i < count:
        ipos = items_at + (i + 1) * 20
        phy = _nb_i64(f, ipos + 4)
        if phy >= hi:
            break
        if phy >= lo and n > 0:
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

def _kn_mark_units(f, n_units, first_q, qoffs, phys, sizes, tags, marks):
    """Consume-queue file ``f`` (raw bytes; unit i at 20 * i, first queue offset ``first_q``): marks[local] = 1
    for each record (queue offset, offset, size, tagsCode) whose unit points back at it. Returns the lowest
    unit index looked at (n_units when none)."""
    lowest = n_units
    for i in range(qoffs.size):
        local = qoffs[i] - first_q
        if local < 0 or local >= n_units:
            continue
        if local < lowest:
            lowest = local
        p = local * 20
        if _nb_i64(f, p) == phys[i] and _nb_i32(f, p + 8) == sizes[i]:
            t = _nb_i64(f, p + 12)
            if t == tags[i] or t <= CQ_EXT_ADDR_LIMIT:  # a ConsumeQueueExt address holds no tags hash
                marks[local] = 1
    return lowest


_HELPERS = ("_nb_find", "_nb_u32", "_nb_i32", "_nb_i16", "_nb_i8", "_nb_i64", "_nb_crc", "_nb_layout", "_nb_property",
            "_nb_clean", "_nb_intern", "_nb_ascii_hash", "_nb_signed32", "_nb_index_hash", "_nb_properties",
            "_nb_crc_property_ok")
_KERNELS = {"walk": "_kn_walk", "check_run": "_kn_check_run", "decode_run": "_kn_decode_run",
            "crc_many": "_kn_crc_many", "find_clean": "_kn_find_clean",
            "verify_run": "_kn_verify_run", "index_match": "_kn_index_match", "index_chains": "_kn_index_chains",
            "chain_items": "_kn_chain_items", "chain_slots": "_kn_chain_slots", "mark_units": "_kn_mark_units"}


def _memchr_address() -> int | None:
    for name in (None, ctypes.util.find_library("c"), "msvcrt"):
        try:
            return ctypes.cast(ctypes.CDLL(name).memchr, ctypes.c_void_p).value
        except (OSError, AttributeError, TypeError):
            continue
    return None


def _compile():
    """Register the C CRC symbol and jit every kernel; the namespace of kernels, or False on failure."""
    import types as pytypes

    import llvmlite.binding as llvm
    import numba
    from numba import types

    name, address = _crc_library()
    memchr = _memchr_address()
    if address is None or memchr is None:
        return False
    llvm.add_symbol("rmq_inspect_crc32", address)
    llvm.add_symbol("rmq_inspect_memchr", memchr)
    module = globals()
    module["_crc_c"] = types.ExternalFunction("rmq_inspect_crc32", types.uint32(types.uint32, types.intp,
                                                                                types.uint64))
    module["_memchr_c"] = types.ExternalFunction("rmq_inspect_memchr", types.intp(types.intp, types.int32,
                                                                                  types.uint64))
    for helper in _HELPERS:
        module[helper] = numba.njit(cache=True, nogil=True)(module[helper])
    kernels = pytypes.SimpleNamespace(crc_backend=name)
    for public, source in _KERNELS.items():
        module[source] = numba.njit(cache=True, nogil=True)(module[source])
        setattr(kernels, public, module[source])
    return kernels
