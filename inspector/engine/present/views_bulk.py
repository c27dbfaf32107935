"""Messages as JSON Lines at full speed: :func:`json_lines` turns the commitlog's columnar batches straight into
the bytes ``message_view`` + ``json.dumps`` would give, one line per message.

The per-message path builds a :class:`Message` and a 30-key dict, and encodes it with the json module: ~8k
messages/s. Here the fields that repeat (file, hosts, sysFlag and what it means, topic) are encoded once per
batch, every number is formatted by one ``bytes %`` template per line, and only the properties (with tags,
keys and unique key read from them) go through orjson per message. Lines are byte-identical to
:func:`message_line` of the same record (tests hold them so); a record this path does not cover (a body to
decompress, text that is no UTF-8) is handed to :func:`message_line`, and everything that is not in a clean
batch (damage, CRC mismatch, BLANK) comes from the careful walk as before.
"""

from __future__ import annotations

import json
import re
from binascii import b2a_base64
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial

import numpy as np
import orjson

from inspector.engine.model import meaning
from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Blank, Host, Message, MoreAfterLimit, Problem
from inspector.engine.present.message_shape import BODY_FIELDS, DLEDGER_ENTRY_KINDS, MESSAGE_FIELDS
from inspector.engine.present.views import message_view
from inspector.engine.read.commitlog.parallel import default_workers
from inspector.engine.read.commitlog.trace import is_trace_topic
from inspector.engine.read.queues.batchconsumequeue import inner_messages, is_inner_batch
from inspector.engine.scan.batch import COLUMNS, MessageBatch
from inspector.engine.scan.kernels import compiled_for
from inspector.engine.scan.record_layout import CHECK_BODY_CRC, ENTRY_INDEX_AT, ENTRY_INDEX_TERM
from parsers.commitlog import INNER_BATCH_FLAG
from parsers.java import rocketmq_crc32

_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(text: str) -> str:
    """Store bytes that are no UTF-8 reach the views as lone surrogates (surrogateescape), which no stream can
    encode: write them as JSON \\uDCxx escapes (json.loads gives the same string back)."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_line(value: object) -> bytes:
    """``value`` as one compact JSON line (UTF-8, non-ASCII kept, lone surrogates escaped)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE)
    except (orjson.JSONEncodeError, TypeError):  # lone surrogates (orjson refuses them), or an int past 64 bits
        return (json_text(json.dumps(value, ensure_ascii=False, separators=(",", ":"))) + "\n").encode()


def message_line(msg: Message, *, decompress: bool = False, trace_topic: str | None = None) -> bytes:
    """One message's JSON line: ``message_view`` encoded by :func:`json_line`."""
    return json_line(message_view(msg, decompress=decompress, trace_topic=trace_topic))


def record_line(msg: Message, *, decompress: bool = False, trace_topic: str | None = None) -> bytes:
    """A record's JSON line in commitlog order: ``message_line``, and for a 5.x inner-batch record an
    ``inner_messages`` array, the ``message_view`` of each inner message (queue offset = base + i, its own keys,
    tags and body; ``inner_messages_error`` says why the body did not split, the record's own fields stay): the
    names ``show --json`` and the web API give them. An inner message itself (queue order) is one plain line."""
    if not is_inner_batch(msg):
        return message_line(msg, decompress=decompress, trace_topic=trace_topic)
    view = message_view(msg, decompress=decompress)
    try:
        view["inner_messages"] = [message_view(m, decompress=decompress) for m in inner_messages(msg)]
        view["inner_messages_error"] = None
    except StoreError as e:
        view["inner_messages"], view["inner_messages_error"] = [], str(e)
    return json_line(view)


