"""The tour's steps about the store as a whole and its commitlog: the directory, one record field by field, the
BLANK at the end of a segment, the two kinds of message id, recovery's end of the log (a torn tail), rebuild and
retention (the log's first offset).
"""

from __future__ import annotations

import datetime as dt

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Blank, Message
from inspector.engine.present.layout import blank_fields, entry_fields, message_fields
from inspector.engine.read.store.census import census
from inspector.engine.workshop.tour import HEX_CONTEXT, SEARCH_QUEUES, SEARCH_SEGMENTS, Context, Missing
from inspector.engine.workshop.tour_targets import (
    DirectoryTarget,
    DirEntry,
    HexTarget,
    IdsTarget,
    RebuildTarget,
    RecoveryTarget,
    Span,
    record_hex,
)
from parsers import commitlog as cl
from parsers.consumequeue import CQ_UNIT_SIZE
from parsers.dledger import ENTRY_HEADER_SIZE
from parsers.msgid import decode_offset_msg_id, decode_uniq_key


def _n(value: int) -> str:
    return f"{value:,}"


ROLES = (
    ("commitlog/", "the message log: every message of every topic, appended in the order the broker received "
                   "it, cut into equal files named by the offset of their first byte"),
    ("consumequeue/", "one small index per topic and queue: 20-byte units that say where each message of the "
                      "queue sits in the commitlog"),
    ("index/", "hash indexes from topic#key to commitlog offsets, for looking messages up by key or id"),
    ("checkpoint", "4 KiB of timestamps saying how far the log, the queues and the indexes were flushed"),
    ("config/", "JSON files: topics, subscription groups, consumer offsets, delay progress"),
    ("abort", "present only while a broker runs (or after it crashed): its presence asks for careful recovery"),
    ("lock", "locked by a running broker so that two brokers never share one store"),
    ("consumequeue_ext/", "optional extension of the consume queues (filter bitmaps)"),
    ("batchconsumequeue/", "consume queues of batch topics (46-byte units)"),
    ("timerlog/", "the timer store's log (RocketMQ 5 timer messages)"),
    ("timerwheel", "the timer store's wheel of time slots"),
)


def _directory(ctx: Context):
    root = ctx.store.root
    entries = []
    for path, role in ROLES:
        p = root / path.rstrip("/")
        if not p.exists():
            continue
        count = None
        if path == "commitlog/":
            count = len(ctx.store.segments)
        elif path == "consumequeue/":  # files, not queues (a queue may have several: 20 files for 19 queues)
            count = _queue_file_count(ctx)
        elif path == "index/":
            count = len(ctx.store.index_files())
        elif path.endswith("/") and p.is_dir():
            count = sum(1 for _ in p.iterdir())
        entries.append(DirEntry(path, role, count))
    if not any(e.path == "commitlog/" for e in entries):
        raise Missing("This directory has no commitlog/ folder, so it is not a RocketMQ store.")
    seg = ctx.store.segments
    size = ctx.store.commitlog.segment_size
    topics = sorted({t for t, _ in ctx.store.queue_ids()})
    text = (
        f"A broker keeps everything under one directory. The commitlog is the heart of it: {len(seg)} file(s) of "
        f"{_n(size)} bytes, and each file is named by the position of its first byte in one endless log, so "
        f"'{seg[0].name if seg else '-'}' starts at offset {seg[0].start_offset if seg else 0}. "
        f"Messages of all topics are mixed in that log. "
        f"The consume queues ({len(ctx.store.queue_ids())} queues of {len(topics)} topics here) and the index "
        f"files are derived from the log: a broker can rebuild them from it. "
        f"The checkpoint and config/ hold progress and metadata; "
        + ("there is no abort file, so the last broker shut down cleanly." if ctx.store.clean_shutdown
           else "an abort file is present: the last broker did not shut down cleanly.")
    )
    target = DirectoryTarget(ctx.root, tuple(entries), "the folders of the store and what each one holds")
    return text, target, (), (ctx.cmd("info"),)


def _queue_file_count(ctx: Context) -> int | None:
    """The files under consumequeue/ as the census counts them (names only, no file opened; a RocksDB consume
    queue there: the database's files), None when the census finds none."""
    found = next((k for k in census(ctx.root).kinds if k.kind == "consumequeue"), None)
    return found.files if found is not None else None


