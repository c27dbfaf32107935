"""Where each field of a record lies: what hex views highlight and name (spec §2.1)."""

from __future__ import annotations

from dataclasses import dataclass

from inspector.engine.model.records import Blank, Message
from inspector.engine.scan.record_layout import ENTRY_AT, ENTRY_HEADER, ENTRY_STRUCT
from parsers import commitlog as cl
from parsers.dledger import NEWER_MAGICS


@dataclass(frozen=True)
class FieldSpan:
    number: str  # RocketMQ's field number ("1" .. "17b")
    name: str
    start: int  # physical offset of the first byte
    length: int
    value: str  # decoded value, as text

    @property
    def end(self) -> int:
        return self.start + self.length


def message_fields(msg: Message) -> list[FieldSpan]:
    """The spans of every field of a message record, in order, covering it exactly."""
    from inspector.engine.model.records import fmt_time

    o = msg.physical_offset
    bh = cl.host_width(msg.sys_flag, cl.BORNHOST_V6_FLAG)
    sh = cl.host_width(msg.sys_flag, cl.STOREHOSTADDRESS_V6_FLAG)
    tl = cl.topic_length_width(msg.magic_code)
    topic_len = len(msg.topic.encode("utf-8", "surrogateescape"))
    props_len = msg.total_size - cl.record_length(len(msg.body), topic_len, 0, msg.sys_flag, msg.magic_code)
    spec = [
        ("1", "TOTALSIZE", 4, str(msg.total_size)),
        ("2", "MAGICCODE", 4, f"{msg.magic_code & 0xFFFFFFFF:08X} (v{msg.magic_version})"),
        ("3", "BODYCRC", 4, f"{msg.body_crc} ({'ok' if msg.body_crc_ok else 'MISMATCH'})"),
        ("4", "QUEUEID", 4, str(msg.queue_id)),
        ("5", "FLAG", 4, str(msg.flag)),
        ("6", "QUEUEOFFSET", 8, str(msg.queue_offset)),
        ("7", "PHYSICALOFFSET", 8, str(msg.stored_physical_offset)),
        ("8", "SYSFLAG", 4, f"0x{msg.sys_flag & 0xFFFFFFFF:X}"),
        ("9", "BORNTIMESTAMP", 8, f"{msg.born_timestamp} ({fmt_time(msg.born_timestamp)})"),
        ("10", "BORNHOST", bh, str(msg.born_host)),
        ("11", "STORETIMESTAMP", 8, f"{msg.store_timestamp} ({fmt_time(msg.store_timestamp)})"),
        ("12", "STOREHOSTADDRESS", sh, str(msg.store_host)),
        ("13", "RECONSUMETIMES", 4, str(msg.reconsume_times)),
        ("14", "PREPARED TRANSACTION OFFSET", 8, str(msg.prepared_transaction_offset)),
        ("15a", "BODY length", 4, str(len(msg.body))),
        ("15b", "BODY", len(msg.body), _preview(msg.body)),
        ("16a", "TOPIC length", tl, str(topic_len)),
        ("16b", "TOPIC", topic_len, msg.topic),
        ("17a", "PROPERTIES length", 2, str(props_len)),
        ("17b", "PROPERTIES", props_len, ", ".join(f"{k}={v}" for k, v in msg.properties.items())),
    ]
    spans = []
    for number, name, length, value in spec:
        if number == "15b" and length:
            inner = _inner_item_fields(msg, o)
            if inner:
                spans.extend(inner)
                o += length
                continue
        spans.append(FieldSpan(number, name, o, length, value))
        o += length
    return spans


def _inner_item_fields(msg: Message, o: int) -> list[FieldSpan]:
    """The BODY of a well-formed, uncompressed inner-batch record as its items' fields (spec §2.10), numbered
    ``15b.<item>``; none for any other body (it stays one BODY span)."""
    from inspector.engine.model.errors import StoreError
    from inspector.engine.read.queues.batchconsumequeue import (
        inner_item_frame,
        inner_messages,
        is_inner_batch,
    )

    if not is_inner_batch(msg) or msg.compressed:
        return []
    try:
        items = inner_messages(msg)
    except StoreError:
        return []
    spans = []
    for m in items:
        at = o + m.item_position
        total, magic, _, _, _, props = inner_item_frame(msg.body, m.item_position)
        n, q = f"15b.{m.inner_index}", f"inner message {m.inner_index} (queue offset {m.queue_offset})"
        for name, length, value in (
            ("total size", 4, str(total)), ("magic", 4, str(magic)), ("body CRC", 4, str(m.body_crc)),
            ("flag", 4, str(m.flag)), ("body length", 4, str(len(m.body))), ("body", len(m.body), _preview(m.body)),
            ("properties length", 2, str(props)),
            ("properties", props, ", ".join(f"{k}={v}" for k, v in m.properties.items())),
        ):
            spans.append(FieldSpan(n, f"{q} {name}", at, length, value))
            at += length
    return spans


