"""Entries of the store's data folders the engine does not read: said, never skipped without a word.

``commitlog/`` and a queue folder ``consumequeue/<topic>/<queue>/`` (or ``batchconsumequeue/...``) hold files named by a 20-digit offset,
``index/`` files named by a 17-digit time, ``consumequeue/<topic>/`` folders named by a queue id. A name that is
none of these (``abc``, 25 digits, ``notatime``) is a warning; a 20-digit name beyond the signed 64-bit range,
which the broker's ``Long.parseLong`` cannot read (so it would not start), is an error. The readers skip both.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from inspector.engine.model.bounds import INT64_MAX, decimal_name, int64_problem
from inspector.engine.model.records import Problem

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


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())[: _LISTED] if folder.is_dir() else []
    except OSError:
        return []  # an unreadable folder is reported by its reader


def _offset_folder(folder: Path, rel: str, what: str) -> Iterator[Problem]:
    for entry in _entries(folder):
        value = decimal_name(entry.name, OFFSET_WIDTH)
        if value is not None and value > INT64_MAX:
            yield Problem(f"{rel}/{entry.name}", 0, f"{int64_problem(value, 'the name')}: no {what} can start "
                          "there (the broker cannot load it); skipped", "bad-file-name")
        elif value is None:
            yield Problem(f"{rel}/{entry.name}", 0, f"not a {what} name ({OFFSET_WIDTH} digits): skipped",
                          "unknown-file", "warning")


def unknown_entries(root: Path) -> list[Problem]:
    """Every entry of commitlog/, index/, consumequeue/ and batchconsumequeue/ that no reader of the engine reads."""
    found = list(_offset_folder(root / "commitlog", "commitlog", "commitlog segment"))
    for entry in _entries(root / "index"):
        if decimal_name(entry.name, INDEX_NAME_WIDTH) is None:
            found.append(Problem(f"index/{entry.name}", 0, f"not an index file name ({INDEX_NAME_WIDTH} digits, a "
                                 "time): skipped", "unknown-file", "warning"))
    for base, what in (("consumequeue", "consume-queue file"), ("batchconsumequeue", "batch consume-queue file")):
        found.extend(_queue_folders(root, base, what))
    return found


def _queue_folders(root: Path, base: str, what: str) -> Iterator[Problem]:
    """Strays of ``base/<topic>/<queue>/<20-digit offset>`` (consume queues and 5.x batch consume queues)."""
    for topic in _entries(root / base):
        if not topic.is_dir():
            yield Problem(f"{base}/{topic.name}", 0, "not a topic folder: skipped", "unknown-file", "warning")
            continue
        for queue in _entries(topic):
            rel = f"{base}/{topic.name}/{queue.name}"
            if queue.is_dir() and queue_id_name(queue.name) is not None:
                yield from _offset_folder(queue, rel, what)
            else:
                yield Problem(rel, 0, "not a queue folder (named by a queue id): skipped", "unknown-file", "warning")
