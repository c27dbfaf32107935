"""What a broker checks of the queue folders when it loads them, and will not start over (rocketmq-all-5.3.1).

One rule each, applied alike by verify (over an open store: :func:`store_load_problems`) and by the census (over
its own listing), so the two give one verdict:

* every file of a consume queue has the one configured length (``MappedFileQueue.doLoad``: "length not matched
  message store config value, please check it manually", load returns false; the rule is
  :func:`~inspector.engine.read.queues.consumequeue.queue_files_problems`);
* a topic's queues live in the folder of its queue type (``ConsumeQueueStore.loadConsumeQueues`` loads
  ``consumequeue/`` as SimpleCQ and ``batchconsumequeue/`` as BatchCQ, and ``queueTypeShouldBe`` throws a
  RuntimeException when ``QueueTypeUtils.getCQType`` of the topic's config says otherwise): :func:`queue_type_problems`.

A RocksDB consume queue (``RocksDBConsumeQueueStore.load``) checks neither: nothing is said for one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from inspector.engine.model.broker_config import BrokerConfig
from inspector.engine.model.records import Problem
from inspector.engine.read.config.config import load_config
from inspector.engine.read.config.rocksdb_config import apply_topic_database
from inspector.engine.read.queues.batchconsumequeue import BATCH_DIR
from inspector.engine.read.queues.consumequeue import queue_files_problems
from parsers.consumequeue import BCQ_DEFAULT_FILE_SIZE

__all__ = ["configured_topics", "queue_type_problems", "store_load_problems", "topic_queue_type"]

QUEUE_TYPE = "queue.type"  # TopicAttributes.QUEUE_TYPE_ATTRIBUTE
SIMPLE_CQ, BATCH_CQ = "SimpleCQ", "BatchCQ"
CQ_TYPES = (SIMPLE_CQ, BATCH_CQ, "RocksDBCQ")  # the CQType enum: CQType.valueOf takes these names only
FOLDER_TYPES = {"consumequeue": SIMPLE_CQ, BATCH_DIR: BATCH_CQ}  # ConsumeQueueStore.load's two calls


def topic_queue_type(config: object) -> str:
    """``QueueTypeUtils.getCQType``: the topic's ``queue.type`` attribute, SimpleCQ when the topic has no config,
    no attributes or no such attribute (the value as written: :func:`queue_type_problems` says when
    ``CQType.valueOf`` would refuse it)."""
    attributes = config.get("attributes") if isinstance(config, dict) else None
    if not isinstance(attributes, dict) or not attributes or QUEUE_TYPE not in attributes:
        return SIMPLE_CQ
    return str(attributes[QUEUE_TYPE])


def queue_type_problems(topics: Mapping[str, object] | None, folders: Mapping[str, Iterable[str]]) -> list[Problem]:
    """A topic whose queue folders (``folders``: ``consumequeue`` / ``batchconsumequeue`` -> the topics with at
    least one queue-id folder there) are not where its configured queue type is loaded from. ``topics``: the
    topic configs of ``topics.json``; None when there is none to read (nothing is said then)."""
    if topics is None:
        return []
    found = []
    for base, expected in FOLDER_TYPES.items():
        for topic in sorted(folders.get(base, ())):
            actual = topic_queue_type(topics.get(topic))
            if actual == expected:
                continue
            if actual not in CQ_TYPES:
                why = (f"topics.json gives it {QUEUE_TYPE} {actual[:40]!r}, no queue type: the broker's "
                       "CQType.valueOf throws at load (QueueTypeUtils.getCQType) and it does not start")
            else:
                said = "is not in topics.json" if topic not in topics else f"has {QUEUE_TYPE} {actual} in topics.json"
                why = (f"its queues are in {base}/ (loaded as {expected}) but the topic {said}: the broker's "
                       f"ConsumeQueueStore.queueTypeShouldBe throws at load ('should be {expected}, but is "
                       f"{actual}') and it does not start")
            found.append(Problem(f"{base}/{topic}", 0, why, "queue-type-mismatch"))
    return found


def configured_topics(root: Path, broker_config: BrokerConfig | None = None) -> dict[str, object] | None:
    """The topic configs the broker loads (topics.json, or its RocksDB database), as a store opened at ``root``
    reads them; None when there are none (no config to hold the folders to)."""
    config = load_config(root)
    apply_topic_database(config, root, broker_config)
    return config.topics or None


def store_load_problems(store) -> list[Problem]:
    """The two load checks over an open store: every consume-queue (and batch consume-queue) file against the
    store's one file size, every topic folder against its queue type."""
    if getattr(store, "rocksdb_cq", None) is not None:
        simple: dict[str, list] = {}
    else:
        simple = _queue_files(store, store.queue_ids(), store.queue)
    batch = _queue_files(store, store.batch_queue_ids(), store.batch_queue)
    found = queue_files_problems(simple.values(), store.cq_file_size)
    found += queue_files_problems(batch.values(), None, None, BCQ_DEFAULT_FILE_SIZE)
    try:
        topics = store.config.topics or None  # none listed: no config to hold the folders to
    except Exception:  # noqa: BLE001 - an unreadable topics.json is its own finding (ConfigSet.findings)
        topics = None
    folders = {"consumequeue": {t for t, _ in simple}, BATCH_DIR: {t for t, _ in batch}}
    return found + queue_type_problems(topics, folders)


def _queue_files(store, ids, open_queue) -> dict[tuple[str, int], list[tuple[str, int]]]:
    out = {}
    for topic, qid in ids:
        q = open_queue(topic, qid)
        sizes = getattr(q, "file_sizes", None)
        if sizes is None:  # a RocksDB queue
            continue
        out[(topic, qid)] = [(f"{q.rel_dir}/{start:020d}", sizes[start]) for start, _ in q.files]
    return out
