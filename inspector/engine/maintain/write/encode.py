"""The bytes of one commitlog message record, as ``MessageExtEncoder`` writes them (spec §2, §2.5).

Validation, sizing (``calMsgLength``) and building of a record, host parsing, and body compression. Kept apart
from :class:`~inspector.engine.maintain.write.writer.StoreWriter` because a record's bytes depend only on its fields,
not on the store being written: tests and the live-broker simulation build single records through
:func:`encode_record`.
"""

from __future__ import annotations

import functools
import ipaddress
import struct
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.engine.model.crc import rocketmq_crc32
from inspector.engine.model.errors import BadInput
from parsers.commitlog import (
    BORNHOST_V6_FLAG,
    INNER_ITEM_HEAD_FORMAT,
    INNER_ITEM_PROPERTIES_LENGTH_FORMAT,
    MAGIC_V1,
    MAGIC_V2,
    STOREHOSTADDRESS_V6_FLAG,
    MessageRecord,
    Properties,
    record_length,
)
from parsers.java import INT32_MAX, INT32_MIN

__all__ = ["compress_body", "encode_inner_batch", "encode_record", "format_host", "parse_host"]

MAX_PROPERTIES_LENGTH = 32767

COMPRESSION_TYPES = {"lz4": 1, "zstd": 2, "zlib": 3}  # sysFlag bits 8-10 (CompressionType)
COMPRESSION_LEVEL = 5  # MixAll.MESSAGE_COMPRESS_LEVEL default, used by zlib and zstd


def parse_host(text: str) -> tuple[str, int]:
    """``"ip:port"`` or ``"[ipv6]:port"`` -> (address text, port)."""
    if not isinstance(text, str):
        raise BadInput(f"a host is 'ip:port' text, not {text!r}")
    return _parse_host(text)


@functools.lru_cache(maxsize=1024)  # a store has few distinct hosts; parsing them is a hot spot
def _parse_host(text: str) -> tuple[str, int]:
    if text.startswith("["):
        address, sep, port = text[1:].partition("]:")
    else:
        address, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise BadInput(f"a host is 'ip:port' or '[ipv6]:port', not {text!r}")
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError as e:
        raise BadInput(f"bad address in host {text!r}") from e
    if isinstance(parsed, ipaddress.IPv6Address) and not text.startswith("["):
        raise BadInput(f"write an IPv6 host as '[address]:port', not {text!r}")
    port_number = int(port)
    if port_number > 65535:
        raise BadInput(f"port out of range in host {text!r}")
    return str(parsed), port_number


