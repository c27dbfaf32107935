"""``salvage --plan``: every span of the commitlog classified (intact, recoverable, lost) with what a salvage does
with it, the files it copies, rebuilds or leaves out. Reads the store only."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.maintain.salvage.filler import FillerCounter, Piece, Stamp, fill_span, span_too_small
from inspector.engine.maintain.salvage.lost import LostRecord, lost_records
from inspector.engine.maintain.salvage.replica import replica_bytes
from inspector.engine.maintain.salvage.spans import Damage, layout_of
from inspector.engine.model.errors import BadInput
from inspector.engine.read.commitlog.mapped import data_end
from parsers.commitlog import (
    TRANSACTION_COMMIT_TYPE,
    TRANSACTION_MASK,
    TRANSACTION_NAMES,
    TRANSACTION_NOT_TYPE,
    transaction_type,
)
from parsers.java import CRC_PROPERTY_NAME as CRC_PROPERTY

__all__ = ["SalvagePlan", "Span", "FileStep", "salvage_plan", "SAMPLE"]

SAMPLE = 20  # lost records and keys listed by name per span; the rest counted (said)
# copied as they are (the salvaged log keeps every intact record at its offset, so what points into it stays true)
COPIED_DIRS = ("timerwheel", "timerlog")
# never copied: a salvaged store is one a broker shut down cleanly (no abort: a normal recovery), unlocked, with a
# checkpoint written from its own records; its queues and index are rebuilt
NOT_COPIED = {"abort", "lock", "checkpoint", "consumequeue", "index", "commitlog", "config"}


@dataclass
class Span:
    """One span of the commitlog [start, end) and what salvage does with it."""

    start: int
    end: int
    file: str  # the segment file (as the store names it, also when missing)
    state: str  # "intact", "recoverable" or "lost"
    action: str
    reason: str = ""
    records: int = 0  # intact: the records kept; lost/recoverable: the records known to have been there
    lost: list[LostRecord] = field(default_factory=list)  # lost records known by their queue units
    unplaced: int = 0  # of those, the ones left without a placeholder (their queue offset is not kept)
    pieces: list[Piece] = field(default_factory=list, repr=False)  # what is written (not in the views)
    replica: bytes | None = field(default=None, repr=False)

    @property
    def length(self) -> int:
        return self.end - self.start

    def as_dict(self, sample: int = SAMPLE) -> dict:
        keys = [k for r in self.lost for k in r.keys]
        return {"start": self.start, "end": self.end, "bytes": self.length, "file": self.file,
                "state": self.state, "action": self.action, "reason": self.reason, "records": self.records,
                "lost_records": [r.as_dict() for r in self.lost[:sample]], "lost_records_total": len(self.lost),
                "lost_records_listed": min(len(self.lost), sample), "keys": keys[:sample], "keys_total": len(keys),
                "without_placeholder": self.unplaced,
                "placeholders": sum(p.kind == "placeholder" for p in self.pieces),
                "fillers": sum(p.kind == "filler" for p in self.pieces)}


@dataclass(frozen=True)
class FileStep:
    """What salvage does with one file or folder that is not a commitlog segment."""

    file: str
    action: str  # "copied", "rebuilt", "written", "from backup", "not copied"
    reason: str = ""

    def as_dict(self) -> dict:
        return {"file": self.file, "action": self.action, "reason": self.reason}


@dataclass
class _Work:
    """What the plan's steps share while it is made."""

    counter: FillerCounter
    queue_repairs: list[tuple[int, int, int]] = field(default_factory=list)
    sysflag_repairs: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class SalvagePlan:
    store: str
    replica: str | None
    segment_size: int
    spans: list[Span]
    files: list[FileStep]
    notes: list[str]
    lmq_units_lost: int = 0
    repairs: list[int] = field(default_factory=list)  # records whose PHYSICALOFFSET field is rewritten
    # (offset, queue id, queue offset): records whose QUEUEID and QUEUEOFFSET are rewritten to their unit's
    queue_repairs: list[tuple[int, int, int]] = field(default_factory=list)
    # (offset, SYSFLAG written): a record whose transaction bits say a half or a rollback while its queue unit
    # says the broker dispatched it (only NOT_TYPE and COMMIT are: CommitLogDispatcherBuildConsumeQueue)
    sysflag_repairs: list[tuple[int, int]] = field(default_factory=list)

    @property
    def intact_records(self) -> int:
        return sum(s.records for s in self.spans if s.state == "intact")

    @property
    def lost_spans(self) -> list[Span]:
        return [s for s in self.spans if s.state == "lost"]

    @property
    def clean(self) -> bool:
        """Nothing to salvage: every span intact, no field repaired, every file copied as it is."""
        return (all(s.state == "intact" and not s.reason for s in self.spans) and not self.repairs
                and not self.queue_repairs and not self.sysflag_repairs
                and not any(f.file.startswith("config/") and f.action not in ("copied", "rebuilt", "written")
                            for f in self.files))

    @property
    def verdict(self) -> str:
        lost = self.lost_spans
        rec = [s for s in self.spans if s.state == "recoverable"]
        if self.clean:
            return f"nothing damaged in the commitlog: {self.intact_records:,} record(s) intact"
        parts = [f"{self.intact_records:,} record(s) intact"]
        if rec:
            parts.append(f"{len(rec)} span(s) recoverable ({sum(s.length for s in rec):,} bytes)")
        if lost:
            known = sum(len(s.lost) for s in lost)
            parts.append(f"{len(lost)} span(s) lost ({sum(s.length for s in lost):,} bytes, {known:,} record(s) "
                         "known by their queue units)")
        fixed = len({*self.repairs, *(at for at, *_ in self.queue_repairs), *(at for at, _ in self.sysflag_repairs)})
        if fixed:
            parts.append(f"{fixed} record(s) with a field repaired")
        suspect = sum(1 for s in self.spans if s.state == "intact" and s.reason)
        if suspect:
            parts.append(f"{suspect} record(s) kept as they read though their queue units or index items disagree")
        return "; ".join(parts)

    @property
    def exit_code(self) -> int:
        """0 nothing lost (nothing damaged, or all of it recovered or kept), 4 data lost (as preflight's)."""
        lost_config = any(f.action == "not copied" and f.file.startswith("config/") for f in self.files)
        return 4 if self.lost_spans or lost_config else 0

    def as_dict(self, sample: int = SAMPLE) -> dict:
        return {"store": self.store, "replica": self.replica, "verdict": self.verdict,
                "segment_size": self.segment_size, "intact_records": self.intact_records,
                "spans": [s.as_dict(sample) for s in self.spans], "files": [f.as_dict() for f in self.files],
                "repaired_records": self.repairs,
                "queue_fields_repaired": [{"offset": o, "queue_id": q, "queue_offset": n}
                                          for o, q, n in self.queue_repairs],
                "sysflag_repaired": [{"offset": o, "sysflag": f} for o, f in self.sysflag_repairs],
                "lmq_units_lost": self.lmq_units_lost, "notes": self.notes}


