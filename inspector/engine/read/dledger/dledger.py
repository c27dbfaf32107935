"""A DLedger store (spec part 2 §16) as one commitlog: where its files are, and its 48-byte entry headers.

A DLedger broker's log is ``commitlog/`` below ``dividedCommitlogOffset`` and ``dledger-<id>/data/`` from
there on, one offset space; each data file holds entries (48-byte header, then one commitlog record whose
PHYSICALOFFSET is the entry's pos + 48). :class:`~inspector.engine.read.commitlog.commitlog.CommitLog` reads both as
segments; a data file's :class:`Segment` has ``entry_header`` = 48, which the careful step and the walks
step over. The record offsets (pos + 48) are what the consume queues, index files and msgIds hold.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from inspector.engine.model.broker_config import BrokerConfig
from inspector.engine.model.errors import StoreError
from inspector.engine.model.files import read_regular
from inspector.engine.model.records import Message, Problem, Segment
from inspector.engine.read.commitlog.mapped import (
    MappedFile,
    allocated_end,
    offset_named_entries,
)
from inspector.engine.read.commitlog.segment_files import not_file_problems
from inspector.engine.read.dledger.members import MemberChoice, choose_member
from inspector.engine.read.store.census import DLEDGER_PREFIX
from inspector.engine.scan.record_layout import ENTRY_STRUCT as _HEADER
from inspector.engine.scan.record_layout import HEADER_DTYPE, UNIT_DTYPE  # noqa: F401 - the dledger room's names
from parsers.dledger import (
    END_MAGIC,
    ENTRY_HEADER_SIZE,
    HEADER_SIZE_FIELD_MIN,
    MAGIC_1,
    NEWER_MAGICS,
    CurrTerm,
    DLedgerCheckpoint,
    SchemaError,
)
from parsers.dledger import INDEX_UNIT_SIZE as UNIT_SIZE

ENTRY_MAGICS = (MAGIC_1, *NEWER_MAGICS)  # every entry DLedger's recovery accepts (0.4.0's DLedgerEntryType.isValid)


@dataclass(frozen=True)
class EntryHeader:
    """The 48 bytes before a record (``DLedgerEntryCoder.encode``)."""

    magic: int
    size: int
    index: int
    term: int
    pos: int
    channel: int
    chain_crc: int
    body_crc: int
    body_length: int


def read_header(buf, at: int, limit: int) -> EntryHeader | None:
    """The entry header at ``at``, or None when fewer than 48 bytes remain."""
    if limit - at < ENTRY_HEADER_SIZE:
        return None
    return EntryHeader(*_HEADER.unpack_from(buf, at))


def header_fault(header: EntryHeader | None, at: int, limit: int, file_start: int) -> tuple[str, str] | None:
    """(reason, code) of the first of DLedger recovery's checks the header fails, or None.

    Recovery (``DLedgerMmapFileStore.recover``) checks pos == file start + position, body length + 48 == size,
    a known magic, size > 44, in that order; we check the magic first (a wrong magic makes the rest noise)."""
    if header is None:
        return f"an entry header needs 48 bytes, {limit - at} remain", "dledger-torn-entry"
    if header.magic != MAGIC_1 and header.magic not in NEWER_MAGICS:
        return (f"entry magic is {header.magic}, not 1 (MAGIC_1) or -1 (end of file) "
                f"(nor 2 NOOP or 3 CONFIG_CHANGE, which DLedger 0.4.0+ writes)", "dledger-magic")
    if header.size <= HEADER_SIZE_FIELD_MIN:
        return f"entry size {header.size} is not more than {HEADER_SIZE_FIELD_MIN}", "dledger-size"
    if header.pos != file_start + at:
        return (f"entry pos field is {header.pos} but the entry is at {file_start + at} (DLedger recovery stops: "
                f"pos {header.pos} != {file_start + at})", "dledger-pos")
    if header.body_length + ENTRY_HEADER_SIZE != header.size:
        return (f"entry size {header.size} != body length {header.body_length} + 48", "dledger-body-length")
    if header.size > limit - at:
        return f"entry of {header.size} bytes runs past the end of the file ({limit - at} remain)", "dledger-torn-entry"
    return None


def newer_entry(header: EntryHeader) -> str:
    """What a NOOP or CONFIG_CHANGE entry is, for the finding that steps over it (no record follows its header)."""
    kind = NEWER_MAGICS[header.magic]
    what = "no body" if header.body_length == 0 else f"a {header.body_length}-byte body that is no commitlog record"
    return (f"a {kind} entry (DLedger 0.4+; magic {header.magic}): Raft index {header.index}, term {header.term}, "
            f"{what}; stepped over. DLedger 0.3.1.2, the one RocketMQ up to 5.3.1 ships, writes only magic 1 "
            f"and its recovery stops at this entry")


def is_end_marker(buf, at: int, limit: int) -> bool:
    return limit - at >= 4 and struct.unpack_from(">i", buf, at)[0] == END_MAGIC


def with_entry(msg: Message, header: EntryHeader) -> Message:
    """The message with its entry's Raft index and term beside it."""
    return replace(msg, raft_index=header.index, raft_term=header.term)


