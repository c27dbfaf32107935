"""What a broker checks of the queue folders when it loads them, and will not start over (rocketmq-all-5.3.1).

One rule each, applied alike by verify (over a store's open queues: ``StoreQueues.load_problems``) and by the census (over
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

__all__ = ["configured_topics", "queue_type_problems", "topic_queue_type"]

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