def salvage_plan(store, replica=None, *, report=None) -> SalvagePlan:
    """What ``salvage`` would do to ``store`` (a copy from ``replica``, another Store, where it can). ``report``:
    verify's report of ``store`` when the caller has it (else verify runs here)."""
    if getattr(store, "dledger_data", None) or any(seg.entry_header for seg in store.commitlog.segments):
        raise BadInput("salvage writes a plain commitlog; a DLedger store is not supported (its entries carry Raft "
                       "terms that a copy cannot invent): use `rmq-inspect diff` against another member",
                       str(store.root))
    if getattr(store, "rocksdb_cq", None) is not None:
        raise BadInput("salvage rebuilds file consume queues; this store keeps them in RocksDB (storeType="
                       "defaultRocksDB), which salvage does not write", str(store.root))
    if report is None:
        from inspector.engine.maintain.verify.verify import verify  # the heavy room, only when asked
        report = verify(store)
    notes: list[str] = []
    layout = layout_of(store, list(report.problems))
    size = layout.segment_size
    if replica is not None and replica.commitlog.segment_size != size:
        raise BadInput(f"the replica's segments are {replica.commitlog.segment_size:,} bytes, this store's "
                       f"{size:,}: not a copy of it", str(replica.root))
    size = size or store.geometry().segment_size  # an empty commitlog folder: the broker's (or given) size
    off_grid = [s.file for s in store.commitlog.segments
                if (s.start_offset - store.commitlog.segments[0].start_offset) % size]
    if off_grid:
        raise BadInput(f"salvage writes the segments on one grid of {size:,} bytes; {len(off_grid)} segment(s) are "
                       f"named off it ({', '.join(off_grid[:3])}): move them aside (rmq-inspect verify names them)",
                       str(store.root))
    # a span at the log's end reaches to its segment's end for the queue units: a torn record's unit names the
    # whole record, of which only the first bytes reached the disk
    lost, lmq = lost_records(store, [(d.start, d.end if d.end < layout.data_end else d.start - d.start % size + size)
                                     for d in layout.damage])
    spans: list[Span] = []
    counter = FillerCounter()
    work = _Work(counter)
    data_starts = sorted(s for s in layout.present if _holds_data(store, layout.present[s]))
    for seg_start in layout.starts:
        seg_end = seg_start + size
        name = f"commitlog/{seg_start:020d}"
        in_seg = [d for d in layout.damage if seg_start <= d.start < seg_end]
        at = seg_start
        for d in in_seg:
            if d.start > at:
                spans += _intact(store, replica, name, at, d.start, layout, work)
            spans.append(_damaged(store, replica, name, d, lost, layout, seg_end, data_starts, counter, notes))
            at = d.end
        stop = max(at, _segment_data_end(store, layout, seg_start))
        if stop > at:
            spans += _intact(store, replica, name, at, stop, layout, work)
    if any(s.state == "intact" and "lmq" in s.reason.lower() for s in spans):
        notes.append("a record kept as it reads has damaged multi-dispatch properties (INNER_MULTI_DISPATCH / "
                     "INNER_MULTI_QUEUE_OFFSET): the rebuild dispatches it to its %LMQ% queues as the broker would, "
                     "or not at all, so those LMQ queues may lose its unit and their later units move down")
    files = _file_steps(store, report)
    return SalvagePlan(str(store.root), None if replica is None else str(replica.root), size, spans, files, notes,
                       lmq, [at for at, _ in layout.repairs], work.queue_repairs, work.sysflag_repairs)


