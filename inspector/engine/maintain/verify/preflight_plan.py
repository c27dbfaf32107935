"""What the next broker start will do to this store, and what it will cut (``rmq-inspect preflight``), read-only.

Each step follows the broker's load, in order (rocketmq-all-4.9.8 and rocketmq-all-5.3.1, ``DefaultMessageStore.load``):

1. ``lastExitOK = !isTempFileExist()``: the ``abort`` file alone decides normal or abnormal recovery.
2. ``CommitLog.load`` -> ``MappedFileQueue.load`` / ``doLoad``: every entry of ``commitlog/`` must be one segment
   long, else load returns false and the broker does not start (5.3.1 skips a folder and deletes an empty *last*
   file; 4.9.8 refuses both; apache/rocketmq#3257). ``ConsumeQueueStore.load`` does the same for queue files.
   These are the census's load errors (``read/store/census.py``, ``read/store/load_checks.py``): reused, not redone.
3. ``StoreCheckpoint`` is read, then ``IndexService.load(lastExitOK)``: on an abnormal start each index file whose
   ``endTimestamp`` is past the checkpoint's ``indexMsgTimestamp`` is destroyed (``f.destroy(0)``).
4. ``DefaultMessageStore.recover``: ``recoverConsumeQueue`` (``ConsumeQueue.recover``: from the third-last file,
   the queue ends at the first unit with ``offset < 0 || size <= 0``; ``MappedFileQueue.truncateDirtyFiles``
   deletes the files after it), then ``CommitLog.recoverNormally`` / ``recoverAbnormally`` (``read/store/recovery.py``'s
   :func:`recover`: where the log ends), which truncate the log there (``truncateDirtyFiles``: later segments
   deleted) and, when the consume queues reach past it (``maxPhyOffsetOfConsumeQueue >= processOffset``), call
   ``truncateDirtyLogicFiles(processOffset)``: each queue loses its units at or past the end, a last file whose
   first unit is past it is deleted (``ConsumeQueue.truncateDirtyLogicFiles``). 5.x batch consume queues
   (``batchconsumequeue/``) go the same way by ``BatchConsumeQueue.recover`` / ``truncateDirtyLogicFiles``: a unit
   is valid with ``msgBaseOffset >= 0 && batchSize > 0`` too, their queue offsets count messages, and their
   ``maxMsgPhyOffsetInCommitLog`` is the last unit's offset (not offset + size). An abnormal recovery dispatches
   every record it reads (``doDispatch = true``): queue units and index items of records from its start segment on
   are written again (``IndexService.buildIndex`` skips records below the last kept index file's ``endPhyOffset``).
5. ``recoverTopicQueueTable`` -> ``ConsumeQueue.correctMinOffset``: 5.3.1 reads the unit before the last file's
   read position (``selectMappedBuffer(readPosition - 20, 20)``); a last file holding no unit, in a queue not
   starting at 0, makes that ``position(-20)``: ``IllegalArgumentException``, "load exception", the broker does not
   start (apache/rocketmq#10108, #9728). 4.9.8's ``correctMinOffset`` scans the first file and cannot throw so.

DLedger stores recover another way (``DLedgerMmapFileStore.recover``): verify's DLedger recovery preview says it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from inspector.engine.model.errors import StoreError
from inspector.engine.model.meaning import keys_of, unique_key_of
from inspector.engine.model.records import Message, Problem
from inspector.engine.read.commitlog.mapped import data_end
from inspector.engine.read.config.checkpoint import future_note
from inspector.engine.read.index.keys import indexed_key_text
from inspector.engine.read.index.slots import items_array
from inspector.engine.read.queues.batchconsumequeue import BatchConsumeQueue
from inspector.engine.read.queues.consumequeue import ConsumeQueue
from inspector.engine.read.store.answers import recover
from inspector.engine.read.store.census import census
from inspector.engine.read.store.recovery import Recovery
from inspector.engine.scan.batch import MessageBatch
from parsers.consumequeue import BCQ_UNIT_SIZE, CQ_UNIT_SIZE

__all__ = ["Preflight", "QueueCut", "IndexCut", "Discarded", "preflight_plan", "SAMPLE"]

SAMPLE = 20  # keys and records listed by name; the rest counted (said in the answer)


@dataclass
class Discarded:
    """The readable records at or past the recovered end, which ``truncateDirtyFiles`` cuts."""

    count: int = 0
    first_offset: int | None = None
    last_offset: int | None = None
    bytes: int = 0  # from the recovered end to the last byte of data
    topics: Counter = field(default_factory=Counter)
    keys: list[str] = field(default_factory=list)  # the first SAMPLE
    keys_total: int = 0
    unreadable: int = 0  # damaged spans stepped over past the end (counted, not records)

    def as_dict(self) -> dict:
        return {"count": self.count, "first_offset": self.first_offset, "last_offset": self.last_offset,
                "bytes": self.bytes, "topics": dict(sorted(self.topics.items())), "keys": self.keys,
                "keys_total": self.keys_total, "keys_listed": len(self.keys), "damaged_spans": self.unreadable}


@dataclass(frozen=True)
class QueueCut:
    file: str
    action: str  # "deleted" (the whole file) or "truncated" (its units from ``first_unit`` on)
    units: int  # real units lost
    first_queue_offset: int
    reason: str

    def as_dict(self) -> dict:
        return {"file": self.file, "action": self.action, "units": self.units,
                "first_queue_offset": self.first_queue_offset, "reason": self.reason}


@dataclass(frozen=True)
class IndexCut:
    file: str
    end_timestamp: int
    items: int
    lost_keys: int  # items whose key cannot be found again (the record is not dispatched again)
    sample: tuple[str, ...]
    counted: bool = True  # False: the file's geometry is unknown, its items unread (a loss assumed, and said)

    def as_dict(self) -> dict:
        return {"file": self.file, "end_timestamp": self.end_timestamp, "items": self.items,
                "lost_keys": self.lost_keys, "keys": list(self.sample), "keys_listed": len(self.sample),
                "counted": self.counted}


@dataclass
class Preflight:
    mode: str  # normal / abnormal
    why: str
    recovery: Recovery | None
    discarded: Discarded
    queue_cuts: list[QueueCut]
    index_cuts: list[IndexCut]
    refusals: list[Problem]  # what stops the start
    notes: list[str]
    dledger: str | None = None  # DLedger's recovery preview (a DLedger store)
    deleted_segments: list[str] = field(default_factory=list)  # MappedFileQueue.truncateDirtyFiles: past the end
    unchecked: str | None = None  # a part of the start not modelled (a partial answer): the verdict says it

    @property
    def loses_data(self) -> bool:
        return bool(self.discarded.count or self.discarded.unreadable or any(c.units for c in self.queue_cuts)
                    or any(c.lost_keys or not c.counted for c in self.index_cuts)
                    or (self.dledger is not None and "truncate the data" in self.dledger))

    @property
    def verdict(self) -> str:
        if self.refusals:
            return f"the broker would not start: {len(self.refusals)} problem(s) stop it"
        partial = f" ({self.unchecked} not checked)" if self.unchecked else ""
        if self.loses_data:
            return f"{self.mode} start, which loses data{partial}"
        return f"{self.mode} start, nothing lost{partial}"

    @property
    def banner(self) -> str:
        """The verdict in one line for an overview (TUI, web): what stops the start, else what it cuts."""
        if self.refusals:
            first = self.refusals[0]
            more = f" and {len(self.refusals) - 1} more" if len(self.refusals) > 1 else ""
            return f"next start: refused ({first.file}: {first.code}{more})"
        lost = []
        if self.discarded.count or self.discarded.unreadable:
            lost.append(f"{self.discarded.count:,} record(s) past {self.recovery.end_offset:,}"
                        if self.recovery is not None else f"{self.discarded.count:,} record(s)")
        units = sum(c.units for c in self.queue_cuts)
        if units:
            lost.append(f"{units:,} queue unit(s)")
        keys = sum(c.lost_keys for c in self.index_cuts)
        if keys or not all(c.counted for c in self.index_cuts):
            lost.append(f"{len(self.index_cuts)} index file(s) ({keys:,} key(s) become unfindable)")
        if self.dledger is not None and "truncate the data" in self.dledger:
            lost.append("DLedger truncates the data")
        partial = f" ({self.unchecked} not checked)" if self.unchecked else ""
        return f"next start: {self.mode}, " + ("loses " + "; ".join(lost) if lost else "nothing lost") + partial

    @property
    def exit_code(self) -> int:
        return 4 if self.refusals or self.loses_data else 0

    def as_dict(self) -> dict:
        return {
            "verdict": self.verdict, "mode": self.mode, "why": self.why, "starts": not self.refusals,
            "loses_data": self.loses_data,
            "recovery": None if self.recovery is None else self.recovery.as_dict(),
            "dledger_recovery": self.dledger,
            "discarded": self.discarded.as_dict(),
            "deleted_segments": self.deleted_segments,
            "queue_cuts": [c.as_dict() for c in self.queue_cuts],
            "index_cuts": [c.as_dict() for c in self.index_cuts],
            "refusals": [{"file": p.file, "offset": p.offset, "code": p.code, "reason": p.reason}
                         for p in self.refusals],
            "notes": self.notes,
        }


def preflight_plan(store, *, sample: int = SAMPLE, dledger: str | None = None) -> Preflight:
    """What the next start does to ``store`` (never changed). ``dledger``: a DLedger store's recovery preview
    (verify's), given by the caller (the maintain room computes it); then the commitlog steps are not modelled."""
    notes: list[str] = []
    abnormal = store.abort_exists
    mode = "abnormal" if abnormal else "normal"
    why = ("the abort file is present: the broker did not shut down cleanly (DefaultMessageStore.load: "
           "lastExitOK = !isTempFileExist())" if abnormal else
           "no abort file: the last shutdown was clean (DefaultMessageStore.load: lastExitOK = !isTempFileExist())")
    refusals = [p for p in census(store.root, store.broker_config).errors]
    if refusals:
        # DefaultMessageStore.load: commitLog.load / consumeQueueStore.load returned false, so no checkpoint, no
        # index load and no recovery follow: the start stops there and changes nothing
        notes.append("the load stops before recovery (DefaultMessageStore.load: result false): nothing is truncated "
                     "or destroyed; fix what stops it and run preflight again")
        return Preflight(mode, why, None, Discarded(), [], [], refusals, notes, dledger)
    if dledger is not None:
        notes.append("a DLedger store: DLedgerMmapFileStore.recover decides where the log ends (the preview above); "
                     "queue and index steps are not modelled for it")
        return Preflight(mode, why, None, Discarded(), [], [], refusals, notes, dledger)
    try:
        cp = store.checkpoint()
    except StoreError as e:
        cp = None
        notes.append(f"checkpoint unreadable ({e}): StoreCheckpoint reads zeros; an abnormal start then recovers "
                     "from the first segment (CommitLog.isMappedFileMatchedRecover)")
    future = future_note(cp)
    if future is not None:
        notes.append(future)
    rec = recover(store, mode)
    end = rec.end_offset
    notes += _unrepaired(store, rec)
    if rec.start_segment is not None and abnormal:
        notes.append(f"abnormal recovery starts in {rec.start_segment} (the newest segment whose first record is "
                     "older than the checkpoint: CommitLog.isMappedFileMatchedRecover) and dispatches every record "
                     "from there again (queue units and index items are rewritten)")
    discarded = _discarded(store, end, sample)
    if rec.start_segment is None:
        # CommitLog.recoverNormally / recoverAbnormally with no mapped file: "The commitlog files are deleted, and
        # delete the consume queue files" (getQueueStore().destroy()): every queue file goes
        queue_cuts = [QueueCut(f, "deleted", n, first, "no commitlog segment: the recovery destroys every consume "
                               "queue (CommitLog.recoverNormally/recoverAbnormally -> getQueueStore().destroy())")
                      for f, n, first in _all_queue_files(store)]
        return Preflight(mode, why, rec, discarded, queue_cuts, [], refusals, notes)
    queue_cuts, empty_last = _queue_cuts(store, end)
    index_cuts = _index_cuts(store, cp, rec, end, sample, notes) if abnormal else []
    for rel in empty_last:
        if abnormal:
            notes.append(f"{rel}: the queue's last file holds no unit; 5.3.1's correctMinOffset would throw unless "
                         "the abnormal recovery's dispatch writes a unit into it first (apache/rocketmq#10108)")
        else:
            refusals.append(Problem(rel, 0, "the queue's last file holds no unit after recovery: 5.3.1's "
                                    "ConsumeQueue.correctMinOffset reads at position -20 (selectMappedBuffer), an "
                                    "IllegalArgumentException, and the broker does not start (apache/rocketmq#10108; "
                                    "4.9.8 starts); move the empty file away", "cq-empty-last-file"))
    unchecked = None
    if getattr(store, "rocksdb_cq", None) is not None:
        # 5.x storeType=defaultRocksDB: RocksDBMessageStore's RocksDBConsumeQueueStore recovers and truncates the
        # queue inside its database (no files to cut); that step is not modelled here, so what the start does to the
        # queue is not known: said in the verdict (a partial answer), the note says what is missing
        unchecked = "the RocksDB consume queue"
        notes.append("the RocksDB consume queue (consumequeue/ is a RocksDB database: storeType=defaultRocksDB, "
                     "RocksDBMessageStore / RocksDBConsumeQueueStore) is not checked: the units the start removes "
                     "from it past the log's end are not listed, and `nothing lost` speaks of the commitlog and "
                     "index files only")
    # MappedFileQueue.truncateDirtyFiles(processOffset): a segment starting past the end is destroyed (one
    # starting at it is kept, empty)
    deleted = [seg.file for seg in store.commitlog.segments if seg.start_offset > end]
    return Preflight(mode, why, rec, discarded, queue_cuts, index_cuts, refusals, notes, None, deleted, unchecked)


def _discarded(store, end: int, sample: int) -> Discarded:
    """Every readable record at or past ``end`` (truncateDirtyFiles cuts them), walked as ``entries`` reads;
    runs of clean records as columnar batches (counts, offsets and topics by column; only the properties are
    read record by record, for the keys)."""
    out = Discarded()
    out.bytes = max(0, _data_end(store) - end)
    if not out.bytes:
        return out
    for item in store.commitlog.batches(end, check_crc=False):
        if isinstance(item, MessageBatch):
            if not len(item):
                continue
            phy = item.physical_offsets
            out.count += len(item)
            out.first_offset = int(phy[0]) if out.first_offset is None else out.first_offset
            out.last_offset = int(phy[-1])
            codes = np.bincount(item.column("topic"), minlength=len(item.topics))
            for code in np.flatnonzero(codes).tolist():
                out.topics[item.topics[code]] += int(codes[code])
            for i in range(len(item)):
                _count_keys(out, item.topic(i), item.properties(i), sample)
        elif isinstance(item, Message):
            out.count += 1
            out.first_offset = item.physical_offset if out.first_offset is None else out.first_offset
            out.last_offset = item.physical_offset
            out.topics[item.topic] += 1
            _count_keys(out, item.topic, item.properties, sample)
        elif isinstance(item, Problem):
            out.unreadable += 1
    return out


def _count_keys(out: Discarded, topic: str, properties: dict[str, str], sample: int) -> None:
    """The record's UNIQ_KEY and KEYS (what the index held for it): counted, the first ``sample`` listed."""
    unique = unique_key_of(properties)
    for key in ([unique] if unique else []) + keys_of(properties):
        out.keys_total += 1
        if len(out.keys) < sample:
            out.keys.append(f"{topic}#{key}")


def _data_end(store) -> int:
    """One past the last non-zero byte of the log (a torn record's first half counts: it is cut too)."""
    log = store.commitlog
    for seg in reversed(log.segments):
        end = data_end(log.map(seg), 0, seg.file_size)
        if end:
            return seg.start_offset + end
    return 0


@dataclass(frozen=True)
class _Kind:
    """What the broker's recovery reads of one kind of file queue (rocketmq-all-5.3.1)."""

    name: str  # the Java class, named in the reasons
    unit_size: int
    batch: bool  # BatchConsumeQueue: a unit is valid with msgBaseOffset >= 0 and batchSize > 0 too

    def valid(self, units: np.ndarray) -> np.ndarray:
        """``recover``'s unit test: ConsumeQueue ``offset >= 0 && size > 0``; BatchConsumeQueue also
        ``msgBaseOffset >= 0 && batchSize > 0``."""
        ok = (units["physical_offset"] >= 0) & (units["size"] > 0)
        if self.batch:
            ok &= (units["msg_base_offset"] >= 0) & (units["batch_size"] > 0)
        return ok

    @property
    def invalid(self) -> str:
        return ("offset < 0, size <= 0, msgBaseOffset < 0 or batchSize <= 0" if self.batch else
                "offset < 0 or size <= 0")

    def valid_prefix(self, units: np.ndarray) -> int:
        bad = ~self.valid(units)
        return int(np.argmax(bad)) if bad.any() else len(units)

    def real(self, units: np.ndarray) -> int:
        return int(self.valid(units).sum())

    def queue_offset(self, start: int, units: np.ndarray, k: int) -> int:
        """The queue offset of unit ``k`` of the file named ``start``: ConsumeQueue counts units; a batch queue
        counts messages, the msgBaseOffset of the first valid unit from ``k`` on (none: the unit's number)."""
        if not self.batch:
            return start // self.unit_size + k
        later = np.flatnonzero(self.valid(units[k:]))
        return int(units["msg_base_offset"][k + int(later[0])]) if len(later) else start // self.unit_size + k

    def max_phy(self, last: np.ndarray) -> int:
        """The queue's getMaxPhysicOffset after recover: ConsumeQueue.maxPhysicOffset is the last unit's
        offset + size; BatchConsumeQueue.maxMsgPhyOffsetInCommitLog its offset alone."""
        phy = int(last["physical_offset"][-1])
        return phy if self.batch else phy + int(last["size"][-1])


_CQ = _Kind("ConsumeQueue", CQ_UNIT_SIZE, False)
_BCQ = _Kind("BatchConsumeQueue", BCQ_UNIT_SIZE, True)


def _file_queues(store) -> list[tuple[_Kind, ConsumeQueue | BatchConsumeQueue]]:
    """Every file consume queue and batch consume queue of the store (ConsumeQueueStore.consumeQueueTable: the
    recovery treats both the same way, each by its own class)."""
    out: list[tuple[_Kind, ConsumeQueue | BatchConsumeQueue]] = []
    for topic, qid in store.queue_ids():
        q = store.queue(topic, qid)
        if isinstance(q, ConsumeQueue):
            out.append((_CQ, q))
    out += [(_BCQ, store.batch_queue(topic, qid)) for topic, qid in store.batch_queue_ids()]
    return out


def _all_queue_files(store) -> list[tuple[str, int, int]]:
    """(file, real units, first queue offset) of every file consume queue and batch consume queue."""
    out = []
    for kind, q in _file_queues(store):
        for start, _ in q.files:
            units = q.file_units(start)
            out.append((f"{q.rel_dir}/{start:020d}", kind.real(units), kind.queue_offset(start, units, 0)))
        q.release_pages()  # thousands of queues: their mapped pages need not stay resident
    return out


def _queue_cuts(store, end: int) -> tuple[list[QueueCut], list[str]]:
    """Steps 4 and 5 for each file consume queue and batch consume queue: (the cuts, the consume queues whose
    last file ends up with no unit)."""
    if getattr(store, "rocksdb_cq", None) is not None:
        return [], []
    cuts: list[QueueCut] = []
    kept_by_queue = []
    max_phy = -1
    for kind, q in _file_queues(store):
        if not q.files:
            continue
        files = [(start, f"{q.rel_dir}/{start:020d}") for start, _ in q.files]
        # ConsumeQueue.recover / BatchConsumeQueue.recover: from the third-last file; full files lead on, the
        # queue ends at the first unit that is not valid
        kept: list[tuple[int, str, np.ndarray]] = [(s, rel, None) for s, rel in files[:max(0, len(files) - 3)]]
        i = max(0, len(files) - 3)
        while i < len(files):
            start, rel = files[i]
            units = q.file_units(start)
            n = kind.valid_prefix(units)
            kept.append((start, rel, units[:n]))
            if n * kind.unit_size < q.file_size:
                lost_here = kind.real(units[n:])
                if lost_here:
                    cuts.append(QueueCut(rel, "truncated", lost_here, kind.queue_offset(start, units, n),
                                         f"{kind.name}.recover ends the queue at its first unit with {kind.invalid}; "
                                         "MappedFileQueue.truncateDirtyFiles drops what follows"))
                for s2, rel2 in files[i + 1:]:
                    units2 = q.file_units(s2)
                    cuts.append(QueueCut(rel2, "deleted", kind.real(units2), kind.queue_offset(s2, units2, 0),
                                         f"after the queue's end ({kind.name}.recover -> truncateDirtyFiles)"))
                break
            i += 1
        last = kept[-1][2] if kept and kept[-1][2] is not None else None
        if last is not None and len(last):
            max_phy = max(max_phy, kind.max_phy(last))
        q.release_pages()  # the units are copies: thousands of queues' mapped pages need not stay resident
        kept_by_queue.append((kind, q, kept))
    # CommitLog.recoverNormally/Abnormally: maxPhyOffsetOfConsumeQueue (ConsumeQueueStore, over both kinds) >=
    # processOffset
    truncating = max_phy >= end
    empty_last = []
    for kind, q, kept in kept_by_queue:
        while kept and truncating:
            start, rel, units = kept[-1]
            if units is None:
                units = q.file_units(start)
                q.release_pages()
                units = units[:kind.valid_prefix(units)]
            # truncateDirtyLogicFiles: a last file whose first unit is at or past the end goes whole
            if len(units) and int(units["physical_offset"][0]) >= end:
                cuts.append(QueueCut(rel, "deleted", len(units), kind.queue_offset(start, units, 0),
                                     f"its first unit points at or past the recovered end {end} "
                                     f"({kind.name}.truncateDirtyLogicFiles)"))
                kept.pop()
                continue
            past = np.flatnonzero(units["physical_offset"] >= end)
            if len(past):
                k = int(past[0])
                cuts.append(QueueCut(rel, "truncated", len(units) - k, kind.queue_offset(start, units, k),
                                     f"units from here point at or past the recovered end {end} "
                                     f"({kind.name}.truncateDirtyLogicFiles)"))
            if not len(units):
                # truncateDirtyLogicFiles keeps the first unit's position of an empty file
                units = np.zeros(1, units.dtype)
            kept[-1] = (start, rel, units)
            break
        # 5.3.1's BatchConsumeQueue.correctMinOffset reads the first file from 0: an empty last file is no throw
        if not kind.batch and kept and kept[-1][2] is not None and not len(kept[-1][2]) and kept[-1][0] > 0:
            empty_last.append(kept[-1][1])
    return cuts, empty_last


_LAYOUT = ("misaligned-segment", "missing-segment", "overlap")  # what a start neither refuses nor repairs
_SHOWN = 5


def _unrepaired(store, rec: Recovery) -> list[str]:
    """Notes naming what the start goes ahead with and leaves as it is: a log laid out off its grid (a segment named
    off it, a hole, an overlap: ``MappedFileQueue.load`` checks lengths only) and checkpoint times after the newest
    record (a normal start does not read them; an abnormal one recovers from the newest segment whose first record
    is older). File and offset each, the first five, and how many more; verify lists them all."""
    # imported here: verify.py imports this module's neighbours at load
    from inspector.engine.maintain.verify.verify import check_checkpoint

    found = [p for p in store.commitlog.problems if p.severity == "error" and p.code in _LAYOUT]
    last = rec.last_record_offset
    try:
        last_ts = store.store_timestamp_at(last) if last is not None else 0
    except StoreError:
        last_ts = 0
    found += check_checkpoint(store, last_ts)
    notes = [f"{p.file} @ {p.offset}: {p.code}: {p.reason}; the start goes ahead and leaves it (`rmq-inspect "
             "verify` lists what it breaks)" for p in found[:_SHOWN]]
    if len(found) > _SHOWN:
        notes.append(f"{len(found) - _SHOWN} more such finding(s): `rmq-inspect verify` lists them")
    return notes


def _index_cuts(store, cp, rec: Recovery, end: int, sample: int, notes: list[str]) -> list[IndexCut]:
    """Step 3 on an abnormal start: IndexService.load destroys each index file whose endTimestamp is past the
    checkpoint's indexMsgTimestamp. Its keys come back only for records the recovery dispatches again: from its
    start segment on, past the last kept index file's endPhyOffset (IndexService.buildIndex), before the end."""
    bound = cp.index_msg_timestamp if cp is not None else 0
    readers = store.index_files()
    doomed = [r for r in readers if r.header.end_timestamp > bound]
    kept = [r for r in readers if r.header.end_timestamp <= bound]
    seg = next((s for s in store.commitlog.segments if s.file == rec.start_segment), None)
    floor = max(seg.start_offset if seg is not None else 0, kept[-1].header.end_phy_offset if kept else 0)
    cuts = []
    for r in doomed:
        if not r.item_count:  # the geometry could not be told: no item is read, so no key is counted
            notes.append(f"{r.rel}: its slot and item counts are unknown (give --index-slots/--index-items): "
                         "the keys it loses are not counted")
        items = items_array(r)  # over the mapping: millions of items, no object each
        phy = items["phy_offset"].astype(np.int64)
        lost = np.flatnonzero((phy < floor) | (phy >= end))
        keys = tuple(indexed_key_text(store.commitlog, r.item(int(i) + 1)) for i in lost[:sample])
        cuts.append(IndexCut(r.rel, r.header.end_timestamp, len(items), len(lost), keys, bool(r.item_count)))
    return cuts