def _inner_runs(batch: MessageBatch, rows: np.ndarray, trace_topic: str | None = None) -> list[np.ndarray | int] | None:
    """``rows`` cut around the records made one by one (an int: that record's row): inner-batch records (their
    inner messages) and trace-topic records (their decoded trace records, message_view's ``trace``); None when
    there is none: one vectorised OR over the sysFlag column and one look at the batch's topic names, so a store
    without BatchCQ or trace topics keeps the bulk path."""
    flags = batch.table[_COL["sys_flag"]][rows]
    traces = [code for code, name in enumerate(batch.topics) if is_trace_topic(name, trace_topic)]
    inner = bool(len(rows)) and bool(int(np.bitwise_or.reduce(flags)) & INNER_BATCH_FLAG)
    if not len(rows) or not (inner or traces):
        return None
    one_by_one = (flags & INNER_BATCH_FLAG) != 0
    if traces:
        one_by_one |= np.isin(batch.table[_COL["topic"]][rows], traces)
    if not one_by_one.any():
        return None
    parts: list[np.ndarray | int] = []
    start = 0
    for at in np.flatnonzero(one_by_one).tolist():
        if at > start:
            parts.append(rows[start:at])
        parts.append(int(rows[at]))
        start = at + 1
    if start < len(rows):
        parts.append(rows[start:])
    return parts


# --- the line template, generated from the declared shape (present/message_shape.py) ----------------------------
# How this path writes each declared field: a group of fields is one pre-encoded piece, names included (the
# sysFlag's two per sysFlag, the properties' four per record, the sysFlag's names per sysFlag); every other field
# is its name and a ``%`` placeholder by kind. Adding, renaming or moving a field changes the template; a group
# the declaration splits, or a kind this path does not know, stops the import (the kernel's order is then to
# be told too: kernel_source._kn_json_lines writes the pieces by index, and the tests hold its lines equal).
_GROUPS = {"sys_flag": ("sys_flag", "sys_flag_parts"), "properties": ("properties", "tags", "keys", "unique_key"),
           "transaction": ("transaction", "compression")}
_SLOTS = {"string": b"%s", "int32": b"%d", "int64": b"%d", "bool": b"%s", "msg_id": b'"%s%016X"'}
_BODY_SLOTS = {"body_base64": b'"%s"', "body_truncated": b"false"}  # base64 needs no escaping; never truncated


def _slots() -> list[tuple[str, bytes, bytes]]:
    """(field or group, the text before its value, its placeholder) for each value of a line, in order."""
    names = [f.name for f in MESSAGE_FIELDS]
    out: list[tuple[str, bytes, bytes]] = []
    i = 0
    while i < len(names):
        f = MESSAGE_FIELDS[i]
        sep = b"," if out else b"{"
        group = _GROUPS.get(f.name)
        if group is not None:
            if tuple(names[i : i + len(group)]) != group:
                raise ImportError(f"views_bulk writes {', '.join(group)} as one piece: MESSAGE_FIELDS splits them")
            out.append((f.name, sep, b"%s"))
            i += len(group)
            continue
        slot = _SLOTS.get(f.name) or _SLOTS.get(f.kind)
        if slot is None:
            raise ImportError(f"views_bulk has no way to write {f.name} ({f.kind})")
        out.append((f.name, sep + b'"%s":' % f.name.encode(), slot))
        i += 1
    for name, _kind, _nullable in BODY_FIELDS:
        out.append((name, b',"%s":' % name.encode(), _BODY_SLOTS[name]))
    return out


_SLOT_LIST = _slots()
_KIND = {f.name: f.kind for f in MESSAGE_FIELDS}
_AT = {name: n for n, (name, _, _) in enumerate(_SLOT_LIST)}
# one line: the declared fields, the body, then what follows it (the DLedger entry, the decompressed body)
_LINE = b"".join(lead + slot for _, lead, slot in _SLOT_LIST) + b"%s}\n"
_PLAIN_BODY = b',"body_decompressed_base64":"%s","body_decompressed_length":%d,"decompress_error":null'
# a DLedger record's entry (message_view's "dledger"), between "body_truncated" and the decompressed body
_ENTRY_NAMES = [name.encode() for name, _, _ in DLEDGER_ENTRY_KINDS]
_ENTRY = b',"dledger":{' + b",".join(b'"%s":%%d' % n for n in _ENTRY_NAMES) + b"}"
_B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_PAIRS = bytes(c for v in range(4096) for c in (_B64[v >> 6], _B64[v & 63]))


