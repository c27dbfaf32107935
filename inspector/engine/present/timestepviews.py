"""What a step by store time says (the TUI's ±1 minute / hour / day keys): the time moved to with its zone, how
far a store-time gap took it, or, past an end, that it stayed and where the log or queue ends."""

from __future__ import annotations

import datetime as dt

from inspector.engine.read.search.timestep import TimeStep

UNITS = ((86_400_000, "day"), (3_600_000, "hour"), (60_000, "minute"), (1_000, "second"))


def stamp(ms: int) -> str:
    """Epoch ms as a local time with its zone: '2025-09-19 02:25:13.120 +08:00' (UTC offset, never a name)."""
    try:
        t = dt.datetime.fromtimestamp(ms / 1000).astimezone()
    except (OverflowError, OSError, ValueError):
        return f"invalid({ms})"
    zone = t.strftime("%z")
    return f"{t.isoformat(sep=' ', timespec='milliseconds')[:23]} {zone[:3]}:{zone[3:]}"


def span(ms: int) -> str:
    """A duration in its two largest units: '1 hour', '3 h 12 min', '2 days 4 h', '850 ms'."""
    ms = abs(ms)
    if ms < 1000:
        return f"{ms} ms"
    parts = []
    for size, name in UNITS:
        n, ms = divmod(ms, size)
        if n or parts:
            parts.append((n, name))
        if len(parts) == 2:
            break
    parts = [p for p in parts if p[0]]
    if len(parts) == 1:
        n, name = parts[0]
        return f"{n} {name}" + ("s" if n != 1 else "")
    short = {"day": "d", "hour": "h", "minute": "min", "second": "s"}
    return " ".join(f"{n} {short[name]}" for n, name in parts)


def time_step_note(step: TimeStep, where: str = "the log") -> tuple[str, bool]:
    """The one line a step says, and whether it is a warning (it stayed, or crossed a gap). ``where``: what was
    stepped through ('the log', 'queue T/0')."""
    size = span(step.step)
    way = "later" if step.step > 0 else "earlier"
    if step.landed is None:
        end = "ends" if step.step > 0 else "begins"
        edge = f"{where} {end} at {stamp(step.edge.store_timestamp)}" if step.edge else f"{where} holds no record"
        return f"no record {size} {way}: {edge}", True
    to = stamp(step.landed.store_timestamp)
    sign = "+" if step.moved >= 0 else "-"
    if step.gap:  # nothing was stored between the step's target and the record landed on
        return (f"nothing stored for {span(abs(step.moved) - abs(step.step))} past the {size} step: went "
                f"{sign}{span(step.moved)}, to {to}", True)
    return f"{sign}{size}: at {to} (moved {sign}{span(step.moved)})", False