def _holds_data(store, seg) -> bool:
    mf = store.commitlog.map(seg)
    return bool(data_end(mf, 0, mf.size))


def _segment_data_end(store, layout, seg_start: int) -> int:
    """Where a segment's intact part ends: its last non-zero byte (the BLANK that ends it included), never past
    the log's end (a torn tail is a span of its own)."""
    seg = layout.present.get(seg_start)
    if seg is None:
        return seg_start
    mf = store.commitlog.map(seg)
    # a file longer than a segment: what lies past the segment's size is no part of the log (not copied)
    return min(seg_start + data_end(mf, 0, min(mf.size, layout.segment_size)), layout.data_end)


def _intact(store, replica, name: str, start: int, end: int, layout, work: _Work) -> list[Span]:
    """The span [start, end) kept as it is, cut around each suspect record in it (one that reads whole while its
    queue unit or index items disagree with it): kept as it reads, or taken from the replica when it holds it."""
    out: list[Span] = []
    at = start
    for off in sorted(k for k in layout.suspects if start <= k < end):
        try:
            msg = store.commitlog.message_at(off)
        except Exception:  # noqa: BLE001 - it read for verify; if not now, it stays in the plain span
            continue
        size = msg.total_size
        if off > at:
            out.append(_kept(name, at, off, layout))
        out.append(_suspect(store, replica, name, msg, layout.suspects[off], layout, work))
        at = off + size
    if end > at:
        out.append(_kept(name, at, end, layout))
    return out


