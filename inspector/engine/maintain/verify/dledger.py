"""verify's checks of a DLedger store (spec part 2 §16), as ``DLedgerMmapFileStore.recover`` makes them, and a
preview of where that recovery would stop.

The walk of the log (commitlog.py, careful.py) already checks every entry's own header (magic, size > 44,
pos == file start + position, body length + 48 == size) and its record. Here, vectorised over the index
units (numpy; no Python loop per entry): each unit equals (magic, pos, size, index, term) of the entry at its
pos, the entries' Raft indexes are consecutive and their terms never decrease, the index covers the data;
then ``checkpoint`` and ``currterm``.

DLedger's recovery reads entries from the start (of the third-last data file) and stops at the first entry
that fails a check, truncating everything after it; an index unit that disagrees with its entry makes it
rewrite the index from there instead (``needWriteIndex``). :func:`recovery_preview` says which.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from inspector.engine.maintain.write.dledger_stream import IndexStream, MatchedEntries, matched_entries
from inspector.engine.model.records import Problem
from inspector.engine.read.dledger.dledger import ENTRY_MAGICS, UNIT_DTYPE, DLedgerMember, IndexRun, member_of
from inspector.engine.scan.record_layout import HEADER_HEAD_DTYPE
from inspector.engine.scan.verify_kernels import gather
from parsers.dledger import ENTRY_HEADER_SIZE, INDEX_UNIT_SIZE, CurrTerm, DLedgerCheckpoint

__all__ = ["DLedgerCheck", "check_dledger", "dledger_segment_heads", "index_stream"]

_FIELDS = ("magic", "pos", "size", "index", "term")


@dataclass(frozen=True)
class DLedgerCheck:
    """What :func:`check_dledger` found: the findings, the last entry read (index, term, end) and the preview."""

    problems: tuple[Problem, ...]
    recovery: str


def check_dledger(store, walk_problems: list[Problem],
                  read: IndexStream | Iterable[np.ndarray | MatchedEntries] | None = None) -> DLedgerCheck | None:
    """The DLedger checks of ``store`` (None for a plain store); ``walk_problems``: the log walk's findings (the
    entries' own header checks), which the recovery preview starts from; ``read``: the entries the walk's
    tables hold, as an :class:`IndexStream` fed during the walk (:func:`index_stream`) or as arrays of rows
    (record offset, record size, Raft index, term) and :class:`MatchedEntries` (a Spark task's segment whose
    entries all matched their units), in log order. Their headers passed the walk's checks (magic
    1, pos, sizes), so only the others are read again here (their pages were released behind the walk: reading
    them back would fault every page in again)."""
    member = member_of(store.root, getattr(store, "dledger_data", None))
    if member is None:
        return None
    stream = read if isinstance(read, IndexStream) else _fed(member, read or ())
    quick = stream.finish()
    if quick is not None:  # every unit equal to what the walk read, in order (compared as the walk went)
        problems = _properties_findings(member, quick)
        data, newer = _data_findings(member, walk_problems)
        return DLedgerCheck(tuple(problems), recovery_preview(store, data, None, None, quick, newer))
    problems: list[Problem] = []
    runs, unreadable = member.index_runs()
    problems += [Problem(file, 0, reason, "unreadable-file") for file, reason in unreadable]
    problems += _index_layout(runs)
    every = np.concatenate([r.units for r in runs]) if runs else np.zeros(0, UNIT_DTYPE)
    units = _columns(every)
    rows = stream.rows(every)
    del every
    numbers = np.concatenate([np.arange(r.first, r.first + len(r.units)) for r in runs]) if runs else np.zeros(0, int)
    where = _Places(runs)
    headers, inside = _headers_at(store, units, rows)
    unit_problems, rewrite = _unit_findings(units, numbers, headers, inside, where)
    problems += unit_problems
    sequence, stop = _sequence_findings(store, units, headers, inside)
    problems += sequence
    last = _last_entry(store, units, headers, inside)
    problems += _properties_findings(member, last)
    data, newer = _data_findings(member, walk_problems)
    return DLedgerCheck(tuple(problems), recovery_preview(store, data, stop, rewrite, last, newer))


def index_stream(store) -> IndexStream | None:
    """The stream a walk of ``store`` feeds its DLedger entries to (None for a plain store)."""
    member = member_of(store.root, getattr(store, "dledger_data", None))
    return IndexStream(member) if member is not None else None


def dledger_segment_heads(store, rows: list[np.ndarray]) -> MatchedEntries | np.ndarray | None:
    """What a Spark task hands :func:`check_dledger` of one data file's entries (``rows``: the walk's, in log
    order): a :class:`MatchedEntries` when each equals its index unit (the driver then holds a few numbers a
    segment, not 32 bytes an entry), else the rows themselves; None without rows."""
    member = member_of(store.root, getattr(store, "dledger_data", None))
    if member is None or not rows:
        return None
    matched = matched_entries(member, rows)
    return matched if matched is not None else np.concatenate(rows, axis=1)


def _fed(member: DLedgerMember, read: Iterable[np.ndarray | MatchedEntries]) -> IndexStream:
    stream = IndexStream(member)
    for piece in read:
        if isinstance(piece, MatchedEntries):
            stream.add_matched(piece)
        else:
            stream.add(piece)
    return stream


def _data_findings(member: DLedgerMember, walk_problems: list[Problem]) -> tuple[list[Problem], list[Problem]]:
    """The walk's errors in the member's data files, and its NOOP / CONFIG_CHANGE entries (DLedger 0.4+)."""
    mine = [p for p in walk_problems if p.file.startswith(f"{member.label}/data/")]
    return [p for p in mine if p.severity == "error"], [p for p in mine if p.code == "dledger-newer-entry"]


class _Places:
    """Unit k of the concatenated runs -> (index file, byte offset in it), without a list entry per unit."""

    def __init__(self, runs: list[IndexRun]) -> None:
        self.runs = runs
        self.starts = np.cumsum([0] + [len(r.units) for r in runs])

    def __getitem__(self, k: int) -> tuple[str, int]:
        i = int(np.searchsorted(self.starts, k, side="right")) - 1
        return self.runs[i].file, (k - int(self.starts[i])) * INDEX_UNIT_SIZE


def _index_layout(runs: list[IndexRun]) -> list[Problem]:
    """Index files follow each other (a file's first unit number = the previous file's + its unit count)."""
    found = []
    for prev, run in zip(runs, runs[1:], strict=False):
        if len(prev.units) and run.first != prev.first + len(prev.units) and len(run.units):
            found.append(Problem(run.file, 0, f"index file starts at unit {run.first}, the previous one's units end "
                                 f"at {prev.first + len(prev.units)}", "dledger-index-gap"))
    return found


_HEAD = HEADER_HEAD_DTYPE  # the first 32 bytes of an entry header: every field an index unit repeats


def _columns(records: np.ndarray) -> dict[str, np.ndarray]:
    """A structured array of big-endian fields as native int64 columns (compared and diffed without swaps)."""
    return {name: records[name].astype(np.int64) for name in _FIELDS}


def _headers_at(store, units: dict[str, np.ndarray], rows: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """(magic, size, index, term, pos) of the entry at each unit's pos, as columns (0 where no data file holds
    one), and where one was found: from what the walk ``read`` (its header passed the walk's checks), else read
    from the data file here."""
    n = len(units["pos"])
    pos = units["pos"]
    want = pos + ENTRY_HEADER_SIZE
    if np.array_equal(rows[0], want):  # the usual case: the walk tabled every entry the index lists, in order
        return _from_rows(rows), np.ones(n, bool)
    heads = {name: np.zeros(n, np.int64) for name in _FIELDS}
    inside = np.zeros(n, bool)
    if rows.shape[1]:
        at = np.minimum(np.searchsorted(rows[0], want), rows.shape[1] - 1)
        hit = rows[0][at] == want
        for name, column in _from_rows(rows[:, at[hit]]).items():
            heads[name][hit] = column
        inside[hit] = True
    log = store.commitlog
    for seg in (s for s in log.segments if s.entry_header):
        # pos - start, not pos + 48: a unit's pos near 2^63 would wrap past the file's end into "inside"
        sel = np.flatnonzero(~inside & (pos >= seg.start_offset)
                             & (pos - seg.start_offset <= seg.file_size - ENTRY_HEADER_SIZE))
        if len(sel):
            raw = gather(log.map(seg).array, pos[sel] - seg.start_offset, _HEAD.itemsize)
            for name, column in _columns(raw.view(_HEAD).reshape(-1)).items():
                heads[name][sel] = column
            inside[sel] = True
    return heads, inside


def _from_rows(rows: np.ndarray) -> dict[str, np.ndarray]:
    """The header columns of entries the walk tabled: magic 1, size = record + 48, index, term, pos = offset - 48."""
    return {"magic": np.ones(rows.shape[1], np.int64), "size": rows[1] + ENTRY_HEADER_SIZE, "index": rows[2],
            "term": rows[3], "pos": rows[0] - ENTRY_HEADER_SIZE}


def _unit_findings(units, numbers, headers, inside, where) -> tuple[list[Problem], tuple[int, Problem] | None]:
    """Each unit against its own number and the entry at its pos (recovery's data-to-index comparison); also
    (entry pos, finding) of the first unit recovery would rewrite the index from."""
    found = []
    bad_number = units["index"] != numbers
    for k in np.flatnonzero(bad_number).tolist():
        file, at = where[k]
        found.append(Problem(file, at, f"index unit {numbers[k]} says Raft index {units['index'][k]}",
                             "dledger-index-unit"))
    differs = np.zeros(len(numbers), bool)
    for name in _FIELDS:
        differs |= units[name] != headers[name]
    for k in np.flatnonzero(~bad_number & (differs | ~inside)).tolist():
        file, at = where[k]
        if not inside[k]:
            reason = f"index unit {numbers[k]} points at pos {units['pos'][k]}, in no DLedger data file"
        else:
            fields = ", ".join(f"{n} {units[n][k]} != {headers[n][k]}" for n in _FIELDS if units[n][k] != headers[n][k])
            reason = f"index unit {numbers[k]} disagrees with its entry at pos {units['pos'][k]}: {fields}"
        found.append(Problem(file, at, reason + " (DLedger recovery rewrites the index from here)",
                             "dledger-index-unit"))
    bad = np.flatnonzero(bad_number | differs | ~inside)
    first = None
    if len(bad):
        k = int(bad[0])
        file, at = where[k]
        first = (int(units["pos"][k]), next(p for p in found if (p.file, p.offset) == (file, at)))
    return found, first


def _sequence_findings(store, units, headers, inside) -> tuple[list[Problem], tuple[int, str] | None]:
    """The entries in index order: Raft indexes consecutive, terms never decreasing (recovery stops at the first
    that is not). Returns the findings and (pos, reason) of the first such entry."""
    found = []
    stop = None
    good = inside & np.isin(headers["magic"], ENTRY_MAGICS)  # a NOOP entry (DLedger 0.4+) holds its index too
    idx, term, pos = headers["index"][good], headers["term"][good], headers["pos"][good]
    if len(idx) < 2:
        return found, stop
    gaps = np.flatnonzero(np.diff(idx) != 1) + 1
    falls = np.flatnonzero(np.diff(term) < 0) + 1
    for k, code, why in sorted([(int(k), "dledger-index", f"Raft index {idx[k]} after {idx[k - 1]}") for k in gaps]
                               + [(int(k), "dledger-term", f"term {term[k]} after {term[k - 1]}") for k in falls]):
        found.append(Problem(*store.commitlog.place(int(pos[k])), f"entry {why}: DLedger recovery stops here", code))
        if stop is None:
            stop = (int(pos[k]), why)
    return found, stop


def _last_entry(store, units, headers, inside) -> tuple[int, int, int] | None:
    """(Raft index, term, end position) of the last entry the index and the data agree on, or None."""
    same = inside & (units["index"] == headers["index"]) & (units["pos"] == headers["pos"])
    ks = np.flatnonzero(same)
    if not len(ks):
        return None
    k = int(ks[-1])
    return int(headers["index"][k]), int(headers["term"][k]), int(headers["pos"][k]) + int(headers["size"][k])


def _properties_findings(member: DLedgerMember, last: tuple[int, int, int] | None) -> list[Problem]:
    """``checkpoint`` and ``currterm`` as DLedger reads them at start (a file it cannot read is an error: it
    then starts from committed index -1 / term 0)."""
    found = []
    cp = member.properties("checkpoint", DLedgerCheckpoint)
    if cp.fault:
        found.append(Problem(cp.file, 0, f"{cp.fault}: DLedger ignores it (committed index unknown)",
                             "dledger-checkpoint"))
    elif cp.values is not None and min(cp.values.values()) < -1:  # -1: nothing yet (DLedgerMmapFileStore)
        found.append(Problem(cp.file, 0, f"endIndex {cp.values['endIndex']}, committedIndex "
                             f"{cp.values['committedIndex']}: an index below -1 is none DLedger writes",
                             "dledger-checkpoint"))
    elif cp.values is not None and last is not None:
        if cp.values["committedIndex"] > cp.values["endIndex"]:
            found.append(Problem(cp.file, 0, f"committedIndex {cp.values['committedIndex']} is after endIndex "
                                 f"{cp.values['endIndex']}", "dledger-checkpoint"))
        if cp.values["endIndex"] > last[0]:
            found.append(Problem(cp.file, 0, f"endIndex {cp.values['endIndex']} is after the last entry ({last[0]}):"
                                 " entries the member had are missing", "dledger-checkpoint", "warning"))
    term = member.properties("currterm", CurrTerm)
    if term.fault:
        found.append(Problem(term.file, 0, f"{term.fault}: DLedger starts with term 0 and no vote (MemberState: "
                             "'Load last term failed')", "dledger-currterm"))
    elif term.values is not None and term.values["currTerm"] < 0:  # MemberState starts at term 0 and only rises
        found.append(Problem(term.file, 0, f"currTerm {term.values['currTerm']} is negative: terms start at 0",
                             "dledger-currterm"))
    elif term.values is not None and last is not None and term.values["currTerm"] < last[1]:
        found.append(Problem(term.file, 0, f"currTerm {term.values['currTerm']} is below the last entry's term "
                             f"{last[1]}", "dledger-currterm"))
    return found


def recovery_preview(store, data_errors: list[Problem], stop: tuple[int, str] | None,
                     rewrite: tuple[int, Problem] | None, last: tuple[int, int, int] | None,
                     newer: list[Problem] = ()) -> str:
    """One line: where ``DLedgerMmapFileStore.recover`` would stop reading entries and why, what it truncates,
    and whether it rewrites the index. Recovery reads from the third-last data file on (after checking that
    file's first entry against the index); damage before it is not read there (dispatch and consumers meet it)."""
    log = store.commitlog
    data = [s for s in log.segments if s.entry_header]
    begin = data[max(len(data) - 3, 0)] if data else None
    firsts = []
    for p in data_errors:
        seg = next((s for s in data if s.file == p.file), None)
        if seg is not None:
            firsts.append((seg.start_offset + p.offset, f"{p.file} @ {p.offset}: {p.reason}"))
    if stop is not None:
        file, at = log.place(stop[0])
        firsts.append((stop[0], f"{file} @ {at}: entry {stop[1]}"))
    unread = [f for f in firsts if begin is not None and f[0] < begin.start_offset]
    firsts = [f for f in firsts if f not in unread]
    at = min(firsts)[0] if firsts else None
    notes = []
    if rewrite is not None and (at is None or rewrite[0] < at):
        notes.append(f"it rewrites the index from {rewrite[1].file} @ {rewrite[1].offset}")
    if unread:
        notes.append(f"it starts at {begin.file} (the third-last data file) and does not read the damage before it "
                     f"(first at pos {min(unread)[0]}), which dispatch and consumers meet")
    end = store.max_offset()
    # a NOOP / CONFIG_CHANGE entry: valid for DLedger 0.4+, the recovery this line describes; 0.3.1.2's (RocketMQ's
    # up to 5.3.1: "magic <= CURRENT_MAGIC") stops at the first one it reads
    read = [(seg.start_offset + p.offset, p) for p in newer
            if (seg := next((s for s in data if s.file == p.file), None)) is not None
            and seg.start_offset >= begin.start_offset]
    if read and (at is None or min(read, key=lambda r: r[0])[0] < at):
        pos, p = min(read, key=lambda r: r[0])
        kind = p.reason.split(" entry", 1)[0].removeprefix("a ")
        notes.append(f"that is DLedger 0.4+'s recovery: DLedger 0.3.1.2 (RocketMQ's up to 5.3.1) would stop at the "
                     f"{kind} entry at pos {pos} ({p.file} @ {p.offset}) and truncate the data from there "
                     f"({max(end - pos, 0):,} bytes)")
    tail = "".join(f"; {n}" for n in notes)
    if at is not None:
        why = min(firsts)[1]
        return (f"DLedger recovery would stop at pos {at} ({why}) and truncate the data from there"
                f"{f' ({end - at:,} bytes)' if end > at else ''}{tail}")
    if last is None:
        return f"DLedger recovery finds no entry (an empty log){tail}"
    return (f"DLedger recovery would read every entry up to Raft index {last[0]} (term {last[1]}), ending at pos "
            f"{last[2]}: nothing truncated{tail}")
