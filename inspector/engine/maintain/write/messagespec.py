"""The writer's input and output: :class:`MessageSpec` (one message to write, also from JSON Lines) and
:class:`AppendResult` (where its records went).

Apart from :mod:`inspector.engine.maintain.write.writer` because the schema of a message (fields, defaults, JSON
validation) is what callers read and write; how the broker stores it is the writer's business.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from inspector.engine.maintain.write.encode import _Prepared, _utf8
from inspector.engine.model.arguments import INT32_MAX, INT64_MAX
from inspector.engine.model.errors import BadInput
from inspector.engine.model.files import bounded_lines, open_regular
from parsers.fastjson import MAX_DEPTH, MAX_NUMBER_LENGTH
from parsers.java import INT32_MIN

__all__ = ["MAX_LINE_BYTES", "TRANSACTIONS", "AppendResult", "MessageSpec", "message_lines", "parse_message_line"]

TRANSACTIONS = ("half", "commit", "rollback", "raw_prepared", "raw_commit", "raw_rollback")
# One JSON Lines message is at most the broker's largest (maxMessageSize, 4 MiB by default), base64-encoded or
# escaped (\u0000: 6 characters a byte) with room to spare; a longer line (or /dev/zero: no newline) is refused
MAX_LINE_BYTES = 32 << 20
# The range of every integer field: what the broker's own types hold (MessageExtBrokerInner: queueId, flag and
# reconsumeTimes are Java ints, the timestamps and preparedTransactionOffset Java longs) and what it ever writes
# (a time from System.currentTimeMillis() is never negative, a queue id never either).
FIELD_RANGES: dict[str, tuple[int, int]] = {
    "queue_id": (0, INT32_MAX), "real_queue_id": (0, INT32_MAX), "flag": (INT32_MIN, INT32_MAX),
    "reconsume_times": (0, INT32_MAX), "delay_level": (0, INT32_MAX), "born_timestamp": (0, INT64_MAX),
    "store_timestamp": (0, INT64_MAX), "deliver_ms": (0, INT64_MAX), "prepared_transaction_offset": (0, INT64_MAX),
}  # fmt: skip


class HugeNumber(int):
    """A JSON number longer than ``MAX_NUMBER_LENGTH`` characters (the config files' limit, parsers/fastjson.py):
    never converted (``int()`` refuses 4,300+ digits with a ValueError and is quadratic before that); it stands
    as +-2**64, out of every field's range, and shows as its length, so the refusal names the field."""

    length: int

    def __new__(cls, text: str) -> HugeNumber:
        number = super().__new__(cls, -(1 << 64) if text.startswith("-") else 1 << 64)
        number.length = len(text)
        return number

    def __repr__(self) -> str:
        return f"a number of {self.length:,} characters (at most {MAX_NUMBER_LENGTH})"

    __str__ = __repr__


def _int(text: str) -> int:
    return HugeNumber(text) if len(text) > MAX_NUMBER_LENGTH else int(text)


def _float(text: str) -> float:
    return HugeNumber(text) if len(text) > MAX_NUMBER_LENGTH else float(text)


def _constant(text: str) -> None:
    raise ValueError(f"{text} is no JSON number")


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")


def _too_deep(text: str) -> bool:
    """True when ``text`` nests arrays and objects deeper than ``MAX_DEPTH`` (strings skipped). json's C
    scanner would recurse once a level and end in a RecursionError: counted first, without recursing."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False  # the usual line: two C-speed counts
    depth = 0
    for m in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if m.group() in "[{" else -1
        if depth > MAX_DEPTH:
            return True
    return False


def parse_message_line(line: str) -> object:
    """One JSON Lines line as a value, within the limits every JSON input has here (parsers/fastjson.py: nesting
    at most ``MAX_DEPTH`` levels; a number longer than ``MAX_NUMBER_LENGTH`` characters is a :class:`HugeNumber`
    that every field refuses by name); ``BadInput`` saying what is wrong otherwise."""
    if _too_deep(line):
        raise BadInput(f"not JSON this tool reads: nesting deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(line, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except json.JSONDecodeError as e:
        raise BadInput(f"not JSON: {e.msg}") from None
    except ValueError as e:  # parse_constant: NaN, Infinity
        raise BadInput(f"not JSON: {e}") from None
    except RecursionError:  # a last net: _too_deep counts what the scanner would recurse into
        raise BadInput(f"not JSON this tool reads: nesting deeper than {MAX_DEPTH} levels") from None


@contextmanager
def message_lines(source: str | Path | BinaryIO) -> Iterator[Iterator[bytes]]:
    """The lines of a JSON Lines input, each at most ``MAX_LINE_BYTES`` (a longer one: ``UnfitFile`` naming the
    line): a stream (stdin) is read as it is and left open; a path through the guarded open (a regular file:
    a FIFO, a device or a directory is ``BadInput`` naming it), read a line at a time, closed at the end."""
    if not isinstance(source, str | Path):
        yield bounded_lines(source, MAX_LINE_BYTES)
        return
    try:
        f = open_regular(source)
    except OSError as e:
        raise BadInput(f"cannot read the input: {e.strerror or e}", str(source)) from None
    with f:
        yield bounded_lines(f, MAX_LINE_BYTES)


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

    ``batch``: the messages of an inner batch (spec §2.10), written as ONE record of a topic whose
    ``queue.type`` is ``BatchCQ`` (the writer's ``topic_attributes``): sysFlag NEED_UNWRAP|INNER_BATCH, body
    ``MessageDecoder.encodeMessages`` of the inner messages, properties ``INNER_NUM`` / ``INNER_BASE``. This
    spec then describes the batch itself (topic, queue, hosts, timestamps, flag, its own ``unique_key``,
    ``wait_store_msg_ok``, ``cluster``) and has no body, tags, keys or properties; each inner spec gives only
    ``body``, ``tags``, ``keys``, ``properties``, ``flag``, ``unique_key`` and ``wait_store_msg_ok`` (its
    topic empty or the batch's; its ``cluster`` is not written: the broker adds CLUSTER to the batch record).

    ``lmq_queues``: LMQ queue names (each ``%LMQ%...``) the message is multi-dispatched to (spec part 2 §17): the
    producer's ``INNER_MULTI_DISPATCH`` property (names joined with ``,``); the writer, as a broker with
    ``enableLmq`` and ``enableMultiDispatch``, adds ``INNER_MULTI_QUEUE_OFFSET`` (each queue's next offset, same
    order) and writes a unit in ``consumequeue/<name>/0/`` for each. Ordinary, non-delayed messages only.
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
    batch: list[MessageSpec] | None = None
    lmq_queues: list[str] = field(default_factory=list)
    deliver_ms: int | None = None

    _JSON_FIELDS = (
        "topic", "body", "body_base64", "queue_id", "tags", "keys", "properties", "born_host", "store_host",
        "born_timestamp", "store_timestamp", "flag", "reconsume_times", "compression", "transaction",
        "half_ref", "delay_level", "unique_key", "producer_group", "wait_store_msg_ok", "cluster",
        "prepared_transaction_offset", "real_topic", "real_queue_id", "batch", "lmq_queues", "deliver_ms",
        "trace",
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
        ``real_queue_id`` (str / int: REAL_TOPIC / REAL_QID kept on a copy that ScheduleMessageService delivered),
        ``batch`` (list of message objects: an inner batch, see the class), ``lmq_queues`` (list of ``%LMQ%``
        queue names: multi-dispatch, see the class), ``deliver_ms`` (int epoch ms: a 5.x timer
        message, see ``timerflow``), ``trace`` (list of trace record objects, ``{"type": "Pub", <field>: ...}``:
        a trace message, its body packed as the client's TraceDataEncoder writes it, see ``tracewrite``). Unknown
        fields are an error.
        """
        if not isinstance(obj, Mapping):
            raise BadInput(f"a message is a JSON object, not {type(obj).__name__}")
        if "trace" in obj:  # a trace message: body and keys from its records, the trace topic by default
            from inspector.engine.maintain.write.tracewrite import trace_json

            obj = trace_json(obj)
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
        lmq_queues = obj.get("lmq_queues", [])
        if not isinstance(lmq_queues, list) or not all(isinstance(q, str) for q in lmq_queues):
            raise BadInput("lmq_queues must be a list of LMQ queue names (strings)")
        batch = obj.get("batch")
        if batch is not None and not isinstance(batch, list):
            raise BadInput("batch must be a list of message objects")
        half_ref = obj.get("half_ref")
        if half_ref is not None and (isinstance(half_ref, bool) or not isinstance(half_ref, int | str)
                                     or (isinstance(half_ref, int) and not 0 <= half_ref <= INT64_MAX)):
            raise BadInput(f"half_ref must be an integer in [0, {INT64_MAX}] or a string")
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
            batch=None if batch is None else [cls._inner_from_json(item, n) for n, item in enumerate(batch)],
            lmq_queues=list(lmq_queues),
            deliver_ms=_typed(obj, "deliver_ms", int, None, nullable=True),
        )

    @classmethod
    def _inner_from_json(cls, obj: object, n: int) -> MessageSpec:
        if isinstance(obj, Mapping) and "batch" in obj:
            raise BadInput(f"batch[{n}]: an inner message cannot hold a batch")
        try:
            return cls.from_json(obj)  # type: ignore[arg-type]
        except BadInput as e:
            raise BadInput(f"batch[{n}]: {e.reason}") from None


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
        shown = repr(value) if not isinstance(value, str) or len(value) <= 40 else f"{value[:40]!r}..."
        raise BadInput(f"field {name} must be {kind.__name__}{' or null' if nullable else ''}, not {shown}")
    if kind is int and name in FIELD_RANGES:
        low, high = FIELD_RANGES[name]
        if not low <= value <= high:
            raise BadInput(f"field {name} must be an integer in [{low}, {high}], not {value!r}")
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
    inner_unique_keys: tuple[str | None, ...] = ()  # an inner batch: each inner message's UNIQ_KEY


@dataclass(frozen=True)
class _Half:
    result: AppendResult
    record: _Prepared
    real_topic: str
    real_queue_id: int
