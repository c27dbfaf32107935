"""Fast record decoding with ``struct`` (the bulk path), checked against ``parsers.commitlog.MessageRecord``.

construct parses ~25k records/s; this decoder does the same job several times
faster. tests/inspector/engine/scan/test_decode.py holds the two equal on spec,
real-world and random records. It validates every length against the record's
TOTALSIZE so a damaged record raises :class:`RecordError`, never IndexError.
"""

from __future__ import annotations

import ipaddress
import struct

from inspector.engine.model.records import RAW_PROPERTIES, Host, Message
from parsers import commitlog as cl

_HEAD = struct.Struct(">iiiiiqqiq")  # fields 1..9: 48 bytes
_I32 = struct.Struct(">i")
_I16 = struct.Struct(">h")
_I8 = struct.Struct(">b")
_I64 = struct.Struct(">q")
_HOST4 = struct.Struct(">4si")
_HOST6 = struct.Struct(">16si")
_MIDDLE = struct.Struct(">iq")  # reconsume times, prepared transaction offset

MIN_RECORD_SIZE = cl.record_length(0, 0, 0)


class RecordError(Exception):
    """A record that cannot be decoded; ``code`` is a short slug, ``reason`` says why."""

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason


_hosts: dict[tuple[bytes, int], Host] = {}  # Host is frozen: records of one producer share one


def _host(buf, pos: int, v6: bool) -> tuple[Host, int]:
    raw, port = (_HOST6 if v6 else _HOST4).unpack_from(buf, pos)
    host = _hosts.get((raw, port))
    if host is None:
        if len(_hosts) >= 4096:
            _hosts.clear()
        ip = str(ipaddress.IPv6Address(raw)) if v6 else f"{raw[0]}.{raw[1]}.{raw[2]}.{raw[3]}"
        host = _hosts[(raw, port)] = Host(ip, port)
    return host, pos + (20 if v6 else 8)


