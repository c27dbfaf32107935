"""Where the log ends, found the way the broker's recovery finds it (spec §3.2)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from inspector.engine.model.records import Blank, Message, Problem
from inspector.engine.read.commitlog.careful import TAIL_NOT_CHECKED
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.commitlog.mapped import TAIL_BUDGET
from inspector.engine.read.config.checkpoint import read_checkpoint
from inspector.engine.scan.walk import Run

# recovery does not compare PHYSICALOFFSET with the position (checkMessageAndReturnSize does not)
# dledger-newer-entry: a NOOP / CONFIG_CHANGE entry, which the DLedger 0.4+ that wrote it steps over in recovery
# (0.3.1.2's stop there is said by verify's DLedger recovery preview)
# tail-not-checked: the note a bounded walk ends the log with (the zero header recovery stops at, as the broker's)
NOT_FATAL = {"offset-mismatch", "blank-size", "dledger-newer-entry", TAIL_NOT_CHECKED}
CHECKPOINT_SLACK_MS = 3000


@dataclass(frozen=True)
class Recovery:
    mode: str  # "normal" (no abort file) or "abnormal"
    start_segment: str | None
    end_offset: int  # processOffset: the first byte after the last good record
    last_record_offset: int | None
    reason: str  # why the log ends there
    stop_problem: Problem | None

    def as_dict(self) -> dict:
        return {
            "mode": self.mode,
            "start_segment": self.start_segment,
            "end_offset": self.end_offset,
            "last_record_offset": self.last_record_offset,
            "reason": self.reason,
            "stop_problem": None if self.stop_problem is None else
            {"file": self.stop_problem.file, "offset": self.stop_problem.offset, "code": self.stop_problem.code,
             "reason": self.stop_problem.reason},
        }


def recover_log(log: CommitLog, root: Path, mode: str | None = None, *, budget=None,
                progress: Callable[[int], None] | None = None) -> Recovery:
    """Scan ``log`` as ``recoverNormally`` / ``recoverAbnormally`` do; ``mode`` defaults to what the abort file
    under ``root`` says (the checkpoint there bounds an abnormal start).

    Runs of clean records are taken whole and not decoded (``CommitLog.segment_runs``: the CRC and length
    checks of the bulk kernel, a large segment's runs walked by threads): only where each run ends and its last
    record starts matter here. ``budget`` (an ``inspector.engine.model.budget.Budget``) is checked before every
    run and every 1024 other records: the walk covers whole segments, so a caller that must answer in time can
    stop it (``BudgetExceeded``). ``progress`` is called with the physical offset the walk has reached."""
    mode, start_index = recovery_start_of(log, root, mode)
    if start_index is None:
        return Recovery(mode, None, 0, None, "the commitlog directory holds no segment", None)
    start = log.segments[start_index]
    end = start.start_offset
    last = None
    n = 0
    # the broker's recovery stops at the first zero header: the zeros after it are not its question (a copied
    # store's 1 GiB of them written out are read only TAIL_BUDGET far; garbage after them is verify's finding)
    for seg in log.segments[start_index:]:
        for item in log.segment_runs(seg, check_crc=True, tail_budget=TAIL_BUDGET):
            if isinstance(item, Run):
                if budget is not None:
                    budget.check(f"walking {n} records for recovery")
                if item.count:
                    n += item.count
                    last = seg.start_offset + item.last_position
                    end = seg.start_offset + item.end
                    if progress is not None:
                        progress(end)
                continue
            n += 1
            if budget is not None and n % 1024 == 0:
                budget.check(f"walking {n} records for recovery")
            if isinstance(item, Message):
                last = item.physical_offset
                end = item.end_offset
            elif isinstance(item, Blank):
                seg_start = item.physical_offset - item.position
                nxt = log.segment_for(seg_start + (log.segment_size or 1))
                end = nxt.start_offset if nxt is not None else item.physical_offset
                if progress is not None:
                    progress(end)
            elif isinstance(item, Problem) and item.code not in NOT_FATAL:
                return Recovery(mode, start.file, end, last, f"{item.reason} ({item.file} @ {item.offset})", item)
    return Recovery(mode, start.file, end, last, "end of data (zero bytes follow)", None)


def recovery_start_of(log: CommitLog, root: Path, mode: str | None = None) -> tuple[str, int | None]:
    """(mode, index of the segment recovery starts in); the mode defaults to what the abort file says (the
    broker decides by its existence alone, spec §3.2)."""
    mode = mode or ("abnormal" if (root / "abort").exists() else "normal")
    segments = log.segments
    if not segments:
        return mode, None
    return mode, normal_start(segments) if mode == "normal" else abnormal_start(log, root)


def normal_start(segments) -> int:
    """4.9.x - 5.3.1: the third-to-last segment (or the first)."""
    return max(0, len(segments) - 3)


def abnormal_start(log: CommitLog, root: Path) -> int:
    """Newest segment whose first record is a message stored no later than the checkpoint's bound."""
    try:
        cp = read_checkpoint(root)
    except Exception:  # noqa: BLE001 - a bad checkpoint: fall back to the first segment, as the broker would
        cp = None
    bound = 0
    if cp is not None:
        bound = max(0, min(cp.physic_msg_timestamp, cp.logics_msg_timestamp) - CHECKPOINT_SLACK_MS)
    for i in range(len(log.segments) - 1, -1, -1):
        seg = log.segments[i]
        try:
            msg = log.message_at(seg.start_offset)
        except Exception:  # noqa: BLE001 - not a message: try an older segment
            continue
        if msg.store_timestamp != 0 and msg.store_timestamp <= bound:
            return i
    return 0