# how the hex views name each field of the entry header (parsers.dledger.EntryHeader, in its order: the widths
# come from the schema through ENTRY_AT, the names are DLedger's own Java names)
_ENTRY_NAMES = (("magic", "1 (MAGIC_1)"), ("size", "whole entry: 48 + body length"), ("index", "Raft index"),
                ("term", "leader term"), ("pos", "this entry's position; the record is at pos + 48"),
                ("channel", "reserved"), ("chainCrc", "0 in DLedger 0.3.1.2"),
                ("bodyCrc", "0 in DLedger 0.3.1.2"), ("body length", "the record's TOTALSIZE"))
_ENTRY_ENDS = (*list(ENTRY_AT.values())[1:], ENTRY_HEADER)
_ENTRY_FIELDS = tuple((name, end - at, meaning) for (name, meaning), at, end
                      in zip(_ENTRY_NAMES, ENTRY_AT.values(), _ENTRY_ENDS, strict=True))
_ENTRY = ENTRY_STRUCT


def entry_fields(raw: bytes, at: int) -> list[FieldSpan]:
    """The 48-byte DLedger entry header at physical offset ``at`` (``raw``: its bytes) as named spans, numbered
    ``E1``..``E9`` apart from the record's own field numbers (spec part 2 §16.2, ``DLedgerEntryCoder.encode``)."""
    values = _ENTRY.unpack(raw[:48])
    spans, o = [], at
    for k, ((name, length, meaning), value) in enumerate(zip(_ENTRY_FIELDS, values, strict=True), start=1):
        if k == 1 and value in NEWER_MAGICS:  # DLedgerEntryType (0.4.0+): the body is no commitlog record
            meaning = f"{NEWER_MAGICS[value]}, DLedger 0.4+"
        elif k == 9 and values[0] in NEWER_MAGICS:
            meaning = "bytes of body after the header, no commitlog record"
        spans.append(FieldSpan(f"E{k}", f"entry {name}", o, length, f"{value} ({meaning})"))
        o += length
    return spans


def end_marker_fields(blank: Blank) -> list[FieldSpan]:
    """A DLedger data file's end: -1, then the bytes remaining (``MmapFileList.preAppend``)."""
    o = blank.physical_offset
    return [FieldSpan("E1", "entry magic", o, 4, "-1 (end of file: the next entry is in the next file)"),
            FieldSpan("E2", "entry size", o + 4, 4, f"{blank.total_size} (bytes left in the file)")]


def blank_fields(blank: Blank) -> list[FieldSpan]:
    o = blank.physical_offset
    return [
        FieldSpan("1", "TOTALSIZE", o, 4, f"{blank.total_size} (bytes left in the segment)"),
        FieldSpan("2", "MAGICCODE", o + 4, 4, "CBD43194 (BLANK)"),
    ]


def _preview(body: bytes, limit: int = 48) -> str:
    text = body[:limit].decode("utf-8", "replace")
    text = "".join(ch if ch.isprintable() else "." for ch in text)
    return text + ("…" if len(body) > limit else "")


@dataclass(frozen=True)
class Region:
    """A run of commitlog bytes a hex view shows as one thing."""

    kind: str  # "message", "entry" (a DLedger entry header), "blank", "zero", "damaged", "beyond"
    start: int  # physical offsets
    end: int
    fields: tuple[FieldSpan, ...] = ()
    label: str = ""


