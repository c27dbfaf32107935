"""Entries of the store's data folders the engine does not read: said, never skipped without a word.

``commitlog/`` and a queue folder ``consumequeue/<topic>/<queue>/`` (or ``batchconsumequeue/...``) hold files named by a 20-digit offset,
``index/`` files named by a 17-digit time, ``consumequeue/<topic>/`` folders named by a queue id. A name that is
none of these (``abc``, 25 digits, ``notatime``) is a warning; a 20-digit name beyond the signed 64-bit range,
which the broker's ``Long.parseLong`` cannot read (so it would not start), is an error. The readers skip both.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from inspector.engine.model.bounds import INT64_MAX, decimal_name, int64_problem
from inspector.engine.model.files import file_kind
from inspector.engine.model.records import Problem, listed_then_counted
from inspector.engine.read.queues.rocksdb_queue import is_rocksdb_dir

OFFSET_WIDTH, INDEX_NAME_WIDTH = 20, 17
MAX_QUEUE_ID = (1 << 31) - 1  # a queue id is a Java int
_LISTED = 10_000  # per folder: a folder of a million strays says so in its first 10,000, not in a million lines


def offset_name(name: str) -> int | None:
    """The start offset a file name gives (20 ASCII digits within the signed 64-bit range), else None."""
    value = decimal_name(name, OFFSET_WIDTH)
    return value if value is not None and value <= INT64_MAX else None


def queue_id_name(name: str) -> int | None:
    """The queue id a folder name gives (ASCII digits, a Java int), else None."""
    value = decimal_name(name) if len(name) <= 10 else None
    return value if value is not None and value <= MAX_QUEUE_ID else None


def _entries(folder: str | Path) -> list[os.DirEntry]:
    """The folder's entries by name, every one (the findings are capped, not the entries: a consumequeue/ of
    16,000 topics had the last 6,000 unlooked at); scandir: no Path and no stat per entry, as 16,000 queue
    folders are listed here on every open (Path.iterdir + is_dir took 0.45 s of a 1.4 s ``info``)."""
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []  # not a folder, or unreadable: reported by its reader


def _listed(rel: str, found: list[Problem]) -> list[Problem]:
    """A folder's findings, the first _LISTED one by one, then one counting the rest."""
    return listed_then_counted(found, _LISTED, lambda p: p, lambda n, first, last: Problem(
        first.file, 0, f"and {n:,} more entries of {rel}/ no reader reads, up to {last.file} (the first "
        f"{_LISTED:,} are listed)", "unknown-files-more", "warning"))


# -- the rules, one entry at a time (census.py applies them to its own scandir walk) ------------------------------


def offset_entry_problem(rel: str, name: str, what: str) -> Problem | None:
    """The finding for ``name`` in a folder of files named by a 20-digit offset (``rel`` the entry's path), or
    None when the name is one."""
    value = decimal_name(name, OFFSET_WIDTH)
    if value is not None and value > INT64_MAX:
        return Problem(rel, 0, f"{int64_problem(value, 'the name')}: no {what} can start there (the broker cannot "
                       "load it); skipped", "bad-file-name")
    if value is None:
        return Problem(rel, 0, f"not a {what} name ({OFFSET_WIDTH} digits): skipped", "unknown-file", "warning")
    return None


def index_entry_problem(rel: str, name: str) -> Problem | None:
    """The finding for ``name`` in ``index/`` (files named by a 17-digit time), or None when the name is one."""
    if decimal_name(name, INDEX_NAME_WIDTH) is not None:
        return None
    return Problem(rel, 0, f"not an index file name ({INDEX_NAME_WIDTH} digits, a time): skipped", "unknown-file",
                   "warning")


def topic_entry_problem(rel: str, is_dir: bool) -> Problem | None:
    """The finding for an entry of ``consumequeue/`` (folders named by topic), or None when it is a folder."""
    return None if is_dir else Problem(rel, 0, "not a topic folder: skipped", "unknown-file", "warning")


def queue_entry_problem(rel: str, name: str, is_dir: bool) -> Problem | None:
    """The finding for an entry of a topic folder (folders named by a queue id), or None when it is one."""
    if is_dir and queue_id_name(name) is not None:
        return None
    return Problem(rel, 0, "not a queue folder (named by a queue id): skipped", "unknown-file", "warning")


# -- the walk the readers use -----------------------------------------------------------------------------------


def _offset_folder(folder: str | Path, rel: str, what: str, *, regular_only: bool = False) -> list[Problem]:
    """The folder's findings (listed, then counted: ``_listed``). ``regular_only``: an entry with a good name that
    is no regular file (a FIFO, a device, a folder, a dangling link) is said too: a queue reader skips it unopened
    (a FIFO would block), so it is said here, where ``info`` and ``verify`` both list it (commitlog/ says its own:
    ``not-a-segment-file``)."""
    found: list[Problem] = []
    for entry in _entries(folder):
        problem = offset_entry_problem(f"{rel}/{entry.name}", entry.name, what)
        if problem is None and regular_only:
            kind = _not_regular(entry)
            if kind is not None:
                problem = Problem(f"{rel}/{entry.name}", 0, f"not a regular file ({kind}) where a {what} should be: "
                                  "skipped", "not-a-queue-file")
        if problem is not None:
            found.append(problem)
    return _listed(rel, found)


def _not_regular(entry: os.DirEntry) -> str | None:
    """What ``entry`` is when it is no regular file (following a link), else None. d_type answers without a
    stat for all but links: cheap on 16,000 queue folders."""
    try:
        if entry.is_file():
            return None
        return file_kind(entry.stat().st_mode)
    except OSError:
        return "a dangling symbolic link" if entry.is_symlink() else "unreadable"


def unknown_entries(root: Path) -> list[Problem]:
    """Every entry of commitlog/, index/, consumequeue/ and batchconsumequeue/ that no reader of the engine reads."""
    found = _offset_folder(root / "commitlog", "commitlog", "commitlog segment")
    index = [index_entry_problem(f"index/{entry.name}", entry.name) for entry in _entries(root / "index")]
    found += _listed("index", [p for p in index if p is not None])
    for base, what in (("consumequeue", "consume-queue file"), ("batchconsumequeue", "batch consume-queue file")):
        found.extend(_queue_folders(root, base, what))
    return found


def _queue_folders(root: Path, base: str, what: str) -> Iterator[Problem]:
    """Strays of ``base/<topic>/<queue>/<20-digit offset>`` (consume queues and 5.x batch consume queues)."""
    rocksdb = is_rocksdb_dir(root / base)  # a RocksDB consume queue: its files are the database's
    topics: list[Problem] = []  # this folder's own findings past the first _LISTED (the listed ones go in order)
    for topic in _entries(root / base):
        if rocksdb and not topic.is_dir():
            continue
        problem = topic_entry_problem(f"{base}/{topic.name}", topic.is_dir())
        if problem is not None:
            topics.append(problem)
            if len(topics) <= _LISTED:
                yield problem
            continue
        queues: list[Problem] = []
        for queue in _entries(topic.path):
            rel = f"{base}/{topic.name}/{queue.name}"
            problem = queue_entry_problem(rel, queue.name, queue.is_dir())
            if problem is None:
                yield from _offset_folder(queue.path, rel, what, regular_only=True)
            else:
                queues.append(problem)
                if len(queues) <= _LISTED:
                    yield problem
        yield from _listed(f"{base}/{topic.name}", queues)[_LISTED:]
    yield from _listed(base, topics)[_LISTED:]
