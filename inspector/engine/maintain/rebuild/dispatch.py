"""The broker's dispatch (reput) path: commitlog record -> :class:`DispatchRequest` (spec §4.1, §5, §11).

Shared by :mod:`inspector.engine.maintain.write.writer` (which dispatches every record it appends, as the broker's
``ReputMessageService`` would), by rebuild-from-commitlog and by verify (which recomputes tagsCode). A request
carries what ``CommitLog.checkMessageAndReturnSize`` gives the dispatchers, tagsCode computed as the broker does;
the two dispatchers that write files have modules of their own, both reproducing the broker's algorithms,
quirks included, because the point is byte-identical output:

* :mod:`~inspector.engine.maintain.rebuild.cq_builder`: ``ConsumeQueueBuilder`` (``CommitLogDispatcherBuildConsumeQueue``).
* :mod:`~inspector.engine.maintain.rebuild.index_builder`: ``IndexBuilder`` (``IndexService.buildIndex``).

Also here: the file and directory names both builders and the writer use.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from inspector.engine.model.bounds import java_long_wrap
from inspector.engine.model.errors import BadInput
from inspector.engine.model.geometry import Geometry, parse_delay_levels
from inspector.engine.model.multidispatch import lmq_targets
from inspector.engine.model.systopics import SCHEDULE_TOPIC
from parsers.commitlog import TRANSACTION_COMMIT_TYPE, TRANSACTION_NOT_TYPE, transaction_type
from parsers.java import INT32_MAX, INT32_MIN, java_string_hash

__all__ = [
    "DispatchRequest",
    "check_path_component",
    "dispatch_request",
    "file_name_for_offset",
    "lmq_requests",
]

PROPERTY_KEYS = "KEYS"
PROPERTY_TAGS = "TAGS"
PROPERTY_UNIQ_KEY = "UNIQ_KEY"
PROPERTY_DELAY = "DELAY"
PROPERTY_INNER_NUM = "INNER_NUM"
PROPERTY_INNER_BASE = "INNER_BASE"
_JAVA_INT = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True)
class DispatchRequest:
    """What ``CommitLog.checkMessageAndReturnSize`` hands to the dispatchers for one record (spec §11).

    ``physical_offset`` is the record's PHYSICALOFFSET field (not the read position); ``keys`` is the raw
    KEYS property or ``""``; ``unique_key`` the UNIQ_KEY property or None; ``properties`` the parsed map
    (RocketMQ's reading rules, i.e. ``Properties.as_map()``).
    """

    topic: str
    queue_id: int
    physical_offset: int
    total_size: int
    tags_code: int
    store_timestamp: int
    queue_offset: int
    keys: str
    unique_key: str | None
    sys_flag: int
    prepared_transaction_offset: int
    properties: Mapping[str, str] = field(default_factory=dict, hash=False)
    msg_base_offset: int = -1  # INNER_BASE when INNER_NUM and INNER_BASE are both present, else queue_offset
    batch_size: int = 1  # INNER_NUM when both are present, else 1 (BatchConsumeQueue units, spec §4.3)

    @property
    def transaction_type(self) -> int:
        return transaction_type(self.sys_flag)


@functools.lru_cache(maxsize=16)
def _delay_table(delay_levels: str) -> tuple[int, ...]:
    """``Geometry.delay_ms`` for every level, parsed once per configuration (this runs per record)."""
    return tuple(parse_delay_levels(delay_levels))


def _parse_java_int(text: str, what: str) -> int:
    """``Integer.parseInt``: optional sign, ASCII digits, int32 range; anything else is an error."""
    return _parse_java_integer(text, what, INT32_MIN, INT32_MAX)


def _parse_java_integer(text: str, what: str, low: int, high: int) -> int:
    """``Integer.parseInt`` / ``Long.parseLong`` / ``Short.parseShort`` for the range [low, high]."""
    if not _JAVA_INT.fullmatch(text):
        raise BadInput(f"{what} is not a Java integer: {text!r}")
    value = int(text)
    if not low <= value <= high:
        raise BadInput(f"{what} is out of range [{low}, {high}]: {text!r}")
    return value


def dispatch_request(
    topic: str,
    queue_id: int,
    physical_offset: int,
    total_size: int,
    store_timestamp: int,
    queue_offset: int,
    sys_flag: int,
    prepared_transaction_offset: int,
    properties: Mapping[str, str],
    geometry: Geometry,
) -> DispatchRequest:
    """Build the :class:`DispatchRequest` of one record, computing tagsCode as the broker does (spec §11).

    tagsCode = TAGS.hashCode() sign-extended (0 without TAGS); for a ``SCHEDULE_TOPIC_XXXX`` record with a
    DELAY property the level is clamped to the max level and, if > 0, tagsCode = store timestamp + that
    level's delay. A DELAY that ``Integer.parseInt`` rejects makes the broker drop the record as unreadable;
    here it raises :class:`BadInput`.
    """
    tags = properties.get(PROPERTY_TAGS)
    tags_code = java_string_hash(tags) if tags else 0
    delay = properties.get(PROPERTY_DELAY)
    if topic == SCHEDULE_TOPIC and delay is not None:
        delays = _delay_table(geometry.delay_levels)
        level = min(_parse_java_int(delay, "DELAY"), len(delays))
        if level > 0:
            # DefaultMessageStore.computeDeliverTimestamp (a long sum: a stored timestamp near Long.MAX_VALUE
            # wraps there, so it wraps here); every clamped level is in the table
            tags_code = java_long_wrap(store_timestamp + delays[level - 1])
    msg_base_offset, batch_size = queue_offset, 1
    inner_num, inner_base = properties.get(PROPERTY_INNER_NUM), properties.get(PROPERTY_INNER_BASE)
    if inner_num is not None and inner_base is not None:  # Long.parseLong / Short.parseShort
        msg_base_offset = _parse_java_integer(inner_base, "INNER_BASE", -(1 << 63), (1 << 63) - 1)
        batch_size = _parse_java_integer(inner_num, "INNER_NUM", -(1 << 15), (1 << 15) - 1)
    return DispatchRequest(
        topic=topic,
        queue_id=queue_id,
        physical_offset=physical_offset,
        total_size=total_size,
        tags_code=tags_code,
        store_timestamp=store_timestamp,
        queue_offset=queue_offset,
        keys=properties.get(PROPERTY_KEYS) or "",
        unique_key=properties.get(PROPERTY_UNIQ_KEY),
        sys_flag=sys_flag,
        prepared_transaction_offset=prepared_transaction_offset,
        properties=dict(properties),
        msg_base_offset=msg_base_offset,
        batch_size=batch_size,
    )


def lmq_requests(request: DispatchRequest) -> list[DispatchRequest]:
    """The LMQ units the broker writes after a record's own (``ConsumeQueue.multiDispatchLmqQueue``, spec part 2
    §17): one request per queue of ``INNER_MULTI_DISPATCH``, at its ``INNER_MULTI_QUEUE_OFFSET``, with the
    record's physical offset, size and tagsCode; [] for a record that is not multi-dispatched or of a
    transaction type that gets no unit. MultiDispatchError (a ValueError) for properties the broker cannot use."""
    if request.transaction_type not in (TRANSACTION_NOT_TYPE, TRANSACTION_COMMIT_TYPE):
        return []  # CommitLogDispatcherBuildConsumeQueue: no unit, so no multi-dispatch either
    return [replace(request, topic=t.queue, queue_id=t.queue_id, queue_offset=t.queue_offset)
            for t in lmq_targets(request.topic, request.queue_id, request.properties)]


def file_name_for_offset(offset: int) -> str:
    """``UtilAll.offset2FileName``: the 20-digit zero-padded start offset of a mapped file."""
    return f"{offset:020d}"


def check_path_component(name: str, what: str) -> str:
    """Refuse a topic (or other name) that would leave the directory it is joined to."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name:
        raise BadInput(f"{what} cannot be used as a directory name: {name!r}")
    return name