def _pieces() -> tuple[bytes, ...]:
    """_LINE cut between its values, for the compiled kernel (kernel_source._kn_json_lines names each by index):
    the fields up to the topic (the CRC verdict written ``true``: the kernel sees checked batches only), the
    msgId's quotes, the properties group's innards, the body, the decompressed body, the property names the
    line repeats, base64's alphabet and letter pairs, and the DLedger entry's pieces."""
    lead = {name: text for name, text, _ in _SLOT_LIST}
    head: list[bytes] = []
    carry = b""
    for name, text, _ in _SLOT_LIST[: _AT["topic"] + 1]:
        if _KIND.get(name) == "bool":
            carry = text + b"true"
            continue
        head.append(carry + text)
        carry = b""
    if lead["properties"] != head[_AT["sys_flag"] - 1]:  # the kernel writes both with one piece
        raise ImportError("views_bulk: the properties group must follow a field as the sysFlag group does")
    props, tags, keys, uniq = (n.encode() for n in _GROUPS["properties"])
    body64, truncated = (n for n, _, _ in BODY_FIELDS)
    return (
        *head, lead["msg_id"] + b'"', b'"' + lead["transaction"],
        b'"%s":{' % props, b'},"%s":' % tags, b',"%s":[' % keys, b"null", b'],"%s":' % uniq,
        lead["body_length"], lead[body64] + b'"', b'"' + lead[truncated] + _BODY_SLOTS[truncated],
        b',"body_decompressed_base64":"', b'","body_decompressed_length":', b',"decompress_error":null', b"}\n",
        b"TAGS", b"KEYS", b"UNIQ_KEY",  # the property names the line repeats (tags, keys, unique_key)
        _B64, _B64_PAIRS,  # base64's alphabet, and the two letters of every 12-bit value
        b',"dledger":{"%s":' % _ENTRY_NAMES[0], *(b',"%s":' % n for n in _ENTRY_NAMES[1:]), b"}",  # _ENTRY's pieces
    )


_PIECES = _pieces()


def _int32(value: int) -> int:
    """A 32-bit field read back as the signed Java int the decoder gave."""
    return value - (1 << 32) if value >= 1 << 31 else value


def _packed(pieces: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """Byte strings as one uint8 array and the offsets of each (n + 1), for a kernel."""
    offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(p) for p in pieces])
    return np.frombuffer(b"".join(pieces), dtype=np.uint8).copy(), offsets


_LITERALS = _packed(list(_PIECES))
_COL = {name: i for i, name in enumerate(COLUMNS)}


def _dumps(value: object) -> bytes | None:
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return None


