"""``spark export --since/--until``: the window pushed into the segment tasks. On the 8-segment store: only the
segments the window overlaps are planned (binary search on the driver), and the table holds exactly the records
stored in [since, until) (exact to the ms); a since after until is exit 2 before Spark starts."""

from __future__ import annotations

from pathlib import Path

from inspector.engine import Message, Store
from inspector.spark import plan
from inspector.spark.jobs import export
from inspector.spark.tasks import StoreRef


def _stored(root: Path) -> list[tuple[int, int]]:
    with Store(root) as s:
        return [(m.physical_offset, m.store_timestamp) for m in s.entries(None) if isinstance(m, Message)]


def _window(root: Path) -> tuple[int, int, list[int]]:
    """A window from a record's own store time (kept) to a later record's (left out), in the middle segments."""
    rows = _stored(root)
    since, until = rows[len(rows) // 3][1], rows[len(rows) // 2][1]
    return since, until, [o for o, t in rows if since <= t < until]


def test_only_the_overlapped_segments_are_planned(multi_store):
    since, until, want = _window(multi_store)
    ref = StoreRef(str(multi_store))
    every, some = plan.plan_segments([ref]), plan.plan_segments([ref], since, until)
    assert len(every) == 8 and 0 < len(some) < 8 and all(t.since == since and t.until == until for t in some)
    starts = [t.start_offset for t in every]
    assert {t.start_offset for t in some} >= {max(s for s in starts if s <= o) for o in want}


def test_export_in_a_window_holds_exactly_its_records(spark, multi_store, tmp_path):
    since, until, want = _window(multi_store)
    out = tmp_path / "out"
    assert export.main([str(multi_store), "--out", str(out), "--since", str(since), "--until", str(until)], spark) == 0
    rows = export.read_messages(spark, str(out / "messages")).select("physical_offset", "store_timestamp").collect()
    assert sorted(r.physical_offset for r in rows) == want
    assert min(r.store_timestamp for r in rows) == since and max(r.store_timestamp for r in rows) < until


def test_a_since_after_until_is_exit_2(multi_store, tmp_path, capsys):
    assert export.main([str(multi_store), "--out", str(tmp_path / "o"), "--since", "2000", "--until", "1000"]) == 2
    assert "is after --until" in capsys.readouterr().err
