"""Rebuild consume queues and index files from the commitlog, through the broker's dispatch path (spec §11).

Topics whose ``queue.type`` is ``BatchCQ`` (``topics.json`` attributes, or an existing ``batchconsumequeue/``
directory: :meth:`Store.batch_topics`) get ``batchconsumequeue/`` 46-byte units as a 5.x broker writes them
(spec §4.3), every other topic ``consumequeue/`` units.

Output goes to a new directory, built in a staging directory next to it and renamed into place once
complete and fsynced. ``rebuild_in_place`` swaps the result into the store only when asked, refuses while
a broker holds the store's ``lock`` (and holds it itself meanwhile), keeps the replaced paths as a backup,
and is crash-safe: a journal written before the first rename lets the next run finish an interrupted swap
(roll forward); a run killed before the journal leaves the store untouched (its staging is removed).
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import json
import os
import shutil
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.maintain.rebuild.bcq_builder import BATCH_CQ_DIR, BatchConsumeQueueBuilder
from inspector.engine.maintain.rebuild.cq_builder import ConsumeQueueBuilder
from inspector.engine.maintain.rebuild.dispatch import dispatch_request, lmq_requests
from inspector.engine.maintain.rebuild.index_builder import IndexBuilder
from inspector.engine.maintain.write.staging import (
    BACKUP_MARK,
    check_new_target,
    clear_stale_staging,
    crash_point,
    fsync_path,
    fsync_tree,
    publish,
    staging_dir_for,
)
from inspector.engine.model.errors import BadInput, StoreError
from inspector.engine.model.files import open_regular, read_regular, refusal
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.multidispatch import MultiDispatchError
from inspector.engine.model.records import Message, Problem
from inspector.engine.read.commitlog.journal import JOURNAL, STAGING_MARK
from inspector.engine.read.index.indexfile import IndexFileReader
from inspector.engine.read.queues.consumequeue import queue_file_size
from inspector.engine.read.store.answers import recover, store_geometry
from inspector.engine.read.store.recovery import Recovery
from parsers.checkpoint import CHECKPOINT_FILE_SIZE
from parsers.consumequeue import BCQ_DEFAULT_FILE_SIZE, BCQ_UNIT_SIZE

MAX_JOURNAL_BYTES = 1 << 20  # the journal names a few folders; anything larger is no journal of ours

Progress = Callable[[int, int], None]  # (bytes done, bytes total)


@dataclass
class RebuildResult:
    out: Path
    geometry: Geometry
    recovery: Recovery
    messages: int = 0
    cq_units: int = 0
    index_items: int = 0
    skipped: list[Problem] = field(default_factory=list)
    cq_files: list[str] = field(default_factory=list)
    index_files: list[str] = field(default_factory=list)
    logics_msg_timestamp: int = 0  # what the rebuilt files would put in the checkpoint
    index_msg_timestamp: int = 0

    def as_dict(self) -> dict:
        return {
            "out": str(self.out),
            "geometry": {"segment_size": self.geometry.segment_size, "cq_file_size": self.geometry.cq_file_size,
                         "index_slots": self.geometry.index_slots, "index_items": self.geometry.index_items,
                         "delay_levels": self.geometry.delay_levels},
            "recovery": self.recovery.as_dict(),
            "messages": self.messages,
            "cq_units": self.cq_units,
            "index_items": self.index_items,
            "cq_files": self.cq_files,
            "index_files": self.index_files,
            "skipped": [{"file": p.file, "offset": p.offset, "reason": p.reason} for p in self.skipped],
        }


def _original_index_clock(readers: list[IndexFileReader]) -> Callable[[], int]:
    """Reuse the original file names (their creation times) so a rebuilt store lines up with the original."""
    times = []
    for r in readers:
        try:
            times.append(int(dt.datetime.strptime(r.name, "%Y%m%d%H%M%S%f").replace(tzinfo=dt.UTC).timestamp() * 1000))
        except ValueError:
            continue
    state = {"i": 0, "last": times[-1] if times else int(time.time() * 1000)}

    def clock() -> int:
        if state["i"] < len(times):
            state["i"] += 1
            return times[state["i"] - 1]
        state["last"] += 1
        return state["last"]

    return clock


def _check_out_dir(store, out: Path) -> None:
    root = store.root.resolve()
    target = out.resolve()
    if target == root or root in target.parents or target in root.parents:
        raise BadInput("the output directory must be outside the store (use --in-place to replace its files)", str(out))
    check_new_target(out)


def rebuild(store, out: str | Path, geometry: Geometry | None = None, *, progress: Progress | None = None,
            mode: str | None = None, _allow_inside: bool = False) -> RebuildResult:
    """Dispatch every record up to the recovered end of the log into fresh consume queues and index files.

    Built in a staging directory next to ``out`` and renamed to ``out`` when complete (fsynced first).
    """
    out = Path(out)
    if _allow_inside:  # rebuild_in_place: ``out`` is its own staging directory
        out.mkdir(parents=True, exist_ok=True)
        return _build(store, out, geometry, progress, mode)
    _check_out_dir(store, out)
    out.parent.mkdir(parents=True, exist_ok=True)
    clear_stale_staging(out)
    staging = staging_dir_for(out)
    staging.mkdir()
    try:
        result = _build(store, staging, geometry, progress, mode)
        publish(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    result.out = out
    return result


def _batch_file_size(store) -> int:
    """The batch consume queue's file size as the store's own files say (as ``store_geometry`` infers the plain
    queue's), else the broker's default (a store with no batch queue, or files of no multiple of 46 bytes)."""
    for topic, qid in store.batch_queue_ids():
        q = store.batch_queue(topic, qid)
        if q.files:  # the one size rule of consume queues (read/consumequeue.queue_file_size)
            return queue_file_size([q.file_size], unit=BCQ_UNIT_SIZE, default=BCQ_DEFAULT_FILE_SIZE)
    return BCQ_DEFAULT_FILE_SIZE


def _build(store, out: Path, geometry: Geometry | None, progress: Progress | None, mode: str | None) -> RebuildResult:
    geometry = geometry or store_geometry(store)
    recovery = recover(store, mode)
    result = RebuildResult(out, geometry, recovery)
    cq = ConsumeQueueBuilder(out, geometry)
    bcq = BatchConsumeQueueBuilder(out, _batch_file_size(store))
    batch_topics = store.batch_topics()  # queue.type=BatchCQ: their units go to batchconsumequeue/ (spec §4.3)
    logics_ts = 0
    index = IndexBuilder(out, geometry, clock=_original_index_clock(store.index_files()), tz=dt.UTC)
    total = max(1, recovery.end_offset - store.min_offset)
    last_report = 0.0
    try:
        for entry in store.entries(store.min_offset, check_crc=False):
            if isinstance(entry, Problem):
                if entry.severity == "error":
                    result.skipped.append(entry)
                continue
            if not isinstance(entry, Message):
                continue
            if entry.physical_offset >= recovery.end_offset:
                break
            try:
                request = dispatch_request(
                    entry.topic, entry.queue_id, entry.stored_physical_offset, entry.total_size, entry.store_timestamp,
                    entry.queue_offset, entry.sys_flag, entry.prepared_transaction_offset, entry.properties, geometry,
                )
            except BadInput as e:
                result.skipped.append(Problem(entry.file, entry.position, f"not dispatched: {e}", "undispatchable"))
                continue
            result.messages += 1
            batch = request.topic in batch_topics
            written = (bcq if batch else cq).put(request)
            if written:
                logics_ts = request.store_timestamp
            result.cq_units += int(written)
            if not batch:  # %LMQ% queues: one unit per queue the record was multi-dispatched to, no index item
                result.cq_units += _dispatch_lmq(cq, request, entry, result)
            result.index_items += index.put(request)
            crash_point("dispatch")
            if progress is not None and time.monotonic() - last_report > 0.1:
                last_report = time.monotonic()
                progress(entry.end_offset - store.min_offset, total)
    finally:
        cq.close()
        bcq.close()
        index.close()
    if progress is not None:
        progress(total, total)
    result.cq_files = sorted(str(p.relative_to(out)) for p in [*cq.files, *bcq.files])
    result.index_files = [f"index/{f.name}" for f in index.files]
    result.logics_msg_timestamp = logics_ts
    result.index_msg_timestamp = index.index_msg_timestamp
    return result


def _dispatch_lmq(cq: ConsumeQueueBuilder, request, entry: Message, result: RebuildResult) -> int:
    """The record's LMQ units (multi-dispatch), as the broker writes them after its own; units written."""
    try:
        requests = lmq_requests(request)
    except MultiDispatchError as e:
        result.skipped.append(Problem(entry.file, entry.position, f"no LMQ unit dispatched: {e}", "lmq-undispatchable",
                                      "warning"))
        return 0
    return sum(int(cq.put(lmq)) for lmq in requests)


_FLOCK = struct.Struct("hhqqi4x")  # struct flock on Linux x86_64/aarch64: type, whence, start, len, pid


def broker_holds_lock(root: Path) -> bool:
    """True when another process holds the store's ``lock`` file lock (what a running broker does).

    Asked with F_GETLK on a read-only descriptor: the question neither takes a lock nor writes anything.
    """
    path = root / "lock"
    if not path.exists():
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # NONBLOCK: a FIFO named lock must not hang us
    except OSError as e:
        raise StoreError(f"cannot open the lock file to test it: {e.strerror}", "lock") from None
    try:
        why = refusal(os.fstat(fd))
        if why is not None:
            raise StoreError(f"cannot test the lock: {why}", "lock")
        probe = _FLOCK.pack(fcntl.F_WRLCK, os.SEEK_SET, 0, 1, 0)
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, probe)
    except OSError as e:
        raise StoreError(f"cannot test the lock: {e.strerror}", "lock") from None
    finally:
        os.close(fd)
    return _FLOCK.unpack(answer)[0] != fcntl.F_UNLCK