def _record(ctx: Context):
    msg = _dledger_message(ctx) or ctx.nice_message()
    fields = message_fields(msg)
    by = {f.name: f for f in fields}
    topic_len = by["TOPIC"].length
    props_len = by["PROPERTIES"].length
    fixed = msg.total_size - len(msg.body) - topic_len - props_len
    text = (
        f"This is the message at physical offset {msg.physical_offset} ({msg.topic}, queue {msg.queue_id}, "
        f"tag '{msg.tags}'). A record starts with its own length, TOTALSIZE = {msg.total_size}, then the magic "
        f"code {msg.magic_code & 0xFFFFFFFF:08X} that marks a message. Next come fixed-size numbers: the CRC of "
        f"the body, the queue id and the message's number in that queue ({msg.queue_offset}), its own physical "
        f"offset again, flags, two timestamps (producer and broker clock) and two hosts (producer and broker). "
        f"Only the last three parts vary in length, each with its length in front: the body "
        f"({len(msg.body)} bytes), the topic ({topic_len}) and the properties ({props_len}), which hold the tag, "
        f"the keys and the unique key as name/value text. So TOTALSIZE = {fixed} + {len(msg.body)} + "
        f"{topic_len} + {props_len}; {fixed} is the fixed part of a record with IPv4 hosts "
        f"(it grows by 12 bytes for each IPv6 host)."
    )
    target = record_hex(msg, None, None, f"the record at {msg.physical_offset}, every field marked")
    if msg.raft_index is not None:  # a DLedger store: the 48 bytes before the record
        return _with_entry_header(ctx, msg, text, target)
    return text, target, (), (ctx.cmd("hex", str(msg.physical_offset), "--length", str(msg.total_size)),
                              ctx.cmd("show", str(msg.physical_offset)))


def _dledger_message(ctx: Context):
    """In a DLedger store, the record of its first entry (the step is about the 48 bytes before it); else None."""
    first = next((s for s in ctx.store.segments if s.entry_header), None)
    if first is None:
        return None
    try:
        return ctx.store.commitlog.message_at(first.start_offset + first.entry_header)
    except StoreError:
        return None


def _with_entry_header(ctx: Context, msg, text: str, target: HexTarget):
    """The record step of a DLedger store: the entry header before the record, field by field (spec part 2 §16)."""
    at = msg.physical_offset - ENTRY_HEADER_SIZE
    header = entry_fields(ctx.store.commitlog.read(at, ENTRY_HEADER_SIZE), at)
    text = (
        f"This store is written by DLedger (a Raft group of brokers), so every record is the body of a DLedger "
        f"entry: 48 bytes come first, at pos {at}. They say: magic 1; the entry's size, {msg.total_size} + 48 = "
        f"{msg.total_size + ENTRY_HEADER_SIZE}; its Raft index ({msg.raft_index}: entries are numbered 0, 1, 2 ... "
        f"across the whole log); the leader's term ({msg.raft_term}: it grows when another broker becomes leader); "
        f"pos, the entry's own position ({at}), which DLedger checks on every start (a pos that disagrees stops "
        f"it: 'pos X != Y'); a channel and two CRCs this DLedger version leaves 0; and the body length, which is "
        f"the record's TOTALSIZE. The record then starts at pos + 48 = {msg.physical_offset}: that is the "
        f"offset consume queues, index files and offset msgIds hold, and what the record's own PHYSICALOFFSET "
        f"says. " + text)
    spans = tuple(Span(f.start, f.end, f"{f.number} {f.name}") for f in header) + target.highlights
    target = HexTarget(msg.file, at, msg.end_offset, spans, None,
                       f"DLedger entry {msg.raft_index} (term {msg.raft_term}): the 48-byte header, then the record")
    return text, target, (), (ctx.cmd("hex", str(at), "--length", str(msg.total_size + ENTRY_HEADER_SIZE)),
                              ctx.cmd("show", str(msg.physical_offset)))


