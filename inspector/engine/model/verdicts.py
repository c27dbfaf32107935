"""One verdict per fact: every finding code and its one severity, with what decides it.

A finding's code names a fact (an empty file in ``commitlog/``, a unit pointing below the log's first offset);
census, verify, info, preflight, the terminal UI and the web all show the ``Problem`` the engine made, and
``Problem`` takes its severity from this table (``records.Problem.__post_init__``), so no producer can give one
fact two verdicts (issue 29 item 3: ``census`` called an empty stray segment fatal, ``verify`` a warning).

The severities: ``error``, the broker refuses to start (its load fails) or data is lost or unreachable (a
consumer misses it, a lookup cannot find it); ``warning``, odd but harmless to the broker, or harmful only in a
way the store cannot prove; ``info``, normal (retention's leftovers). The source names the broker code that
decides it (RocketMQ 4.9.8 / 5.3.1, DLedger 0.3.1.2), or ``rmq-inspect`` for a check of our own.

Where the broker versions disagree, the stricter one decides: an empty last file is refused by 4.9.8's
``MappedFileQueue.load`` (the broker does not start, apache/rocketmq#3257) though 5.1.3+ deletes it, so it is an
error; the reason says both.

``BY_CONTEXT`` lists the codes whose severity still depends on a circumstance the code does not name, with that
circumstance: each is one fact seen two ways by one producer (never by two views), and is to be split into two
codes (a change of JSON output, left for its own change).
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITIES = (ERROR, WARNING, INFO)


@dataclass(frozen=True)
class Verdict:
    severity: str
    source: str  # the broker class/method (or rmq-inspect's own rule) that decides the severity


def _v(severity: str, source: str) -> Verdict:
    return Verdict(severity, source)


_LOAD = "MappedFileQueue.load (4.9.8) / doLoad (5.3.1): a file of another length returns false, the broker stops"
_FIND = "MappedFileQueue.findMappedFileByOffset: index = offset / size - first / size"
_CHECK = "CommitLog.checkMessageAndReturnSize: the record is unreadable, recovery ends the log before it"
_CQ_READ = "ConsumeQueue.getIndexBuffer / DefaultMessageStore.getMessage: the consumer gets what the unit says"
_INDEX = "IndexFile.selectPhyOffset / IndexService.queryOffset: queryMsgByKey follows the slot chain"
_CONFIG = "ConfigManager.load: the file, else its .bak (configFilePath + \".bak\")"
_TIMER = "TimerMessageStore.recover / TimerWheel / TimerLog (5.3.1)"
_DLEDGER = "DLedgerMmapFileStore.recover (DLedger 0.3.1.2)"
_OURS = "rmq-inspect"

# The codes that say a part of the log could not be read at all (not a record in it: the file): a search or scan
# that met one cannot say "no such message", only "not found in what could be read" (exit 3, not 1)
LOG_UNREAD_CODES = frozenset({"unreadable-file", "not-a-segment-file", "missing-segment"})

VERDICTS: dict[str, Verdict] = {
    # commitlog files and layout
    "empty-segment": _v(ERROR, _LOAD + " (an empty file, apache/rocketmq#3257; 5.1.3+ deletes an empty last one)"),
    "wrong-segment-size": _v(ERROR, _LOAD),
    "segment-size": _v(ERROR, _LOAD),
    "misaligned-segment": _v(ERROR, _FIND),
    "missing-segment": _v(ERROR, "MappedFileQueue.checkSelf / findMappedFileByOffset: a hole in the log"),
    "duplicate-segment": _v(ERROR, "MappedFileQueue.load: two files for one offset range"),
    "overlap": _v(ERROR, "MappedFileQueue.checkSelf: files whose ranges overlap"),
    "not-a-segment-file": _v(ERROR, _LOAD + " (a folder or special file is taken for a segment)"),
    "unreadable-file": _v(ERROR, "MappedFile.init: the broker cannot map the file"),
    "interrupted-rebuild": _v(ERROR, "rmq-inspect rebuild --in-place's journal: a swap was cut short"),
    # commitlog records
    "no-blank": _v(ERROR, _CHECK + " (a segment ends without its BLANK record)"),
    "trailing-bytes": _v(ERROR, _CHECK),
    "zeroed-region": _v(ERROR, _CHECK),
    "unreadable-bytes": _v(ERROR, _CHECK),
    "garbage-after-end": _v(ERROR, "CommitLog.recoverNormally/Abnormally: bytes after the log's end are cut"),
    "crc-mismatch": _v(ERROR, "CommitLog.checkMessageAndReturnSize(checkCRC): the record is refused"),
    "offset-mismatch": _v(ERROR, "CommitLog.checkMessageAndReturnSize: PHYSICALOFFSET is not the record's place"),
    "blank-size": _v(WARNING, "CommitLog.checkMessageAndReturnSize: a BLANK ends the segment whatever its size"),
    "record-in-progress": _v(WARNING, "CommitLog.appendMessage: the active segment's record being written"),
    "tail-not-checked": _v(INFO, _OURS + " (a bounded walk's note; verify checks the tail)"),
    "bad-crc-property": _v(ERROR, "MessageDecoder / UtilAll.crc32: the __CRC32# property is no number"),
    "crc-property-mismatch": _v(ERROR, "MessageStoreConfig.enableCheckCRC / the client's __CRC32# check"),
    "body-undecompressable": _v(ERROR, "MessageDecoder.decode: the consumer cannot decompress the body"),
    "codec-missing": _v(WARNING, _OURS + " (a decompressor this installation lacks; the body is not checked)"),
    "body-search-cut": _v(INFO, _OURS + " (grep: a body decompresses past the search limit; its first bytes searched)"),
    # DLedger
    "dledger-body-size": _v(ERROR, _DLEDGER),
    "dledger-body-length": _v(ERROR, _DLEDGER),
    "dledger-magic": _v(ERROR, _DLEDGER),
    "dledger-pos": _v(ERROR, _DLEDGER),
    "dledger-size": _v(ERROR, _DLEDGER),
    "dledger-torn-entry": _v(ERROR, _DLEDGER),
    "dledger-index": _v(ERROR, _DLEDGER + ": the Raft index must grow by one"),
    "dledger-term": _v(ERROR, _DLEDGER + ": the term never falls"),
    "dledger-end-size": _v(WARNING, _DLEDGER),
    "dledger-newer-entry": _v(WARNING, "DLedger 0.4+ NOOP / CONFIG_CHANGE entries (no record)"),
    "dledger-currterm": _v(ERROR, "MemberState.loadTerm: starts at term 0 with no vote"),
    "dledger-index-gap": _v(ERROR, _DLEDGER),
    "dledger-index-unit": _v(ERROR, _DLEDGER),
    "dledger-members": _v(WARNING, _OURS + " (several dledger-<id>/ members: one is read)"),
    # consume queues and batch consume queues
    "wrong-cq-file-size": _v(ERROR, _LOAD + " (ConsumeQueueStore.load; an empty last file: 5.1.3+ deletes it)"),
    "misaligned-cq-file": _v(ERROR, _FIND),
    "missing-cq-file": _v(ERROR, "ConsumeQueue.getIndexBuffer: the units of a missing file are gone"),
    "partial-cq-unit": _v(ERROR, "ConsumeQueue.recover: a file ends inside a unit"),
    "cq-bad-unit": _v(ERROR, _CQ_READ),
    "cq-bad-units-more": _v(ERROR, _CQ_READ),
    "cq-dangling": _v(ERROR, _CQ_READ + " (a unit into no record: the consumer gets nothing)"),
    "cq-mismatch": _v(ERROR, _CQ_READ),
    "cq-order": _v(ERROR, _CQ_READ),
    "cq-expired": _v(INFO, "ConsumeQueue.correctMinOffset: units below the log's first offset are skipped"),
    "cq-ahead-of-log": _v(WARNING, "ConsumeQueue.truncateDirtyLogicFiles: the next start cuts them"),
    "cq-empty-last-file": _v(ERROR, "ConsumeQueue.correctMinOffset (5.3.1, apache/rocketmq#10108): the load fails"),
    "bad-inner-batch": _v(ERROR, "CommitLog.checkMessageAndReturnSize (5.x inner batch)"),
    "bcq-bad-unit": _v(ERROR, "BatchConsumeQueue.getBatchMsgIndexBuffer"),
    "bcq-gap": _v(ERROR, "BatchConsumeQueue.putBatchMessagePositionInfo: msgBaseOffset follows batchSize"),
    "bcq-mismatch": _v(ERROR, "BatchConsumeQueue: the unit's record"),
    "bcq-unit-fields": _v(WARNING, "BatchConsumeQueue: compactedOffset and reserved as the broker writes them"),
    "bcq-expired": _v(INFO, "BatchConsumeQueue.correctMinOffset"),
    "queue-type-mismatch": _v(ERROR, "ConsumeQueueStore.load: a topic's queues are loaded from its type's folder"),
    "not-a-queue-file": _v(ERROR, _LOAD),
    "rocksdb-read": _v(ERROR, "RocksDBConsumeQueueStore (5.x): the database does not open"),
    "lmq-offsets-mismatch": _v(ERROR, "ConsumeQueue.multiDispatchLmqQueue: no unit for any queue"),
    "lmq-bad-offset": _v(ERROR, "ConsumeQueue.multiDispatchLmqQueue: Long.parseLong throws"),
    "lmq-skipped-name": _v(WARNING, "ConsumeQueue.multiDispatchLmqQueue: a '/' queue name is skipped"),
    "lmq-not-lmq": _v(WARNING, "MultiDispatch: a name without %LMQ% gets no offset"),
    "lmq-undispatchable": _v(WARNING, "ConsumeQueue.multiDispatchLmqQueue (rebuild)"),
    "undispatchable": _v(ERROR, "CommitLogDispatcherBuildConsumeQueue (rebuild: the record gets no unit)"),
    # index files
    "bad-index-file": _v(ERROR, "IndexService.load: the file does not load"),
    "index-geometry": _v(ERROR, "IndexFile: maxHashSlotNum / maxIndexNum from the file size"),
    "index-size": _v(ERROR, "IndexService.load: the file's length"),
    "index-header": _v(ERROR, "IndexHeader.load"),
    "index-truncated": _v(ERROR, _INDEX),
    "index-bad-link": _v(ERROR, _INDEX),
    "index-bad-slot": _v(ERROR, _INDEX),
    "index-loop": _v(ERROR, _INDEX),
    "index-wrong-slot": _v(ERROR, _INDEX),
    "index-key-mismatch": _v(ERROR, _INDEX),
    "index-dangling": _v(ERROR, _INDEX + " (an item into no record)"),
    "index-unvouched": _v(ERROR, _INDEX),
    "index-order": _v(ERROR, _INDEX),
    "index-orphan-items": _v(ERROR, _INDEX),
    "index-expired": _v(INFO, "IndexService.deleteExpiredFile: items below the log's first offset"),
    "index-gap": _v(WARNING, "rmq-inspect's rule: a range of the log no index file covers (IndexService.load destroys "
                             "files past the checkpoint on an abnormal start, apache/rocketmq#8007); lookups scan it"),
    "index-covers-nothing": _v(WARNING, "IndexService.getAndCreateLastIndexFile: a new file only when the newest is "
                                        "full, so a file without items before another is none the broker left; "
                                        "IndexService.queryOffset passes it by"),
    # checkpoint and config
    "bad-checkpoint": _v(ERROR, "StoreCheckpoint: the file's 24 bytes"),
    "checkpoint-ahead": _v(ERROR, "CommitLog.recoverAbnormally: the checkpoint is past the log"),
    "checkpoint-time": _v(ERROR, "CommitLog.isMappedFileMatchedRecover: the checkpoint's times"),
    "bad-config": _v(ERROR, _CONFIG),
    "config-not-object": _v(ERROR, _CONFIG),
    "config-from-backup": _v(WARNING, _CONFIG),
    "config-tmp": _v(WARNING, "MixAll.string2File: a .tmp left by an interrupted write"),
    "consumer-offset-expired": _v(INFO, "ConsumerOffsetManager / correctMinOffset: the broker corrects it"),
    "consumer-offset-range": _v(WARNING, "ConsumerOffsetManager: an offset past the queue's end"),
    "offsets-disagree": _v(WARNING, "ConsumerOffsetManager: the sources the broker does not read"),
    "offsets-source-missing": _v(WARNING, "ConsumerOffsetManager: the source its settings name"),
    # groups: the subscription groups' database unreadable, the JSON file read instead (the view says so)
    "subscriptions-unreadable": _v(WARNING, _OURS + " (groups: SubscriptionGroupManager's source unreadable)"),
    # story: a copy's lookup that could not be made (the answer says so, not "never ended")
    "unreadable-op-queue": _v(WARNING, _OURS + " (story: the op queue's search by time read damaged bytes)"),
    "delay-level-conflict": _v(WARNING, "ScheduleMessageService.parseDelayLevel (inferred table)"),
    "delay-level-unlikely": _v(WARNING, "ScheduleMessageService.parseDelayLevel (inferred table)"),
    "delay-level-unspellable": _v(WARNING, "ScheduleMessageService.parseDelayLevel (inferred table)"),
    # census: what the root holds
    "bad-file-name": _v(ERROR, "MappedFileQueue.load: Long.parseLong of the name throws"),
    "unknown-file": _v(WARNING, _OURS + " (spec part 2 §20: no broker writes it)"),
    "unknown-files-more": _v(WARNING, _OURS),
    "census-cut": _v(WARNING, _OURS + " (a stray folder too big to count: the census stopped and says where)"),
    "wrong-type": _v(WARNING, _OURS + " (a file where a folder is kept, or the reverse, outside commitlog/)"),
    "misplaced": _v(WARNING, _OURS),
    "commitlog-unused": _v(WARNING, "storePathCommitLog: a commitlog/ the broker neither reads nor deletes"),
    "unreadable": _v(WARNING, _OURS + " (an entry the census cannot list)"),
    # timer store (5.x)
    "not-a-timer-file": _v(ERROR, _TIMER),
    "timer-bad-unit": _v(ERROR, _TIMER),
    "timer-gap": _v(ERROR, _TIMER),
    "timer-torn-unit": _v(ERROR, _TIMER),
    "timer-torn-units-more": _v(ERROR, _TIMER),
    "timer-chain-broken": _v(ERROR, _TIMER),
    "timer-chain-long": _v(ERROR, _TIMER),
    "timer-chain-loop": _v(ERROR, _TIMER),
    "timer-slot-num": _v(ERROR, _TIMER),
    "timer-out-mismatch": _v(ERROR, _TIMER),
    "timer-past-commitlog": _v(ERROR, _TIMER),
    "timer-record-mismatch": _v(ERROR, _TIMER),
    "timercheck-short": _v(ERROR, _TIMER),
    "timerlog-truncated": _v(ERROR, _TIMER),
    "timerwheel-size": _v(ERROR, _TIMER),
    "timer-blank": _v(WARNING, _TIMER),
    "timer-chain-expired": _v(WARNING, _TIMER),
    "timer-delete-unmatched": _v(WARNING, _TIMER),
    "timer-first-pos": _v(WARNING, _TIMER),
    "timer-record-expired": _v(WARNING, _TIMER),
    "timer-slot-misplaced": _v(WARNING, _TIMER),
    "timer-slot-misplaced-more": _v(WARNING, _TIMER),
    "timer-topic-hash": _v(WARNING, _TIMER),
    "timer-unit-being-written": _v(WARNING, _TIMER),
    "timercheck-flush-pos": _v(WARNING, _TIMER),
    "timercheck-size": _v(WARNING, _TIMER),
    "timerlog-name": _v(WARNING, _TIMER),
    "timerlog-size": _v(WARNING, _TIMER),
}

# code -> the circumstance its severity depends on (one producer; to be split into two codes)
BY_CONTEXT: dict[str, str] = {
    # a record's fault: an error inside the log, a warning at the active segment's torn tail (being written)
    **{code: "error inside the log; a warning at the last segment's torn tail (tail.in_progress)" for code in (
        "bad-magic", "bad-size", "bad-body-length", "bad-properties-length", "bad-topic-length", "length-mismatch",
        "torn-record")},
    "cq-past-end": "error; a warning while the abort file says a broker is running (its queues run ahead)",
    "cq-behind": "error when the checkpoint says the broker flushed its queues past the records, else a warning",
    "cq-missing": "error; a warning when topics.json no longer lists the topic (a deleted topic's records)",
    "bad-config-entry": "error for a whole table of the wrong type; a warning for one entry ignored",
    "bad-config-backup": "error when the main file is bad too (nothing loads); a warning beside a good main file",
    "unreadable-offsets": "error for the source the broker reads; a warning for another source",
    "dledger-checkpoint": "error for an unreadable or inconsistent checkpoint; a warning when entries are missing",
    "timercheck-queue-offset": "error for lastTimerQueueOffset; a warning for masterTimerQueueOffset",
}


def verdict(code: str) -> Verdict | None:
    """The one verdict of a finding code, or None (a code of ``BY_CONTEXT``, or none of ours)."""
    return VERDICTS.get(code)
