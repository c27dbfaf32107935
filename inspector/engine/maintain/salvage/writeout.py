"""``salvage STORE --out DIR``: the plan carried out into a new directory (the store is only read).

The new commitlog has every segment of the grid at full size: intact spans copied byte for byte at their offsets,
recoverable spans from the replica, lost spans as the filler module designs them, PHYSICALOFFSET fields that
disagreed with their record's place rewritten. Config is copied (a damaged file from its readable ``.bak``, as
``ConfigManager.load`` falls back), the timer's files copied, consume queues and index files rebuilt from the new
log, and a checkpoint written from its records. Built in a staging directory and renamed into place at the end.
"""

from __future__ import annotations

import os
import shutil
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from inspector.engine.maintain.rebuild.rebuild import RebuildResult, rebuild
from inspector.engine.maintain.salvage.plan import FileStep, SalvagePlan, salvage_plan
from inspector.engine.maintain.write.staging import (
    check_new_target,
    clear_stale_staging,
    publish,
    staging_dir_for,
)
from inspector.engine.model.errors import BadInput
from inspector.engine.scan.record_layout import HEAD
from parsers.checkpoint import Checkpoint

__all__ = ["SalvageResult", "salvage"]

_CHUNK = 8 << 20
# the fields salvage rewrites, where the record schema puts them (spec §2.1; the body CRC covers none of them)
_PHYSICAL_OFFSET_AT, _SYSFLAG_AT = HEAD["physical_offset"], HEAD["sys_flag"]
_QUEUE_ID_AT, _QUEUE_OFFSET_AT = HEAD["queue_id"], HEAD["queue_offset"]
_I64 = struct.Struct(">q")
_I32 = struct.Struct(">i")

Progress = Callable[[int, int], None]


@dataclass
class SalvageResult:
    plan: SalvagePlan
    out: Path
    rebuilt: RebuildResult

    def as_dict(self) -> dict:
        return {**self.plan.as_dict(), "out": str(self.out), "messages": self.rebuilt.messages,
                "cq_units": self.rebuilt.cq_units, "index_items": self.rebuilt.index_items,
                "recovered_end": self.rebuilt.recovery.end_offset}


def salvage(store, out: str | Path, replica=None, *, report=None, progress: Progress | None = None) -> SalvageResult:
    """Write ``store``'s salvage to the new directory ``out`` (absent or empty, outside the store)."""
    out = Path(out)
    root = Path(store.root).resolve()
    target = out.resolve()
    if target == root or root in target.parents or target in root.parents:
        raise BadInput("the output directory must be outside the store", str(out))
    if replica is not None and Path(replica.root).resolve() in (target, *target.parents):
        raise BadInput("the output directory must be outside the replica", str(out))
    check_new_target(out)
    plan = salvage_plan(store, replica, report=report)
    geometry = store.geometry()
    out.parent.mkdir(parents=True, exist_ok=True)
    clear_stale_staging(out)
    staging = staging_dir_for(out)
    staging.mkdir()
    try:
        _write_log(store, plan, staging / "commitlog", progress)
        _copy_files(store, plan.files, staging)
        from inspector.engine.read.store.store import Store  # the new store, read back to rebuild it

        new = Store(staging, segment_size=plan.segment_size)
        try:
            rebuilt = rebuild(new, staging, geometry, _allow_inside=True)
            _write_checkpoint(new, staging, rebuilt)
        finally:
            new.close()
        publish(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    rebuilt.out = out
    return SalvageResult(plan, out, rebuilt)


def _write_log(store, plan: SalvagePlan, folder: Path, progress: Progress | None) -> None:
    folder.mkdir(parents=True)
    size = plan.segment_size
    log = store.commitlog
    total = max(1, sum(s.length for s in plan.spans))
    done = 0
    by_segment: dict[int, list] = {}
    for span in plan.spans:
        by_segment.setdefault(span.start - span.start % size, []).append(span)
    starts = sorted({s.start_offset for s in log.segments} | set(by_segment))
    writes = _field_writes(plan)
    for start in starts:
        with open(folder / f"{start:020d}", "xb") as f:
            f.truncate(size)  # a full segment: zeros where nothing is written (sparse)
            for span in by_segment.get(start, []):
                if span.replica is not None:  # recovered from the replica
                    f.seek(span.start - start)
                    f.write(span.replica)
                elif span.pieces:  # lost (placeholders, fillers, a BLANK), or only a missing BLANK written
                    for piece in span.pieces:
                        if piece.data:
                            f.seek(piece.offset - start)
                            f.write(piece.data)
                else:  # kept, or repaired in place below (a field rewritten): the store's own bytes
                    _copy_range(store, log.segment_for(span.start), span.start - start, span.length, f)
                done += span.length
                if progress is not None:
                    progress(done, total)
            for at, data in writes:
                if start <= at < start + size:
                    f.seek(at - start)
                    f.write(data)


def _field_writes(plan: SalvagePlan) -> list[tuple[int, bytes]]:
    """The plan's fields repaired in place, as (log offset, the bytes written there)."""
    return [*((at + _PHYSICAL_OFFSET_AT, _I64.pack(at)) for at in plan.repairs),
            *((at + _SYSFLAG_AT, _I32.pack(flag)) for at, flag in plan.sysflag_repairs),
            *(w for at, queue_id, queue_offset in plan.queue_repairs
              for w in ((at + _QUEUE_ID_AT, _I32.pack(queue_id)), (at + _QUEUE_OFFSET_AT, _I64.pack(queue_offset))))]

def _copy_range(store, seg, position: int, length: int, out) -> None:
    """Bytes [position, position + length) of a segment file into ``out`` at the same position, by the kernel
    (copy_file_range: no page of the store mapped or read into this process; a 1 GiB segment stays out of its
    memory), else in chunks through the store's guarded open."""
    from inspector.engine.model.files import open_regular

    out.flush()
    with open_regular(Path(store.root) / seg.file) as src:
        done = 0
        while done < length:
            n = min(_CHUNK, length - done)
            try:
                got = os.copy_file_range(src.fileno(), out.fileno(), n, position + done, position + done)
            except (AttributeError, OSError):  # no copy_file_range here (or not across these file systems)
                got = len(chunk := os.pread(src.fileno(), n, position + done))
                os.pwrite(out.fileno(), chunk, position + done)
            if got <= 0:
                raise OSError(f"{seg.file}: ended at {position + done} while copying")
            done += got


def _copy_files(store, steps: list[FileStep], staging: Path) -> None:
    root = Path(store.root)
    for step in steps:
        rel = step.file.rstrip("/")
        src, dst = root / rel, staging / rel
        if step.action == "copied":
            dst.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                shutil.copytree(src, dst, symlinks=True)
            elif src.is_file():
                shutil.copyfile(src, dst)
        elif step.action == "from backup":
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / f"{rel}.bak", dst)
            shutil.copyfile(root / f"{rel}.bak", staging / f"{rel}.bak")


def _write_checkpoint(new, staging: Path, rebuilt: RebuildResult) -> None:
    """physicMsgTimestamp: the store time of the log's last record; the other two from the rebuilt files."""
    last = rebuilt.recovery.last_record_offset
    physic = new.commitlog.message_at(last).store_timestamp if last is not None else 0
    (staging / "checkpoint").write_bytes(Checkpoint.build({
        "physic_msg_timestamp": physic, "logics_msg_timestamp": rebuilt.logics_msg_timestamp,
        "index_msg_timestamp": rebuilt.index_msg_timestamp, "master_flushed_offset": 0, "confirm_phy_offset": 0,
        "reserved": bytes(4096 - 40)}))
