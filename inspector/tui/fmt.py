"""Small display helpers shared by the screens: times, sizes, numbers, and parsing what users type."""

from __future__ import annotations

import datetime as dt
import re

from inspector.engine import TIME_MS, ArgumentKind, BadInput, Problem, fmt_time, parse_integer


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


def _ungrouped(text: str) -> str:
    return re.sub(r"[\s,_]", "", text)  # numbers are shown grouped (14,924): copied back, they still read


def is_number(text: str) -> bool:
    """Whether ``text`` spells an integer at all (then it is read as a number, in range or refused)."""
    return parse_integer(_ungrouped(text)) is not None


def parse_kind(text: str, kind: ArgumentKind, name: str) -> int:
    """``text`` read as one of the engine's argument kinds (the CLI's and the web's ranges and wording);
    ValueError with that one-line message otherwise."""
    try:
        return kind.parse(_ungrouped(text), name)
    except BadInput as e:
        raise ValueError(str(e)) from None


def parse_time(text: str) -> int:
    """Epoch ms from what a user types: epoch ms digits, or an ISO date/time (local zone unless one is given)."""
    text = text.strip()
    if re.fullmatch(r"[0-9]{10,}", text):  # ASCII digits only, held to the CLI's --begin/--end range
        return parse_kind(text, TIME_MS, "time")
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