def _suspect(store, replica, name: str, msg, suspect, layout, work: _Work) -> Span:
    """A record that reads while its queue unit or index items disagree with it. Taken from the replica when it
    holds it whole; else kept as it reads when its topic, queue and queue offset are the unit's (its tag or keys
    differ: the rebuilt unit and items follow the record); else, same topic, its QUEUEID and QUEUEOFFSET
    rewritten from the unit (the unit's place says them; the body CRC does not cover them); else (another
    topic, or a ``__CRC32#`` property that covers the header) lost: a placeholder keeps the unit's place."""
    off, size = msg.physical_offset, msg.total_size
    why = suspect.why
    got = replica_bytes(store, replica, off, off + size, layout) if replica is not None else None
    if isinstance(got, bytes) and got != store.commitlog.read(off, size):
        return Span(off, off + size, name, "recoverable", "taken from the replica (the record there reads whole; "
                    "this one's queue unit or index items disagree with it)", why, 1, replica=got)
    unit = suspect.unit
    if unit == (msg.topic, msg.queue_id, msg.queue_offset) and _rewritable(msg) and \
            transaction_type(msg.sys_flag) not in (TRANSACTION_NOT_TYPE, TRANSACTION_COMMIT_TYPE):
        # kept as it reads, the rebuild would not dispatch it (a half or a rollback) and every later unit of its
        # queue would move down one: its unit says the broker dispatched it, so its transaction bits are cleared
        flag = msg.sys_flag & ~TRANSACTION_MASK
        work.sysflag_repairs.append((off, flag))
        return Span(off, off + size, name, "recoverable", f"SYSFLAG's transaction bits cleared ({msg.sys_flag} -> "
                    f"{flag}): the record says {TRANSACTION_NAMES[transaction_type(msg.sys_flag)]}, which no queue "
                    "holds, but its queue unit says the broker dispatched it", why, 1)
    if unit is None or unit == (msg.topic, msg.queue_id, msg.queue_offset) or _own_unit_agrees(store, msg):
        return Span(off, off + size, name, "intact", "kept as it reads (its tag or keys may be damaged: the rebuilt "
                    "queue unit and index items follow the record; --from-replica restores it from a copy)", why, 1)
    if unit[0] == msg.topic and _rewritable(msg):
        work.queue_repairs.append((off, unit[1], unit[2]))
        return Span(off, off + size, name, "recoverable", f"QUEUEID and QUEUEOFFSET rewritten to its queue unit's "
                    f"({unit[1]}, {unit[2]}: the record said {msg.queue_id}, {msg.queue_offset})", why, 1)
    lost = LostRecord(off, size, unit[0], unit[1], unit[2], 0)
    pieces, dropped = fill_span(off, off + size, [lost], _stamp(store, off, off + size), after="data",
                                counter=work.counter)
    return Span(off, off + size, name, "lost", "a placeholder keeps its queue unit's place (the record names "
                "another topic than the unit that points at it)", why, 1, [lost], len(dropped), pieces)


def _rewritable(msg) -> bool:
    """True when salvage may rewrite a field of the record in place: no 5.2+ ``__CRC32#`` property covers it (the
    CRC of the record's first TOTALSIZE-20 bytes, SYSFLAG and the queue fields among them, spec §2.7: rewritten, the
    record would fail a broker's recovery that verifies it, ``forceVerifyPropCRC``,
    ``CommitLog.checkMessageAndReturnSize``, and the log would be cut there; a record whose property still matches
    reads as the broker wrote it)."""
    return CRC_PROPERTY not in msg.properties


def _own_unit_agrees(store, msg) -> bool:
    """True when the record's own queue (its topic and queue id) holds a unit at its queue offset pointing at it:
    then the record is whole and the unit that disagrees with it is the damaged one (the rebuild drops it)."""
    try:
        q = store.queue(msg.topic, msg.queue_id)
        try:
            unit = q.unit(msg.queue_offset)
        finally:
            q.release_pages()
    except Exception:  # noqa: BLE001 - no such queue or unit: nothing agrees
        return False
    return unit.physical_offset == msg.physical_offset and unit.size == msg.total_size


def _kept(name: str, start: int, end: int, layout) -> Span:
    starts = layout.record_starts
    n = int(starts.searchsorted(end) - starts.searchsorted(start))
    return Span(start, end, name, "intact", "kept at its offset, byte for byte", records=n)


def _damaged(store, replica, name: str, d: Damage, lost: list[LostRecord], layout, seg_end: int,
             data_starts: list[int], counter: FillerCounter, notes: list[str]) -> Span:
    inside = [r for r in lost if d.start <= r.physical_offset < d.end]
    if inside and d.end >= layout.data_end:  # the log's end: the span covers its torn record whole
        d = Damage(d.start, max(d.end, inside[-1].physical_offset + inside[-1].size), d.code, d.reason)
    reason = f"{d.code}: {d.reason}"
    if replica is not None:
        got = replica_bytes(store, replica, d.start, d.end, layout)
        if isinstance(got, bytes):
            return Span(d.start, d.end, name, "recoverable", "copied from the replica (its records there read "
                        "whole and it agrees with this store around the span)", reason, len(inside), [],
                        replica=got)
        notes.append(f"{name} @ {d.start - (d.start // layout.segment_size) * layout.segment_size:,}: not taken "
                     f"from the replica: {got}")
    later = bisect.bisect_right(data_starts, d.start - d.start % layout.segment_size)
    if d.end < seg_end and d.end < layout.data_end:
        after = "data"
    elif d.end >= seg_end and later < len(data_starts):
        after = "next-segment"
    else:
        after = "end"
    if span_too_small(d.start, d.end, after):
        notes.append(f"{name}: the lost span at {d.start:,} is {d.end - d.start} bytes, too small for a record: "
                     "left as it is (the broker's recovery stops there)")
        return Span(d.start, d.end, name, "lost", "left as it is: too small for a record", reason, len(inside),
                    inside, len(inside))
    stamp = _stamp(store, d.start, d.end)
    pieces, dropped = fill_span(d.start, d.end, inside, stamp, after=after, counter=counter)
    what = {"data": "filled with placeholder and filler records", "next-segment":
            "filled with placeholder records and a BLANK to the segment's end", "end":
            "placeholder records, then zeros (the log ends there)"}[after]
    if d.code == "missing-segment":
        what = "segment file created: " + what
    state = "recoverable" if d.code == "no-blank" and not inside else "lost"  # only the BLANK was missing
    if state == "recoverable":
        what = "a BLANK written to end the segment (it had none; the broker's recovery needs one to go on)"
    return Span(d.start, d.end, name, state, what, reason, len(inside), inside, len(dropped), pieces)