def _hold_lock(root: Path) -> int | None:
    """Take the store's lock as a broker would (byte 0), so no broker starts during the swap; None: no lock file."""
    try:
        fd = os.open(root / "lock", os.O_RDWR | os.O_NONBLOCK)  # NONBLOCK: a FIFO named lock must not hang us
    except FileNotFoundError:
        return None
    except OSError as e:
        raise StoreError(f"cannot open the lock file: {e.strerror}", "lock") from None
    try:
        why = refusal(os.fstat(fd))
        if why is not None:
            raise OSError(errno.EINVAL, why)
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
    except OSError as e:
        os.close(fd)
        if e.errno in (errno.EACCES, errno.EAGAIN):
            raise BadInput("a running broker holds this store's lock; stop it before rebuilding in place", "lock") from None
        raise StoreError(f"cannot take the lock: {e.strerror}", "lock") from None
    return fd


SWAPPED = ("consumequeue", BATCH_CQ_DIR, "index", "checkpoint")


def _write_journal(root: Path, staging: Path, backup: Path) -> None:
    tmp = root / (JOURNAL + ".tmp")
    tmp.write_text(json.dumps({"staging": staging.name, "backup": backup.name, "paths": list(SWAPPED)}))
    fsync_path(tmp)
    os.rename(tmp, root / JOURNAL)  # the commit point: from here on the swap is finished, never undone
    fsync_path(root)


