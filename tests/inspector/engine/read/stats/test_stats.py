"""stats over the commitlog, checked against a plain Python computation over every decoded message (Store.entries)
on a writer-made store of several segments and on the sample store."""

from __future__ import annotations

import datetime as dt
import zlib
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from inspector.engine import (
    BY,
    SIZE_LABELS,
    Message,
    Store,
    open_timer,
    stats_view,
    store_stats,
    timer_summary,
)
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from inspector.engine.read.stats.stats import SIZE_EDGES, _Accumulator

T0 = 1_758_272_400_000
GEOMETRY = Geometry(segment_size=1 << 16, index_slots=64, index_items=1024)
SAMPLE = Path(__file__).resolve().parents[5] / "sample_store"


def _specs() -> list[MessageSpec]:
    specs = []
    for i in range(300):  # about five segments of 64 KiB
        body = (b'{"n":%d,"pad":"' % i) + b"y" * (i * 7 % 1500) + b'"}'
        topic = ("Orders", "Payments", "%RETRY%g1", "%DLQ%g1")[i % 4] if i % 10 else "Orders"
        specs.append(MessageSpec(
            topic, body, queue_id=i % 3, tags=("a", "b", "")[i % 3] or None, keys=[f"k{i}"],
            producer_group=f"pg{i % 2}" if i % 5 else None, compression="zlib" if i % 7 == 0 else None,
            born_host=f"10.0.0.{i % 4}:{1000 + i}", store_timestamp=T0 + i * 37_000))
    return specs


@pytest.fixture(scope="module")
def store_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("stats") / "s"
    with StoreWriter(root, GEOMETRY, clock=lambda: T0) as w:
        for spec in _specs():
            w.append(spec)
    return root


def _messages(root: Path) -> list[Message]:
    with Store(root) as s:
        return [m for m in s.entries() if isinstance(m, Message)]


def _utc(ms: int, pattern: str) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime(pattern)


