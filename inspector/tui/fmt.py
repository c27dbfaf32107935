"""Small display helpers shared by the screens: times, sizes, numbers, and parsing what users type."""

from __future__ import annotations

import datetime as dt
import re

from inspector.engine import Problem, fmt_time


def when(ms: int | None) -> str:
    """Compact local time ('2025-09-19 09:00:00.196'); '-' for none."""
    if ms is None or ms <= 0:
        return "-"
    full = fmt_time(ms)
    return full if full.startswith("invalid") else full[:23].replace("T", " ")


def num(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{n} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover


def parse_int(text: str) -> int:
    """A decimal or 0x-hex integer; commas, underscores and spaces are ignored. ValueError otherwise."""
    cleaned = re.sub(r"[\s,_]", "", text)
    if not cleaned:
        raise ValueError("empty")
    return int(cleaned, 0) if cleaned.lower().startswith(("0x", "-0x")) else int(cleaned, 10)


def parse_time(text: str) -> int:
    """Epoch ms from what a user types: epoch ms digits, or an ISO date/time (local zone unless one is given)."""
    text = text.strip()
    if re.fullmatch(r"\d{10,}", text):
        return int(text)
    try:
        moment = dt.datetime.fromisoformat(text.replace(" ", "T", 1) if " " in text else text)
    except ValueError:
        raise ValueError(f"not a time: {text!r} (use 2025-09-19 10:00:00 or epoch ms)") from None
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return int(moment.timestamp() * 1000)


def commitlog_offset(problem: Problem) -> int | None:
    """The physical offset a commitlog problem points at, None when it is about another file."""
    parts = problem.file.split("/")
    if len(parts) == 2 and parts[0] == "commitlog" and parts[1].isdigit():
        return int(parts[1]) + problem.offset
    return None


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"
