"""``rmq-inspect stats``: the commitlog's records counted by one key, in one pass over columnar batches.

The walk is the one every bulk reader uses (``CommitLog.segment_batches``: runs of clean records decoded by the
bulk kernel into int64 columns, the careful step for every other record, which reports damage with file and
offset). Each batch is counted with numpy over its columns (size, sysFlag, topic code, store time, born host);
only the keys that live in the properties (tag, producer group) and the compressed bodies (the compression
ratio) look at single records.

Definitions shared with the Spark ``stats`` job (inspector/spark/jobs/stats.py): ``bytes`` is the records'
TOTALSIZE sum (a record counted once, whatever it holds); ``body_bytes`` the stored BODYLENGTH sum; a record is
``compressed`` when its sysFlag says so. Here ``messages`` counts records (an inner-batch record is one; Spark
counts its inner messages), and ``inner_batch`` says how many records are such batches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Blank, Message, Problem, fmt_time
from inspector.engine.model.systopics import DLQ_PREFIX, RETRY_PREFIX, SCHEDULE_TOPIC, TIMER_TOPIC
from inspector.engine.model.verdicts import LOG_UNREAD_CODES
from inspector.engine.scan.batch import MessageBatch, slot_texts
from inspector.engine.scan.kernels import compiled_for
from inspector.engine.scan.walk import _property_py as property_value
from parsers.commitlog import COMPRESSED_FLAG, INNER_BATCH_FLAG

if TYPE_CHECKING:
    from inspector.engine.read.commitlog.commitlog import CommitLog

BY = ("topic", "queue", "tag", "host", "producer-group", "minute", "hour", "size")
"""The keys ``stats --by`` takes."""
MINUTE_MS = 60_000
HOUR_MS = 3_600_000
SIZE_EDGES = (256, 1024, 4096, 16384, 65536, 262144, 1 << 20, 4 << 20)
"""Upper bounds (exclusive) of the size buckets; the last bucket holds every larger record."""
TRANSACTION_BITS = 0x00C  # sysFlag's transaction type (prepared, commit, rollback): any of them set
DELAY_TOPICS = (SCHEDULE_TOPIC, TIMER_TOPIC)  # where a delayed or timer message waits
NO_VALUE = "-"  # a record without the key's property (no TAGS, no PGROUP)
COMPRESSION_SAMPLE = 64 << 20  # decompressed bytes at most per compressed record (the ratio counts that far)

Progress = Callable[[int, int], None]


def size_label(i: int) -> str:
    """The text of size bucket ``i`` (``< 1 KiB``, ``>= 4 MiB``)."""
    def human(n: int) -> str:
        return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB" if n >= 1024 else f"{n} B"

    return f"< {human(SIZE_EDGES[i])}" if i < len(SIZE_EDGES) else f">= {human(SIZE_EDGES[-1])}"


SIZE_LABELS = tuple(size_label(i) for i in range(len(SIZE_EDGES) + 1))


@dataclass
class Counts:
    """The figures of one group of records (a row of the table, or the total)."""

    messages: int = 0
    bytes: int = 0
    body_bytes: int = 0
    compressed: int = 0
    retry: int = 0
    dlq: int = 0
    transaction: int = 0
    delay: int = 0
    inner_batch: int = 0
    first_store_timestamp: int = 0
    last_store_timestamp: int = 0

    def add(self, other: Counts) -> None:
        for name in ("messages", "bytes", "body_bytes", "compressed", "retry", "dlq", "transaction", "delay",
                     "inner_batch"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self._times(other.first_store_timestamp, other.last_store_timestamp)

    def _times(self, first: int, last: int) -> None:
        if first > 0 and (self.first_store_timestamp == 0 or first < self.first_store_timestamp):
            self.first_store_timestamp = first
        if last > self.last_store_timestamp:
            self.last_store_timestamp = last


@dataclass(frozen=True)
class RetentionStep:
    """Deleting the oldest ``segments`` segments (as the broker's retention deletes them, oldest first): the
    records it drops, and every (group, topic, queue) whose committed offset is below the queue's new minimum
    (the group loses messages it has not consumed)."""

    segments: int
    last_file: str
    messages: int
    bytes: int
    groups_behind: tuple[tuple[str, str, int, int, int], ...]  # (group, topic, queue, committed, new minimum)


@dataclass(frozen=True)
class StoreStats:
    """What ``stats`` found: ``rows`` (key -> Counts) by ``by``, ``total``, ``sizes`` (records per size bucket,
    SIZE_LABELS), ``rate`` ((bucket start ms, records) per ``rate_unit`` ms, store time), ``compression``
    (stored, decompressed bytes of the compressed bodies), ``segment_topics`` (segment file -> topic -> bytes),
    ``retention`` (one step per segment but the last), ``problems`` of the walk (``unread``: how many left a
    part of the log unread: the figures are then partial)."""

    by: str
    rows: dict[str, Counts]
    total: Counts
    sizes: tuple[int, ...]
    rate_unit: int
    rate: tuple[tuple[int, int], ...]
    compression: tuple[int, int]
    undecompressable: int
    segment_topics: dict[str, dict[str, int]]
    retention: tuple[RetentionStep, ...]
    problems: tuple[Problem, ...] = field(default=())
    unread: int = 0
    timer_units: int | None = None  # a 5.x timer store: its timer-log units (None: the store has none)
    timer_pending: int | None = None  # of those, the ones not delivered yet (the backlog; None: not known)
    since: int | None = None  # a store-time window [since, until) restricted what was counted (None: unbounded)
    until: int | None = None

    @property
    def windowed(self) -> bool:
        """Only a store-time window was counted (no retention preview then: deleting segments is whole-log)."""
        return self.since is not None or self.until is not None

    @property
    def compression_ratio(self) -> float | None:
        """Decompressed / stored bytes of the compressed bodies; None when none is compressed."""
        stored, plain = self.compression
        return plain / stored if stored else None


def log_stats(log: CommitLog, by: str = "topic", *, progress: Progress | None = None,
              timer_backlog: Callable[[], tuple[int | None, int | None]] = lambda: (None, None),
              committed: Callable[[str, int], list[tuple[str, int]]] = lambda topic, queue: [],
              since: int | None = None, until: int | None = None) -> StoreStats:
    """The log counted by ``by`` (one of BY; ValueError otherwise: the CLI checks first). ``timer_backlog``:
    (timer-log units, pending ones) of a 5.x timer store, (None, None) without one; ``committed``: (group,
    committed offset) of every group on a queue, for the retention steps. ``since``/``until``: only the records
    stored in [since, until), the segments to walk and where to start found by binary search (``log_range``); no
    retention preview then."""
    if by not in BY:
        raise ValueError(f"unknown stats key {by!r}")
    window = None
    if since is not None or until is not None:
        from inspector.engine.read.search.window import log_range

        window = log_range(log, since, until)
    acc = _Accumulator(by)
    problems: list[Problem] = [*log.problems]
    unread = sum(p.code in LOG_UNREAD_CODES for p in problems)
    total = sum(s.file_size for s in log.segments)
    done = 0
    per_segment: list[tuple[str, int, int, dict[tuple[str, int], int]]] = []
    for seg in log.segments:
        before = (acc.total.messages, acc.total.bytes)
        acc.queue_top = {}
        if window is not None and not window.overlaps(seg):
            done += seg.file_size
            continue
        for item in log.segment_batches(seg, _window_position(window, seg), check_crc=False):
            if isinstance(item, MessageBatch):
                acc.batch(item if window is None else item.within(window.since, window.until))
                if progress is not None:
                    progress(done + item.end, total)
                if window is not None and window.stop is not None and item.end + seg.start_offset >= window.stop:
                    break  # past the window's last record: the rest of the segment is later
            elif isinstance(item, Message):
                if window is None or window.holds(item.store_timestamp):
                    acc.message(item)
            elif isinstance(item, Problem):
                unread += item.code in LOG_UNREAD_CODES
                problems.append(item)
            elif isinstance(item, Blank):
                continue
        acc.flush_segment(seg.file)
        per_segment.append((seg.file, acc.total.messages - before[0], acc.total.bytes - before[1], acc.queue_top))
        done += seg.file_size
        if progress is not None:
            progress(done, total)
    units, pending = timer_backlog()
    retention = _retention(committed, per_segment) if window is None else ()
    return StoreStats(by, dict(sorted(acc.rows.items(), key=_row_order(by))), acc.total, tuple(acc.sizes.tolist()),
                      acc.rate_unit, tuple(sorted(acc.rate.items())), (acc.stored, acc.plain), acc.undecompressable,
                      acc.segment_topics, retention, tuple(problems), unread, units, pending, since, until)


def _window_position(window, seg) -> int:
    """Where in ``seg`` the walk starts: the window's first record when it is in this plain segment, else 0 (a
    DLedger segment is walked from its start: its entries' headers precede the records the window names)."""
    if window is None or window.start is None or seg.entry_header:
        return 0
    at = window.start - seg.start_offset
    return at if 0 < at < seg.file_size else 0


def _row_order(by: str):
    if by == "size":
        return lambda kv: SIZE_LABELS.index(kv[0])
    if by in ("minute", "hour"):
        return lambda kv: kv[0]  # ISO times sort as text
    return lambda kv: (-kv[1].bytes, kv[0])  # the heaviest first


class _Accumulator:
    """Counts being added up: per key, in total, per size bucket, per minute or hour, per segment and topic."""

    def __init__(self, by: str):
        self.by = by
        self.rows: dict[str, Counts] = {}
        self.total = Counts()
        self.sizes = np.zeros(len(SIZE_EDGES) + 1, dtype=np.int64)
        self.rate_unit = MINUTE_MS if by == "minute" else HOUR_MS
        self.rate: dict[int, int] = {}
        self.stored = self.plain = self.undecompressable = 0
        self.segment_topics: dict[str, dict[str, int]] = {}
        self.seg_topics: dict[str, int] = {}
        self.queue_top: dict[tuple[str, int], int] = {}  # (topic, queue) -> highest queue offset + 1 in the segment
        self.edges = np.asarray(SIZE_EDGES, dtype=np.int64)
        self.slot_labels: list[str | None] | None = None  # the batch's property texts by slot (_property_codes)

    def flush_segment(self, file: str) -> None:
        self.segment_topics[file] = dict(sorted(self.seg_topics.items(), key=lambda kv: (-kv[1], kv[0])))
        self.seg_topics = {}

    # -- a batch of clean records, by columns ------------------------------------------------------------------

    def batch(self, b: MessageBatch) -> None:
        n = len(b)
        if not n:
            return
        size = b.column("total_size")
        sys_flag = b.column("sys_flag")
        topic_code = b.column("topic")
        store_ts = b.column("store_timestamp")
        body_len = b.column("body_length")
        queue_id = b.column("queue_id")
        queue_offset = b.column("queue_offset")
        self.sizes += np.bincount(np.searchsorted(self.edges, size, side="right"), minlength=self.sizes.size)
        buckets, counts = np.unique(store_ts // self.rate_unit, return_counts=True)
        for t, c in zip(buckets.tolist(), counts.tolist(), strict=True):
            self.rate[t * self.rate_unit] = self.rate.get(t * self.rate_unit, 0) + c
        codes = np.unique(topic_code).tolist()
        kinds = {c: _topic_kind(b.topics[c]) for c in codes}
        compressed = (sys_flag & COMPRESSED_FLAG) != 0
        transaction = ((sys_flag & TRANSACTION_BITS) != 0).astype(np.int64)
        inner = ((sys_flag & INNER_BATCH_FLAG) != 0).astype(np.int64)
        for c in codes:
            sel = topic_code == c
            name = b.topics[c]
            self.seg_topics[name] = self.seg_topics.get(name, 0) + int(size[sel].sum())
            for q, top in zip(*_queue_tops(queue_id[sel], queue_offset[sel]), strict=True):
                key = (name, q)
                self.queue_top[key] = max(self.queue_top.get(key, 0), top)
        if compressed.any():
            for i in np.flatnonzero(compressed).tolist():
                self._ratio(b.message(i))
        keys = self._keys(b, topic_code, queue_id, store_ts, size)
        uniq, inv = np.unique(keys, return_inverse=True)
        inv = inv.reshape(-1)
        k = uniq.size

        def per_key(weights: np.ndarray) -> list[int]:
            return np.bincount(inv, weights=weights, minlength=k).astype(np.int64).tolist()

        kind_of = np.zeros(n, dtype=np.int64)  # 1 retry, 2 dlq, 3 delay (by topic)
        for c, kind in kinds.items():
            if kind:
                kind_of[topic_code == c] = ("retry", "dlq", "delay").index(kind) + 1
        columns = [np.bincount(inv, minlength=k).tolist(), per_key(size), per_key(body_len), per_key(compressed.astype(np.int64)),
                   per_key(kind_of == 1), per_key(kind_of == 2), per_key(transaction), per_key(kind_of == 3),
                   per_key(inner)]
        first = np.full(k, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(first, inv, np.where(store_ts > 0, store_ts, np.iinfo(np.int64).max))
        last = np.zeros(k, dtype=np.int64)
        np.maximum.at(last, inv, store_ts)
        firsts = np.where(first == np.iinfo(np.int64).max, 0, first).tolist()
        for j, key in enumerate(uniq.tolist()):
            part = Counts(*(col[j] for col in columns), firsts[j], int(last[j]))
            self.rows.setdefault(self._label(b, key), Counts()).add(part)
            self.total.add(part)

    def _keys(self, b: MessageBatch, topic_code, queue_id, store_ts, size):
        """One key per record of the batch: an int64 array (codes) or a list of texts (property values)."""
        by = self.by
        if by == "topic":
            return topic_code
        if by == "queue":
            return topic_code * (1 << 32) + queue_id
        if by == "host":
            return b.column("born_ip")
        if by == "minute":
            return store_ts // MINUTE_MS
        if by == "hour":
            return store_ts // HOUR_MS
        if by == "size":
            return np.searchsorted(self.edges, size, side="right")
        name = b"TAGS" if by == "tag" else b"PGROUP"
        found = _property_codes(b, name)
        if found is None:
            self.slot_labels = None
            return np.array(_property_values(b, name), dtype=object)
        codes, self.slot_labels = found
        return codes

    def _label(self, b: MessageBatch, key) -> str:
        by = self.by
        if by == "topic":
            return b.topics[key]
        if by == "queue":
            return f"{b.topics[key >> 32]}#{key & 0xFFFFFFFF}"
        if by == "host":
            return b.ips[key]
        if by == "minute":
            return _utc(key * MINUTE_MS, "%Y-%m-%dT%H:%MZ")
        if by == "hour":
            return _utc(key * HOUR_MS, "%Y-%m-%dT%H:00Z")
        if by == "size":
            return SIZE_LABELS[key]
        if self.slot_labels is not None:  # a property's intern-table slot (_property_codes), -1: none
            return NO_VALUE if key < 0 else self.slot_labels[key]
        return key

    # -- one record the careful step decoded ---------------------------------------------------------------------

    def message(self, m: Message) -> None:
        """A record outside the clean runs (a body CRC off, a record after damage): counted as a batch of one."""
        by = self.by
        idx = int(np.searchsorted(self.edges, m.total_size, side="right"))
        self.sizes[idx] += 1
        t = m.store_timestamp // self.rate_unit * self.rate_unit
        self.rate[t] = self.rate.get(t, 0) + 1
        self.seg_topics[m.topic] = self.seg_topics.get(m.topic, 0) + m.total_size
        key = (m.topic, m.queue_id)
        self.queue_top[key] = max(self.queue_top.get(key, 0), m.queue_offset + 1)
        if m.sys_flag & COMPRESSED_FLAG:
            self._ratio(m)
        label = {
            "topic": m.topic, "queue": f"{m.topic}#{m.queue_id}", "host": m.born_host.ip,
            "minute": _utc(m.store_timestamp // MINUTE_MS * MINUTE_MS, "%Y-%m-%dT%H:%MZ"),
            "hour": _utc(m.store_timestamp // HOUR_MS * HOUR_MS, "%Y-%m-%dT%H:00Z"), "size": SIZE_LABELS[idx],
            "tag": m.properties.get("TAGS", NO_VALUE), "producer-group": m.properties.get("PGROUP", NO_VALUE),
        }[by]
        kind = _topic_kind(m.topic)
        part = Counts(1, m.total_size, len(m.body), int(bool(m.sys_flag & COMPRESSED_FLAG)), int(kind == "retry"),
                      int(kind == "dlq"), int(bool(m.sys_flag & TRANSACTION_BITS)), int(kind == "delay"),
                      int(bool(m.sys_flag & INNER_BATCH_FLAG)), m.store_timestamp, m.store_timestamp)
        self.rows.setdefault(label, Counts()).add(part)
        self.total.add(part)

    def _ratio(self, m: Message) -> None:
        from inspector.engine.read.commitlog.body import decompress_body

        try:
            plain = decompress_body(m, COMPRESSION_SAMPLE, prefix=True)
        except StoreError:  # unknown codec, codec missing, corrupt: not in the ratio, counted
            self.undecompressable += 1
            return
        self.stored += len(m.body)
        self.plain += len(plain)


PROPERTY_SLOTS = 1 << 14  # the intern table of _property_codes: 12,288 distinct values a batch (3/4 full) at most


def _property_codes(b: MessageBatch, name: bytes) -> tuple[np.ndarray, list[str | None]] | None:
    """Each record's value of property ``name`` as a slot of an intern table (-1: none) and each slot's text, by
    the compiled kernel (the values compared byte for byte, no map built per record): 1 GiB by tag: see
    benchmarks/stats_bench.py. None without the kernels or when the batch holds more distinct values than the
    table (the Python path, :func:`_property_values`, then counts it: the same rows)."""
    k = compiled_for(len(b.buf))
    if k is None:
        return None
    slots = PROPERTY_SLOTS
    tab = np.full((slots + 1, 4), -1, dtype=np.int64)
    tab[slots, 0] = 0
    codes = np.empty(len(b), dtype=np.int64)
    if not k.property_codes(b.buf, b.column("properties_position"), b.column("properties_length"),
                            np.frombuffer(name, dtype=np.uint8), tab, codes):
        return None
    return codes, slot_texts(b.buf, tab, lambda raw: raw.decode("utf-8", "surrogateescape"))


def _property_values(b: MessageBatch, name: bytes) -> list[str]:
    """Each record's value of property ``name`` as ``Properties.as_map()`` keeps it (NO_VALUE when none), read
    from the raw properties bytes (walk.property_value: no map built per record)."""
    buf = memoryview(b.buf)  # slices of a memoryview cost less than numpy views, record by record
    out = []
    for p, n in zip(b.column("properties_position").tolist(), b.column("properties_length").tolist(), strict=True):
        at, size = property_value(buf, p, n, name)
        out.append(NO_VALUE if at < 0 else buf[at:at + size].tobytes().decode("utf-8", "surrogateescape"))
    return out


def _topic_kind(topic: str) -> str:
    if topic.startswith(RETRY_PREFIX):
        return "retry"
    if topic.startswith(DLQ_PREFIX):
        return "dlq"
    if topic in DELAY_TOPICS:
        return "delay"
    return ""


def _queue_tops(queue_id: np.ndarray, queue_offset: np.ndarray) -> tuple[list[int], list[int]]:
    """Per queue id: the highest queue offset + 1 among the records (the queue's new minimum once they go)."""
    order = np.lexsort((queue_offset, queue_id))
    q, o = queue_id[order], queue_offset[order]
    last = np.r_[np.flatnonzero(q[1:] != q[:-1]), q.size - 1]
    return q[last].tolist(), (o[last] + 1).tolist()


def _utc(ms: int, pattern: str) -> str:
    import datetime as dt

    try:
        return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime(pattern)
    except (OverflowError, OSError, ValueError):
        return f"invalid({ms})"


def _retention(committed: Callable[[str, int], list[tuple[str, int]]], per_segment) -> tuple[RetentionStep, ...]:
    """For N = 1 .. segments - 1: what deleting the oldest N segments drops, and the groups it leaves behind (a
    committed offset below the queue's new minimum: the highest queue offset + 1 the deleted segments held)."""
    steps: list[RetentionStep] = []
    floor: dict[tuple[str, int], int] = {}
    messages = size = 0
    offsets: dict[tuple[str, int], list[tuple[str, int]]] = {}
    for n, (file, count, nbytes, tops) in enumerate(per_segment[:-1], start=1):
        messages += count
        size += nbytes
        for key, top in tops.items():
            floor[key] = max(floor.get(key, 0), top)
        behind = []
        for (topic, queue), minimum in sorted(floor.items()):
            if (topic, queue) not in offsets:
                offsets[(topic, queue)] = committed(topic, queue)
            behind += [(g, topic, queue, c, minimum) for g, c in offsets[(topic, queue)] if c < minimum]
        steps.append(RetentionStep(n, file, messages, size, tuple(sorted(behind))))
    return tuple(steps)


def stats_view(stats: StoreStats) -> dict:
    """``stats --json``: every figure as plain JSON values (store text raw: JSON escapes it)."""
    def counts(c: Counts) -> dict:
        return {name: getattr(c, name) for name in COUNT_FIELDS}

    return {
        "by": stats.by,
        "rows": [{"key": key, **counts(c)} for key, c in stats.rows.items()],
        "total": counts(stats.total),
        "size_buckets": [{"bucket": label, "messages": n} for label, n in zip(SIZE_LABELS, stats.sizes, strict=True)],
        "rate": {"unit": "minute" if stats.rate_unit == MINUTE_MS else "hour",
                 "buckets": [{"start_ms": t, "messages": n} for t, n in stats.rate]},
        "compression": {"stored_bytes": stats.compression[0], "decompressed_bytes": stats.compression[1],
                        "ratio": stats.compression_ratio, "undecompressable": stats.undecompressable},
        "segments": [{"file": f, "topics": [{"topic": t, "bytes": b} for t, b in topics.items()]}
                     for f, topics in stats.segment_topics.items()],
        "retention": [{"delete_oldest": r.segments, "through": r.last_file, "messages": r.messages,
                       "bytes": r.bytes, "groups_behind": [
                           {"group": g, "topic": t, "queue": q, "committed": c, "new_min_offset": m}
                           for g, t, q, c, m in r.groups_behind]} for r in stats.retention],
        "timer": None if stats.timer_units is None else {"units": stats.timer_units, "pending": stats.timer_pending},
        "problems": len(stats.problems),
        "partial": stats.unread > 0,
        "window": None if not stats.windowed else {
            "since_ms": stats.since, "until_ms": stats.until,
            "since": None if stats.since is None else fmt_time(stats.since),
            "until": None if stats.until is None else fmt_time(stats.until)},
    }


COUNT_FIELDS = ("messages", "bytes", "body_bytes", "compressed", "retry", "dlq", "transaction", "delay",
                "inner_batch", "first_store_timestamp", "last_store_timestamp")