def regions(commitlog, start: int, end: int) -> list[Region]:
    """Regions overlapping [start, end) of the segment holding ``start`` (records, BLANKs, zero runs, damage)."""
    from inspector.engine.model.records import Problem
    from inspector.engine.read.commitlog.careful import TAIL_NOT_CHECKED
    from inspector.engine.read.commitlog.mapped import (
        TAIL_BUDGET,
        first_nonzero_within,
        is_all_zero,
    )

    seg = commitlog.segment_for(start)
    if seg is None:
        raise commitlog.no_segment_error(start)
    end = min(end, seg.start_offset + seg.file_size)
    mf = commitlog.map(seg)
    result: list[Region] = []
    cursor = commitlog.boundary_before(start)  # where the last region ended
    if cursor > seg.start_offset and not _sound_head(mf, seg, cursor):
        # the header walk stopped at damage: start from the record before it, where the whole walk (verify, the
        # Problems list) meets the damage, so the hex view describes it as they do wherever it was opened
        cursor = commitlog.boundary_before(cursor - 1)
    pending: Problem | None = None
    # a window in a copied store's zero tail: its zeros are read TAIL_BUDGET far, not to the window (nor past it)
    for entry in commitlog.entries(cursor, tail_budget=TAIL_BUDGET):
        if isinstance(entry, Problem):
            if entry.file != seg.file:
                break
            if entry.code == TAIL_NOT_CHECKED:  # the end of the log, the zeros after it not all read: below
                continue
            if entry.code == "dledger-newer-entry":  # a NOOP / CONFIG_CHANGE entry: its band, header and body
                region = _newer_entry(mf, seg, entry.offset)
                if region.start > cursor:
                    result.append(_gap(mf, seg, cursor, region.start, pending))
                pending = None
                result.append(region)
                cursor = region.end
                if cursor >= end:
                    break
                continue
            pending = pending or entry
            continue
        if entry.file != seg.file:
            break
        here = entry.physical_offset
        header = seg.entry_header if isinstance(entry, Message) and entry.raft_index is not None else 0
        if here - header > cursor:  # bytes the walk skipped: zeros or damage
            result.append(_gap(mf, seg, cursor, here - header, pending))
        pending = None
        if header:  # a DLedger entry: its 48-byte header is a band of its own before the record
            at = here - header
            result.append(Region("entry", at, here, tuple(entry_fields(mf.read(at - seg.start_offset, header), at)),
                                 f"DLedger entry {entry.raft_index}, term {entry.raft_term}"))
        if isinstance(entry, Message):
            region = Region("message", here, here + entry.total_size, tuple(message_fields(entry)),
                            f"{entry.topic} q{entry.queue_id} #{entry.queue_offset}")
        elif seg.entry_header:
            region = Region("blank", here, seg.start_offset + seg.file_size, tuple(end_marker_fields(entry)),
                            f"DLedger end of file (-1, {entry.total_size} bytes)")
        else:
            region = Region("blank", here, seg.start_offset + seg.file_size, tuple(blank_fields(entry)),
                            f"BLANK ({entry.total_size} bytes)")
        result.append(region)
        cursor = region.end
        if cursor >= end:
            break
    if cursor < end:
        seg_end = seg.start_offset + seg.file_size
        first, decided = first_nonzero_within(mf.buf, cursor - seg.start_offset, mf.size, TAIL_BUDGET)
        first += seg.start_offset
        if not decided:  # zeros written out past TAIL_BUDGET: this window's own bytes are read, not the GiB before it
            if is_all_zero(mf.buf, max(start, cursor) - seg.start_offset, end - seg.start_offset):
                result.append(Region("zero", cursor, seg_end, label=f"zero bytes (end of data; read up to {first} "
                                     "and in this window, the rest not checked here: verify checks them)"))
            else:
                result.append(_gap(mf, seg, cursor, seg_end, None))
        elif first >= seg_end:
            result.append(Region("zero", cursor, seg_end, label="zero bytes (end of data)"))
        else:
            result.append(_gap(mf, seg, cursor, seg_end, pending))
    return [r for r in result if r.end > start and r.start < end]


def _sound_head(mf, seg, offset: int) -> bool:
    """Whether a record (or DLedger entry) the broker's recovery takes begins at ``offset``."""
    from inspector.engine.scan.walk import walk_boundaries

    starts, _ = walk_boundaries(mf.array if mf.size else b"", offset - seg.start_offset, mf.size,
                                segment_start=seg.start_offset, max_records=1, entry_header=seg.entry_header)
    return len(starts) == 1


def _newer_entry(mf, seg, position: int) -> Region:
    """A DLedger 0.4+ NOOP or CONFIG_CHANGE entry at ``position`` of ``seg`` (the walk framed it: sound header)."""
    at = seg.start_offset + position
    raw = mf.read(position, 48)
    magic, size, index, term = _ENTRY.unpack(raw)[:4]
    return Region("entry", at, at + size, tuple(entry_fields(raw, at)),
                  f"DLedger {NEWER_MAGICS[magic]} entry {index}, term {term} (DLedger 0.4+: no record)")


def _gap(mf, seg, a: int, b: int, problem) -> Region:
    from inspector.engine.read.commitlog.mapped import is_all_zero

    if is_all_zero(mf.buf, a - seg.start_offset, b - seg.start_offset):
        return Region("zero", a, b, label=f"{b - a} zero bytes")
    return Region("damaged", a, b, label=problem.reason if problem else f"{b - a} unreadable bytes")