def header_before(buf, record_position: int, limit: int, file_start: int) -> EntryHeader | None:
    """The header of the entry whose record starts at ``record_position``, when one is there and sound."""
    at = record_position - ENTRY_HEADER_SIZE
    if at < 0:
        return None
    header = read_header(buf, at, limit)
    sound = header is not None and header.magic == MAGIC_1  # a NOOP or CONFIG_CHANGE entry frames no record
    return header if sound and header_fault(header, at, limit, file_start) is None else None


def homes(root: Path) -> list[Path]:
    """The ``dledger-<id>/`` folders of a store root that hold a ``data/`` folder, by name."""
    try:
        return sorted(p for p in root.iterdir() if p.name.startswith(DLEDGER_PREFIX) and (p / "data").is_dir())
    except OSError:
        return []


def member_root(path: Path) -> Path | None:
    """The store root when ``path`` is a DLedger member folder (``dledger-n0``) or its ``data/`` or ``index/``, or
    the ``commitlog/`` of a DLedger store (its old part alone would be half the log)."""
    if path.name in ("data", "index") and path.parent.name.startswith(DLEDGER_PREFIX):
        return path.parent.parent
    if path.name == "commitlog" and homes(path.parent):
        return path.parent
    if path.name.startswith(DLEDGER_PREFIX) and (path / "data").is_dir():
        return path.parent
    return None


def opened_member(path: Path) -> str | None:
    """``dledger-n1`` when ``path`` is that member folder or its ``data/`` or ``index/`` (opening it reads it)."""
    if path.name in ("data", "index") and path.parent.name.startswith(DLEDGER_PREFIX):
        return path.parent.name
    return path.name if path.name.startswith(DLEDGER_PREFIX) and (path / "data").is_dir() else None


def dledger_folders(root: Path, member: str | None = None, config: BrokerConfig | None = None,
                    opened: str | None = None) -> tuple[list[tuple[Path, str]], str, MemberChoice] | None:
    """The folders of one DLedger log (``commitlog/`` below, ``dledger-<id>/data`` above), the data folder's
    label and how its member was chosen; None for a plain store. With several members (a test cluster on one
    disk, a copy of a group's disks) one is read: see :func:`choose_member`."""
    choice = choose_member([p.name for p in homes(root)], member, config, str(root), opened)
    if choice is None:
        return None
    data = f"{choice.read}/data"
    return [(root / "commitlog", "commitlog"), (root / data, data)], data, choice


MAX_PROPERTIES_BYTES = 1 << 20  # checkpoint and currterm are two short lines; never slurp a huge or endless file


@dataclass(frozen=True)
class IndexRun:
    """The used units of one ``index/`` file: unit number of its first unit (file name / 32) and the units."""

    file: str  # relative to the store root
    first: int
    units: np.ndarray  # UNIT_DTYPE


INDEX_CHUNK_UNITS = 1 << 16  # 2 MiB of index units at a time


@dataclass(frozen=True)
class IndexChunk:
    """Consecutive used units of one ``index/`` file: the unit number of ``units[0]`` (file name / 32 + place)
    and a view into the mapped file (see :meth:`DLedgerMember.index_chunks`)."""

    file: str
    first: int
    units: np.ndarray  # UNIT_DTYPE


@dataclass(frozen=True)
class PropertiesFile:
    """``checkpoint`` or ``currterm`` as DLedger reads it: the values, or why they cannot be read."""

    file: str
    values: dict | None
    fault: str | None  # None: read; else the reason, naming the line or byte


