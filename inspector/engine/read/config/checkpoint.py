"""The ``checkpoint`` file at the store root: the flush times recovery starts from (spec §3.2)."""

from __future__ import annotations

import time
from pathlib import Path

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import CheckpointInfo, Problem, fmt_time
from inspector.engine.read.commitlog.mapped import MappedFile
from parsers.checkpoint import CHECKPOINT_FILE_SIZE, Checkpoint

FUTURE_SLACK_MS = 86_400_000  # a day: the broker's clock and this machine's may differ by that much
CHECKPOINT_TIMES = (("physicMsgTimestamp", 0), ("logicsMsgTimestamp", 8), ("indexMsgTimestamp", 16))
"""The checkpoint's three times: (name, byte offset)."""


def future_times(cp: CheckpointInfo, now_ms: int | None = None) -> list[tuple[str, int, int]]:
    """(name, byte offset, value) of each checkpoint time more than FUTURE_SLACK_MS after ``now_ms`` (default: this
    machine's clock): a time no broker wrote (each is a record's STORETIMESTAMP), a wrong clock or a hand-made file."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    values = (cp.physic_msg_timestamp, cp.logics_msg_timestamp, cp.index_msg_timestamp)
    return [(name, at, value) for (name, at), value in zip(CHECKPOINT_TIMES, values, strict=True)
            if value > now_ms + FUTURE_SLACK_MS]


def future_note(cp: CheckpointInfo | None, now_ms: int | None = None) -> str | None:
    """One line for info and preflight when checkpoint times are in the future, with what an abnormal start does
    with them (4.9.8 / 5.3.1); None when none is."""
    if cp is None:
        return None
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    late = future_times(cp, now_ms)
    if not late:
        return None
    names = {name for name, _, _ in late}
    what = ", ".join(f"{name} {value} ({fmt_time(value)})" for name, _, value in late)
    text = (f"checkpoint in the future: {what} more than a day after this machine's clock ({fmt_time(now_ms)}): "
            "not a time a broker wrote (each is a record's store time)")
    if {"physicMsgTimestamp", "logicsMsgTimestamp"} <= names:
        # StoreCheckpoint.getMinTimestamp: the smaller of the two (less 3 s), the bar each segment's first record
        # must be under for recovery to start there
        text += ("; an abnormal start takes every segment's first record as older than it and recovers from the "
                 "newest segment only (CommitLog.isMappedFileMatchedRecover)")
    if "indexMsgTimestamp" in names:
        text += "; an abnormal start destroys no index file for it (IndexService.load: endTimestamp > indexMsgTimestamp)"
    return text


def read_checkpoint(root: Path) -> CheckpointInfo | None:
    """The checkpoint under ``root``; None when there is none. StoreError when it is too short to read."""
    path = root / "checkpoint"
    if not path.exists():
        return None
    with MappedFile(path, "checkpoint") as mf:
        raw = mf.read(0, CHECKPOINT_FILE_SIZE)
    if len(raw) < 24:
        raise StoreError(f"checkpoint is {len(raw)} bytes; it needs at least 24", "checkpoint", 0)
    padded = raw.ljust(CHECKPOINT_FILE_SIZE, b"\0")
    c = Checkpoint.parse(padded)
    return CheckpointInfo(
        "checkpoint",
        mf.size,
        c.physic_msg_timestamp,
        c.logics_msg_timestamp,
        c.index_msg_timestamp,
        c.master_flushed_offset if len(raw) >= 32 else 0,
        c.confirm_phy_offset if len(raw) >= 40 else 0,
    )


def checkpoint_problems(root: Path) -> list[Problem]:
    """Why the checkpoint under ``root`` cannot be read, or is not the size the broker writes."""
    path = root / "checkpoint"
    if not path.exists():
        return []
    try:
        size = path.stat().st_size
        read_checkpoint(root)
    except StoreError as e:
        return [Problem("checkpoint", e.offset or 0, e.reason, "bad-checkpoint")]
    except OSError as e:
        return [Problem("checkpoint", 0, f"cannot read: {e.strerror}", "unreadable-file")]
    if size != CHECKPOINT_FILE_SIZE:
        return [Problem("checkpoint", 0, f"checkpoint is {size} bytes, expected {CHECKPOINT_FILE_SIZE}", "bad-checkpoint")]
    return []
