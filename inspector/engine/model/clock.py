"""The output zone: the one zone every shown time is written in (``--utc``: UTC; default: this machine's local
zone), and the zone an ISO time typed without one is read in (``--since 2025-09-19T10:00``), so what a user types
and what the tool shows agree. A process-wide switch: the CLI sets it once from ``--utc``; the TUI and the web
viewer run in that process and follow it."""

from __future__ import annotations

import datetime as dt

_utc = False


def set_utc(on: bool) -> None:
    """Show (and read naive ISO input) in UTC when ``on``, else in the local zone."""
    global _utc
    _utc = bool(on)


def is_utc() -> bool:
    return _utc


def in_output_zone(moment: dt.datetime) -> dt.datetime:
    """An aware ``moment`` moved into the output zone; a naive one taken to be in it."""
    if moment.tzinfo is None:
        return dt.datetime.combine(moment.date(), moment.time(), dt.UTC) if _utc else moment.astimezone()
    return moment.astimezone(dt.UTC) if _utc else moment.astimezone()


def zone_label() -> str:
    """The output zone for a header: 'UTC', or the local zone's name and offset now ('CST +08:00')."""
    if _utc:
        return "UTC"
    now = dt.datetime.now().astimezone()
    offset = now.isoformat()[-6:]
    return f"{now.tzname()} {offset}" if now.tzname() and now.tzname() != offset else offset