def decode_message(buf, pos: int, limit: int, *, file: str, segment_start: int) -> Message:
    """Decode the message record at ``pos``; ``limit`` is the end of readable data in ``buf``.

    Raises RecordError when the record is not a well-formed message (wrong magic,
    sizes out of range, lengths that disagree with TOTALSIZE).
    """
    if limit - pos < 8:
        raise RecordError("truncated", f"only {limit - pos} bytes left, a record header needs 8")
    total, magic = struct.unpack_from(">ii", buf, pos)
    if magic not in cl.MESSAGE_MAGICS:
        raise RecordError("bad-magic", f"magic code {magic & 0xFFFFFFFF:08X} is not a message magic")
    if total < MIN_RECORD_SIZE:
        raise RecordError("bad-size", f"TOTALSIZE {total} is smaller than the smallest record ({MIN_RECORD_SIZE})")
    if total > limit - pos:
        raise RecordError("torn-record", f"TOTALSIZE {total} runs past the end of the data ({limit - pos} bytes left)")
    end = pos + total
    (_, _, body_crc, queue_id, flag, queue_offset, phys, sys_flag, born_ts) = _HEAD.unpack_from(buf, pos)
    smallest = cl.record_length(0, 0, 0, sys_flag, magic)
    if total < smallest:  # hosts are 20 bytes each with the IPv6 bits: check before reading them
        raise RecordError("bad-size", f"TOTALSIZE {total} is smaller than the smallest record with sysFlag "
                                      f"0x{sys_flag & 0xFFFFFFFF:X} ({smallest})")
    p = pos + 48
    born_host, p = _host(buf, p, bool(sys_flag & cl.BORNHOST_V6_FLAG))
    (store_ts,) = _I64.unpack_from(buf, p)
    store_host, p = _host(buf, p + 8, bool(sys_flag & cl.STOREHOSTADDRESS_V6_FLAG))
    if p + 16 > end:
        raise RecordError("length-mismatch", "hosts run past TOTALSIZE")
    reconsume, prepared = _MIDDLE.unpack_from(buf, p)
    (body_len,) = _I32.unpack_from(buf, p + 12)
    p += 16
    if body_len < 0 or p + body_len > end:
        raise RecordError("bad-body-length", f"body length {body_len} does not fit in TOTALSIZE {total}")
    body_at = p  # copied only once every length checks out: resync tries many candidates that fail later
    p += body_len
    if magic == cl.MAGIC_V2:
        if p + 2 > end:
            raise RecordError("length-mismatch", "topic length runs past TOTALSIZE")
        (topic_len,) = _I16.unpack_from(buf, p)
        p += 2
    else:
        if p + 1 > end:
            raise RecordError("length-mismatch", "topic length runs past TOTALSIZE")
        (topic_len,) = _I8.unpack_from(buf, p)
        p += 1
    if topic_len < 0:
        raise RecordError("bad-topic-length", f"topic length {topic_len} is negative (byte >= 0x80)")
    if p + topic_len + 2 > end:
        raise RecordError("length-mismatch", f"topic length {topic_len} does not fit in TOTALSIZE {total}")
    topic = bytes(buf[p : p + topic_len]).decode("utf-8", "surrogateescape")
    p += topic_len
    (props_len,) = _I16.unpack_from(buf, p)
    p += 2
    if props_len < 0 or p + props_len > end:
        raise RecordError("bad-properties-length", f"properties length {props_len} does not fit in TOTALSIZE {total}")
    props = bytes(buf[p : p + props_len]).decode("utf-8", "surrogateescape")  # split when first read
    p += props_len
    if p != end:
        expected = cl.record_length(body_len, topic_len, props_len, sys_flag, magic)
        raise RecordError("length-mismatch", f"TOTALSIZE {total} but the fields add up to {expected}")
    fields = dict(
        file=file,
        position=pos,
        physical_offset=segment_start + pos,
        total_size=total,
        magic_code=magic,
        body_crc=body_crc,
        queue_id=queue_id,
        flag=flag,
        queue_offset=queue_offset,
        stored_physical_offset=phys,
        sys_flag=sys_flag,
        born_timestamp=born_ts,
        born_host=born_host,
        store_timestamp=store_ts,
        store_host=store_host,
        reconsume_times=reconsume,
        prepared_transaction_offset=prepared,
        body=bytes(buf[body_at : body_at + body_len]),
        topic=topic,
    )
    fields[RAW_PROPERTIES] = props
    return new_message(fields)


_PLAIN_MESSAGE = not hasattr(Message, "__slots__") and not hasattr(Message, "__post_init__")


def new_message(fields: dict) -> Message:
    """``Message(**fields)`` without the frozen dataclass's per-field ``object.__setattr__`` (6 us -> 0.4 us).

    Equal to the constructor's result: Message has no __slots__ and no __post_init__ (checked here; the
    constructor is used otherwise) and ``fields`` names every field (tests hold the two equal), except that
    the properties may come as their raw text under ``RAW_PROPERTIES`` instead of ``properties_entries`` and
    ``properties_terminated`` (split when first read; see ``records._RawProperties``).
    """
    if not _PLAIN_MESSAGE:  # pragma: no cover - a Message with slots or post-init checks
        raw = fields.pop(RAW_PROPERTIES, None)
        if raw is not None:
            props = cl.Properties.from_text(raw)
            fields.update(properties_entries=tuple(props.entries), properties_terminated=props.terminated)
        return Message(**fields)
    message = object.__new__(Message)
    message.__dict__.update(fields)
    return message


def peek_head(buf, pos: int) -> tuple[int, int]:
    """(TOTALSIZE, MAGICCODE) at pos."""
    return struct.unpack_from(">ii", buf, pos)


def stored_physical_offset(buf, pos: int) -> int:
    return _I64.unpack_from(buf, pos + 28)[0]