def _segment_end(ctx: Context):
    store = ctx.store
    for i, seg in enumerate(store.segments[:SEARCH_SEGMENTS]):
        ctx.budget.check("scanning segments")
        scan = store.scan_segment(i)
        if scan.blank_position is None:
            continue
        blank_phy = seg.start_offset + scan.blank_position
        left = seg.file_size - scan.blank_position
        last_start = store.commitlog.boundary_before(blank_phy - 1) if scan.messages else None
        nxt = None
        if i + 1 < len(store.segments):
            try:
                nxt = store.message_at(store.segments[i + 1].start_offset)
            except StoreError:
                nxt = None
        window_start = max(seg.start_offset, blank_phy - HEX_CONTEXT)
        window_end = min(seg.end_offset, blank_phy + max(HEX_CONTEXT, 16))
        spans = [Span(s.start, s.end, f"{s.number} {s.name}") for s in
                 blank_fields(Blank(seg.file, scan.blank_position, blank_phy, scan.blank_size or left))]
        if left > cl.END_FILE_MIN_BLANK_LENGTH:
            spans.append(Span(blank_phy + 8, seg.end_offset, "never written (zeros)"))
        target = HexTarget(seg.file, window_start, window_end, tuple(spans), "MAGICCODE",
                           f"the last bytes of segment {seg.name}")
        extra = []
        why = ""
        if nxt is not None:
            extra.append(record_hex(nxt, ("TOTALSIZE", "MAGICCODE"), "TOTALSIZE",
                                     f"the record that did not fit: the first one of segment {store.segments[i + 1].name}"))
            why = (f"The next message was {nxt.total_size} bytes long: with only {left} bytes left, "
                   f"{nxt.total_size} + 8 = {nxt.total_size + 8} > {left}, so it went to the start of the next "
                   f"file, {store.segments[i + 1].name}. ")
        last = f" The last message of this file starts at {last_start} and ends right where the BLANK begins." \
            if last_start is not None else ""
        text = (
            f"Segment {seg.name} is not filled to the last byte: its data ends at position {scan.blank_position} "
            f"(physical offset {blank_phy}), {left} bytes before the end of the file.{last} "
            f"The broker writes a message into a file only if, after it, at least 8 bytes remain. When a message "
            f"does not fit, the broker writes just those 8 bytes, a BLANK record: the number of bytes left "
            f"({left}) and the magic code CBD43194, and leaves the rest of the file as it was (zeros). "
            f"{why}The 8-byte rule guarantees that every full segment ends with a BLANK, so a reader always knows "
            f"where a file's data stops."
        )
        return text, target, extra, (ctx.cmd("hex", str(window_start), "--length", str(window_end - window_start)),
                                     ctx.cmd("info"))
    if len(store.segments) > SEARCH_SEGMENTS:
        raise Missing(f"None of the first {SEARCH_SEGMENTS} segments of this commitlog is sealed with a BLANK record.")
    raise Missing("No segment of this commitlog is sealed with a BLANK record yet: the log still fits in its "
                  "first file, so there is no segment end to look at.")


def _ids(ctx: Context):
    msg = ctx.nice_message()
    if not msg.unique_key:
        raise Missing("The messages of this store carry no unique key (UNIQ_KEY).")
    off = decode_offset_msg_id(msg.msg_id)
    try:
        uk = decode_uniq_key(msg.unique_key)
    except ValueError:  # MsgIdError: a UNIQ_KEY property is producer-written text, not always an id
        raise Missing(f"The unique key of the message at {msg.physical_offset} is not a message id.") from None
    target = IdsTarget(
        msg.physical_offset, msg.msg_id, msg.unique_key,
        (("store host", off.ip), ("port", str(off.port)), ("physical offset", str(off.offset))),
        (("producer host", uk.ip), ("pid", str(uk.pid)), ("class loader hash", f"{uk.class_loader_hash & 0xFFFFFFFF:08X}"),
         ("ms since the start of the month", str(uk.time_since_month_start)), ("counter", str(uk.counter))),
        f"both ids of the message at {msg.physical_offset}",
    )
    text = (
        f"Every message has two ids of 32 hex characters, and they are easy to mix up. The offset msgId "
        f"{msg.msg_id} is made by the broker: the broker's address {off.ip}:{off.port} and the record's physical "
        f"offset {off.offset}. It points straight into this store, so reading it needs no index. The unique key "
        f"{msg.unique_key} is made by the producer before sending: its address {uk.ip}, process id {uk.pid}, a "
        f"class-loader hash, the milliseconds since the start of the month and a counter. It is stored as the "
        f"UNIQ_KEY property and indexed like a key, and it is what a producer's SendResult.getMsgId() returns. "
        f"Both have the same length for IPv4 hosts, so a tool cannot tell them apart by looking: rmq-inspect "
        f"tries both readings and says which one finds a message."
    )
    return text, target, (), (ctx.cmd("decode-id", msg.msg_id, "--store", ctx.root, store=False),
                              ctx.cmd("decode-id", msg.unique_key, "--store", ctx.root, store=False))