def _key(m: Message, by: str) -> str:
    """The row a message belongs to, computed plainly."""
    size = next((i for i, edge in enumerate(SIZE_EDGES) if m.total_size < edge), len(SIZE_EDGES))
    return {"topic": m.topic, "queue": f"{m.topic}#{m.queue_id}", "host": m.born_host.ip,
            "tag": m.properties.get("TAGS", "-"), "producer-group": m.properties.get("PGROUP", "-"),
            "minute": _utc(m.store_timestamp // 60_000 * 60_000, "%Y-%m-%dT%H:%MZ"),
            "hour": _utc(m.store_timestamp // 3_600_000 * 3_600_000, "%Y-%m-%dT%H:00Z"),
            "size": SIZE_LABELS[size]}[by]


def _oracle(messages: list[Message], by: str) -> dict[str, tuple]:
    rows: dict[str, list] = defaultdict(lambda: [0, 0, 0, 0, 0, 0, 0, 0])
    for m in messages:
        r = rows[_key(m, by)]
        r[0] += 1
        r[1] += m.total_size
        r[2] += len(m.body)
        r[3] += m.compressed
        r[4] += m.topic.startswith("%RETRY%")
        r[5] += m.topic.startswith("%DLQ%")
        r[6] = min(r[6] or m.store_timestamp, m.store_timestamp)
        r[7] = max(r[7], m.store_timestamp)
    return {k: tuple(v) for k, v in rows.items()}


def _figures(stats) -> dict[str, tuple]:
    return {k: (c.messages, c.bytes, c.body_bytes, c.compressed, c.retry, c.dlq, c.first_store_timestamp,
                c.last_store_timestamp) for k, c in stats.rows.items()}


@pytest.mark.parametrize("by", BY)
def test_every_key_equals_a_plain_count(store_root, by):
    messages = _messages(store_root)
    with Store(store_root) as s:
        stats = store_stats(s, by)
    assert len(s.commitlog.segments) >= 4
    assert _figures(stats) == _oracle(messages, by)
    assert stats.total.messages == len(messages) == 300
    assert stats.total.bytes == sum(m.total_size for m in messages)
    assert sum(stats.sizes) == len(messages)
    assert sum(n for _, n in stats.rate) == len(messages)
    assert not stats.problems and stats.unread == 0


def test_sample_store_totals_and_by_queue(tmp_path):
    messages = _messages(SAMPLE)
    with Store(SAMPLE) as s:
        stats = store_stats(s, "queue")
    assert stats.total.messages == len(messages) == 402
    assert stats.total.bytes == sum(m.total_size for m in messages)
    assert _figures(stats) == _oracle(messages, "queue")
    # bytes per topic per segment add up to the segment's records
    for file, topics in stats.segment_topics.items():
        assert sum(topics.values()) == sum(m.total_size for m in messages if m.file == file)


def test_compression_ratio_is_the_decompressed_over_stored_bytes(store_root):
    messages = [m for m in _messages(store_root) if m.compressed]
    stored = sum(len(m.body) for m in messages)
    plain = sum(len(zlib.decompress(m.body)) for m in messages)
    with Store(store_root) as s:
        stats = store_stats(s)
    assert stats.compression == (stored, plain)
    assert stats.compression_ratio == pytest.approx(plain / stored)
    assert plain > stored


def test_the_careful_path_counts_as_the_batches_do(store_root):
    """Records the careful step decodes (outside the clean runs) go through _Accumulator.message: fed every
    message, it gives the same rows as the batch walk."""
    for by in ("topic", "tag", "size"):
        acc = _Accumulator(by)
        for m in _messages(store_root):
            acc.message(m)
        with Store(store_root) as s:
            batch = store_stats(s, by)
        assert {k: c for k, c in acc.rows.items()} == batch.rows
        assert acc.sizes.tolist() == list(batch.sizes)


def test_retention_preview_on_the_sample_store():
    """Deleting the oldest N segments drops their records; a group is behind when its committed offset is below
    the highest queue offset + 1 the deleted segments held for that queue (computed here plainly)."""
    messages = _messages(SAMPLE)
    with Store(SAMPLE) as s:
        stats = store_stats(s)
        files = [seg.file for seg in s.commitlog.segments]
        offsets = s.consumer_offsets().table
    assert [r.segments for r in stats.retention] == list(range(1, len(files)))
    for step in stats.retention:
        gone = [m for m in messages if m.file in files[:step.segments]]
        assert step.messages == len(gone)
        assert step.bytes == sum(m.total_size for m in gone)
        floor: dict[tuple[str, int], int] = {}
        for m in gone:
            floor[(m.topic, m.queue_id)] = max(floor.get((m.topic, m.queue_id), 0), m.queue_offset + 1)
        behind = sorted((g, t, q, c, floor[(t, q)]) for (t, g), queues in offsets.items() for q, c in queues.items()
                        if (t, q) in floor and c < floor[(t, q)])
        assert list(step.groups_behind) == behind
    assert stats.retention[-1].groups_behind  # the sample store has a group a deletion would leave behind


def test_json_view_counts_and_shapes(store_root):
    with Store(store_root) as s:
        view = stats_view(store_stats(s, "size"))
    assert view["total"]["messages"] == 300
    assert [b["bucket"] for b in view["size_buckets"]] == list(SIZE_LABELS)
    assert sum(r["messages"] for r in view["rows"]) == 300
    assert Counter(r["key"] for r in view["rows"]).most_common(1)[0][1] == 1
    assert view["partial"] is False


def test_an_unknown_key_is_refused(store_root):
    with Store(store_root) as s, pytest.raises(ValueError):
        store_stats(s, "colour")


def test_timer_backlog_of_a_5x_store(tmp_path):
    from timer_store import write_timer_store

    root = tmp_path / "t"
    write_timer_store(root)  # a delivered timer and two pending ones
    with Store(root) as s:
        stats = store_stats(s)
        summary = timer_summary(open_timer(s))  # what `timer --summary` counts
    assert (stats.timer_units, stats.timer_pending) == (summary["units"], summary["pending"]) == (3, 2)
    assert stats_view(stats)["timer"] == {"units": 3, "pending": 2}
    with Store(SAMPLE) as s:
        assert store_stats(s).timer_units is None


@pytest.mark.parametrize("by", ["tag", "producer-group"])
@pytest.mark.parametrize("slots", [1 << 14, 4])
def test_property_keys_by_the_kernel_equal_the_python_path(tmp_path, by, slots, monkeypatch):
    """The compiled kernel's property codes (an intern table per batch) give the rows the Python path gives; a table
    too small for the batch's distinct values (4 slots take 3 values, the batch has 10) falls back to the Python
    path, the same rows."""
    from inspector.engine.read.stats import stats as stats_module
    from inspector.engine.scan.kernels import numba_enabled, python_only

    if not numba_enabled():
        pytest.skip("numba is not importable here: there is no kernel path to compare")
    root = tmp_path / "s"
    with StoreWriter(root, GEOMETRY, clock=lambda: T0) as w:
        for i in range(120):
            w.append(MessageSpec("Orders", b"x" * (i % 50), queue_id=i % 2, tags=f"t{i % 10}" if i % 11 else None,
                                 producer_group=f"pg{i % 10}" if i % 13 else None, store_timestamp=T0 + i))
    calls = []
    real = stats_module._property_values
    monkeypatch.setattr(stats_module, "PROPERTY_SLOTS", slots)
    monkeypatch.setattr(stats_module, "_property_values", lambda b, name: calls.append(name) or real(b, name))
    with Store(root) as s:
        fast = store_stats(s, by)
    assert bool(calls) is (slots == 4)  # the small table overflowed: the Python path counted the batch
    with python_only(), Store(root) as s:
        plain = store_stats(s, by)
    assert _figures(fast) == _figures(plain) == _oracle(_messages(root), by)
    assert len(fast.rows) == 11 and "-" in fast.rows  # t0..t9 and the records without the property
