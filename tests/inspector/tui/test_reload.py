"""The reload key's one line: what changed between two openings of a store."""

from __future__ import annotations

from inspector.tui.reload import StoreShape, changes


def shape(min_offset=0, max_offset=1000, segments=1, queues=None, index_files=1) -> StoreShape:
    return StoreShape(min_offset, max_offset, segments, {("T", 0): 5, ("T", 1): 7} if queues is None else queues,
                      index_files)


def test_nothing_changed():
    assert changes(shape(), shape(), (0, False)) == "reloaded: nothing changed"


def test_growth_new_queues_retention_and_a_capped_count():
    new = shape(min_offset=100, max_offset=5000, segments=2, queues={("T", 0): 9, ("T", 1): 7, ("U", 0): 1},
                index_files=2)
    assert changes(shape(), new, (100_000, True)) == (
        "reloaded: commitlog +≥100,000 records (+4,000 bytes), first 100 bytes removed (retention), segments 1 → 2, "
        "1 queue grew, 1 queue new, index files 1 → 2")


def test_a_log_that_went_back_and_queues_that_shrank_or_went():
    new = shape(max_offset=600, queues={("T", 0): 3})
    assert changes(shape(), new, (0, False)) == (
        "reloaded: commitlog end moved back 400 bytes (truncated or recovered), 1 queue shrank, 1 queue gone")
