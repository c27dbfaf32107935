"""Stepping by store time (the TUI's ±minute/hour/day keys): record_at_time against a plain filter of every
record, exact to the millisecond, in the log (the search inside a segment run down to 256 bytes too, and on the
committed stores) and in each queue; time_step's landings, ends, gaps and the line it says."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from inspector.engine import Message, Store, record_at_time, time_step, time_step_note
from inspector.engine.read.search import window as window_module
from tests.timestep_store import DAY, HOUR, MINUTE, T0, TOPIC, write_timestep_store

REPO = Path(__file__).resolve().parents[5]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = tmp_path_factory.mktemp("timestep") / "store"
    return root, write_timestep_store(root)


@pytest.fixture
def utc():
    before = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


def _boundaries(times: list[int]) -> list[int]:
    return sorted({t + d for t in times for d in (-1, 0, 1)} | {times[0] - DAY, times[-1] + DAY})


def _want(records, t: int, before: bool):
    """(physical offset, store time) of the record a plain filter finds: the first at or after t, the last at or
    before it."""
    if before:
        hits = [r for r in records if r.store_timestamp <= t]
        return (hits[-1].physical_offset, hits[-1].store_timestamp) if hits else None
    hits = [r for r in records if r.store_timestamp >= t]
    return (hits[0].physical_offset, hits[0].store_timestamp) if hits else None


def _got(stop):
    return None if stop is None else (stop.physical_offset, stop.store_timestamp)


@pytest.mark.parametrize("settle", [window_module.SETTLE, 256])  # 256: the search inside a segment runs too
def test_in_the_log_the_record_at_a_time_is_the_one_a_filter_finds(written, settle, monkeypatch):
    monkeypatch.setattr(window_module, "SETTLE", settle)
    root, records = written
    with Store(root) as store:
        assert len(store.segments) == 3
        for t in _boundaries([r.store_timestamp for r in records[::7]] + [records[-1].store_timestamp]):
            for before in (False, True):
                assert _got(record_at_time(store, t, before=before)) == _want(records, t, before), (t, before)


@pytest.mark.parametrize("name", ["sample_store", "sample_store_dledger"])
def test_on_the_committed_stores_too(name):
    with Store(REPO / name) as store:
        records = [m for m in store.entries() if isinstance(m, Message)]
        for t in _boundaries([m.store_timestamp for m in records[:: max(1, len(records) // 20)]]):
            for before in (False, True):
                assert _got(record_at_time(store, t, before=before)) == _want(records, t, before), (t, before)


def test_in_a_queue_the_record_at_a_time_is_found_among_its_units(written):
    root, records = written
    with Store(root) as store:
        for q in (0, 1):
            mine = [r for r in records if r.queue_id == q]
            for t in _boundaries([r.store_timestamp for r in mine[::5]]):
                for before in (False, True):
                    stop = record_at_time(store, t, before=before, topic=TOPIC, queue=q)
                    want = _want(mine, t, before)
                    assert _got(stop) == want, (q, t, before)
                    if stop is not None:  # the queue offset of that unit
                        assert stop.queue_offset == next(r.queue_offset for r in mine
                                                         if r.physical_offset == stop.physical_offset)


def test_a_step_lands_exactly_a_step_away_on_the_first_of_equal_times(written):
    root, records = written
    with Store(root) as store:
        step = time_step(store, T0, MINUTE)
        # two records stored at 00:01:00.000: forward lands on the first, back from there returns to 00:00:00
        assert step.landed.physical_offset == records[3].physical_offset == 818
        assert step.moved == MINUTE and not step.gap
        back = time_step(store, T0 + MINUTE, -MINUTE)
        assert back.landed.physical_offset == records[0].physical_offset
        # a step back lands on the last stored at or before the target: one ms after a record, that record
        assert time_step(store, T0 + MINUTE + 20_001, -MINUTE).landed.store_timestamp == T0 + 20_000
        assert time_step(store, T0 + MINUTE + 19_999, -MINUTE).landed.store_timestamp == T0
        # one ms past a record's time, forward: the next record
        assert time_step(store, T0 + 1, MINUTE).landed.store_timestamp == T0 + MINUTE + 20_000
        hour = time_step(store, T0, HOUR)
        assert hour.landed.physical_offset == next(r.physical_offset for r in records if r.store_timestamp == T0 + HOUR)


def test_past_either_end_the_step_stays_and_names_the_end(written, utc):
    root, records = written
    with Store(root) as store:
        last, first = records[-1], records[0]
        step = time_step(store, last.store_timestamp, MINUTE)
        assert step.landed is None and step.edge.physical_offset == last.physical_offset and step.moved == 0
        assert time_step_note(step) == ("no record 1 minute later: the log ends at 2025-09-19 05:59:40.000 +00:00",
                                        True)
        step = time_step(store, first.store_timestamp + 30_000, -DAY)
        assert step.landed is None and step.edge.physical_offset == first.physical_offset
        assert time_step_note(step, "queue Ticks/0") == (
            "no record 1 day earlier: queue Ticks/0 begins at 2025-09-19 00:00:00.000 +00:00", True)
        # exactly at the end: a step to the last record's own time still lands on it
        assert time_step(store, last.store_timestamp - MINUTE, MINUTE).landed.physical_offset == last.physical_offset
        assert time_step(store, last.store_timestamp - MINUTE + 1, MINUTE).landed is None


def test_a_gap_is_crossed_and_said(written, utc):
    root, records = written
    with Store(root) as store:
        step = time_step(store, T0 + 90 * MINUTE, HOUR)  # 01:30 + 1 h: nothing until 05:00
        after = next(r for r in records if r.store_timestamp == T0 + 5 * HOUR)
        assert step.landed.physical_offset == after.physical_offset and step.gap
        assert time_step_note(step) == ("nothing stored for 2 h 30 min past the 1 hour step: went +3 h 30 min, to "
                                        "2025-09-19 05:00:00.000 +00:00", True)
        step = time_step(store, T0 + 5 * HOUR, -MINUTE)  # back over the gap: the last record before it
        assert step.landed.physical_offset == records[360].physical_offset and step.gap
        assert time_step_note(time_step(store, T0, MINUTE)) == (
            "+1 minute: at 2025-09-19 00:01:00.000 +00:00 (moved +1 minute)", False)

