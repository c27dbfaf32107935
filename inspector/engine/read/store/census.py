"""A census of a store root: every file and folder under it, by kind, with sizes, and what does not belong.

The kinds are those a broker leaves (``STORE_FORMAT.md`` §1, ``STORE_FORMAT_PART2.md`` §19-§20). Sizes are
given twice, apparent (``st_size``) and allocated (``st_blocks``): consume-queue and preallocated commitlog files
are sparse, so a 6,000,000-byte queue file may hold one 4 KiB page. Names are judged by the rules of
``strays.py`` (one place says what a stray is); the census adds what only a listing of every entry can see: a
commitlog file whose size is not the others' (the broker's ``MappedFileQueue.load`` refuses it and the broker does
not start; an empty stray file is apache/rocketmq#3257), entries of the wrong type, and root entries no broker
writes; and the broker's load checks of the queue folders, by the rules verify applies (``load_checks.py``: a
queue file of another length than the one size, a topic folder where its queue type is not loaded from). Cost:
``scandir`` and ``stat``, and the topic configs read when there are queue folders (the one file opened), so
16,000 queue folders take a fraction of a second.

Given the broker's configuration, the commitlog is counted where ``storePathCommitLog`` (and
``readOnlyCommitLogStorePaths``) put it: outside the root, or split over several folders, all of them judged as
one log (one segment size). A ``commitlog/`` left under the root that the configuration does not name is a
warning: that broker neither reads nor deletes it. Nothing else can be moved: 5.3.1 keeps the consume queues,
index, config and the timer store under ``storePathRootDir`` (``StorePathConfigHelper``,
``TimerMessageStore.getTimerLogPath(rootDir)`` = ``<root>/timerlog``; no broker setting names another folder).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path

from inspector.engine.model.bounds import decimal_name
from inspector.engine.model.broker_config import BrokerConfig
from inspector.engine.model.records import Problem
from inspector.engine.read.commitlog.segment_files import EMPTY_SEGMENT_REASON
from inspector.engine.read.config.settings import commitlog_folders, commitlog_key
from inspector.engine.read.dledger.members import MemberChoice, choose_member
from inspector.engine.read.queues.batchconsumequeue import BATCH_DIR
from inspector.engine.read.queues.consumequeue import queue_files_problems
from inspector.engine.read.store.load_checks import FOLDER_TYPES, configured_topics, queue_type_problems
from inspector.engine.read.store.strays import (
    INDEX_NAME_WIDTH,
    index_entry_problem,
    offset_entry_problem,
    offset_name,
    queue_entry_problem,
    topic_entry_problem,
)
from parsers.consumequeue import BCQ_DEFAULT_FILE_SIZE

UNKNOWN = "unknown"
_NAME = attrgetter("name")
_LISTED = 10_000  # findings listed; a root of a million strays says so in 10,000 lines and a count
# entries counted under stray folders, all walks together: a broker.conf whose storePathCommitLog is "/" makes
# the whole file system a stray folder of the log (the long fuzz run: `info` ran 34 s walking 780,000 files)
_WALKED = 20_000

# root entry -> (kind, what it is, is a folder); the order is the table's
ROOT_KINDS: dict[str, tuple[str, str, bool]] = {
    "commitlog": ("commitlog", "commitlog segments (commitlog/<20-digit offset>)", True),
    "consumequeue": ("consumequeue", "consume queues (consumequeue/<topic>/<queue>/<20-digit offset>)", True),
    "consumequeue_ext": ("consumequeue_ext", "consume-queue extension files", True),
    "batchconsumequeue": ("batchconsumequeue", "batch consume queues (46-byte units)", True),
    "consumequeue_rocksdb": ("consumequeue_rocksdb", "RocksDB consume queue (separate path)", True),
    "index": ("index", "index files (index/<yyyyMMddHHmmssSSS>)", True),
    "checkpoint": ("checkpoint", "checkpoint", False),
    "abort": ("abort", "abort marker (broker running or crashed)", False),
    "abort.bak": ("abort", "abort marker (broker running or crashed)", False),
    "lock": ("lock", "lock file", False),
    "config": ("config", "config files (config/*.json, .bak, timer and transaction metrics)", True),
    "timerlog": ("timerlog", "timer log segments (timerlog/<20-digit offset>)", True),
    "timerwheel": ("timerwheel", "timer wheel", False),
    "compaction": ("compaction", "compaction log and queues (compacted topics)", True),
    "tiered_index_file": ("tiered_index_file", "tiered-store index files", True),
    "RocksDBMessageStore": ("RocksDBMessageStore", "RocksDB message index (RIP-82; counted, not read)", True),
    "kvStore": ("kvStore", "RocksDB key-value store (pop consumers; counted, not read)", True),
    "epochFileCheckpoint": ("epochFileCheckpoint", "controller-mode epoch checkpoint", False),
    "epochFileCheckpoint.bak": ("epochFileCheckpoint", "controller-mode epoch checkpoint", False),
    "brokerIdentity": ("brokerIdentity", "controller-mode broker identity", False),
    "brokerIdentity-temp": ("brokerIdentity", "controller-mode broker identity", False),
    "transaction": ("transaction", "legacy transaction store (transaction/statetable, redolog)", True),
}
DLEDGER_PREFIX = "dledger-"  # dledger-<selfId>/: data/, index/, checkpoint, currterm (Part 2 §16)
_DLEDGER = ("dledger", "DLedger commitlog (dledger-<id>/: data files read as the log, index, checkpoint, currterm)")
OWN_PREFIX = ".rmq-inspect-"  # rebuild --in-place's journal, staging and backups (maintain/staging.py)
_OWN = ("rmq-inspect", "rmq-inspect's rebuild journal, staging and backups")
# config/: fastjson files, two binary/no-suffix files, and the RocksDB databases of storeType=defaultRocksDB
_CONFIG_FILES = frozenset({"timercheck", "timermetrics", "transactionMetrics"})
_CONFIG_ROCKSDB = frozenset({"topics", "subscriptionGroups", "consumerOffsets", "rdb"})
_CONFIG_ROCKSDB_KIND = ("config-rocksdb", "RocksDB config databases (config/topics/, consumerOffsets/, rdb/ ...)")
_ROCKSDB_CQ_KIND = ("consumequeue", "consume queue as a RocksDB database (storeType=defaultRocksDB)")
# folders of <topic>/<queue id>/<20-digit offset> files -> what a file there is
TOPIC_FOLDERS = {"consumequeue": "consume-queue file", "consumequeue_ext": "consume-queue extension file",
                 "batchconsumequeue": "batch consume-queue file"}
_KIND_ORDER = [*dict.fromkeys(k for k, _, _ in ROOT_KINDS.values()), _CONFIG_ROCKSDB_KIND[0], _DLEDGER[0], _OWN[0],
               UNKNOWN]


@dataclass(frozen=True)
class KindCount:
    """One kind of entry: how many files and folders (the kind's own folder included), and their bytes."""

    kind: str
    what: str
    files: int
    folders: int
    apparent_bytes: int
    allocated_bytes: int


@dataclass(frozen=True)
class Census:
    """Every entry under a store root, by kind; ``problems`` are the unknown and misplaced ones (``unlisted``
    more past the first 10,000)."""

    root: str
    kinds: tuple[KindCount, ...]
    problems: tuple[Problem, ...]
    unlisted: int = 0
    moved: tuple[str, ...] = ()  # what the broker's configuration put elsewhere than the root's usual folders
    dledger: MemberChoice | None = None  # the DLedger member a store opened here reads, and the ones it does not

    @property
    def errors(self) -> list[Problem]:
        """What the broker would not start with (an empty or odd-sized commitlog or queue file, a name past 2^63,
        a topic's queues in the folder of another queue type)."""
        return [p for p in self.problems if p.severity == "error"]

    def kind(self, name: str) -> KindCount | None:
        return next((k for k in self.kinds if k.kind == name), None)

    @property
    def total(self) -> KindCount:
        return KindCount("total", "everything under the root", sum(k.files for k in self.kinds),
                         sum(k.folders for k in self.kinds), sum(k.apparent_bytes for k in self.kinds),
                         sum(k.allocated_bytes for k in self.kinds))


@dataclass
class _Tally:
    what: str
    files: int = 0
    folders: int = 0
    apparent: int = 0
    allocated: int = 0


@dataclass
class _Walk:
    root: str
    tallies: dict[str, _Tally] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    unlisted: int = 0
    # the commitlog folders broker.conf names (labels: relative to the root when under it), None: <root>/commitlog
    commitlog_at: list[str] | None = None
    dledger_members: list[str] = field(default_factory=list)  # dledger-<id>/ folders holding data/
    # consumequeue/ and batchconsumequeue/: each queue folder's (file, length) in name order, for the load checks
    queue_files: dict[str, list[list[tuple[str, int]]]] = field(default_factory=dict)
    queue_topics: dict[str, set[str]] = field(default_factory=dict)  # the topics with a queue folder there
    walked: int = 0  # entries ``whole`` counted, against _WALKED

    # -- bookkeeping ------------------------------------------------------------------------------------------

    def tally(self, kind: str, what: str) -> _Tally:
        found = self.tallies.get(kind)
        if found is None:
            found = self.tallies[kind] = _Tally(what)
        return found

    def note(self, problem: Problem) -> None:
        if len(self.problems) < _LISTED:
            self.problems.append(problem)
        else:
            self.unlisted += 1

    def listing(self, rel: str) -> list[os.DirEntry]:
        """The entries of a folder by name; an unreadable one is a finding (its readers report it too)."""
        try:
            with os.scandir(os.path.join(self.root, rel) if rel else self.root) as it:  # rel may be absolute
                return sorted(it, key=_NAME)
        except OSError as e:
            self.note(Problem(rel, 0, f"cannot list this folder: {e.strerror or e}", "unreadable", "warning"))
            return []

    def stat(self, entry: os.DirEntry, rel: str, follow: bool = True) -> os.stat_result | None:
        try:
            return entry.stat(follow_symlinks=follow)
        except OSError as e:
            self.note(Problem(rel, 0, f"cannot stat: {e.strerror or e}", "unreadable", "warning"))
            return None

    def add_file(self, tally: _Tally, st: os.stat_result | None) -> None:
        tally.files += 1
        if st is not None:
            tally.apparent += st.st_size
            blocks = getattr(st, "st_blocks", None)  # not on Windows: there, apparent is all we know
            tally.allocated += st.st_size if blocks is None else blocks * 512

    # -- kinds ------------------------------------------------------------------------------------------------

    def whole(self, tally: _Tally, entry: os.DirEntry, rel: str) -> None:
        """``entry`` and everything under it, into ``tally`` (symlinks not followed below the root: no loops)."""
        stack = [(entry, rel)]
        while stack:
            if self.walked >= _WALKED:  # said once, where the count stopped: the sizes are lower bounds
                if self.walked == _WALKED:
                    self.note(Problem(rel, 0, f"stopped counting after {_WALKED:,} entries under stray folders "
                                      f"(here {rel}): the unknown entries' counts and sizes are lower bounds",
                                      "census-cut"))
                    self.walked += 1
                return
            self.walked += 1
            item, path = stack.pop()
            if entry_is_dir(item, follow=item is entry):
                tally.folders += 1
                stack.extend((child, f"{path}/{child.name}") for child in self.listing(path)
                             if self.commitlog_at is None or f"{path}/{child.name}" not in self.commitlog_at)
            else:
                self.add_file(tally, self.stat(item, path, follow=item is entry))

    def stray(self, entry: os.DirEntry, rel: str, problem: Problem) -> None:
        self.note(problem)
        self.whole(self.tally(UNKNOWN, "unknown or misplaced entries"), entry, rel)

    def offset_files(self, tally: _Tally, rel: str, what: str, lengths: list[tuple[str, int]] | None = None) -> None:
        """A folder of files named by a 20-digit offset (a queue folder, timerlog/); ``lengths`` gets each
        file's (path, length)."""
        tally.folders += 1
        for entry in self.listing(rel):
            path = f"{rel}/{entry.name}"
            problem = offset_entry_problem(path, entry.name, what)
            if problem is None and entry_is_dir(entry):
                problem = Problem(path, 0, f"a folder where {what}s are kept: skipped", "wrong-type", "warning")
            if problem is not None:
                self.stray(entry, path, problem)
                continue
            st = self.stat(entry, path)
            self.add_file(tally, st)
            if lengths is not None and st is not None:
                lengths.append((path, st.st_size))

    def commitlog(self, kind: str, what: str, folders: list[str]) -> None:
        """Segments, and what stops a broker's load (``MappedFileQueue.doLoad`` takes every entry of the folder
        and refuses one whose length is not the segment size): an empty file (apache/rocketmq#3257), a file of
        another size than the segments', a folder. Several folders (``storePathCommitLog=a,b``) are one log."""
        tally = self.tally(kind, what)
        tally.folders += len(folders)
        files: list[tuple[os.DirEntry, str, int, Problem | None]] = []
        for folder, entry in ((rel, e) for rel in folders for e in self.listing(rel)):
            path = f"{folder}/{entry.name}"
            if entry_is_dir(entry):  # whatever its name: the load takes it for a segment of the wrong length
                self.stray(entry, path, Problem(path, 0, f"a folder in {folder}/: the broker's load takes it for a "
                                                "segment, refuses it and does not start; move it away",
                                                "not-a-segment-file"))  # the log reader's code for it
                continue
            st = self.stat(entry, path)
            size = -1 if st is None else st.st_size
            if size == 0:  # whatever its name
                self.stray(entry, path, Problem(path, 0, EMPTY_SEGMENT_REASON.format(folder=folder), "empty-segment"))
                continue
            files.append((entry, path, size, offset_entry_problem(path, entry.name, "commitlog segment")))
        sizes = Counter(size for _, _, size, problem in files if size > 0 and problem is None)
        usual = max(sizes, key=lambda s: (sizes[s], s)) if sizes else None
        for entry, path, size, problem in files:
            odd = usual is not None and size > 0 and size != usual
            if problem is not None and odd and problem.severity != "error":
                problem = Problem(path, 0, f"not a commitlog segment name, and {size} bytes where the segments have "
                                  f"{usual}: the broker's load refuses it and does not start", "segment-size")
            if problem is not None:
                self.stray(entry, path, problem)
                continue
            self.add_file(tally, self.stat(entry, path))
            if odd:  # still a segment: counted, and said
                self.note(Problem(path, 0, f"{size} bytes where the other segments have {usual}: the broker's "
                                  "load refuses a segment of another length and does not start", "segment-size"))

    def topic_folders(self, kind: str, what: str, rel: str) -> None:
        """consumequeue/ (or _ext, batch): <topic>/<queue id>/<20-digit offset>; a RocksDB consumequeue/ whole."""
        entries = self.listing(rel)
        if rel == "consumequeue" and any(e.name == "CURRENT" and not entry_is_dir(e) for e in entries):
            tally = self.tally(*_ROCKSDB_CQ_KIND)
            tally.folders += 1
            for entry in entries:
                self.whole(tally, entry, f"{rel}/{entry.name}")
            return
        tally = self.tally(kind, what)
        tally.folders += 1
        file_kind = TOPIC_FOLDERS[rel]
        for topic in entries:
            topic_rel = f"{rel}/{topic.name}"
            problem = topic_entry_problem(topic_rel, entry_is_dir(topic))
            if problem is not None:
                self.stray(topic, topic_rel, problem)
                continue
            tally.folders += 1
            for queue in self.listing(topic_rel):
                queue_rel = f"{topic_rel}/{queue.name}"
                problem = queue_entry_problem(queue_rel, queue.name, entry_is_dir(queue))
                if problem is not None:
                    self.stray(queue, queue_rel, problem)
                    continue
                lengths: list[tuple[str, int]] = []
                self.offset_files(tally, queue_rel, file_kind, lengths)
                if rel in FOLDER_TYPES:
                    self.queue_files.setdefault(rel, []).append(lengths)
                    self.queue_topics.setdefault(rel, set()).add(topic.name)

    def index(self, kind: str, what: str) -> None:
        tally = self.tally(kind, what)
        tally.folders += 1
        for entry in self.listing("index"):
            path = f"index/{entry.name}"
            problem = index_entry_problem(path, entry.name)
            if problem is None and entry_is_dir(entry):
                problem = Problem(path, 0, "a folder where index files are kept: skipped", "wrong-type", "warning")
            if problem is not None:
                self.stray(entry, path, problem)
            else:
                self.add_file(tally, self.stat(entry, path))

    def config(self, kind: str, what: str) -> None:
        tally = self.tally(kind, what)
        tally.folders += 1
        for entry in self.listing("config"):
            path = f"config/{entry.name}"
            if entry_is_dir(entry):
                if entry.name in _CONFIG_ROCKSDB:
                    self.whole(self.tally(*_CONFIG_ROCKSDB_KIND), entry, path)
                else:
                    self.stray(entry, path, Problem(path, 0, "a folder the broker does not keep in config/",
                                                    "unknown-file", "warning"))
            elif _config_file_name(entry.name):
                self.add_file(tally, self.stat(entry, path))
            elif entry.name.endswith(".tmp") and _config_file_name(entry.name[:-4]):
                # MixAll.string2File writes X.tmp, copies X to X.bak, then renames X.tmp to X: one left over is a
                # write the broker did not finish (it reads X, or X.bak)
                self.stray(entry, path, Problem(path, 0, f"an unfinished write of {entry.name[:-4]} (the broker "
                                                "writes X.tmp, then renames it to X): the broker reads "
                                                f"{entry.name[:-4]}, or its .bak", "config-tmp", "warning"))
            else:
                self.stray(entry, path, Problem(path, 0, "not a config file the broker writes (*.json, *.json.bak, "
                                                "timercheck, timermetrics, transactionMetrics)", "unknown-file",
                                                "warning"))

    def root_entry(self, entry: os.DirEntry) -> None:
        name = entry.name
        if name.startswith(DLEDGER_PREFIX) and entry_is_dir(entry):
            self.whole(self.tally(*_DLEDGER), entry, name)
            if os.path.isdir(os.path.join(entry.path, "data")):
                self.dledger_members.append(name)
            return
        if name.startswith(OWN_PREFIX):
            self.whole(self.tally(*_OWN), entry, name)
            return
        known = ROOT_KINDS.get(name)
        if self.commitlog_at is not None and name in self.commitlog_at:
            return  # a commitlog folder broker.conf names (e.g. log0/, log1/): counted with the others
        if known is None:
            self.stray(entry, name, _root_stray(name, entry_is_dir(entry)))
            return
        kind, what, is_folder = known
        if entry_is_dir(entry) != is_folder:
            self.stray(entry, name, Problem(name, 0, f"a {'file' if is_folder else 'folder'} where the broker keeps "
                                            f"a {'folder' if is_folder else 'file'}", "wrong-type", "warning"))
        elif name == "commitlog" and self.commitlog_at is None:
            self.commitlog(kind, what, ["commitlog"])
        elif name == "commitlog" and name not in self.commitlog_at:
            self.stray(entry, name, Problem(name, 0, "a commitlog/ folder the broker's configuration does not name "
                                            f"(storePathCommitLog: {', '.join(self.commitlog_at)}): that broker "
                                            "neither reads nor deletes it", "commitlog-unused", "warning"))
        elif name == "commitlog":
            pass  # a configured folder: counted with the others
        elif name in TOPIC_FOLDERS:
            self.topic_folders(kind, what, name)
        elif name == "index":
            self.index(kind, what)
        elif name == "config":
            self.config(kind, what)
        elif name == "timerlog":
            self.offset_files(self.tally(kind, what), name, "timer log segment")
        else:
            self.whole(self.tally(kind, what), entry, name)


def entry_is_dir(entry: os.DirEntry, follow: bool = True) -> bool:
    """``Path.is_dir``'s answer for a scandir entry (no stat call where the file system gives the type): False
    when it cannot be told."""
    try:
        return entry.is_dir(follow_symlinks=follow)
    except OSError:
        return False


def _root_stray(name: str, is_dir: bool) -> Problem:
    """An entry of the root no broker writes; named like a file of a data folder, it is said to be misplaced."""
    if not is_dir and offset_name(name) is not None:
        return Problem(name, 0, "named like a commitlog segment, but at the root: segments are read from commitlog/",
                       "misplaced", "warning")
    if not is_dir and decimal_name(name, INDEX_NAME_WIDTH) is not None:
        return Problem(name, 0, "named like an index file, but at the root: index files are read from index/",
                       "misplaced", "warning")
    return Problem(name, 0, "not part of a RocketMQ store (spec part 2 §20)", "unknown-file", "warning")


def _config_file_name(name: str) -> bool:
    base = name[:-4] if name.endswith(".bak") else name
    return base.endswith(".json") or base in _CONFIG_FILES


def census(root: str | Path, broker_config: BrokerConfig | None = None, dledger_member: str | None = None) -> Census:
    """Every file and folder under ``root``, classified (scandir and stat; of the files only the topic configs
    are read, for the queue-type check). With the
    broker's configuration the commitlog is counted in the folders it names (a missing one is ``BadInput``).
    Several DLedger members: a warning names the one a store opened with ``dledger_member`` (or the broker
    config's dLegerSelfId) reads, and the ones it does not."""
    walk = _Walk(os.fspath(root))
    folders = commitlog_folders(Path(root), broker_config)
    moved: tuple[str, ...] = ()
    if folders is not None:
        walk.commitlog_at = [label for _, label in folders]
        key = commitlog_key(broker_config)
        moved = (f"commitlog in {', '.join(walk.commitlog_at)} ({key}, {broker_config.file} line "
                 f"{broker_config.lines.get(key, 0)})",)
    for entry in walk.listing(""):
        walk.root_entry(entry)
    if walk.commitlog_at is not None:
        walk.commitlog(*ROOT_KINDS["commitlog"][:2], walk.commitlog_at)
    for problem in _load_problems(walk, Path(root), broker_config):
        walk.note(problem)
    choice = choose_member(walk.dledger_members, dledger_member, broker_config, os.fspath(root))
    members = choice.problem() if choice is not None else None
    if members is not None:
        walk.note(members)
    order = {kind: i for i, kind in enumerate(_KIND_ORDER)}
    kinds = tuple(KindCount(kind, t.what, t.files, t.folders, t.apparent, t.allocated)
                  for kind, t in sorted(walk.tallies.items(), key=lambda kt: order.get(kt[0], len(order))))
    return Census(os.fspath(root), kinds, tuple(walk.problems), walk.unlisted, moved, choice)


def _load_problems(walk: _Walk, root: Path, broker_config: BrokerConfig | None) -> list[Problem]:
    """The broker's load checks on the listing, by the rules verify applies (load_checks.py): every queue file's
    length against the one size, and (reading the topic configs, the one file the census opens) each topic
    folder against its queue type."""
    configured = broker_config.mappedFileSizeConsumeQueue if broker_config is not None else None
    found = queue_files_problems(walk.queue_files.get("consumequeue", []), configured)
    found += queue_files_problems(walk.queue_files.get(BATCH_DIR, []), None, None, BCQ_DEFAULT_FILE_SIZE)
    found = [p for p in found if p.severity == "error"]  # what stops the load (an empty last file too: verdicts.py)
    if walk.queue_topics:
        found += queue_type_problems(configured_topics(root, broker_config), walk.queue_topics)
    return found


def census_view(c: Census) -> dict:
    """The census as JSON (the CLI's ``--json``, the web API): the field names of ``problem_view``."""
    total = c.total
    return {"root": c.root,
            "kinds": [{"kind": k.kind, "what": k.what, "files": k.files, "folders": k.folders,
                       "apparent_bytes": k.apparent_bytes, "allocated_bytes": k.allocated_bytes} for k in c.kinds],
            "total": {"files": total.files, "folders": total.folders, "apparent_bytes": total.apparent_bytes,
                      "allocated_bytes": total.allocated_bytes},
            "problems": [{"file": p.file, "offset": p.offset, "code": p.code, "severity": p.severity,
                          "reason": p.reason} for p in c.problems],
            "unlisted": c.unlisted, "errors": len(c.errors), "moved": list(c.moved), "summary": census_summary(c)}


def human_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def census_summary(c: Census) -> str:
    """One line: kinds, files, bytes, and what does not belong (info, the TUI and web overviews)."""
    known = [k for k in c.kinds if k.kind != UNKNOWN]
    total = c.total
    # apparent bytes only: what is allocated depends on the file system (the census table has both)
    line = f"{len(known)} kind(s), {total.files:,} file(s) in {total.folders:,} folder(s), {human_bytes(total.apparent_bytes)}"
    line += "".join(f" ({moved})" for moved in c.moved)
    if c.dledger is not None and c.dledger.others:  # its warning is among the problems, but is no stray
        line += f"; DLedger member {c.dledger.read} read, not {', '.join(c.dledger.others)}"
    listed = [p for p in c.problems if p.code != "dledger-members"]
    strays = len(listed) + c.unlisted
    if not strays:
        return line + "; nothing unknown"
    errors = len(c.errors)
    first = ", ".join(p.file for p in listed[:3]) + (", ..." if strays > 3 else "")
    return (line + f"; {strays:,} unknown or misplaced ({first})"
            + (f", {errors} the broker would not start with" if errors else ""))