class DLedgerMember:
    """``<root>/dledger-<id>/`` read-only: its index files (units until the zeros a preallocated file holds),
    ``checkpoint`` and ``currterm`` (spec part 2 §16)."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root, self.home = root, home
        self.label = home.name

    def index_files(self) -> tuple[list[tuple[int, Path]], list[Path]]:
        return offset_named_entries(self.home / "index")

    def not_index_files(self, not_files: list[Path] | None = None) -> list[Problem]:
        """An error for each entry of ``index/`` named like an index file that is no regular file (a FIFO, a device,
        a folder: never opened), the rule the timer log's and the commitlog's folders follow; verify reports them as
        files it cannot read, info among the store's problems."""
        found = self.index_files()[1] if not_files is None else not_files
        return not_file_problems(f"{self.label}/index", found, "an index file", "unreadable-file")

    def index_runs(self) -> tuple[list[IndexRun], list[tuple[str, str]]]:
        """The used units of each index file, in name order, and (file, reason) of each file not readable. A
        copy of every unit (32 bytes an entry): for the checks that must look at all of them at once; a pass
        in order takes :meth:`index_chunks`."""
        runs: list[IndexRun] = []
        unreadable: list[tuple[str, str]] = []
        by_file: dict[str, list[np.ndarray]] = {}
        for chunk in self.index_chunks(unreadable):
            if chunk.file not in by_file:
                by_file[chunk.file] = []
                runs.append(IndexRun(chunk.file, chunk.first, np.zeros(0, UNIT_DTYPE)))
            by_file[chunk.file].append(chunk.units.copy())
        runs = [replace(r, units=np.concatenate(by_file[r.file])) for r in runs]
        return runs, unreadable

    def index_chunks(self, unreadable: list[tuple[str, str]] | None = None, chunk_units: int = INDEX_CHUNK_UNITS,
                     start_unit: int = 0) -> Generator[IndexChunk, None, None]:
        """The used units of each index file, in name order, at most ``chunk_units`` at a time: views into the
        mapped file, valid until the next chunk (whose pages the one before gives back, so a pass over 8 GiB of
        entries holds one chunk). A file yields an empty chunk first (its place, also when it holds no unit);
        (file, reason) of a file not readable goes to ``unreadable``. ``start_unit``: begin at that unit number
        (= Raft index: DLedger writes entry i's unit at i * 32), skipping the files before it."""
        files, not_files = self.index_files()
        if unreadable is not None and not start_unit:  # a FIFO, device or folder named like one: never opened
            unreadable += [(p.file, p.reason) for p in self.not_index_files(not_files)]
        for start, path in files:
            rel = f"{self.label}/index/{path.name}"
            if start_unit and _file_size(path) // UNIT_SIZE + start // UNIT_SIZE <= start_unit:
                continue  # every unit of this file comes before start_unit
            try:
                mf = MappedFile(path, rel)
            except StoreError as e:
                if unreadable is not None:
                    unreadable.append((rel, e.reason))
                continue
            try:
                # DLedger's index files are preallocated: past the last allocated extent is a hole of zeros, not
                # read (a 160 MiB file holding a few units costs nothing)
                allocated = allocated_end(path)
                whole = (mf.size if allocated is None else min(mf.size, allocated + UNIT_SIZE - 1)) // UNIT_SIZE
                units = np.frombuffer(mf.buf, dtype=UNIT_DTYPE, count=whole) if whole else np.zeros(0, UNIT_DTYPE)
                used = _used_units(units, chunk_units)
                first = start // UNIT_SIZE
                yield IndexChunk(rel, first, units[:0])  # the file's place, even when it holds no unit
                for at in range(max(0, start_unit - first), used, chunk_units):
                    end = min(used, at + chunk_units)
                    yield IndexChunk(rel, first + at, units[at:end])
                    mf.release(at * UNIT_SIZE, end * UNIT_SIZE)
                del units
            finally:
                mf.close()

    def properties(self, name: str, schema) -> PropertiesFile:
        """``name`` parsed with ``schema`` (DLedgerCheckpoint or CurrTerm); a missing file is values None."""
        rel = f"{self.label}/{name}"
        try:
            data = read_regular(self.home / name, MAX_PROPERTIES_BYTES)
        except FileNotFoundError:
            return PropertiesFile(rel, None, None)
        except OSError as e:
            return PropertiesFile(rel, None, f"cannot read: {e.strerror or e}")
        try:
            return PropertiesFile(rel, dict(schema.parse(data)), None)
        except SchemaError as e:
            line = data[: _bad_at(data)].count(b"\n") + 1
            return PropertiesFile(rel, None, f"line {line}: not what DLedger writes ({_first_line(str(e))})")


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 1 << 62  # not skipped: opening it says what is wrong


