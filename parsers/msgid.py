"""Message ids: the offset msgId and the client unique key (UNIQ_KEY), both directions (spec §6).

Both are upper-case hex of a small binary struct; both are 32 hex characters for
IPv4 hosts and cannot be told apart by length, so callers try both readings.
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass

from construct import Bytes, Int16ub, Int32sb, Int32ub, Int64sb, Struct

from parsers.adapters import IpAddress

OffsetMsgId4 = Struct(
    "ip" / IpAddress(Bytes(4)) * "store host address",
    "port" / Int32sb * "store host port",
    "offset" / Int64sb * "commitlog physical offset",
)
OffsetMsgId6 = Struct(
    "ip" / IpAddress(Bytes(16)),
    "port" / Int32sb,
    "offset" / Int64sb,
)

UniqKey4 = Struct(
    "ip" / IpAddress(Bytes(4)) * "producer host",
    "pid" / Int16ub * "low 16 bits of the producer's process id",
    "class_loader_hash" / Int32sb * "MessageClientIDSetter's class loader hashCode",
    "time_since_month_start" / Int32ub * "ms since the start of the month (producer's zone), read unsigned",
    "counter" / Int16ub * "low 16 bits of a process-wide counter",
)
UniqKey6 = Struct(
    "ip" / IpAddress(Bytes(16)),
    "pid" / Int16ub,
    "class_loader_hash" / Int32sb,
    "time_since_month_start" / Int32ub,
    "counter" / Int16ub,
)

HEX_LENGTH_V4 = 32
HEX_LENGTH_V6 = 56


class MsgIdError(ValueError):
    """An id that is not hex of a known length."""


def _id_bytes(text: str) -> bytes:
    text = text.strip()
    if len(text) not in (HEX_LENGTH_V4, HEX_LENGTH_V6):
        raise MsgIdError(f"a message id has {HEX_LENGTH_V4} or {HEX_LENGTH_V6} hex characters, not {len(text)}")
    try:
        return bytes.fromhex(text)
    except ValueError as e:
        raise MsgIdError(f"not hexadecimal: {text!r}") from e


@dataclass(frozen=True)
class OffsetMsgId:
    ip: str
    port: int
    offset: int


def decode_offset_msg_id(text: str) -> OffsetMsgId:
    """``MessageDecoder.decodeMessageId``: IPv4 iff 32 characters."""
    raw = _id_bytes(text)
    parsed = (OffsetMsgId4 if len(raw) == 16 else OffsetMsgId6).parse(raw)
    return OffsetMsgId(parsed.ip, parsed.port, parsed.offset)


def encode_offset_msg_id(ip: str, port: int, offset: int) -> str:
    """``MessageDecoder.createMessageId``: store host + physical offset as upper-case hex."""
    schema = OffsetMsgId6 if ":" in ip else OffsetMsgId4
    return schema.build({"ip": ip, "port": port, "offset": offset}).hex().upper()


@dataclass(frozen=True)
class UniqKey:
    ip: str
    pid: int
    class_loader_hash: int
    time_since_month_start: int
    counter: int


def decode_uniq_key(text: str) -> UniqKey:
    raw = _id_bytes(text)
    parsed = (UniqKey4 if len(raw) == 16 else UniqKey6).parse(raw)
    return UniqKey(parsed.ip, parsed.pid, parsed.class_loader_hash, parsed.time_since_month_start, parsed.counter)


def encode_uniq_key(ip: str, pid: int, class_loader_hash: int, time_since_month_start: int, counter: int) -> str:
    schema = UniqKey6 if ":" in ip else UniqKey4
    value = {
        "ip": ip,
        "pid": pid & 0xFFFF,
        "class_loader_hash": class_loader_hash,
        "time_since_month_start": time_since_month_start & 0xFFFFFFFF,
        "counter": counter & 0xFFFF,
    }
    return schema.build(value).hex().upper()


def month_start_ms(timestamp_ms: int, tz: dt.tzinfo) -> int:
    """Start of the month containing ``timestamp_ms`` in zone ``tz``, as epoch ms."""
    moment = dt.datetime.fromtimestamp(timestamp_ms / 1000, tz)
    start = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return int(start.timestamp() * 1000)


def previous_month_start_ms(month_start: int, tz: dt.tzinfo) -> int:
    moment = dt.datetime.fromtimestamp(month_start / 1000, tz)
    year, month = (moment.year - 1, 12) if moment.month == 1 else (moment.year, moment.month - 1)
    return int(moment.replace(year=year, month=month).timestamp() * 1000)


def uniq_key_time_span(store_or_born_ms: int, tz: dt.tzinfo) -> int:
    """What the producer writes into the time field for a message created at ``store_or_born_ms``."""
    return (store_or_born_ms - month_start_ms(store_or_born_ms, tz)) & 0xFFFFFFFF


def uniq_key_nearly_time(span_ms: int, now_ms: int, tz: dt.tzinfo) -> int:
    """``MessageClientIDSetter.getNearlyTimeFromID``: month start + span, previous month if that is not past."""
    start = month_start_ms(now_ms, tz)
    if start + span_ms >= now_ms:
        start = previous_month_start_ms(start, tz)
    return start + span_ms


def days_in_month(year: int, month: int) -> int:
    return calendar.monthrange(year, month)[1]
