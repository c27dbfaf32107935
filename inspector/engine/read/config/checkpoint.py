"""The ``checkpoint`` file at the store root: the flush times recovery starts from (spec §3.2)."""

from __future__ import annotations

from pathlib import Path

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import CheckpointInfo, Problem
from inspector.engine.read.commitlog.mapped import MappedFile
from parsers.checkpoint import CHECKPOINT_FILE_SIZE, Checkpoint


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