def format_host(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def _is_v6(address: str) -> bool:
    return ":" in address


def compress_body(body: bytes, compression: str) -> bytes:
    """Compress a body as the producer's ``Compressor`` does (spec §2.5).

    zlib: ``Deflater(5)`` stream with zlib header; lz4: an LZ4 frame with the header
    ``LZ4FrameOutputStream`` writes (4 MB blocks, independent, no checksums); zstd: one zstd frame at
    level 5. Only the zlib output is expected to be byte-identical to Java's; the others decode the same.
    """
    if compression == "zlib":
        return zlib.compress(body, COMPRESSION_LEVEL)
    if compression == "lz4":
        import lz4.frame  # optional dependency, imported only when used

        compressor = lz4.frame.LZ4FrameCompressor(
            block_size=lz4.frame.BLOCKSIZE_MAX4MB,
            block_linked=False,
            content_checksum=False,
            auto_flush=False,
        )
        return compressor.begin() + compressor.compress(body) + compressor.flush()
    if compression == "zstd":
        import zstandard  # optional dependency, imported only when used

        return zstandard.ZstdCompressor(level=COMPRESSION_LEVEL).compress(body)
    raise BadInput(f"compression is one of {sorted(COMPRESSION_TYPES)}, not {compression!r}")


def _java_length(text: str) -> int:
    """``String.length()``: UTF-16 code units."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _utf8(text: str, what: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise BadInput(f"{what} is not encodable as UTF-8: {text!r}") from e


def _properties_object(
    properties: Properties | Mapping[str, str] | Sequence[tuple[str, str]] | str,
) -> Properties:
    if isinstance(properties, Properties):
        return properties
    if isinstance(properties, str):
        return Properties.from_text(properties)
    if isinstance(properties, Mapping):
        return Properties.from_map(dict(properties))
    return Properties([(name, value) for name, value in properties], True)


_compiled_record: Any = None


def _record_schema() -> Any:
    """``MessageRecord`` compiled once: the writer builds only values it has validated itself."""
    global _compiled_record
    if _compiled_record is None:
        _compiled_record = MessageRecord.compile()
    return _compiled_record


@dataclass(frozen=True)
class _Prepared:
    """A record with everything known except its physical and queue offsets."""

    topic: str
    queue_id: int
    body: bytes
    properties: Properties
    properties_bytes: bytes
    sys_flag: int
    magic: int
    flag: int
    born_timestamp: int
    born_host: tuple[str, int]
    store_timestamp: int
    store_host: tuple[str, int]
    reconsume_times: int
    prepared_transaction_offset: int
    body_crc: int
    total_size: int

    def build(self, physical_offset: int, queue_offset: int) -> bytes:
        data = _record_schema().build(
            {
                "total_size": self.total_size,
                "magic_code": self.magic,
                "body_crc": self.body_crc,
                "queue_id": self.queue_id,
                "flag": self.flag,
                "queue_offset": queue_offset,
                "physical_offset": physical_offset,
                "sys_flag": self.sys_flag,
                "born_timestamp": self.born_timestamp,
                "born_host": {"ip": self.born_host[0], "port": self.born_host[1]},
                "store_timestamp": self.store_timestamp,
                "store_host": {"ip": self.store_host[0], "port": self.store_host[1]},
                "reconsume_times": self.reconsume_times,
                "prepared_transaction_offset": self.prepared_transaction_offset,
                "body": self.body,
                "topic": self.topic,
                "properties": self.properties,
            }
        )
        if len(data) != self.total_size:
            raise AssertionError(f"encoded {len(data)} bytes, calMsgLength says {self.total_size}")
        return data


_INNER_HEAD = struct.Struct(INNER_ITEM_HEAD_FORMAT)  # item total size, magic 0, body CRC 0, flag, body length
_INNER_PROPERTIES_LENGTH = struct.Struct(INNER_ITEM_PROPERTIES_LENGTH_FORMAT)


def encode_inner_batch(items: Sequence[tuple[int, bytes, Properties]]) -> bytes:
    """The body of an inner-batch record: ``MessageDecoder.encodeMessages`` of (flag, body, properties) items
    (spec §2.10): per item its total size, magic 0, body CRC 0, flag, length-prefixed body and int16-prefixed
    properties. Each item's properties are checked like a record's (no separators inside, at most 32767 bytes)."""
    out = bytearray()
    for flag, body, properties in items:
        _check_int(flag, "flag", INT32_MIN, INT32_MAX)
        props = _properties_bytes(properties)
        size = _INNER_HEAD.size + len(body) + _INNER_PROPERTIES_LENGTH.size + len(props)
        out += _INNER_HEAD.pack(size, 0, 0, flag, len(body))
        out += body
        out += _INNER_PROPERTIES_LENGTH.pack(len(props))
        out += props
    return bytes(out)


def _properties_bytes(props: Properties) -> bytes:
    for name, value in props.entries:
        for part in (name, value or ""):
            if "\x01" in part or "\x02" in part:
                raise BadInput(f"property {name!r} contains a separator character (0x01/0x02)")
    props_bytes = _utf8(props.to_text(), "properties")
    if len(props_bytes) > MAX_PROPERTIES_LENGTH:
        raise BadInput(f"properties are {len(props_bytes)} bytes, more than {MAX_PROPERTIES_LENGTH}")
    return props_bytes


def _check_int(value: object, what: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadInput(f"{what} must be an integer in [{low}, {high}], not {value!r}")
    return value


_INT64 = (-(1 << 63), (1 << 63) - 1)


def _prepare(
    *,
    topic: str,
    body: bytes,
    properties: Properties | Mapping[str, str] | Sequence[tuple[str, str]] | str,
    queue_id: int,
    flag: int,
    sys_flag: int,
    born_timestamp: int,
    born_host: str | tuple[str, int],
    store_timestamp: int,
    store_host: str | tuple[str, int],
    reconsume_times: int,
    prepared_transaction_offset: int,
    body_crc: int | None,
) -> _Prepared:
    """Validate and size one record (``MessageExtEncoder.encode`` + ``calMsgLength``)."""
    if not isinstance(topic, str) or not topic:
        raise BadInput(f"topic must be a non-empty string, not {topic!r}")
    if not isinstance(body, bytes | bytearray | memoryview):
        raise BadInput(f"body must be bytes, not {type(body).__name__}")
    body = bytes(body)
    born = parse_host(born_host) if isinstance(born_host, str) else (str(born_host[0]), int(born_host[1]))
    store = (
        parse_host(store_host) if isinstance(store_host, str) else (str(store_host[0]), int(store_host[1]))
    )
    _check_int(sys_flag, "sys_flag", INT32_MIN, INT32_MAX)
    # the broker sets the IPv6 bits from the address family (CommitLog.asyncPutMessage)
    for v6, bit, what in (
        (_is_v6(born[0]), BORNHOST_V6_FLAG, "born"),
        (_is_v6(store[0]), STOREHOSTADDRESS_V6_FLAG, "store"),
    ):
        if v6:
            sys_flag |= bit
        elif sys_flag & bit:
            raise BadInput(f"sys_flag has the {what}-host IPv6 bit but the {what} host is IPv4")
    _check_int(queue_id, "queue_id", INT32_MIN, INT32_MAX)
    _check_int(flag, "flag", INT32_MIN, INT32_MAX)
    _check_int(reconsume_times, "reconsume_times", INT32_MIN, INT32_MAX)
    # times come from System.currentTimeMillis(): a broker never writes a negative one (verify refuses it)
    _check_int(born_timestamp, "born_timestamp", 0, _INT64[1])
    _check_int(store_timestamp, "store_timestamp", 0, _INT64[1])
    _check_int(prepared_transaction_offset, "prepared_transaction_offset", *_INT64)
    topic_bytes = _utf8(topic, "topic")
    # autoMessageVersionOnTopicLen: v2 (2-byte topic length) when the topic has more than 127 characters
    magic = MAGIC_V2 if _java_length(topic) > 127 else MAGIC_V1
    if magic == MAGIC_V1 and len(topic_bytes) > 127:
        raise BadInput(
            f"topic of {len(topic_bytes)} UTF-8 bytes does not fit a v1 record's signed length byte"
        )
    if len(topic_bytes) > 32767:
        raise BadInput("topic longer than 32767 bytes")
    props = _properties_object(properties)
    props_bytes = _properties_bytes(props)
    total = record_length(len(body), len(topic_bytes), len(props_bytes), sys_flag, magic)
    return _Prepared(
        topic=topic,
        queue_id=queue_id,
        body=body,
        properties=props,
        properties_bytes=props_bytes,
        sys_flag=sys_flag,
        magic=magic,
        flag=flag,
        born_timestamp=born_timestamp,
        born_host=born,
        store_timestamp=store_timestamp,
        store_host=store,
        reconsume_times=reconsume_times,
        prepared_transaction_offset=prepared_transaction_offset,
        body_crc=rocketmq_crc32(body) if body_crc is None else body_crc,
        total_size=total,
    )


def encode_record(
    *,
    topic: str,
    body: bytes,
    properties: Properties | Mapping[str, str] | Sequence[tuple[str, str]] | str,
    physical_offset: int,
    born_timestamp: int,
    born_host: str | tuple[str, int],
    store_timestamp: int,
    store_host: str | tuple[str, int],
    queue_id: int = 0,
    flag: int = 0,
    queue_offset: int = 0,
    sys_flag: int = 0,
    reconsume_times: int = 0,
    prepared_transaction_offset: int = 0,
    body_crc: int | None = None,
) -> bytes:
    """The bytes of one commitlog message record at ``physical_offset``, as the broker writes them.

    ``body`` is the stored body (already compressed if sys_flag says so); ``body_crc`` defaults to
    ``rocketmq_crc32(body)``. ``properties`` are written in the order given (a dict, pairs, a
    :class:`Properties` or the raw text). The IPv6 sysFlag bits are set from the host addresses, and the
    magic is v2 exactly when the topic has more than 127 characters. Built through
    ``parsers.commitlog.MessageRecord``.
    """
    prepared = _prepare(
        topic=topic,
        body=body,
        properties=properties,
        queue_id=queue_id,
        flag=flag,
        sys_flag=sys_flag,
        born_timestamp=born_timestamp,
        born_host=born_host,
        store_timestamp=store_timestamp,
        store_host=store_host,
        reconsume_times=reconsume_times,
        prepared_transaction_offset=prepared_transaction_offset,
        body_crc=body_crc,
    )
    _check_int(physical_offset, "physical_offset", 0, _INT64[1])
    _check_int(queue_offset, "queue_offset", *_INT64)
    return prepared.build(physical_offset, queue_offset)