def _stamp(store, start: int, end: int) -> Stamp:
    """Times and hosts of the intact record before the span (else after it): stand-ins keep the log's order."""
    log = store.commitlog
    for probe in (start - 1, end):
        if probe < 0:
            continue
        try:
            seg = log.segment_for(probe)
            if seg is None:
                continue
            at = log.boundary_before(probe) if probe < start else probe
            msg = log.message_at(at)
        except Exception:  # noqa: BLE001 - no readable neighbour on this side
            continue
        return Stamp(msg.store_timestamp, msg.born_timestamp, str(msg.store_host), str(msg.born_host))
    return Stamp()


def _file_steps(store, report) -> list[FileStep]:
    """What happens to every file that is not a segment: config (each from itself or its good .bak), checkpoint
    (written), queues and index (rebuilt), the timer's files (copied), the rest (left out, named)."""
    root = Path(store.root)
    bad = {p.file: p for p in report.problems if p.file.startswith("config/") and p.severity == "error"}
    steps = [FileStep("consumequeue/", "rebuilt", "from the salvaged commitlog (rmq-inspect rebuild)"),
             FileStep("index/", "rebuilt", "from the salvaged commitlog (rmq-inspect rebuild)"),
             FileStep("checkpoint", "written", "from the salvaged records' store times")]
    config = root / "config"
    if config.is_dir():
        for p in sorted(config.iterdir()):
            rel = f"config/{p.name}"
            if p.name.endswith(".bak") and (config / p.name[:-4]).exists():
                continue  # handled with its main file
            bak = config / f"{p.name}.bak"
            if not p.is_file() and rel not in bad:
                steps.append(FileStep(rel, "copied" if p.is_dir() else "not copied",
                                      "" if p.is_dir() else "not a regular file"))
                continue
            if rel in bad:
                if bak.is_file() and f"{rel}.bak" not in bad:
                    steps.append(FileStep(rel, "from backup", f"{bad[rel].reason}: written from {rel}.bak, "
                                          "which reads (the broker would load it: ConfigManager.loadBak)"))
                else:
                    steps.append(FileStep(rel, "not copied", f"{bad[rel].reason}; no readable .bak: the broker "
                                          "starts with an empty table (the original stays in the store)"))
                continue
            steps.append(FileStep(rel, "copied"))
            if bak.is_file():
                good = f"{rel}.bak" not in bad
                steps.append(FileStep(f"{rel}.bak", "copied" if good else "not copied",
                                      "" if good else bad[f"{rel}.bak"].reason))
    for name in COPIED_DIRS:
        if (root / name).exists():
            hurt = sum(1 for p in report.problems if p.severity == "error"
                       and (p.file == name or p.file.startswith(f"{name}/")))
            steps.append(FileStep(name + ("/" if (root / name).is_dir() else ""), "copied", "as it is" if not hurt else
                                  f"as it is, with its {hurt} finding(s) (salvage does not rebuild the timer's "
                                  "files: `rmq-inspect verify` lists them)"))
    known = set(COPIED_DIRS) | NOT_COPIED
    for p in sorted(root.iterdir()):
        if p.name not in known and not p.name.startswith("."):
            steps.append(FileStep(p.name, "not copied", "not part of a store salvage writes"))
    log_dir = root / "commitlog"
    if log_dir.is_dir():
        segments = {s.file for s in store.commitlog.segments}
        for p in sorted(log_dir.iterdir()):
            rel = f"commitlog/{p.name}"
            if rel not in segments:
                steps.append(FileStep(rel, "not copied", "not a segment of the log's grid"))
    return steps