def _swap(root: Path, staging: Path, backup: Path, names) -> None:
    """Move each old path to the backup and its rebuilt one into the store; safe to repeat after a crash."""
    for name in names:
        new = staging / name
        if not new.exists():
            continue  # already moved in (or nothing rebuilt for it)
        if (root / name).exists():
            if (backup / name).exists():
                raise StoreError(f"both the store and the backup {backup.name} hold {name}; resolve by hand", name)
            os.rename(root / name, backup / name)
            crash_point("swap")
        os.rename(new, root / name)
        crash_point("swap")
    fsync_path(backup)
    fsync_path(root)


def finish_interrupted(root: Path) -> str | None:
    """Complete (journal present) or undo (no journal yet) an in-place rebuild a crash interrupted.

    Returns what was done ("rolled forward" / "rolled back") or None when there was nothing to do.
    """
    journal = root / JOURNAL
    done = None
    if journal.exists():
        try:
            entry = json.loads(read_regular(journal, MAX_JOURNAL_BYTES, "a rebuild journal"))
            staging, backup = root / entry["staging"], root / entry["backup"]
            names = [n for n in entry["paths"] if n in SWAPPED]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise StoreError(f"unreadable in-place rebuild journal: {e}", JOURNAL) from None
        for p in (staging, backup):
            if not p.name.startswith((STAGING_MARK, BACKUP_MARK)) or p.parent != root:
                raise StoreError(f"the journal names {p.name!r}, not a staging or backup directory", JOURNAL)
        backup.mkdir(exist_ok=True)
        _swap(root, staging, backup, names)
        shutil.rmtree(staging, ignore_errors=True)
        journal.unlink()
        fsync_path(root)
        done = "rolled forward"
    tmp = root / (JOURNAL + ".tmp")
    for p in sorted(root.iterdir()):
        if p.name.startswith(STAGING_MARK) or p == tmp:  # killed before the commit point: the store is as it was
            shutil.rmtree(p) if p.is_dir() else p.unlink()
            done = done or "rolled back"
        elif p.name.startswith(BACKUP_MARK) and p.is_dir() and not any(p.iterdir()):
            p.rmdir()
    if done:
        fsync_path(root)
    return done


