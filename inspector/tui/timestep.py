"""Stepping by store time in the hex and message screens (issue 31 item 5, after Toolong's time keys): ``m``/``M``
one minute later/earlier, ``o``/``O`` one hour, ``d``/``D`` one day; none of them is bound elsewhere on either
screen (tests/inspector/tui/test_timestep_keys.py holds that). The engine finds the record (``time_step``); this
module holds the keys and places the step in a message list's rows."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace

from textual.binding import Binding

from inspector.engine import TimeStep, TimeStop, time_step_note
from inspector.tui.widgets.messagelist import BatchPickedRows, MessageList, OffsetRows, QueueRows

MINUTE, HOUR, DAY = 60_000, 3_600_000, 86_400_000

# not in the footer (it has no room for six more); the help and the README list them
TIME_BINDINGS = [
    Binding("m", f"time_step({MINUTE})", "+1 minute", show=False),
    Binding("M", f"time_step({-MINUTE})", "-1 minute", show=False),
    Binding("o", f"time_step({HOUR})", "+1 hour", show=False),
    Binding("O", f"time_step({-HOUR})", "-1 hour", show=False),
    Binding("d", f"time_step({DAY})", "+1 day", show=False),
    Binding("D", f"time_step({-DAY})", "-1 day", show=False),
]


@dataclass(frozen=True)
class RowStep:
    """Where a step lands in a list: the row (None: it stays), and the step as the list sees it."""

    row: int | None
    step: TimeStep
    note: str
    warning: bool


def step_in_list(lst: MessageList, step: TimeStep, where: str) -> RowStep:
    """The row of ``lst`` a step of the engine's lands on: the record it found when the list has it, else (a
    filtered list) the first row at or after it forward, the last at or before it backward. Past the list's
    rows the step stays, said with the list's own first or last row."""
    if step.landed is None:
        note, warning = time_step_note(step, where)
        return RowStep(None, step, note, warning)
    source = lst.source
    forward = step.step > 0
    n = len(source)
    if isinstance(source, QueueRows):  # a row a queue offset: no search
        row = step.landed.queue_offset - source.lo if step.landed.queue_offset is not None else None
        row = None if row is None or not 0 <= row < n else row
    elif isinstance(source, OffsetRows):  # rows in log (or queue) order: by physical (queue) offset
        key = step.landed.queue_offset if isinstance(source, BatchPickedRows) else step.landed.physical_offset
        offsets = source.offsets
        row = bisect.bisect_left(offsets, key) if forward else bisect.bisect_right(offsets, key) - 1
        if not forward:
            while row > 0 and offsets[row - 1] == offsets[row]:  # an expanded batch: its record's row
                row -= 1
        row = row if 0 <= row < n else None
    else:
        row = None
    if row is None:
        edge = _row_stop(lst, n - 1 if forward else 0)
        stayed = TimeStep(step.origin, step.step, None, edge)
        note, warning = time_step_note(stayed, "the list")
        if forward and not source.complete:
            note += " (the list is still being filled: step again when its scan is done)"
        return RowStep(None, stayed, note, warning)
    at = _row_stop(lst, row)
    moved = step if at is None or at.store_timestamp == step.landed.store_timestamp else replace(step, landed=at)
    note, warning = time_step_note(moved, where)
    return RowStep(row, moved, note, warning)


def _row_stop(lst: MessageList, row: int) -> TimeStop | None:
    """Row ``row``'s record as a TimeStop (None: no row, or unreadable)."""
    got = lst.message(row)
    when = getattr(got, "store_timestamp", None)
    offset = lst.source.offset(row)
    return None if when is None or offset is None else TimeStop(offset, when)
