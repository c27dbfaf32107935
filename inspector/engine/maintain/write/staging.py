"""Crash-safe output for the writers (``write``, ``rebuild``): stage, fsync, rename, and the in-place journal.

A writer builds its output in a staging directory next to the target (same file system), fsyncs every file
and directory in it, then renames it into place: a reader, or a writer killed at any moment, finds either
the old state or the new one, never a mix.

``RMQ_INSPECT_CRASH_AT`` is a documented test hook: set to a step name (``name``) or its N-th occurrence
(``name:N``), the process kills itself with SIGKILL when it reaches that step, so tests can interrupt a
writer at every step and check what a crash leaves behind. Unset (always, outside tests), it does nothing.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
from collections import Counter
from pathlib import Path

from inspector.engine.read.commitlog.journal import STAGING_MARK

CRASH_ENV = "RMQ_INSPECT_CRASH_AT"
BACKUP_MARK = ".rmq-inspect-backup-"
_reached: Counter[str] = Counter()


def crash_point(step: str) -> None:
    """Test hook: SIGKILL this process at ``step`` when RMQ_INSPECT_CRASH_AT names it (see the module doc)."""
    wanted = os.environ.get(CRASH_ENV)
    if not wanted:
        return
    _reached[step] += 1
    name, _, nth = wanted.partition(":")
    if name == step and _reached[step] == (int(nth) if nth.isdigit() else 1):
        os.kill(os.getpid(), signal.SIGKILL)


def fsync_path(path: Path) -> None:
    """fsync one file or directory (a directory's fsync makes the names in it durable)."""
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if path.is_dir() else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(root: Path) -> None:
    """fsync every file under ``root``, then every directory bottom-up, then ``root`` itself."""
    dirs = []
    for here, _subdirs, files in os.walk(root):
        for name in files:
            fsync_path(Path(here) / name)
            crash_point("fsync")
        dirs.append(Path(here))
    for d in reversed(dirs):
        fsync_path(d)


def staging_dir_for(target: Path) -> Path:
    """A fresh, unique staging directory path next to ``target`` (same file system, so rename is atomic)."""
    return target.parent / f".{target.name}{STAGING_MARK}{os.getpid()}-{secrets.token_hex(4)}"


def clear_stale_staging(target: Path) -> None:
    """Remove staging directories a killed writer left next to ``target`` (their pid is gone)."""
    if not target.parent.is_dir():
        return
    prefix = f".{target.name}{STAGING_MARK}"
    for entry in target.parent.iterdir():
        if not entry.name.startswith(prefix):
            continue
        pid = entry.name[len(prefix):].split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def check_new_target(target: Path, what: str = "output directory") -> None:
    """The target must not exist, or be an empty directory (nothing of the user's is ever replaced)."""
    from inspector.engine.model.errors import BadInput

    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise BadInput(f"the {what} exists and is not empty", str(target))


def publish(staging: Path, target: Path) -> None:
    """fsync ``staging`` and rename it to ``target`` (absent or an empty directory, replaced atomically)."""
    fsync_tree(staging)
    crash_point("before-rename")
    os.rename(staging, target)  # over an empty directory too: one atomic step
    crash_point("after-rename")
    fsync_path(target.parent)
