"""Decoding a run of clean records into columns at once: :class:`MessageBatch` and :func:`decode_batch`.

A batch holds one int64 column per field (:data:`COLUMNS`), topics and host IPs interned into small
tables, and a view of the segment; :meth:`MessageBatch.messages` builds the same :class:`Message`
``decode_message`` would. Which records are clean, and where a run stops, is walk.py's; the decode runs a
compiled kernel when numba is in use, else the ``struct`` path below (tests hold the two equal).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

import numpy as np

from inspector.engine.model.records import RAW_PROPERTIES, Host, Message
from inspector.engine.scan.decode import new_message
from inspector.engine.scan.kernels import compiled_for
from inspector.engine.scan.record_layout import (
    CHECK_BODY_CRC,
    CRC_NAME,
    ENTRY_INDEX_AT,
    ENTRY_INDEX_TERM,
    as_array,
    entry_index_term,
)
from inspector.engine.scan.walk import _HEAD9, _I32, _I64, clean_entry_py
from parsers import commitlog as cl

COLUMNS = (
    "position", "total_size", "magic_code", "body_crc", "queue_id", "flag", "queue_offset",
    "stored_physical_offset", "sys_flag", "born_timestamp", "born_ip", "born_port", "store_timestamp",
    "store_ip", "store_port", "reconsume_times", "prepared_transaction_offset", "body_position", "body_length",
    "topic", "properties_position", "properties_length",
)  # fmt: skip
"""Columns of a decoded batch; ``born_ip``/``store_ip``/``topic`` are codes into the batch's tables."""
_COL = {name: i for i, name in enumerate(COLUMNS)}
INTERN_SLOTS = 1 << 12  # table size for distinct topics / IPs; a batch that fills 3/4 of it ends there

# --- decoded batches --------------------------------------------------------------------------------------


_FAST_MESSAGE = not hasattr(Message, "__slots__") and not hasattr(Message, "__post_init__")


def _nothing() -> None:
    return None


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
        self.release_pages = _nothing  # drops the batch's pages from the mapping (set by the walk that mapped it)
        self.flags = 0  # the CHECK_* flags every record of the batch passed
        self.entry_header = 0  # 48: a DLedger data file's records (their entries' index and term precede them)

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

    def raft_index_term(self, positions: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray] | None:
        """The Raft index and term (int64 arrays) of the DLedger entry before each record (``positions``: the
        records' positions in this batch's file, default all), or None in a plain segment (no entries)."""
        if not self.entry_header:
            return None
        return entry_index_term(self.buf, self.table[0] if positions is None else positions, self.entry_header)

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
        hdr = self.entry_header
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
            if hdr:  # the entry header before the record: its Raft index and term
                fields["raft_index"], fields["raft_term"] = ENTRY_INDEX_TERM.unpack_from(buf, pos - hdr + ENTRY_INDEX_AT)
            yield new_message(fields)

    def message(self, i: int) -> Message:
        return next(self.subset(slice(i, i + 1)).messages())

    def within(self, since: int | None, until: int | None) -> MessageBatch:
        """The batch's records stored in [since, until) (None: unbounded; the same batch when all are)."""
        ts = self.column("store_timestamp")
        keep = np.ones(ts.size, dtype=bool)
        if since is not None:
            keep &= ts >= since
        if until is not None:
            keep &= ts < until
        return self if keep.all() else self.subset(keep)

    def subset(self, which) -> MessageBatch:
        """The batch of the records ``which`` (a slice or a boolean mask) selects, sharing this one's buffer."""
        sub = MessageBatch(self.buf, self.file, self.segment_start, self.table[:, which], self.end,
                           self.topics, self.ips)
        sub._hosts = self._hosts
        sub.flags = self.flags
        sub.entry_header = self.entry_header
        return sub


def _ip_text(raw: bytes) -> str:
    if len(raw) == 4:
        return f"{raw[0]}.{raw[1]}.{raw[2]}.{raw[3]}"
    return str(ipaddress.IPv6Address(raw))


def decode_batch(buf, start: int, limit: int, *, segment_start: int = 0, stop_at: int | None = None,
                 max_records: int = 1 << 15, flags: int = 0, file: str = "",
                 soft_stop: int | None = None, entry_header: int = 0) -> MessageBatch:
    """Decode the run of clean records from ``start`` (at most ``max_records``) into a :class:`MessageBatch`.

    Stops before the first record that is not clean (see the module docstring) or would end past
    ``stop_at``; ``batch.end`` is where it stopped. ``batch.cut`` is True when the batch stopped only
    because it is full or reached ``soft_stop``: decode again from ``batch.end``. ``entry_header``: 48 in a
    DLedger data file (``start`` is an entry's start; the messages carry their entry's Raft index and term).
    """
    arr = as_array(buf)
    stop_at = limit if stop_at is None else stop_at
    soft_stop = stop_at if soft_stop is None else soft_stop
    table = np.empty((len(COLUMNS), max(0, max_records)), dtype=np.int64)
    k = compiled_for(stop_at - start)
    if k is not None:
        topic_tab = np.full((INTERN_SLOTS + 1, 4), -1, dtype=np.int64)
        ip_tab = np.full((INTERN_SLOTS + 1, 4), -1, dtype=np.int64)
        topic_tab[INTERN_SLOTS, 0] = ip_tab[INTERN_SLOTS, 0] = 0
        n, end, cut = k.decode_run(arr, start, limit, stop_at, soft_stop, segment_start, flags, CRC_NAME, table,
                                   topic_tab, ip_tab, entry_header)
        batch = MessageBatch(arr, file, segment_start, table[:, :n], int(end), slot_texts(arr, topic_tab, _topic_text),
                             slot_texts(arr, ip_tab, _ip_text))
        batch.cut = bool(cut)
        batch.flags = flags
        batch.entry_header = entry_header
        return batch
    batch = _decode_py(arr, start, limit, stop_at, soft_stop, segment_start, flags, table, file, entry_header)
    batch.entry_header = entry_header
    return batch


def _topic_text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def slot_texts(arr: np.ndarray, tab: np.ndarray, text) -> list:
    """Text of every used slot of an intern table (a list indexed by slot; unused slots are None)."""
    names: list = [None] * (tab.shape[0] - 1)
    for slot in np.flatnonzero(tab[:-1, 1] >= 0).tolist():
        p, n = int(tab[slot, 1]), int(tab[slot, 2])
        names[slot] = text(arr[p : p + n].tobytes())
    return names


# --- decode: pure Python ---------------------------------------------------------------------------------


def _decode_py(arr: np.ndarray, pos: int, limit: int, stop_at: int, soft_stop: int, segment_start: int,
               flags: int, table: np.ndarray, file: str, hdr: int = 0) -> MessageBatch:
    buf = arr.data if arr.size else b""
    cap = table.shape[1]
    topics: dict[bytes, int] = {}
    ips: dict[bytes, int] = {}
    rows = []
    while len(rows) < cap and pos < stop_at and pos < soft_stop:
        pos, layout = clean_entry_py(buf, entry := pos, limit, segment_start, flags, hdr)
        if layout is None or pos + layout[0] > stop_at:
            pos = entry
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


