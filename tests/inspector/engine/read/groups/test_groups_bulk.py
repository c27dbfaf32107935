"""The bulk reads of a group's view and of ``info``'s queue list (``cq_bulk``: one pass over the plain file
queues) answer as the per-queue reads do, on the stores of the other queue kinds: 5.x batch queues and RocksDB
consume queues, which the bulk pass leaves to their own readers (as before), and light message queues (LMQ),
plain files under consumequeue/ which it answers. The view built with the bulk reads and the one built queue by
queue are equal, and so are the queue infos."""

from __future__ import annotations

import pytest
from external_tools import import_or_skip

from inspector.engine import group_of
from inspector.engine.read.config.offsets import OffsetPlaces
from inspector.engine.read.groups.groups import QueueAccess, load_sources, make_group_view, units_at
from inspector.engine.read.store.store import Store
from tests.batch_store import write_batch_store
from tests.lmq_store import LMQ, write_lmq_store
from tests.offsets_support import rocksdb_queue_store


def _one_by_one(root, group: str, limit: int):
    """The view with no bulk read: every queue's info, unit and store time asked of its own reader."""
    with Store(root) as store:
        sources = load_sources(OffsetPlaces(store.root, store.config, store.broker_config), store.consumer_offsets())
        access = QueueAccess(lambda t, q: store.queue(t, q).info(), store.message_by_queue_offset,
                             lambda: [*store.queue_ids(), *store.batch_queue_ids()],
                             lambda t, q, offsets: units_at(store.queue(t, q), offsets), store.store_timestamp_at)
        return make_group_view(sources, access, group, limit)


def _batch(tmp_path, write_commitlog):
    root = tmp_path / "s"
    write_batch_store(root)
    (root / "config" / "consumerOffset.json").write_text('{"offsetTable":{"Direct5BatchCQ@g":{0:3}}}')
    return root, ["g"], 1  # its plain queue; the batch queue is read by its own reader


def _lmq(tmp_path, write_commitlog):
    return write_lmq_store(tmp_path / "s"), ["g", LMQ], 4  # TopicA 0 and 1, %LMQ%x and %LMQ%y


def _rocksdb(tmp_path, write_commitlog):
    import_or_skip("rocksdict")
    root = tmp_path / "s"
    root.mkdir()
    rocksdb_queue_store(root, write_commitlog)
    (root / "config").mkdir(exist_ok=True)
    (root / "config" / "consumerOffset.json").write_text('{"offsetTable":{"TopicTest@g":{1:2}}}')
    return root, ["g"], 0


@pytest.mark.parametrize("make", [_batch, _lmq, _rocksdb], ids=["batch", "lmq", "rocksdb"])
def test_bulk_and_per_queue_reads_give_the_same_view_and_infos(tmp_path, write_commitlog, make) -> None:
    root, groups, in_bulk = make(tmp_path, write_commitlog)
    with Store(root) as store:  # how many queues the bulk pass answers itself (the others: their readers)
        assert len(store.prefetch_infos(store.queue_ids()).infos) == in_bulk
    for group in groups:
        with Store(root) as store:
            bulk = group_of(store, group, limit=3)
        alone = _one_by_one(root, group, 3)
        assert bulk.queues and bulk.queues == alone.queues, group
        assert bulk.pending == alone.pending and bulk.pending_total == alone.pending_total
        assert bulk.retry == alone.retry and bulk.dlq == alone.dlq
    with Store(root) as store:
        listed = store.queue_infos()
    with Store(root) as store:
        own = [store.queue(t, q).info() for t, q in store.queue_ids()]
        own += [store.batch_queue(t, q).info() for t, q in store.batch_queue_ids()]
    assert listed and listed == own
