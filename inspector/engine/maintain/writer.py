"""Create a new RocketMQ store directory exactly as a broker lays it out (spec §1-§7, §9.1, §10.1, §11).

:class:`StoreWriter` plays producer + broker: it takes :class:`MessageSpec` inputs, encodes commitlog records
the way ``MessageExtEncoder`` / ``DefaultAppendMessageCallback.doAppend`` do, dispatches every record through
:mod:`inspector.engine.maintain.dispatch` (consume queues, index files), and on :meth:`StoreWriter.close` writes the
checkpoint and the ``config/*.json`` files of a cleanly shut-down broker.

Property order
--------------
A broker writes properties in Java ``HashMap`` order, which depends on map capacity and insertion history;
we use this fixed, documented order instead (it matches the record of spec §14.7), leaving out absent ones:

 1. ``TAGS``            2. ``KEYS``            3. ``WAIT``            4. ``DELAY`` (clamped level)
 5. the spec's extra user properties, in the order given
 6. ``TRAN_MSG``        7. ``PGROUP``          8. ``UNIQ_KEY``        9. ``CLUSTER``
10. ``REAL_TOPIC``     11. ``REAL_QID``       12. ``__transactionId__``

i.e. what the producer's ``Message`` constructor sets, then user properties, then what the producer adds
at send time, then what the broker adds. A transaction COMMIT record copies its half message's properties
in the half's order; an op record has ``TAGS=d``, ``WAIT=true`` (see :meth:`StoreWriter.append`).

Files a broker writes that this writer does not: ``abort`` (clean shutdown: none), the pre-allocated next
commitlog segment, ``.bak`` copies of config files (none exist after a single persist), the startup system
topics and groups (``TBW102``, ``SELF_TEST_TOPIC``, ``TOOLS_CONSUMER`` ...) in the config files, and the 5.x
timer store (``timerwheel``, ``timerlog``, ``config/timercheck``). ``lock`` is created with the 4 bytes
``lock``, as every broker that ever started leaves it.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import ipaddress
import os
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any

from inspector.engine.maintain.dispatch import (
    SCHEDULE_TOPIC,
    ConsumeQueueBuilder,
    IndexBuilder,
    check_path_component,
    dispatch_request,
    file_name_for_offset,
)
from inspector.engine.model.errors import BadInput
from inspector.engine.model.geometry import Geometry
from inspector.engine.scan.crc import rocketmq_crc32
from parsers.checkpoint import CHECKPOINT_FILE_SIZE, Checkpoint
from parsers.commitlog import (
    BORNHOST_V6_FLAG,
    COMPRESSED_FLAG,
    END_FILE_MIN_BLANK_LENGTH,
    MAGIC_V1,
    MAGIC_V2,
    STOREHOSTADDRESS_V6_FLAG,
    TRANSACTION_COMMIT_TYPE,
    TRANSACTION_MASK,
    TRANSACTION_NOT_TYPE,
    TRANSACTION_PREPARED_TYPE,
    TRANSACTION_ROLLBACK_TYPE,
    BlankRecord,
    MessageRecord,
    Properties,
    record_length,
)
from parsers.fastjson import dumps
from parsers.java import INT32_MAX, INT32_MIN
from parsers.msgid import encode_offset_msg_id, encode_uniq_key, uniq_key_time_span

__all__ = [
    "HALF_TOPIC",
    "OP_TOPIC",
    "AppendResult",
    "MessageSpec",
    "StoreWriter",
    "compress_body",
    "encode_record",
    "format_host",
    "parse_host",
]

HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC"
OP_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC"
REMOVE_TAG = "d"  # TransactionalMessageUtil.REMOVE_TAG
DEFAULT_PRODUCER_GROUP = "DEFAULT_PRODUCER"  # MixAll.DEFAULT_PRODUCER_GROUP
SCHEDULE_TOPIC_QUEUE_NUM = 18  # TopicConfigManager.SCHEDULE_TOPIC_QUEUE_NUM
DEFAULT_TOPIC_QUEUE_NUMS = 4  # BrokerConfig.defaultTopicQueueNums, used for auto-created user topics
DEFAULT_MAX_MESSAGE_SIZE = 4 * 1024 * 1024  # MessageStoreConfig.maxMessageSize (body limit)
MAX_PROPERTIES_LENGTH = 32767

COMPRESSION_TYPES = {"lz4": 1, "zstd": 2, "zlib": 3}  # sysFlag bits 8-10 (CompressionType)
COMPRESSION_LEVEL = 5  # MixAll.MESSAGE_COMPRESS_LEVEL default, used by zlib and zstd

TRANSACTIONS = ("half", "commit", "rollback", "raw_prepared", "raw_commit", "raw_rollback")
_RAW_TYPES = {
    "raw_prepared": TRANSACTION_PREPARED_TYPE,
    "raw_commit": TRANSACTION_COMMIT_TYPE,
    "raw_rollback": TRANSACTION_ROLLBACK_TYPE,
}

# names the writer manages itself; a spec's extra properties may not set them
P_TAGS, P_KEYS, P_WAIT, P_DELAY = "TAGS", "KEYS", "WAIT", "DELAY"
P_TRAN_MSG, P_PGROUP, P_UNIQ_KEY, P_CLUSTER = "TRAN_MSG", "PGROUP", "UNIQ_KEY", "CLUSTER"
P_REAL_TOPIC, P_REAL_QID, P_TRANSACTION_ID = "REAL_TOPIC", "REAL_QID", "__transactionId__"
MANAGED_PROPERTIES = frozenset(
    {P_TAGS, P_KEYS, P_WAIT, P_DELAY, P_TRAN_MSG, P_PGROUP, P_UNIQ_KEY, P_CLUSTER, P_REAL_TOPIC, P_REAL_QID,
     P_TRANSACTION_ID}
)  # fmt: skip
# cleared from a half message's properties when its COMMIT record is written (spec §10.1)
COMMIT_CLEARED_PROPERTIES = (P_TRAN_MSG, P_REAL_TOPIC, P_REAL_QID)

_SEGMENT_FLUSH_BYTES = 4 << 20


# --- hosts, bodies, records --------------------------------------------------------------------------------


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
    _check_int(born_timestamp, "born_timestamp", *_INT64)
    _check_int(store_timestamp, "store_timestamp", *_INT64)
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
    for name, value in props.entries:
        for part in (name, value or ""):
            if "\x01" in part or "\x02" in part:
                raise BadInput(f"property {name!r} contains a separator character (0x01/0x02)")
    props_bytes = _utf8(props.to_text(), "properties")
    if len(props_bytes) > MAX_PROPERTIES_LENGTH:
        raise BadInput(f"properties are {len(props_bytes)} bytes, more than {MAX_PROPERTIES_LENGTH}")
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


# --- input -------------------------------------------------------------------------------------------------


@dataclass
class MessageSpec:
    """One message to write (the writer's input).

    ``transaction`` selects the path (spec §10.1):

    * ``None``: an ordinary message; with ``delay_level > 0`` it is parked in ``SCHEDULE_TOPIC_XXXX``.
    * ``"half"``: a transactional half message, stored in ``RMQ_SYS_TRANS_HALF_TOPIC`` queue 0.
    * ``"commit"`` / ``"rollback"``: ends the half message named by ``half_ref`` (its ``AppendResult.index``,
      i.e. the 0-based number of the ``append`` call that wrote it, or its unique key). Commit writes the
      COMMIT record in the half's real topic/queue and then the op record; rollback writes only the op
      record. Only ``store_timestamp`` (and a ``topic`` equal to the half's real topic, or empty) may be set
      on such a spec: everything else comes from the half message.
    * ``"raw_prepared"`` / ``"raw_commit"`` / ``"raw_rollback"``: a legacy record written as given in
      ``topic``/``queue_id`` with that transaction type in its sysFlag (PREPARED and ROLLBACK records get
      QUEUEOFFSET 0 and no consume-queue unit; ``prepared_transaction_offset`` is written as given).

    ``real_topic`` / ``real_queue_id`` write REAL_TOPIC / REAL_QID on an ordinary, non-delayed record: what a
    copy delivered by ``ScheduleMessageService.messageTimeUp`` (delayed message or consumer retry) keeps.

    ``unique_key=None`` generates a UNIQ_KEY like ``MessageClientIDSetter``; ``""`` writes none (old
    clients). ``born_host``/``store_host`` are ``"ip:port"`` or ``"[ipv6]:port"`` (None: the writer's
    producer address with port 0 / the writer's store host). Timestamps are ms; ``store_timestamp=None``
    takes the writer's clock, ``born_timestamp=None`` the store timestamp. ``keys`` is a list (joined with a
    single space, then trimmed like Java) or a raw KEYS string written as is.
    """

    topic: str
    body: bytes
    queue_id: int = 0
    tags: str | None = None
    keys: list[str] | str = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    born_host: str | None = None
    store_host: str | None = None
    born_timestamp: int | None = None
    store_timestamp: int | None = None
    flag: int = 0
    reconsume_times: int = 0
    compression: str | None = None
    transaction: str | None = None
    half_ref: int | str | None = None
    delay_level: int = 0
    unique_key: str | None = None
    producer_group: str | None = None
    wait_store_msg_ok: bool | None = None
    cluster: str | None = "DefaultCluster"
    prepared_transaction_offset: int = 0
    real_topic: str | None = None
    real_queue_id: int | None = None

    _JSON_FIELDS = (
        "topic", "body", "body_base64", "queue_id", "tags", "keys", "properties", "born_host", "store_host",
        "born_timestamp", "store_timestamp", "flag", "reconsume_times", "compression", "transaction",
        "half_ref", "delay_level", "unique_key", "producer_group", "wait_store_msg_ok", "cluster",
        "prepared_transaction_offset", "real_topic", "real_queue_id",
    )  # fmt: skip

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> MessageSpec:
        """A spec from one JSON Lines object. Schema (every field optional unless noted):

        ``topic`` (str, required except for commit/rollback), ``body`` (str, written as UTF-8) or
        ``body_base64`` (str) (neither: empty body), ``queue_id`` (int), ``tags`` (str|null), ``keys``
        (list of str, or one raw str), ``properties`` (object of str -> str), ``born_host`` /
        ``store_host`` ("ip:port" or "[ipv6]:port"), ``born_timestamp`` / ``store_timestamp`` (int ms),
        ``flag`` (int), ``reconsume_times`` (int), ``compression`` ("zlib"|"lz4"|"zstd"|null),
        ``transaction`` ("half"|"commit"|"rollback"|"raw_prepared"|"raw_commit"|"raw_rollback"|null),
        ``half_ref`` (int index or str unique key of the half message), ``delay_level`` (int),
        ``unique_key`` (str|null; "" = none), ``producer_group`` (str), ``wait_store_msg_ok`` (bool),
        ``cluster`` (str|null), ``prepared_transaction_offset`` (int, raw records only), ``real_topic`` /
        ``real_queue_id`` (str / int: REAL_TOPIC / REAL_QID kept on a copy that ScheduleMessageService delivered).
        Unknown fields are an error.
        """
        if not isinstance(obj, Mapping):
            raise BadInput(f"a message is a JSON object, not {type(obj).__name__}")
        unknown = sorted(set(obj) - set(cls._JSON_FIELDS))
        if unknown:
            raise BadInput(f"unknown message field(s): {', '.join(unknown)}")
        if "body" in obj and "body_base64" in obj:
            raise BadInput("give either body or body_base64, not both")
        if "body_base64" in obj:
            text = _typed(obj, "body_base64", str)
            try:
                body = base64.b64decode(text, validate=True)
            except ValueError as e:
                raise BadInput("body_base64 is not valid base64") from e
        else:
            body = _utf8(_typed(obj, "body", str, ""), "body")
        keys = obj.get("keys", [])
        if not (isinstance(keys, str) or (isinstance(keys, list) and all(isinstance(k, str) for k in keys))):
            raise BadInput("keys must be a list of strings or a string")
        properties = obj.get("properties", {})
        if not isinstance(properties, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in properties.items()
        ):
            raise BadInput("properties must be an object of string values")
        half_ref = obj.get("half_ref")
        if half_ref is not None and (isinstance(half_ref, bool) or not isinstance(half_ref, int | str)):
            raise BadInput("half_ref must be an integer or a string")
        return cls(
            topic=_typed(obj, "topic", str, ""),
            body=body,
            queue_id=_typed(obj, "queue_id", int, 0),
            tags=_typed(obj, "tags", str, None, nullable=True),
            keys=keys if isinstance(keys, str) else list(keys),
            properties=dict(properties),
            born_host=_typed(obj, "born_host", str, None, nullable=True),
            store_host=_typed(obj, "store_host", str, None, nullable=True),
            born_timestamp=_typed(obj, "born_timestamp", int, None, nullable=True),
            store_timestamp=_typed(obj, "store_timestamp", int, None, nullable=True),
            flag=_typed(obj, "flag", int, 0),
            reconsume_times=_typed(obj, "reconsume_times", int, 0),
            compression=_typed(obj, "compression", str, None, nullable=True),
            transaction=_typed(obj, "transaction", str, None, nullable=True),
            half_ref=half_ref,
            delay_level=_typed(obj, "delay_level", int, 0),
            unique_key=_typed(obj, "unique_key", str, None, nullable=True),
            producer_group=_typed(obj, "producer_group", str, None, nullable=True),
            wait_store_msg_ok=_typed(obj, "wait_store_msg_ok", bool, None, nullable=True),
            cluster=_typed(obj, "cluster", str, "DefaultCluster", nullable=True),
            prepared_transaction_offset=_typed(obj, "prepared_transaction_offset", int, 0),
            real_topic=_typed(obj, "real_topic", str, None, nullable=True),
            real_queue_id=_typed(obj, "real_queue_id", int, None, nullable=True),
        )


_MISSING = object()


def _typed(
    obj: Mapping[str, Any], name: str, kind: type, default: Any = _MISSING, *, nullable: bool = False
) -> Any:
    value = obj.get(name, _MISSING)
    if value is _MISSING:
        if default is _MISSING:
            raise BadInput(f"missing field {name}")
        return default
    if value is None and nullable:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadInput(f"field {name} must be {kind.__name__}{' or null' if nullable else ''}, not {value!r}")
    return value


@dataclass(frozen=True)
class AppendResult:
    """Where one appended record went. ``index`` numbers ``append`` calls from 0 (usable as ``half_ref``).

    For a commit, ``op`` is the op record written after the COMMIT record; a rollback's result *is* its op
    record.
    """

    index: int
    physical_offset: int
    queue_offset: int
    topic: str
    queue_id: int
    msg_id: str
    unique_key: str | None
    total_size: int
    sys_flag: int
    store_timestamp: int
    op: AppendResult | None = None


@dataclass(frozen=True)
class _Half:
    result: AppendResult
    record: _Prepared
    real_topic: str
    real_queue_id: int


# --- commitlog ---------------------------------------------------------------------------------------------


class _CommitLog:
    """The commitlog mapped-file queue: fixed-size segments named by start offset, the BLANK rule."""

    def __init__(self, directory: Path, segment_size: int) -> None:
        self.directory = directory
        self.segment_size = segment_size
        self.segments: list[Path] = []
        self._start = 0
        self._position = 0
        self._file: Any = None
        self._pending = bytearray()
        self._pending_from = 0

    def reserve(self, length: int) -> int:
        """Physical offset for a record of ``length`` bytes (``doAppend``: written only if L + 8 <= remaining)."""
        if length + END_FILE_MIN_BLANK_LENGTH > self.segment_size:
            raise BadInput(f"a {length}-byte record cannot fit in a {self.segment_size}-byte segment")
        if self._file is None:
            self._open(0)
        remaining = self.segment_size - self._position
        if length + END_FILE_MIN_BLANK_LENGTH > remaining:
            # only 8 bytes: int32 remaining + BLANK magic; the rest of the segment keeps its zeros
            self.write(BlankRecord.build({"total_size": remaining}))
            self._close_segment()
            self._open(self._start + self.segment_size)
        return self._start + self._position

    def write(self, data: bytes) -> None:
        if not self._pending:
            self._pending_from = self._position
        self._pending += data
        self._position += len(data)
        if len(self._pending) >= _SEGMENT_FLUSH_BYTES:
            self._flush()

    def _open(self, start: int) -> None:
        path = self.directory / file_name_for_offset(start)
        self._file = open(path, "xb+")  # kept open for the segment's lifetime
        self._file.truncate(self.segment_size)  # a fresh mapped file: zeros
        self.segments.append(path)
        self._start, self._position = start, 0

    def _flush(self) -> None:
        if self._pending:
            self._file.seek(self._pending_from)
            self._file.write(self._pending)
            self._pending = bytearray()

    def _close_segment(self) -> None:
        self._flush()
        self._file.close()

    def close(self) -> None:
        if self._file is not None and not self._file.closed:
            self._close_segment()

    @property
    def max_offset(self) -> int:
        return self._start + self._position if self.segments else 0


# --- the writer --------------------------------------------------------------------------------------------


def _wall_clock() -> int:
    return time.time_ns() // 1_000_000


def _java_trim(text: str) -> str:
    """``String.trim()``: strips code points <= U+0020 at both ends."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


class StoreWriter:
    """Writes a new store directory; see the module docstring. Use as a context manager or call :meth:`close`.

    * ``geometry``: segment, consume-queue and index sizes, delay levels.
    * ``clock``: the broker's wall clock (ms) for missing store timestamps, index file names and the config
      files' dataVersion; None: store timestamps default to the real time, index files are named after the
      record that creates them and dataVersion uses the last store timestamp - so explicit timestamps give
      byte-identical stores.
    * ``tz``: zone of the index file names and of the UNIQ_KEY month start.
    * ``producer_ip``, ``pid``, ``class_loader_hash``: the ``MessageClientIDSetter`` fixed part; the counter
      starts at 0 and advances per generated id.
    * ``store_host``: default STOREHOSTADDRESS (also the born host of op records).
    * ``consumer_offsets``: ``{(topic, group): {queue_id: offset}}`` for ``consumerOffset.json`` (the
      groups also go to ``subscriptionGroup.json``); ``delay_offsets``: ``{level: offset}`` for
      ``delayOffset.json`` (default: 0 for every level used, i.e. nothing delivered yet);
      ``queue_nums``: read/write queue numbers per topic for ``topics.json``. All three are attributes that
      may be changed until :meth:`close`.
    * ``max_message_size``: largest stored body accepted (``maxMessageSize``, 4 MiB).
    * ``strip_commit_properties``: remove ``TRAN_MSG``, ``REAL_TOPIC``, ``REAL_QID`` from COMMIT records
      (spec §10.1). Set False to reproduce brokers whose ``EndTransactionProcessor`` encodes the properties
      before clearing them (seen in 5.x sources before 5.2), which keeps all three in the stored record.

    What was written: :attr:`segments`, :attr:`consume_queues` (a :class:`ConsumeQueueBuilder`: ``files``,
    ``max_offsets``) and :attr:`index` (an :class:`IndexBuilder`: ``files`` with their headers,
    ``index_msg_timestamp``).
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        geometry: Geometry | None = None,
        *,
        clock: Callable[[], int] | None = None,
        tz: dt.tzinfo = dt.UTC,
        producer_ip: str = "127.0.0.1",
        pid: int = 1,
        class_loader_hash: int = 0,
        store_host: str = "127.0.0.1:10911",
        consumer_offsets: Mapping[tuple[str, str], Mapping[int, int]] | None = None,
        delay_offsets: Mapping[int, int] | None = None,
        queue_nums: Mapping[str, int] | None = None,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        strip_commit_properties: bool = True,
    ) -> None:
        self.root = Path(root)
        self.geometry = geometry if geometry is not None else Geometry()
        if self.root.exists():
            if not self.root.is_dir():
                raise BadInput("the store root exists and is not a directory", file=str(self.root))
            if any(self.root.iterdir()):
                raise BadInput("refusing to write into a non-empty directory", file=str(self.root))
        try:
            ipaddress.ip_address(producer_ip)
        except ValueError as e:
            raise BadInput(f"producer_ip is not an IP address: {producer_ip!r}") from e
        self.clock = clock
        self.tz = tz
        self.producer_ip = str(ipaddress.ip_address(producer_ip))
        self.pid = pid
        self.class_loader_hash = class_loader_hash
        self.store_host = format_host(*parse_host(store_host))
        self.consumer_offsets: dict[tuple[str, str], dict[int, int]] = {
            key: dict(value) for key, value in (consumer_offsets or {}).items()
        }
        self.delay_offsets: dict[int, int] | None = dict(delay_offsets) if delay_offsets is not None else None
        self.queue_nums: dict[str, int] = dict(queue_nums or {})
        self.max_message_size = max_message_size
        self.strip_commit_properties = strip_commit_properties
        self._max_delay_level = self.geometry.max_delay_level  # parsed once: it is a property

        # builders first: they validate the geometry before anything is created on disk
        self._commitlog = _CommitLog(self.root / "commitlog", self.geometry.segment_size)
        self.consume_queues = ConsumeQueueBuilder(self.root, self.geometry)
        self.index = IndexBuilder(self.root, self.geometry, clock=clock, tz=tz)
        for sub in ("commitlog", "consumequeue", "config"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        (self.root / "lock").write_bytes(b"lock")  # DefaultMessageStore writes "lock" at position 0
        self._queue_offsets: dict[tuple[str, int], int] = {}
        self._topic_queues: dict[str, int] = {}  # topic -> max queue id seen (stored and real topics)
        self._halves_by_index: dict[int, _Half] = {}
        self._halves_by_key: dict[str, _Half] = {}
        self._delay_levels: set[int] = set()
        self._uniq_counter = 0
        self._count = 0
        self._last_store_timestamp = 0
        self._any_record = False
        self._closed = False

    # -- public ---------------------------------------------------------------------------------------------

    def append(self, spec: MessageSpec) -> AppendResult:
        """Write one message (and whatever the broker writes with it); see :class:`MessageSpec`."""
        if self._closed:
            raise BadInput("the writer is closed")
        if not isinstance(spec, MessageSpec):
            raise BadInput(f"append takes a MessageSpec, not {type(spec).__name__}")
        if spec.transaction is not None and spec.transaction not in TRANSACTIONS:
            raise BadInput(
                f"transaction is one of {', '.join(TRANSACTIONS)} or None, not {spec.transaction!r}"
            )
        index = self._count
        store_timestamp = spec.store_timestamp if spec.store_timestamp is not None else self._clock_now()
        counter = self._uniq_counter
        try:
            if spec.transaction in ("commit", "rollback"):
                result = self._end_transaction(spec, index, store_timestamp)
            else:
                result = self._append_message(spec, index, store_timestamp)
        except BadInput:
            self._uniq_counter = counter  # a refused message consumes no generated id
            raise
        self._count += 1
        return result

    def commit(self, half_ref: int | str, *, store_timestamp: int | None = None) -> AppendResult:
        """Shortcut for ``append(MessageSpec("", b"", transaction="commit", half_ref=...))``."""
        return self.append(
            MessageSpec("", b"", transaction="commit", half_ref=half_ref, store_timestamp=store_timestamp)
        )

    def rollback(self, half_ref: int | str, *, store_timestamp: int | None = None) -> AppendResult:
        """Shortcut for ``append(MessageSpec("", b"", transaction="rollback", half_ref=...))``."""
        return self.append(
            MessageSpec("", b"", transaction="rollback", half_ref=half_ref, store_timestamp=store_timestamp)
        )

    def close(self) -> None:
        """Flush everything and write checkpoint and config files (a clean shutdown: no ``abort``)."""
        if self._closed:
            return
        self._closed = True
        self._commitlog.close()
        self.consume_queues.close()
        self.index.close()
        checkpoint = Checkpoint.build(
            {
                "physic_msg_timestamp": self._last_store_timestamp,
                "logics_msg_timestamp": self.consume_queues.last_store_timestamp,
                "index_msg_timestamp": self.index.index_msg_timestamp,
                "master_flushed_offset": 0,
                "confirm_phy_offset": 0,
                "reserved": bytes(CHECKPOINT_FILE_SIZE - 40),
            }
        )
        (self.root / "checkpoint").write_bytes(checkpoint)
        self._write_configs()

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def segments(self) -> list[Path]:
        """The commitlog segment files written so far."""
        return list(self._commitlog.segments)

    @property
    def max_physical_offset(self) -> int:
        """The commitlog's max offset: first byte after the last record."""
        return self._commitlog.max_offset

    # -- message paths --------------------------------------------------------------------------------------

    def _append_message(self, spec: MessageSpec, index: int, store_timestamp: int) -> AppendResult:
        kind = spec.transaction
        if spec.half_ref is not None:
            raise BadInput("half_ref is only for transaction='commit' or 'rollback'")
        if spec.prepared_transaction_offset and kind not in _RAW_TYPES:
            raise BadInput("prepared_transaction_offset can only be given for raw_* transaction records")
        _check_int(spec.delay_level, "delay_level", 0, INT32_MAX)
        if spec.delay_level and kind is not None:
            raise BadInput("delay_level is only for ordinary messages (producers clear it on transactions)")
        extra = spec.properties
        if not isinstance(extra, Mapping):
            raise BadInput("properties must be a mapping of str to str")
        for name, value in extra.items():
            if not isinstance(name, str) or not isinstance(value, str) or not name:
                raise BadInput(f"bad user property {name!r}: names and values are strings, names non-empty")
            if name in MANAGED_PROPERTIES:
                raise BadInput(f"property {name} is set by the writer; use the MessageSpec field instead")
        born_timestamp = spec.born_timestamp if spec.born_timestamp is not None else store_timestamp
        _check_int(born_timestamp, "born_timestamp", *_INT64)
        unique_key = spec.unique_key
        if unique_key is None:
            unique_key = self._create_uniq_id(born_timestamp)
        body = bytes(spec.body) if isinstance(spec.body, bytes | bytearray | memoryview) else spec.body
        if not isinstance(body, bytes):
            raise BadInput(f"body must be bytes, not {type(spec.body).__name__}")
        sys_flag = _RAW_TYPES.get(kind or "", TRANSACTION_NOT_TYPE)
        if spec.compression is not None:
            body = compress_body(body, spec.compression)
            sys_flag |= COMPRESSED_FLAG | (COMPRESSION_TYPES[spec.compression] << 8)
        if len(body) > self.max_message_size:
            raise BadInput(f"body of {len(body)} bytes exceeds max_message_size {self.max_message_size}")

        topic, queue_id = spec.topic, spec.queue_id
        _check_int(queue_id, "queue_id", 0, INT32_MAX)
        producer: list[tuple[str, str]] = []
        if spec.tags:
            producer.append((P_TAGS, spec.tags))
        keys = spec.keys if isinstance(spec.keys, str) else _java_trim(" ".join(spec.keys))
        if keys:
            producer.append((P_KEYS, keys))
        if spec.wait_store_msg_ok is not None:
            producer.append((P_WAIT, "true" if spec.wait_store_msg_ok else "false"))
        level = min(spec.delay_level, self._max_delay_level)
        if level > 0:
            producer.append((P_DELAY, str(level)))  # the broker stores the clamped level
        producer.extend(extra.items())
        if kind is not None:  # half and raw transaction records come from a transactional producer
            producer.append((P_TRAN_MSG, "true"))
            producer.append((P_PGROUP, spec.producer_group or DEFAULT_PRODUCER_GROUP))
        elif spec.producer_group:
            producer.append((P_PGROUP, spec.producer_group))
        if unique_key:
            producer.append((P_UNIQ_KEY, unique_key))
        broker: list[tuple[str, str]] = []
        if spec.cluster:
            broker.append((P_CLUSTER, spec.cluster))
        real: tuple[str, int] | None = None
        if level > 0:  # HookUtils.transformDelayLevelMessage
            check_path_component(topic, "topic")
            real = (topic, queue_id)
            broker += [(P_REAL_TOPIC, topic), (P_REAL_QID, str(queue_id))]
            topic, queue_id = SCHEDULE_TOPIC, level - 1
            self._delay_levels.add(level)
        elif spec.real_topic is not None:  # a delivered copy keeps REAL_TOPIC / REAL_QID (messageTimeUp)
            if kind is not None:
                raise BadInput("real_topic is only for ordinary messages (copies delivered by the schedule service)")
            real_qid = queue_id if spec.real_queue_id is None else spec.real_queue_id
            _check_int(real_qid, "real_queue_id", 0, INT32_MAX)
            broker += [(P_REAL_TOPIC, spec.real_topic), (P_REAL_QID, str(real_qid))]
        elif kind == "half":  # TransactionalMessageBridge.parseHalfMessageInner
            check_path_component(topic, "topic")
            real = (topic, queue_id)
            broker += [(P_REAL_TOPIC, topic), (P_REAL_QID, str(queue_id))]
            if unique_key:
                broker.append((P_TRANSACTION_ID, unique_key))
            topic, queue_id = HALF_TOPIC, 0

        prepared = _prepare(
            topic=topic,
            body=body,
            properties=Properties(producer + broker, True),
            queue_id=queue_id,
            flag=spec.flag,
            sys_flag=sys_flag,
            born_timestamp=born_timestamp,
            born_host=spec.born_host if spec.born_host is not None else format_host(self.producer_ip, 0),
            store_timestamp=store_timestamp,
            store_host=spec.store_host if spec.store_host is not None else self.store_host,
            reconsume_times=spec.reconsume_times,
            prepared_transaction_offset=spec.prepared_transaction_offset,
            body_crc=None,
        )
        result = self._write(prepared, index)
        if real is not None:
            self._note_topic(*real)
        if kind == "half" and real is not None:
            half = _Half(result, prepared, real[0], real[1])
            self._halves_by_index[index] = half
            if unique_key:
                self._halves_by_key[unique_key] = half
        return result

    def _end_transaction(self, spec: MessageSpec, index: int, store_timestamp: int) -> AppendResult:
        half = self._find_half(spec.half_ref)
        given = [
            name
            for name, value, default in (
                ("body", spec.body, b""), ("tags", spec.tags, None), ("properties", spec.properties, {}),
                ("born_host", spec.born_host, None), ("store_host", spec.store_host, None),
                ("born_timestamp", spec.born_timestamp, None), ("flag", spec.flag, 0),
                ("reconsume_times", spec.reconsume_times, 0), ("compression", spec.compression, None),
                ("delay_level", spec.delay_level, 0), ("unique_key", spec.unique_key, None),
                ("producer_group", spec.producer_group, None), ("wait_store_msg_ok", spec.wait_store_msg_ok, None),
                ("prepared_transaction_offset", spec.prepared_transaction_offset, 0),
                ("queue_id", spec.queue_id, 0),
            )
            if value != default
        ]  # fmt: skip
        if spec.keys:
            given.append("keys")
        if given:
            raise BadInput(
                f"a {spec.transaction} takes everything from its half message; do not set {', '.join(given)}"
            )
        if spec.topic and spec.topic != half.real_topic:
            raise BadInput(f"the half message's topic is {half.real_topic!r}, not {spec.topic!r}")
        commit_result = None
        if spec.transaction == "commit":  # EndTransactionProcessor.endMessageTransaction
            entries = half.record.properties.entries
            if self.strip_commit_properties:
                entries = [(k, v) for k, v in entries if k not in COMMIT_CLEARED_PROPERTIES]
            prepared = _prepare(
                topic=half.real_topic,
                body=half.record.body,
                properties=Properties(list(entries), True),
                queue_id=half.real_queue_id,
                flag=half.record.flag,
                sys_flag=(half.record.sys_flag & ~TRANSACTION_MASK) | TRANSACTION_COMMIT_TYPE,
                born_timestamp=half.record.born_timestamp,
                born_host=half.record.born_host,
                store_timestamp=store_timestamp,
                store_host=half.record.store_host,
                reconsume_times=half.record.reconsume_times,
                prepared_transaction_offset=half.result.physical_offset,
                body_crc=half.record.body_crc,
            )
            commit_result = self._write(prepared, index)
        op = self._write_op(half, index, store_timestamp)
        if commit_result is None:
            return op
        return replace(commit_result, op=op)

    def _write_op(self, half: _Half, index: int, store_timestamp: int) -> AppendResult:
        """The op message of ``TransactionalMessageBridge``: tag ``d``, body = half queue offset + ``,``.

        ``new Message(topic, "d", body)`` sets TAGS and WAIT=true; the properties string is encoded before
        ``makeOpMessageInner`` adds WAIT=false and a UNIQ_KEY to the map, so neither is stored. Born host =
        store host = the broker; born time = store time.
        """
        prepared = _prepare(
            topic=OP_TOPIC,
            body=f"{half.result.queue_offset},".encode("ascii"),
            properties=Properties([(P_TAGS, REMOVE_TAG), (P_WAIT, "true")], True),
            queue_id=half.result.queue_id,
            flag=0,
            sys_flag=0,
            born_timestamp=store_timestamp,
            born_host=self.store_host,
            store_timestamp=store_timestamp,
            store_host=self.store_host,
            reconsume_times=0,
            prepared_transaction_offset=0,
            body_crc=None,
        )
        return self._write(prepared, index)

    def _find_half(self, ref: int | str | None) -> _Half:
        if ref is None:
            raise BadInput("a commit or rollback needs half_ref (index or unique key of the half message)")
        half = self._halves_by_index.get(ref) if isinstance(ref, int) else self._halves_by_key.get(ref)
        if half is None:
            raise BadInput(f"no half message {ref!r} was written by this writer")
        return half

    # -- records --------------------------------------------------------------------------------------------

    def _write(self, prepared: _Prepared, index: int) -> AppendResult:
        """Append one validated record and dispatch it (``doAppend`` + reput)."""
        check_path_component(prepared.topic, "topic")
        physical_offset = self._commitlog.reserve(prepared.total_size)
        tran = prepared.sys_flag & TRANSACTION_MASK
        key = (prepared.topic, prepared.queue_id)
        queue_offset = 0
        if tran in (TRANSACTION_NOT_TYPE, TRANSACTION_COMMIT_TYPE):  # assignOffset / increaseOffset
            queue_offset = self._queue_offsets.get(key, 0)
            self._queue_offsets[key] = queue_offset + 1
        self._commitlog.write(prepared.build(physical_offset, queue_offset))
        self._last_store_timestamp = prepared.store_timestamp
        self._any_record = True
        self._note_topic(prepared.topic, prepared.queue_id)
        request = dispatch_request(
            prepared.topic,
            prepared.queue_id,
            physical_offset,
            prepared.total_size,
            prepared.store_timestamp,
            queue_offset,
            prepared.sys_flag,
            prepared.prepared_transaction_offset,
            prepared.properties.as_map(),
            self.geometry,
        )
        self.consume_queues.put(request)
        self.index.put(request)
        return AppendResult(
            index=index,
            physical_offset=physical_offset,
            queue_offset=queue_offset,
            topic=prepared.topic,
            queue_id=prepared.queue_id,
            msg_id=encode_offset_msg_id(prepared.store_host[0], prepared.store_host[1], physical_offset),
            unique_key=request.unique_key,
            total_size=prepared.total_size,
            sys_flag=prepared.sys_flag,
            store_timestamp=prepared.store_timestamp,
        )

    # MessageClientIDSetter.createUniqID
    def _create_uniq_id(self, born_timestamp: int) -> str:
        span = uniq_key_time_span(born_timestamp, self.tz)
        key = encode_uniq_key(self.producer_ip, self.pid, self.class_loader_hash, span, self._uniq_counter)
        self._uniq_counter += 1
        return key

    def _clock_now(self) -> int:
        return self.clock() if self.clock is not None else _wall_clock()

    def _note_topic(self, topic: str, queue_id: int) -> None:
        self._topic_queues[topic] = max(self._topic_queues.get(topic, 0), queue_id)

    # -- config files ---------------------------------------------------------------------------------------

    def _config_now(self) -> int:
        if self.clock is not None:
            return self.clock()
        return self._last_store_timestamp if self._any_record else _wall_clock()

    def _data_version(self, counter: int, now: int) -> dict[str, int]:
        return {"counter": counter, "stateVersion": 0, "timestamp": now}

    def _queue_num(self, topic: str, max_queue_id: int) -> int:
        if topic in self.queue_nums:
            return self.queue_nums[topic]
        if topic == SCHEDULE_TOPIC:
            return max(SCHEDULE_TOPIC_QUEUE_NUM, max_queue_id + 1)
        if topic.startswith(("RMQ_SYS_", "rmq_sys_", "%RETRY%", "%DLQ%")):
            return max_queue_id + 1  # created on demand with as many queues as used (1 for these)
        return max(DEFAULT_TOPIC_QUEUE_NUMS, max_queue_id + 1)

    def _write_configs(self) -> None:
        now = self._config_now()
        config = self.root / "config"
        topics = dict(self._topic_queues)
        for (topic, _group), offsets in self.consumer_offsets.items():
            topics[topic] = max([topics.get(topic, 0), *offsets.keys()])
        for topic in self.queue_nums:
            topics.setdefault(topic, 0)
        table = {}
        for topic in sorted(topics):
            nums = self._queue_num(topic, topics[topic])
            table[topic] = {  # TopicConfig, fields in fastjson's alphabetical order
                "attributes": {},
                "order": False,
                "perm": 6,
                "readQueueNums": nums,
                "topicFilterType": "SINGLE_TAG",
                "topicName": topic,
                "topicSysFlag": 0,
                "writeQueueNums": nums,
            }
        _write_text(
            config / "topics.json",
            dumps({"dataVersion": self._data_version(len(table), now), "topicConfigTable": table}),
        )

        offset_table: dict[str, dict[int, int]] = {}
        group_topics: dict[str, set[str]] = {}
        for topic, group in sorted(self.consumer_offsets):
            offset_table[f"{topic}@{group}"] = dict(sorted(self.consumer_offsets[(topic, group)].items()))
            group_topics.setdefault(group, set()).add(topic)
        _write_text(
            config / "consumerOffset.json",
            dumps(
                {
                    "dataVersion": self._data_version(len(offset_table), now),
                    "groupTopicMap": {g: sorted(t) for g, t in sorted(group_topics.items())},
                    "offsetTable": offset_table,
                }
            ),
        )

        groups = {}
        for group in sorted(group_topics):
            groups[group] = {  # SubscriptionGroupConfig (5.x), fields alphabetical
                "attributes": {},
                "brokerId": 0,
                "consumeBroadcastEnable": True,
                "consumeEnable": True,
                "consumeFromMinEnable": True,
                "consumeMessageOrderly": False,
                "consumeTimeoutMinute": 15,
                "groupName": group,
                "groupRetryPolicy": {"type": "CUSTOMIZED"},
                "groupSysFlag": 0,
                "notifyConsumerIdsChangedEnable": True,
                "retryMaxTimes": 16,
                "retryQueueNums": 1,
                "whichBrokerWhenConsumeSlowly": 1,
            }
        _write_text(
            config / "subscriptionGroup.json",
            dumps(
                {
                    "dataVersion": self._data_version(len(groups), now),
                    "forbiddenTable": {},
                    "subscriptionGroupTable": groups,
                }
            ),
        )

        if self._delay_levels or self.delay_offsets:
            delay = self.delay_offsets
            if delay is None:
                delay = {level: 0 for level in self._delay_levels}  # nothing delivered yet
            _write_text(
                config / "delayOffset.json",
                dumps(
                    {
                        "dataVersion": self._data_version(len(delay), now),
                        "offsetTable": dict(sorted(delay.items())),
                    }
                ),
            )


def _write_text(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8"))  # MixAll.string2File: the string as is, no trailing newline