def _used_units(units: np.ndarray, block: int) -> int:
    """One past the last unit with a magic (DLedger writes units in order; zeros after the last are unused),
    looked for from the end a block at a time (no per-unit array over the whole file)."""
    end = len(units)
    while end > 0:
        start = max(0, end - block)
        written = np.flatnonzero(units["magic"][start:end] != 0)
        if written.size:
            return start + int(written[-1]) + 1
        end = start
    return 0


def _bad_at(data: bytes) -> int:
    """Where the first line that is no ``key=value`` (or no number) starts: the end of the good lines."""
    at = 0
    for line in data.split(b"\n")[:-1]:
        key, sep, value = line.partition(b"=")
        if not sep or (key in (b"endIndex", b"committedIndex", b"currTerm") and not value.lstrip(b"-").isdigit()):
            return at
        at += len(line) + 1
    return at


def _first_line(text: str) -> str:
    return text.strip().splitlines()[-1] if text.strip() else text


def member_of(root: Path, data_label: str | None) -> DLedgerMember | None:
    """The member whose ``data/`` the store reads (``Store.dledger_data``), or None for a plain store."""
    if not data_label:
        return None
    return DLedgerMember(root, root / data_label.split("/")[0])


def member_view(root: Path, data_label: str | None, segments: Sequence[Segment],
                message_at: Callable[[int], Message]) -> dict | None:
    """A DLedger store's own facts for the overviews (info, TUI, web; None for a plain store): the member whose
    ``data_label`` folder is read, where DLedger positions begin, the entries the index holds, ``checkpoint`` and
    ``currterm``, and the term timeline (each leader change: term, first Raft index, first pos, its record's
    offset and store time from ``message_at``), read from the index units (one pass, no walk of the data).
    ``segments``: the commitlog's (those with an entry header are the member's data files)."""
    member = member_of(root, data_label)
    if member is None:
        return None
    data = [s for s in segments if s.entry_header]
    entries, first_index, last_index, changes, more = _index_timeline(member, terms_shown=TERMS_SHOWN)
    terms = []
    for term_, index, pos in changes:
        try:
            stored = message_at(pos + ENTRY_HEADER_SIZE).store_timestamp
        except StoreError:
            stored = None
        terms.append({"term": term_, "first_index": index, "first_pos": pos,
                      "first_record_offset": pos + ENTRY_HEADER_SIZE, "first_store_timestamp": stored})
    cp = member.properties("checkpoint", DLedgerCheckpoint)
    term = member.properties("currterm", CurrTerm)
    return {
        "member": member.label,
        "data_files": len(data),
        "divided_commitlog_offset": data[0].start_offset if data else None,
        "entries": entries,
        "first_index": first_index,
        "last_index": last_index,
        "checkpoint": cp.values, "checkpoint_error": cp.fault,
        "currterm": term.values, "currterm_error": term.fault,
        "terms": terms,
        "terms_more": more,  # leader changes past the TERMS_SHOWN listed
    }


TERMS_SHOWN = 1000
"""Leader changes the timeline lists; past them only a count (each costs a record read for its store time, and
a damaged index can flip terms at every unit)."""


def _index_timeline(member: DLedgerMember, chunk_units: int = INDEX_CHUNK_UNITS, terms_shown: int = TERMS_SHOWN
                    ) -> tuple[int, int | None, int | None, list[tuple[int, int, int]], int]:
    """(entries, first and last Raft index, (term, Raft index, pos) of each term's first entry, up to
    ``terms_shown`` of them, and how many more there are) of the units the index holds, one chunk at a time
    (memory does not grow with the log)."""
    entries, first, last, prev_term, more = 0, None, None, None, 0
    changes: list[tuple[int, int, int]] = []
    for chunk in member.index_chunks(chunk_units=chunk_units):
        units = chunk.units[np.isin(chunk.units["magic"], ENTRY_MAGICS)]  # NOOP / CONFIG_CHANGE count (0.4+)
        if not len(units):
            continue
        term = units["term"].astype(np.int64)
        starts = np.flatnonzero(np.diff(term) != 0) + 1
        if prev_term != int(term[0]):
            starts = np.concatenate([[0], starts])
        room = max(0, terms_shown - len(changes))
        for k in starts[:room].tolist():
            changes.append((int(term[k]), int(units["index"][k]), int(units["pos"][k])))
        more += max(0, len(starts) - room)
        entries += len(units)
        first = int(units["index"][0]) if first is None else first
        last, prev_term = int(units["index"][-1]), int(term[-1])
    return entries, first, last, changes, more