class _BatchEncoder:
    """What repeats between batches of one walk (per sysFlag, per host), encoded once."""

    def __init__(self, decompress: bool):
        self.decompress = decompress
        self._flags: dict[int, tuple[bytes, bytes, bool]] = {}
        self._hosts: dict[tuple[str, int], tuple[bytes | None, str]] = {}
        self._magics: dict[int, int] = {}

    def flag_parts(self, sys_flag: int) -> tuple[bytes, bytes, bool]:
        """(``"sys_flag":..,"sys_flag_parts":{..}``, ``"transaction":..,"compression":..``, compressed)."""
        out = self._flags.get(sys_flag)
        if out is None:
            parts = orjson.dumps({"sys_flag": sys_flag, "sys_flag_parts": meaning.sys_flag_parts(sys_flag)})[1:-1]
            names = orjson.dumps({"transaction": meaning.transaction_name(sys_flag),
                                  "compression": meaning.compression_name(sys_flag)})[1:-1]
            out = self._flags[sys_flag] = (parts, names, meaning.is_compressed(sys_flag))
        return out

    def host(self, ip: str, port: int) -> tuple[bytes | None, str]:
        """(the host as a JSON string, the offset msgId prefix of a store host there)."""
        out = self._hosts.get((ip, port))
        if out is None:
            out = self._hosts[(ip, port)] = (_dumps(str(Host(ip, port))), meaning.offset_msg_id_prefix(ip, port))
        return out

    def select(self, batch: MessageBatch, topic: str | None, limit: float) -> tuple[np.ndarray, int | None]:
        """The rows of the batch's first ``limit`` messages (of ``topic`` if given), and the row of the next such
        message after them (None: the batch holds no more)."""
        rows = np.arange(len(batch))
        if topic is not None:
            codes = [i for i, t in enumerate(batch.topics) if t == topic]
            rows = rows[np.isin(batch.table[_COL["topic"]], codes)]
        if len(rows) > limit:
            return rows[: int(limit)], int(rows[int(limit)])
        return rows, None

    def encode(self, batch: MessageBatch, rows: np.ndarray, release: bool = False) -> bytes:
        """The lines of ``rows``: by the compiled kernel when it is loaded, else one by one (the same bytes).
        ``release``: the batch's pages are dropped from the mapping afterwards (a walk of many GiB stays flat)."""
        if len(rows) == 0:
            lines = b""
        else:
            k = self.kernels(batch)
            out = self._kernel_lines(k, batch, rows) if k is not None and batch.flags & CHECK_BODY_CRC else None
            lines = b"".join(self._python_lines(batch, rows) if out is None else out)
        if release:
            batch.release_pages()
        return lines

    @staticmethod
    def kernels(batch: MessageBatch):
        """The compiled kernels for this batch, or None (see kernels.compiled_for)."""
        return None if len(batch) == 0 else compiled_for(int(batch.end - batch.table[_COL["position"], 0]))

    def _kernel_lines(self, k, batch: MessageBatch, rows: np.ndarray) -> list[bytes] | None:
        """The lines of ``rows`` written by the compiled kernel (``kernel_source._kn_json_lines``) from tables of
        what repeats; None when a table entry cannot be encoded (the Python loop then says it its way)."""
        table = batch.table
        file = _dumps(batch.file)
        # the intern table has thousands of empty slots: encode only the topics these rows use
        topics = [b""] * len(batch.topics)
        for c in np.unique(table[_COL["topic"]][rows]).tolist():
            topics[c] = None if batch.topics[c] is None else _dumps(batch.topics[c])
        if file is None or None in topics:
            return None
        flags, flag_i = np.unique(table[_COL["sys_flag"]], return_inverse=True)
        parts = [self.flag_parts(int(f)) for f in flags]
        magics, magic_i = np.unique(table[_COL["magic_code"]], return_inverse=True)
        versions = np.array([meaning.magic_version(int(m)) for m in magics], dtype=np.int64)
        n = len(batch)
        # (ip code, port) of born and store hosts as one int64 each (codes < 2^13, ports 32-bit): one 1-D unique
        keys = np.concatenate([table[_COL["born_ip"]] << 32 | (table[_COL["born_port"]] & 0xFFFFFFFF),
                               table[_COL["store_ip"]] << 32 | (table[_COL["store_port"]] & 0xFFFFFFFF)])
        combos, host_i = np.unique(keys, return_inverse=True)
        host_i = host_i.reshape(-1)
        hosts = [self.host(batch.ips[key >> 32], _int32(key & 0xFFFFFFFF)) for key in combos.tolist()]
        if any(h[0] is None for h in hosts):
            return None
        force_py = np.zeros(n, dtype=np.uint8)
        if self.decompress:
            force_py[np.array([p[2] for p in parts], dtype=bool)[flag_i.reshape(-1)]] = 1
        sizes = table[_COL["body_length"]][rows] * 3 + table[_COL["properties_length"]][rows] * 5
        longest = max(map(len, topics)) + max(len(h[0]) + len(h[1]) for h in hosts) + \
            max(len(p[0]) + len(p[1]) for p in parts)
        per_line = 1024 + 2 * longest + len(file) + (128 if batch.entry_header else 0)  # + the "dledger" object
        out = np.empty(int(sizes.sum()) + len(rows) * per_line, dtype=np.uint8)
        ends = np.empty(len(rows), dtype=np.int64)
        py = np.zeros(len(rows), dtype=np.uint8)
        strings = [file, *(p[0] for p in parts), *(p[1] for p in parts), *(h[0] for h in hosts),
                   *(h[1].encode() for h in hosts), *topics]
        bases = np.cumsum([1, len(parts), len(parts), len(hosts), len(hosts)])
        total = k.json_lines(
            batch.buf, table, rows.astype(np.int64), force_py, versions[magic_i.reshape(-1)],
            flag_i.reshape(-1).astype(np.int64), host_i[:n].astype(np.int64), host_i[n:].astype(np.int64),
            *_packed(strings), bases, _LITERALS[0], _LITERALS[1], batch.segment_start, self.decompress, out, ends, py,
            batch.entry_header)
        if not py.any():
            return [out[:total].tobytes()]
        lines: list[bytes] = []
        start = 0
        left = iter(self._python_lines(batch, rows[py == 1]))
        for j in np.flatnonzero(py).tolist():  # the records the kernel left to Python, in their place
            if ends[j] > start:
                lines.append(out[start : ends[j]].tobytes())
            lines.append(next(left))
            start = ends[j]
        lines.append(out[start:total].tobytes())
        return lines

    def _python_lines(self, batch: MessageBatch, rows: np.ndarray) -> list[bytes]:
        """The lines of ``rows`` (indices into the batch) one by one: the compiled kernel's twin."""
        table = batch.table
        lo = int(table[_COL["position"], 0])
        raw = batch.buf[lo : batch.end].tobytes()  # one copy of the run; every field below slices it
        file = _dumps(batch.file)
        topics = [None if t is None else _dumps(t) for t in batch.topics]
        crc_ok = b"true" if batch.flags & CHECK_BODY_CRC else None
        ips = batch.ips
        start = batch.segment_start
        decompress = self.decompress
        flags_of, magics = self._flags, self._magics
        hdr, buf = batch.entry_header, batch.buf
        # per batch: the hosts by (ip code, port) -> (JSON string, msgId prefix as bytes)
        batch_hosts: dict[tuple[int, int], tuple[bytes | None, bytes]] = {}
        line, plain_body, dumps, b64 = _LINE, _PLAIN_BODY, _dumps, b2a_base64
        out: list[bytes] = []
        append = out.append
        picked = zip(rows.tolist(), *(table[_COL[c]][rows].tolist() for c in COLUMNS), strict=True)
        for (i, pos, total, magic, body_crc, queue_id, flag, queue_offset, phys, sys_flag, born_ts, born_ip,
             born_port, store_ts, store_ip, store_port, reconsume, prepared, body_pos, body_len, topic_code,
             props_pos, props_len) in picked:
            fp = flags_of.get(sys_flag) or self.flag_parts(sys_flag)
            born = batch_hosts.get((born_ip, born_port)) or self._batch_host(batch_hosts, ips, born_ip, born_port)
            store = batch_hosts.get((store_ip, store_port)) or self._batch_host(batch_hosts, ips, store_ip,
                                                                                 store_port)
            b = body_pos - lo
            body = raw[b : b + body_len]
            p = props_pos - lo
            props = {}
            for part in raw[p : p + props_len].decode("utf-8", "surrogateescape").split("\x02"):
                name, _, value = part.partition("\x01")
                if name and value:  # MessageDecoder.string2messageProperties (meaning.properties_map)
                    props[name] = value
            keys = props.get("KEYS")
            middle = dumps({"properties": props, "tags": props.get("TAGS") or None,
                            "keys": [k for k in keys.split(" ") if k] if keys else [],
                            "unique_key": props.get("UNIQ_KEY") or None})
            topic_json = topics[topic_code]
            if (middle is None or topic_json is None or born[0] is None or store[0] is None or file is None
                    or (fp[2] and decompress)):
                append(message_line(batch.message(i), decompress=decompress))
                continue
            ok = crc_ok or (b"true" if rocketmq_crc32(body) == body_crc else b"false")
            encoded = b64(body, newline=False)
            magic_version = magics.get(magic)
            if magic_version is None:
                magic_version = magics[magic] = meaning.magic_version(magic)
            tail = plain_body % (encoded, body_len) if decompress else b""
            if hdr:  # a DLedger record: its entry before the decompressed body, as message_view orders them
                tail = _ENTRY % (*ENTRY_INDEX_TERM.unpack_from(buf, pos - hdr + ENTRY_INDEX_AT), pos - hdr, total + hdr) + tail
            append(line % (
                file, pos, start + pos, total, magic_version, body_crc, ok, queue_id, flag, queue_offset, phys,
                fp[0], born_ts, born[0], store_ts, store[0], reconsume, prepared, topic_json, middle[1:-1],
                store[1], phys & 0xFFFFFFFFFFFFFFFF, fp[1], body_len, encoded, tail))
        return out

    def _batch_host(self, batch_hosts: dict, ips: list[str], ip: int, port: int) -> tuple[bytes | None, bytes]:
        text, prefix = self.host(ips[ip], port)
        out = batch_hosts[(ip, port)] = (text, prefix.encode())
        return out


