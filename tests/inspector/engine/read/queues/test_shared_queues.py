"""A store's queue objects are shared by every reader of the store (the web viewer's request threads, the TUI's
workers): a pass over all queues that only wants their pages gone (preflight, salvage's plan) releases the pages
and leaves the mappings, so a reader in the middle of a queue reads on. Closing them under it gave that reader an
empty buffer: a 500 on the tour page while the overview's preflight ran (seen by the link crawler)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from external_tools import SAMPLE_STORE, need

from inspector.engine import Store, preflight, salvage_plan
from inspector.engine.model.records import CqUnit


@pytest.fixture()
def store(tmp_path: Path):
    root = tmp_path / "store"
    shutil.copytree(need(SAMPLE_STORE), root)
    with Store(root) as s:
        yield s


def _busiest(store: Store) -> tuple[str, int]:
    info = max(store.queue_infos(), key=lambda q: q.message_count)
    return info.topic, info.queue_id


def test_a_reader_reads_on_while_its_pages_are_released(store: Store):
    topic, qid = _busiest(store)
    whole = [u for u in store.queue(topic, qid).units() if isinstance(u, CqUnit)]
    reading = store.queue(topic, qid).units()
    first = next(reading)
    store.queue(topic, qid).release_pages()
    rest = [u for u in reading if isinstance(u, CqUnit)]
    assert [first, *rest] == whole and len(whole) > 1


@pytest.mark.parametrize("whole_pass", [preflight, salvage_plan], ids=["preflight", "salvage_plan"])
def test_a_pass_over_every_queue_leaves_the_store_s_queues_readable(store: Store, whole_pass):
    topic, qid = _busiest(store)
    q = store.queue(topic, qid)
    held = q._map(q.files[0][0])  # noqa: SLF001 - what a reader in another thread holds when the pass runs
    reading = q.units()
    first = next(reading)
    whole_pass(store)
    assert store.queue(topic, qid) is q and len(held.buf) == held.size > 0  # the reader's mapping still maps
    rest = [u for u in reading if isinstance(u, CqUnit)]
    assert len(rest) + 1 == sum(1 for u in store.queue(topic, qid).units() if isinstance(u, CqUnit))
    assert first.queue_offset == 0 and rest[-1].queue_offset == len(rest)