def rebuild_in_place(store, geometry: Geometry | None = None, *, progress: Progress | None = None) -> tuple[RebuildResult, Path]:
    """Rebuild into a staging directory inside the store, then swap it in; the old files go to a backup.

    Holds the store's lock throughout. Steps: build and fsync the staging directory; create the backup
    directory; write the journal (the commit point); rename each path; remove staging and journal. A run
    that finds a journal first finishes that swap (:func:`finish_interrupted`), then rebuilds afresh.
    """
    root = store.root
    if broker_holds_lock(root):
        raise BadInput("a running broker holds this store's lock; stop it before rebuilding in place", "lock")
    if store.rocksdb_cq is not None:
        raise BadInput("this store keeps its consume queue in RocksDB; in-place rebuild handles file consume queues only")
    lock_fd = _hold_lock(root)
    try:
        if finish_interrupted(root) is not None:
            from inspector.engine.read.store.store import (
                Store,  # the files changed under this Store: read them again
            )

            store.close()
            store = Store(root, segment_size=store.commitlog.segment_size or None, broker_config=store.broker_config)
            # the caller read the geometry while paths were missing: the finished store's files decide it now
            geometry = store_geometry(store, geometry)
        stamp = time.strftime("%Y%m%d%H%M%S") + f"-{os.getpid()}"
        staging = root / f"{STAGING_MARK}{stamp}"
        backup = root / f"{BACKUP_MARK}{stamp}"
        result = rebuild(store, staging, geometry, progress=progress, _allow_inside=True)
        _write_checkpoint(store, staging, result)
        store.close()  # release our maps of the files being replaced
        fsync_tree(staging)
        crash_point("staged")
        backup.mkdir()
        _write_journal(root, staging, backup)
        crash_point("journal")
        _swap(root, staging, backup, SWAPPED)
        shutil.rmtree(staging)
        crash_point("before-journal-remove")
        (root / JOURNAL).unlink()
        fsync_path(root)
    finally:
        if lock_fd is not None:
            os.close(lock_fd)  # closing the descriptor releases the lock
    result.out = root
    return result, backup


def _write_checkpoint(store, staging: Path, result: RebuildResult) -> None:
    """The store's checkpoint with logicsMsgTimestamp and indexMsgTimestamp of the rebuilt files (spec §3.4)."""
    path = store.root / "checkpoint"
    if not path.exists():
        return
    try:  # the guarded open: a FIFO or a device where the checkpoint belongs is refused, never read whole
        with open_regular(path) as f:
            head = f.read(CHECKPOINT_FILE_SIZE)
    except OSError as e:
        raise StoreError(f"cannot read: {e.strerror or e}", "checkpoint") from None
    raw = bytearray(head.ljust(CHECKPOINT_FILE_SIZE, b"\0"))
    struct.pack_into(">qq", raw, 8, result.logics_msg_timestamp, result.index_msg_timestamp)
    (staging / "checkpoint").write_bytes(bytes(raw))