def json_lines(items: Iterable[MessageBatch | Message | Blank | Problem], *, decompress: bool = False,
               topic: str | None = None, limit: int | None = None, trace_topic: str | None = None,
               ) -> Iterator[bytes | Problem | MoreAfterLimit]:
    """JSON Lines of the messages among ``items`` (``CommitLog.batches`` output: batches, Messages, Blanks,
    Problems in log order), as chunks of bytes, with the Problems in between (BLANKs dropped).

    ``topic``: only that topic's messages. ``limit``: at most that many; like a message-by-message loop, the
    Problems up to the next message after the last one are still given. When the limit leaves messages out,
    the last item is a :class:`MoreAfterLimit` naming the next one (a partial answer says so). ``trace_topic``:
    a custom trace topic, whose records' lines carry ``trace`` as the default trace topics' do.
    """
    enc = _BatchEncoder(decompress)
    left = float("inf") if limit is None else limit
    with _InOrder() as pending:
        for item in items:
            if isinstance(item, MessageBatch):
                rows, after = enc.select(item, topic, left)
                left -= len(rows)
                if len(rows):
                    threads = enc.kernels(item) is not None  # the kernel runs without the GIL: worth a thread
                    parts = _inner_runs(item, rows, trace_topic) or [rows]
                    # the batch's pages are dropped after its last run of plain rows (an inner-batch record's
                    # line is made in place, before it: the runs after it are still to be encoded)
                    last = max((n for n, part in enumerate(parts) if not isinstance(part, int)), default=-1)
                    for n, part in enumerate(parts):
                        if isinstance(part, int):  # an inner-batch record: its line and its inner messages
                            yield from pending.add(partial(_batch_record_line, item, part, decompress, trace_topic), False)
                        else:
                            yield from pending.add(partial(enc.encode, item, part, release=n == last), threads)
                if after is not None:
                    yield from pending.drain()
                    yield MoreAfterLimit(int(limit or 0), int(item.physical_offsets[after]),
                                         int(item.table[_COL["queue_offset"], after]))
                    return
                continue
            yield from pending.drain()  # what comes between batches comes after them
            if isinstance(item, Problem):
                yield item
            elif isinstance(item, Message) and (topic is None or item.topic == topic):
                if left <= 0:
                    yield MoreAfterLimit(int(limit or 0), item.physical_offset, item.queue_offset)
                    return
                left -= 1
                yield record_line(item, decompress=decompress, trace_topic=trace_topic)
        yield from pending.drain()