def _torn_tail(ctx: Context):
    store = ctx.store
    if not store.segments:
        raise Missing("The commitlog has no segment.")
    r = ctx.recovery()
    torn = r.stop_problem is not None
    if torn:
        p = r.stop_problem
        seg = next((s for s in store.segments if s.file == p.file), store.segments[-1])
        bad = seg.start_offset + p.offset
        start = r.last_record_offset if r.last_record_offset is not None and r.last_record_offset >= seg.start_offset \
            else max(seg.start_offset, bad - HEX_CONTEXT)
        end = min(seg.end_offset, bad + 64)
        spans = [Span(bad, end, f"rejected: {p.reason}")]
        if r.last_record_offset is not None and r.last_record_offset >= seg.start_offset:
            spans.insert(0, Span(r.last_record_offset, bad, "last good record"))
        target = RecoveryTarget(r.mode, r.start_segment, r.end_offset, r.last_record_offset, r.reason, True,
                                p.file, bad, seg.file, start, end, tuple(spans), "where recovery stops")
        text = (
            f"This store has a torn tail. When a broker restarts it does not trust the log blindly: "
            f"{_mode_text(r.mode)} it walks the records from {r.start_segment}, checking each one's magic code, "
            f"length and body CRC. The last good record starts at {r.last_record_offset}; the bytes at {bad} "
            f"fail ({p.reason}). So the log ends at {r.end_offset}: the broker would set its write position there "
            f"and overwrite the torn bytes with new messages. A torn tail is what a crash leaves when a record "
            f"was only partly written to disk."
        )
    else:
        last = store.message_at(r.last_record_offset) if r.last_record_offset is not None else None
        seg = store.commitlog.segment_for(last.physical_offset) if last else store.segments[-1]
        start = last.physical_offset if last else seg.start_offset
        end = min(seg.end_offset, r.end_offset + HEX_CONTEXT)
        spans = []
        if last is not None:
            spans.append(Span(last.physical_offset, last.end_offset, "last record"))
        if end > r.end_offset:
            spans.append(Span(r.end_offset, end, "zeros: end of the log"))
        target = RecoveryTarget(r.mode, r.start_segment, r.end_offset, r.last_record_offset, r.reason, False,
                                None, None, seg.file, start, end, tuple(spans), "where recovery finds the end")
        text = (
            f"When a broker restarts it must find where the log really ends, because the files are allocated in "
            f"advance and only partly written. {_mode_text(r.mode).capitalize()} it walks the records from "
            f"{r.start_segment}, checking each one's magic code, length and body CRC, and stops at the first one "
            f"that fails. In this store it stops at {r.end_offset}, right after the last record "
            f"({r.last_record_offset}), because only zeros follow: a clean end, no torn tail. A torn tail is what a "
            f"crash in the middle of a write leaves: a TOTALSIZE and magic code that look right but a record cut "
            f"short, followed by zeros or by bytes of an older record, or a body whose CRC does not match. "
            f"Recovery would end the log just before it and later messages would overwrite it; the stale bytes "
            f"stay on disk until then, which is why a reader must not trust bytes past the end."
        )
    return text, target, (), (ctx.cmd("info"), ctx.cmd("verify"))


def _mode_text(mode: str) -> str:
    if mode == "normal":
        return "since no abort file is left, this is a normal recovery:"
    return "since an abort file is left, this is an abnormal recovery, which starts from a segment the checkpoint vouches for:"


