"""The files a cleanly shut-down broker leaves besides the data: ``checkpoint`` (spec §3.4) and the
``config/*.json`` files (spec §7), written by :meth:`StoreWriter.close <inspector.engine.maintain.write.writer.StoreWriter.close>`.

Apart from the writer because they are written once, from what the writer noted, in fastjson's layout; the
writer decides what goes in them, this module how it is laid out.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from pathlib import Path

from inspector.engine.model.systopics import CREATED_ON_DEMAND_PREFIXES, LMQ_PREFIX, SCHEDULE_TOPIC
from parsers.checkpoint import CHECKPOINT_FILE_SIZE, Checkpoint
from parsers.fastjson import dumps

__all__ = ["checkpoint_bytes", "write_config_files"]

SCHEDULE_TOPIC_QUEUE_NUM = 18  # TopicConfigManager.SCHEDULE_TOPIC_QUEUE_NUM
DEFAULT_TOPIC_QUEUE_NUMS = 4  # BrokerConfig.defaultTopicQueueNums, used for auto-created user topics


def checkpoint_bytes(physic_msg_timestamp: int, logics_msg_timestamp: int, index_msg_timestamp: int) -> bytes:
    """The 4 KiB ``checkpoint`` of a clean shutdown: the three flush timestamps, zero offsets (spec §3.4)."""
    return Checkpoint.build(
        {
            "physic_msg_timestamp": physic_msg_timestamp,
            "logics_msg_timestamp": logics_msg_timestamp,
            "index_msg_timestamp": index_msg_timestamp,
            "master_flushed_offset": 0,
            "confirm_phy_offset": 0,
            "reserved": bytes(CHECKPOINT_FILE_SIZE - 40),
        }
    )


def write_config_files(
    config: Path,
    now: int,
    topic_queues: Mapping[str, int],
    consumer_offsets: Mapping[tuple[str, str], Mapping[int, int]],
    queue_nums: Mapping[str, int],
    delay_levels: Set[int],
    delay_offsets: Mapping[int, int] | None,
    topic_attributes: Mapping[str, Mapping[str, str]] | None = None,
    *,
    enable_lmq: bool = False,
) -> None:
    """``topics.json``, ``consumerOffset.json``, ``subscriptionGroup.json`` and (when delay levels were used or
    offsets given) ``delayOffset.json`` in ``config``, as a broker persists them (spec §7).

    ``topic_queues``: topic -> max queue id written; ``now``: the dataVersion timestamp; ``topic_attributes``:
    each topic's ``attributes`` map (names without the admin API's ``+``/``-`` prefix, spec §7.2). See
    :class:`~inspector.engine.maintain.write.writer.StoreWriter` for the other arguments. ``enable_lmq``: the offsets
    go to ``lmqConsumerOffset.json`` instead (``LmqConsumerOffsetManager``, spec part 2 §17).
    """
    topics = dict(topic_queues)
    for (topic, _group), offsets in consumer_offsets.items():
        if enable_lmq and topic.startswith(LMQ_PREFIX):
            continue  # LmqTopicConfigManager answers for LMQ topics without storing them
        topics[topic] = max([topics.get(topic, 0), *offsets.keys()])
    for topic in queue_nums:
        topics.setdefault(topic, 0)
    attributes = topic_attributes or {}
    for topic in attributes:
        topics.setdefault(topic, 0)
    table = {}
    for topic in sorted(topics):
        nums = _queue_num(topic, topics[topic], queue_nums)
        table[topic] = {  # TopicConfig, fields in fastjson's alphabetical order
            "attributes": dict(sorted(attributes.get(topic, {}).items())),
            "order": False,
            "perm": 6,
            "readQueueNums": nums,
            "topicFilterType": "SINGLE_TAG",
            "topicName": topic,
            "topicSysFlag": 0,
            "writeQueueNums": nums,
        }
    _write_text(
        config / "topics.json",
        dumps({"dataVersion": _data_version(len(table), now), "topicConfigTable": table}),
    )

    offset_table: dict[str, dict[int, int]] = {}
    lmq_table: dict[str, int] = {}
    group_topics: dict[str, set[str]] = {}
    for topic, group in sorted(consumer_offsets):
        queues = consumer_offsets[(topic, group)]
        if enable_lmq and group.startswith(LMQ_PREFIX):  # LmqConsumerOffsetManager.commitOffset: isLmq(group)
            if 0 in queues:
                lmq_table[f"{topic}@{group}"] = queues[0]
            continue
        offset_table[f"{topic}@{group}"] = dict(sorted(queues.items()))
        group_topics.setdefault(group, set()).add(topic)
    offsets: dict[str, object] = {"dataVersion": _data_version(len(offset_table), now),
                                  "groupTopicMap": {g: sorted(t) for g, t in sorted(group_topics.items())}}
    if enable_lmq:  # RemotingSerializable.toJson of the manager: fields in fastjson's alphabetical order
        offsets["lmqOffsetTable"] = lmq_table
    offsets["offsetTable"] = offset_table
    _write_text(config / ("lmqConsumerOffset.json" if enable_lmq else "consumerOffset.json"), dumps(offsets))

    groups = {}
    for group in sorted(group_topics):
        groups[group] = {  # SubscriptionGroupConfig (5.x), fields alphabetical
            "attributes": {},
            "brokerId": 0,
            "consumeBroadcastEnable": True,
            "consumeEnable": True,
            "consumeFromMinEnable": True,
            "consumeMessageOrderly": False,
            "consumeTimeoutMinute": 15,
            "groupName": group,
            "groupRetryPolicy": {"type": "CUSTOMIZED"},
            "groupSysFlag": 0,
            "notifyConsumerIdsChangedEnable": True,
            "retryMaxTimes": 16,
            "retryQueueNums": 1,
            "whichBrokerWhenConsumeSlowly": 1,
        }
    _write_text(
        config / "subscriptionGroup.json",
        dumps(
            {
                "dataVersion": _data_version(len(groups), now),
                "forbiddenTable": {},
                "subscriptionGroupTable": groups,
            }
        ),
    )

    if delay_levels or delay_offsets:
        delay = delay_offsets
        if delay is None:
            delay = {level: 0 for level in delay_levels}  # nothing delivered yet
        _write_text(
            config / "delayOffset.json",
            dumps(
                {
                    "dataVersion": _data_version(len(delay), now),
                    "offsetTable": dict(sorted(delay.items())),
                }
            ),
        )


def _data_version(counter: int, now: int) -> dict[str, int]:
    return {"counter": counter, "stateVersion": 0, "timestamp": now}


def _queue_num(topic: str, max_queue_id: int, queue_nums: Mapping[str, int]) -> int:
    if topic in queue_nums:
        return queue_nums[topic]
    if topic == SCHEDULE_TOPIC:
        return max(SCHEDULE_TOPIC_QUEUE_NUM, max_queue_id + 1)
    if topic.startswith(CREATED_ON_DEMAND_PREFIXES):
        return max_queue_id + 1  # created on demand with as many queues as used (1 for these)
    return max(DEFAULT_TOPIC_QUEUE_NUMS, max_queue_id + 1)


def _write_text(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8"))  # MixAll.string2File: the string as is, no trailing newline