def _batch_record_line(batch: MessageBatch, row: int, decompress: bool, trace_topic: str | None = None) -> bytes:
    return record_line(batch.message(row), decompress=decompress, trace_topic=trace_topic)


class _InOrder:
    """Encodings run on a few threads (the JSON kernel releases the GIL), their results given in submission
    order; a few are in flight at once, so memory stays flat. Work that would hold the GIL runs in place."""

    def __init__(self):
        self.pool: ThreadPoolExecutor | None = None
        self.queue: deque[Future] = deque()
        self.depth = 2 * default_workers()

    def __enter__(self) -> _InOrder:
        return self

    def __exit__(self, *exc) -> None:
        for f in self.queue:
            f.cancel()
        if self.pool is not None:
            self.pool.shutdown(wait=True)

    def add(self, work: Callable[[], bytes], threads: bool) -> Iterator[bytes]:
        if not threads or default_workers() < 2:
            yield from self.drain()
            yield work()
            return
        if self.pool is None:
            self.pool = ThreadPoolExecutor(default_workers(), thread_name_prefix="json-lines")
        self.queue.append(self.pool.submit(work))
        while len(self.queue) > self.depth:
            yield self.queue.popleft().result()

    def drain(self) -> Iterator[bytes]:
        while self.queue:
            yield self.queue.popleft().result()
