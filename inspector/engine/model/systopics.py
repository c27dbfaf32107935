"""RocketMQ's system topic names and prefixes, defined once (spec §9, §10; ../shared/spec/STORE_FORMAT.md).

The broker parks delayed messages, transactions, retries and timers in topics of its own; readers, the writer,
dispatch, verify and the tour all need to recognise them, so their names live here and nowhere else. Each
comes with the spec section and the RocketMQ class that defines it.
"""

from __future__ import annotations

__all__ = [
    "CREATED_ON_DEMAND_PREFIXES",
    "DLQ_PREFIX",
    "HALF_TOPIC",
    "LMQ_PREFIX",
    "OLD_SYSTEM_PREFIX",
    "OP_TOPIC",
    "RETRY_PREFIX",
    "SCHEDULE_TOPIC",
    "SYSTEM_PREFIX",
    "SYSTEM_PREFIXES",
    "SYSTEM_TOPICS",
    "TIMER_TOPIC",
    "TRANS_CHECK_MAX_TIME_TOPIC",
    "TRANS_GROUP",
]

# spec §9.1: delayed messages wait here, queue id = delay level - 1
SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX"  # TopicValidator.RMQ_SYS_SCHEDULE_TOPIC
# spec §9.2: 5.x timer messages are written here first, queue 0
TIMER_TOPIC = "rmq_sys_wheel_timer"  # TimerMessageStore.TIMER_TOPIC
# spec §10.1: half messages (queue 0), the op records that end them, and half messages checked too often
HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC"  # TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC
OP_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC"  # TopicValidator.RMQ_SYS_TRANS_OP_HALF_TOPIC
TRANS_CHECK_MAX_TIME_TOPIC = "TRANS_CHECK_MAX_TIME_TOPIC"  # TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC
# spec §10.1 item 6: the group whose consumerOffset.json entries hold both transaction queues' progress
TRANS_GROUP = "CID_RMQ_SYS_TRANS"  # MixAll.CID_SYS_RMQ_TRANS

# spec §10.2: retry and dead-letter topics are the prefix + the consumer group
RETRY_PREFIX = "%RETRY%"  # MixAll.RETRY_GROUP_TOPIC_PREFIX
DLQ_PREFIX = "%DLQ%"  # MixAll.DLQ_GROUP_TOPIC_PREFIX
# spec §10.3: LMQ queues, the 5.x system prefix, and the upper-case prefix of the older system topics
LMQ_PREFIX = "%LMQ%"  # MixAll.LMQ_PREFIX
SYSTEM_PREFIX = "rmq_sys_"  # TopicValidator.SYSTEM_TOPIC_PREFIX
OLD_SYSTEM_PREFIX = "RMQ_SYS_"  # RMQ_SYS_TRANS_HALF_TOPIC, RMQ_SYS_TRACE_TOPIC ... (TopicValidator)

# the fixed-name system topics that hold messages, for lookups over every topic (spec §9, §10)
SYSTEM_TOPICS = (SCHEDULE_TOPIC, HALF_TOPIC, OP_TOPIC, TRANS_CHECK_MAX_TIME_TOPIC, TIMER_TOPIC)
# a topic starting with one of these is the broker's, not an application's (the tour and exercises skip them)
SYSTEM_PREFIXES = (RETRY_PREFIX, DLQ_PREFIX, LMQ_PREFIX, SYSTEM_PREFIX, OLD_SYSTEM_PREFIX, "SCHEDULE_TOPIC",
                   TRANS_CHECK_MAX_TIME_TOPIC)
# topics the broker creates on demand with as many queues as are used (1 for these), not the default 4
CREATED_ON_DEMAND_PREFIXES = (OLD_SYSTEM_PREFIX, SYSTEM_PREFIX, RETRY_PREFIX, DLQ_PREFIX)
