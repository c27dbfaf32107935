"""The tour's step that follows one message through retry and dead letter (issue 30): the dead letter of a
consumer group (``%DLQ%group`` queue 0) and, through the message's story (``story_of``), the original, each copy
parked in SCHEDULE_TOPIC_XXXX by a send-back and each copy delivered into ``%RETRY%group``.
"""

from __future__ import annotations

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message
from inspector.engine.model.systopics import DLQ_PREFIX, RETRY_PREFIX, SCHEDULE_TOPIC
from inspector.engine.read.store.answers import story_of
from inspector.engine.workshop.tour import SEARCH_QUEUES, SEARCH_UNITS, Context, Missing
from inspector.engine.workshop.tour_targets import record_hex

RETRY_FIELDS = ("TOPIC", "QUEUEID", "RECONSUMETIMES", "PROPERTIES")


def _dead_letter(ctx: Context) -> Message:
    """The first readable dead letter of the store (a message that has a UNIQ_KEY preferred: its copies are
    found through the index)."""
    fallback = None
    dlq_queues = [(t, q) for t, q in ctx.store.queue_ids() if t.startswith(DLQ_PREFIX)][:SEARCH_QUEUES]
    for topic, queue_id in dlq_queues:
        ctx.budget.check(f"reading {topic}")
        for n, (unit, msg) in enumerate(ctx.store.queue_messages(topic, queue_id)):
            if n >= SEARCH_UNITS:
                break
            if unit is None or not isinstance(msg, Message):
                continue
            if msg.unique_key:
                return msg
            fallback = fallback or msg
    if fallback is None:
        raise Missing("No message of this store was dead-lettered: no %DLQ% queue holds a readable message (a "
                      "consumer group sends a message there after maxReconsumeTimes failed retries).")
    return fallback


def _retry_and_dlq(ctx: Context):
    store = ctx.store
    dead = _dead_letter(ctx)
    ref = dead.unique_key or str(dead.physical_offset)
    ctx.budget.check("telling the dead letter's story")
    try:
        # scan=False: the index files find the copies; the log no index covers is not read (bounded, as every step)
        story = story_of(store, ref, scan=False)
    except StoreError as e:
        raise Missing(f"The dead letter at {dead.physical_offset} has no readable story: {e}") from None
    group = dead.topic[len(DLQ_PREFIX):]
    retry_topic = f"{RETRY_PREFIX}{group}"
    records = [r for r in story.records if r.physical_offset is not None and not r.expired]
    original = next((r for r in records if r.role == "original"), None)
    parked = [r for r in records if r.role == "retry-scheduled"]
    retries = [r for r in records if r.role == "retry"]
    first_record = store.message_at(original.physical_offset) if original is not None else None
    target = record_hex(dead, RETRY_FIELDS, "RECONSUMETIMES",
                        f"the dead letter at {dead.physical_offset}: {dead.topic} queue 0, reconsume times "
                        f"{dead.reconsume_times}")
    extra = []
    if first_record is not None:
        extra.append(record_hex(first_record, ("TOPIC", "QUEUEID", "RECONSUMETIMES"), "TOPIC",
                                f"the original in {first_record.topic} at {first_record.physical_offset}"))
    if parked:
        extra.append(record_hex(store.message_at(parked[0].physical_offset), RETRY_FIELDS, "PROPERTIES",
                                f"the first send-back, parked in {SCHEDULE_TOPIC} at {parked[0].physical_offset}"))
    if retries:
        extra.append(record_hex(store.message_at(retries[0].physical_offset), RETRY_FIELDS, "RECONSUMETIMES",
                                f"the first retry copy delivered into {retry_topic} at {retries[0].physical_offset}"))
    origin = dead.properties.get("ORIGIN_MESSAGE_ID", "")
    start = (f"The message was first stored in {first_record.topic} queue {first_record.queue_id} at "
             f"{first_record.physical_offset}. " if first_record is not None else
             "Its original is not in this store any more (or has no index entry here). ")
    levels = ", ".join(dict(r.facts).get("delay level", "?") for r in parked)
    flow = (f"Consumer group {group} failed on it; each time, the client sent it back and the broker wrote a new "
            f"copy (SendMessageProcessor.consumerSendMsgBack): not into the retry topic at once but into "
            f"{SCHEDULE_TOPIC} with delay level 3 + reconsume times, REAL_TOPIC={retry_topic}, reconsume times + 1 "
            f"and ORIGIN_MESSAGE_ID naming the first record. This store holds {len(parked)} such parked "
            f"cop{'y' if len(parked) == 1 else 'ies'} (delay levels {levels or '-'}) and {len(retries)} "
            f"delivered into {retry_topic}, which the group subscribes to by itself. "
            if parked or retries else
            f"Consumer group {group} failed on it until the broker gave up. ")
    text = (
        f"Where did this message go? {start}{flow}When the reconsume times reached the group's "
        f"maxReconsumeTimes, the next send-back wrote the dead letter instead: {dead.topic} queue 0 at "
        f"{dead.physical_offset}, reconsume times {dead.reconsume_times}"
        + (f", ORIGIN_MESSAGE_ID {origin}" if origin else "")
        + ". No consumer reads a %DLQ% topic unless someone subscribes to it on purpose: the message stops here. "
        f"Every copy keeps the producer's UNIQ_KEY ({dead.unique_key or 'none here'}), which is how the story "
        f"finds all {len(story.records)} records at once, in store-time order."
    )
    return text, target, extra, (ctx.cmd("story", ref), ctx.cmd("messages", "--topic", dead.topic, "--queue", "0"))


BUILDERS = {"retry-dlq": _retry_and_dlq}
