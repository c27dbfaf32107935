"""Rebuild consume queues and index files from the commitlog, through the broker's dispatch path (spec §11).

Output goes to a new directory. ``rebuild_in_place`` swaps the result into the
store only when asked, refuses while a broker holds the store's ``lock``, and
keeps the replaced directories as a backup.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.dispatch import ConsumeQueueBuilder, IndexBuilder, dispatch_request
from inspector.engine.errors import BadInput, StoreError
from inspector.engine.geometry import Geometry
from inspector.engine.indexfile import IndexFileReader
from inspector.engine.records import Message, Problem
from inspector.engine.recovery import Recovery, recover

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


def store_geometry(store, base: Geometry | None = None, **overrides) -> Geometry:
    """Geometry from the store's own files first, then options, then the broker defaults."""
    base = base or Geometry()
    values = {
        "segment_size": store.commitlog.segment_size or base.segment_size,
        "cq_file_size": base.cq_file_size,
        "index_slots": base.index_slots,
        "index_items": base.index_items,
        "delay_levels": base.delay_levels,
    }
    queues = store.queue_ids()
    for topic, qid in queues:
        q = store.queue(topic, qid)
        if getattr(q, "files", None):
            values["cq_file_size"] = q.file_size
            break
    readers = store.index_files()
    if readers and readers[0].slot_count:
        values["index_slots"], values["index_items"] = readers[0].slot_count, readers[0].item_count
    values.update({k: v for k, v in overrides.items() if v is not None})
    return Geometry(**values)


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
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BadInput("the output directory exists and is not empty", str(out))


def rebuild(store, out: str | Path, geometry: Geometry | None = None, *, progress: Progress | None = None,
            mode: str | None = None, _allow_inside: bool = False) -> RebuildResult:
    """Dispatch every record up to the recovered end of the log into fresh consume queues and index files."""
    out = Path(out)
    if not _allow_inside:
        _check_out_dir(store, out)
    geometry = geometry or store_geometry(store)
    recovery = recover(store, mode)
    out.mkdir(parents=True, exist_ok=True)
    result = RebuildResult(out, geometry, recovery)
    cq = ConsumeQueueBuilder(out, geometry)
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
            result.cq_units += int(cq.put(request))
            result.index_items += index.put(request)
            if progress is not None and time.monotonic() - last_report > 0.1:
                last_report = time.monotonic()
                progress(entry.end_offset - store.min_offset, total)
    finally:
        cq.close()
        index.close()
    if progress is not None:
        progress(total, total)
    result.cq_files = sorted(str(p.relative_to(out)) for p in cq.files)
    result.index_files = [f"index/{f.name}" for f in index.files]
    return result


def broker_holds_lock(root: Path) -> bool:
    """True when another process holds the store's ``lock`` file lock (what a running broker does)."""
    path = root / "lock"
    if not path.exists():
        return False
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError as e:
        raise StoreError(f"cannot open the lock file to test it: {e.strerror}", "lock") from None
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
    except OSError as e:
        if e.errno in (errno.EACCES, errno.EAGAIN):
            return True
        raise StoreError(f"cannot test the lock: {e.strerror}", "lock") from None
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, 0)
        return False
    finally:
        os.close(fd)


def rebuild_in_place(store, geometry: Geometry | None = None, *, progress: Progress | None = None) -> tuple[RebuildResult, Path]:
    """Rebuild into a staging directory inside the store, then swap it in; the old files go to a backup."""
    root = store.root
    if broker_holds_lock(root):
        raise BadInput("a running broker holds this store's lock; stop it before rebuilding in place", "lock")
    if store.rocksdb_cq is not None:
        raise BadInput("this store keeps its consume queue in RocksDB; in-place rebuild handles file consume queues only")
    stamp = time.strftime("%Y%m%d%H%M%S")
    staging = root / f".rmq-inspect-staging-{stamp}"
    backup = root / f".rmq-inspect-backup-{stamp}"
    result = rebuild(store, staging, geometry, progress=progress, _allow_inside=True)
    store.close()  # release our maps of the files being replaced
    backup.mkdir()
    for name in ("consumequeue", "index"):
        if (root / name).exists():
            os.rename(root / name, backup / name)
        if (staging / name).exists():
            os.rename(staging / name, root / name)
    shutil.rmtree(staging, ignore_errors=True)
    result.out = root
    return result, backup