def _rebuild(ctx: Context):
    store = ctx.store
    if not store.segments:
        raise Missing("The commitlog has no segment, so there is nothing to rebuild from.")
    r = ctx.recovery()
    infos = store.queue_infos()
    cq_units = sum(i.message_count for i in infos)
    readers = store.index_files()
    items = sum(rd.header.items_written for rd in readers)
    command = ctx.cmd("rebuild", "--out", "/tmp/rebuilt-store")
    target = RebuildTarget(store.min_offset, r.end_offset, len(infos), cq_units, len(readers), items, command,
                           "what rebuild reads and what it writes")
    text = (
        f"Only the commitlog is the truth; consume queues and index files are derived from it, the way a broker "
        f"builds them while it runs. Rebuild does that work again: it reads every record from offset "
        f"{store.min_offset} to the recovered end {r.end_offset}, and for each one it does what the broker's "
        f"dispatcher does. Every record gets a 20-byte unit in its queue unless its sysFlag marks it PREPARED or "
        f"ROLLBACK (a current broker's half message is an ordinary record of the half topic, so it gets one), "
        f"and every record except a rollback gets one index item for its unique key "
        f"and one for each of its keys, in hash-slot chains exactly as the broker links them. This store has "
        f"{len(infos)} queues with {_n(cq_units)} units and {len(readers)} index files with {_n(items)} items; a "
        f"rebuild writes the same into a new directory (or, with --in-place, swaps them in and keeps the old "
        f"ones as a backup). Use it when queues or index files are lost or damaged."
    )
    return text, target, (), (command, ctx.cmd("verify"))


def _retention(ctx: Context):
    store = ctx.store
    if not store.segments:
        raise Missing("The commitlog has no segment, so nothing has been kept or removed.")
    first = store.commitlog.retention_floor
    seg = store.segments[0]
    entry = next(iter(store.entries(store.min_offset)), None)
    msg = entry if isinstance(entry, Message) else None
    if msg is None:
        raise Missing(f"The first segment {seg.name} starts with no message record to look at.")
    target = record_hex(msg, ("PHYSICALOFFSET", "STORETIMESTAMP"), "PHYSICALOFFSET",
                        f"the log's first record, at offset {msg.physical_offset}")
    commands = (ctx.cmd("info"), ctx.cmd("verify"), ctx.cmd("show", str(msg.physical_offset)))
    rule = ("A broker keeps a segment for fileReservedTime (72 hours by default) after it was last written; then "
            "its cleanup (CleanCommitLogService, at deleteWhen, 04:00, or at once when the disk fills) deletes whole "
            "segments, oldest first and never the last one.")
    if not first:
        text = (f"Nothing has expired in this store yet: the log starts at offset 0, in segment {seg.name}, with a "
                f"record stored at {_utc_time(msg.store_timestamp)}. {rule} When that happens the log's first offset "
                "becomes the next segment's name, and consume-queue and index files wholly below it are deleted "
                "too; the files straddling it keep units and items pointing into the removed part, which the "
                "broker skips. Open sample_store_aged, the same day three days later, to see such a store: verify "
                "counts those leftovers as info findings, never errors, and a lookup of a removed message answers "
                "expired.")
        return text, target, (), commands
    expired, queues = 0, 0
    for topic, queue_id in store.queue_ids()[:SEARCH_QUEUES]:  # units below the effective min offset
        ctx.budget.check("looking at consume queues")
        cq = store.queue(topic, queue_id)
        files = getattr(cq, "files", ())
        if files:
            below = cq.info().min_offset - files[0][0] // CQ_UNIT_SIZE
            if below > 0:
                expired, queues = expired + below, queues + 1
    straddling = [r.name for r in store.index_files() if r.header.begin_phy_offset < first]
    text = (f"This store has a past. {rule} Here the log starts at offset {first:,}: segment {seg.name} is the "
            f"first one left, and every record before it was removed by retention. The consume-queue and index "
            f"files wholly below it were deleted with it; those straddling it keep what points into the removed "
            f"part: {expired} unit(s) in {queues} queue(s), which ConsumeQueue.correctMinOffset skips at load (a "
            f"queue's min offset is its first unit at or above {first:,})"
            + (f", and index file {straddling[0]}, whose items before {first:,} match records that are gone"
               if straddling else "")
            + ". None of this is damage: verify counts them as info findings and exits 0; a consumer offset below "
              "a queue's min is corrected by the broker; and a message id, offset or key whose record was removed "
              "answers expired, not \"no such message\".")
    return text, target, (), commands


def _utc_time(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


BUILDERS = {"directory": _directory, "record": _record, "segment-end": _segment_end, "ids": _ids,
            "torn-tail": _torn_tail, "rebuild": _rebuild, "retention": _retention}
