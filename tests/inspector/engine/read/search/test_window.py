"""A store-time window found by binary search (log_window over each segment's first record, queue_window over a
queue's units), checked against a plain filter of every record: the first record at or after since, the last
before until, exact to the millisecond, on the committed sample stores (three segments; a DLedger store whose
records follow entry headers) and across segment boundaries."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.engine import (
    GrepHit,
    Message,
    Store,
    compile_pattern,
    grep,
    in_window,
    log_order,
    log_window,
    queue_window,
)
from inspector.engine.read.search import window as window_module

REPO = Path(__file__).resolve().parents[5]


def _times(store: Store, messages: list[Message]) -> list[int]:
    """Boundaries worth trying: every segment's first record, some records, each +-1 ms, and past both ends."""
    firsts = [store.message_at(s.start_offset + s.entry_header).store_timestamp for s in store.segments]
    picked = [m.store_timestamp for m in messages[:: max(1, len(messages) // 12)]]
    base = sorted(set(firsts + picked + [messages[0].store_timestamp, messages[-1].store_timestamp]))
    return sorted({t + d for t in base for d in (-1, 0, 1)})


@pytest.mark.parametrize("settle", [window_module.SETTLE, 256])  # 256: the search inside a segment runs too
@pytest.mark.parametrize("name", ["sample_store", "sample_store_dledger"])
def test_the_log_window_holds_exactly_the_records_stored_in_it(name, settle, monkeypatch):
    monkeypatch.setattr(window_module, "SETTLE", settle)
    with Store(REPO / name) as store:
        messages = [m for m in store.entries() if isinstance(m, Message)]
        times = _times(store, messages)
        pairs = [(s, u) for s in [None, *times[::3]] for u in [None, *times[1::3]] if s is None or u is None or s <= u]
        for since, until in pairs:
            window = log_window(store, since, until)
            got = [m.physical_offset for m in in_window(log_order(store, window.start), window)
                   if isinstance(m, Message)]
            want = [m.physical_offset for m in messages
                    if (since is None or m.store_timestamp >= since) and (until is None or m.store_timestamp < until)]
            assert got == want, (since, until)


@pytest.mark.parametrize("name", ["sample_store", "sample_store_dledger"])
def test_the_search_inside_a_segment_lands_next_to_the_boundary(name, monkeypatch):
    """With the search run down to 256 bytes: the walk starts at most a record or two before the first record at
    or after since, at a record stored before it; the walk stops at the first record at or after until."""
    monkeypatch.setattr(window_module, "SETTLE", 256)
    with Store(REPO / name) as store:
        messages = [m for m in store.entries() if isinstance(m, Message)]
        for k in range(1, len(messages), 7):
            t = messages[k].store_timestamp
            first = next(m for m in messages if m.store_timestamp >= t)
            window = log_window(store, t, t)
            assert window.start <= first.physical_offset < window.start + 256 + 2 * max(m.total_size for m in messages)
            if window.start != first.physical_offset:
                assert store.message_at(window.start).store_timestamp < t
            # the stop: at the first record at or after until, or before it where no record starts in between
            assert window.stop <= first.physical_offset
            assert not [m for m in messages if window.stop <= m.physical_offset < first.physical_offset]
        assert log_window(store, None, None).start is None


def test_a_queue_window_is_the_units_stored_in_it():
    with Store(REPO / "sample_store") as store:
        messages = [m for m in store.entries() if isinstance(m, Message)]
        times = _times(store, messages)
        for topic, queue_id in store.queue_ids()[:6]:
            units = [(u.queue_offset, m.store_timestamp) for u, m in store.queue_messages(topic, queue_id, 0)
                     if isinstance(m, Message)]
            for since, until in [(times[i], times[j]) for i in range(0, len(times), 7)
                                 for j in range(i, len(times), 11)]:
                lo, hi = queue_window(store, topic, queue_id, since, until)
                assert list(range(lo, hi)) == [q for q, t in units if since <= t < until], (topic, queue_id)


def test_grep_in_a_window_is_grep_cut_to_it():
    with Store(REPO / "sample_store") as store:
        pattern = compile_pattern("order-11")
        every = [h.message for h in grep(store, pattern) if isinstance(h, GrepHit)]
        messages = [m for m in store.entries() if isinstance(m, Message)]
        for since, until in [(t, u) for t in _times(store, messages)[::5] for u in _times(store, messages)[2::9]
                             if t <= u]:
            got = [h.message.physical_offset for h in grep(store, pattern, since=since, until=until)
                   if isinstance(h, GrepHit)]
            assert got == [m.physical_offset for m in every if since <= m.store_timestamp < until]
