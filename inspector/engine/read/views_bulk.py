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
from collections.abc import Iterable, Iterator

import orjson

from inspector.engine.model import meaning
from inspector.engine.model.records import Blank, Host, Message, Problem
from inspector.engine.read.views import message_view
from inspector.engine.scan.batch import COLUMNS, MessageBatch
from inspector.engine.scan.record_layout import CHECK_BODY_CRC
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


def message_line(msg: Message, *, decompress: bool = False) -> bytes:
    """One message's JSON line: ``message_view`` encoded by :func:`json_line`."""
    return json_line(message_view(msg, decompress=decompress))


_LINE = (
    b'{"file":%s,"position":%d,"physical_offset":%d,"total_size":%d,"magic_version":%d,"body_crc":%d,'
    b'"body_crc_ok":%s,"queue_id":%d,"flag":%d,"queue_offset":%d,"stored_physical_offset":%d,%s,'
    b'"born_timestamp":%d,"born_host":%s,"store_timestamp":%d,"store_host":%s,"reconsume_times":%d,'
    b'"prepared_transaction_offset":%d,"topic":%s,%s,"msg_id":"%s%016X",%s,"body_length":%d,"body_base64":"%s",'
    b'"body_truncated":false%s}\n'
)
_PLAIN_BODY = b',"body_decompressed_base64":"%s","body_decompressed_length":%d,"decompress_error":null'
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

    def lines(self, batch: MessageBatch, topic: str | None, limit: float) -> tuple[list[bytes], bool]:
        """The lines of the batch's first ``limit`` messages (of ``topic`` if given), and whether the batch
        holds another such message after them."""
        if len(batch) == 0:
            return [], False
        table = batch.table
        lo = int(table[_COL["position"], 0])
        raw = batch.buf[lo : batch.end].tobytes()  # one copy of the run; every field below slices it
        file = _dumps(batch.file)
        topics = [None if t is None else _dumps(t) for t in batch.topics]
        wanted = None if topic is None else {i for i, t in enumerate(batch.topics) if t == topic}
        crc_ok = b"true" if batch.flags & CHECK_BODY_CRC else None
        ips = batch.ips
        start = batch.segment_start
        decompress = self.decompress
        flags_of, magics = self._flags, self._magics
        # per batch: the hosts by (ip code, port) -> (JSON string, msgId prefix as bytes)
        batch_hosts: dict[tuple[int, int], tuple[bytes | None, bytes]] = {}
        line, plain_body, dumps, b64 = _LINE, _PLAIN_BODY, _dumps, b2a_base64
        out: list[bytes] = []
        append = out.append
        rows = zip(*(table[_COL[c]].tolist() for c in COLUMNS), strict=True)
        for i, row in enumerate(rows):
            (pos, total, magic, body_crc, queue_id, flag, queue_offset, phys, sys_flag, born_ts, born_ip,
             born_port, store_ts, store_ip, store_port, reconsume, prepared, body_pos, body_len, topic_code,
             props_pos, props_len) = row
            if wanted is not None and topic_code not in wanted:
                continue
            if len(out) >= limit:
                return out, True
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
            append(line % (
                file, pos, start + pos, total, magic_version, body_crc, ok, queue_id, flag, queue_offset, phys,
                fp[0], born_ts, born[0], store_ts, store[0], reconsume, prepared, topic_json, middle[1:-1],
                store[1], phys & 0xFFFFFFFFFFFFFFFF, fp[1], body_len, encoded,
                plain_body % (encoded, body_len) if decompress else b""))
        return out, False

    def _batch_host(self, batch_hosts: dict, ips: list[str], ip: int, port: int) -> tuple[bytes | None, bytes]:
        text, prefix = self.host(ips[ip], port)
        out = batch_hosts[(ip, port)] = (text, prefix.encode())
        return out


def json_lines(items: Iterable[MessageBatch | Message | Blank | Problem], *, decompress: bool = False,
               topic: str | None = None, limit: int | None = None) -> Iterator[bytes | Problem]:
    """JSON Lines of the messages among ``items`` (``CommitLog.batches`` output: batches, Messages, Blanks,
    Problems in log order), as chunks of bytes, with the Problems in between (BLANKs dropped).

    ``topic``: only that topic's messages. ``limit``: at most that many; like a message-by-message loop, the
    Problems up to the next message after the last one are still given.
    """
    enc = _BatchEncoder(decompress)
    left = float("inf") if limit is None else limit
    for item in items:
        if isinstance(item, Problem):
            yield item
        elif isinstance(item, MessageBatch):
            lines, more = enc.lines(item, topic, left)
            left -= len(lines)
            if lines:
                yield b"".join(lines)
            if more:
                return
        elif isinstance(item, Message) and (topic is None or item.topic == topic):
            if left <= 0:
                return
            left -= 1
            yield message_line(item, decompress=decompress)
