"""Reading an exercise's answer tolerantly: decimal or 0x-hex numbers, thousands separators, durations with or
without units, an address and an offset, one of a few choices, 'none'; surrounding words and any case.

``read_answer(exercise, text)`` gives the normalised value an :class:`~inspector.engine.workshop.exercise_model.Exercise`
compares with its ``expected``, or ``UNREADABLE``.
"""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inspector.engine.workshop.exercise_model import Exercise

NONE_WORDS = {"none", "no", "nothing", "-", "rollback", "rolled back", "rolledback", "n/a", "null", "no commit"}

UNREADABLE = object()
_INT_TOKEN = re.compile(r"[-+]?0x[0-9a-f]+|[-+]?\d[\d,_]*\d|[-+]?\d")
_IPV4 = re.compile(r"\b(\d{1,3}(?:\.\d{1,3}){3})\b")
_IPV6 = re.compile(r"\[([0-9a-f:.]+)\]|\b([0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7})\b")
_DURATION = re.compile(r"([-+]?\d+(?:\.\d+)?)\s*([a-z]*)")
_UNIT_MS = {
    **dict.fromkeys(("ms", "msec", "msecs", "millis", "millisecond", "milliseconds"), 1),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1000),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60_000),
    **dict.fromkeys(("h", "hour", "hours"), 3_600_000),
}


def parse_int(text: str, *, signed_width: int | None = None) -> int | None:
    """One integer in ``text``: decimal (``65,518``, ``65_518``), ``0x`` hex, or bare hex with a letter in it.

    ``signed_width`` (32 or 64) reads a hex value with the top bit set as two's complement.
    """
    t = text.strip().lower().rstrip(".")
    tokens = _INT_TOKEN.findall(t)
    if len(tokens) != 1:
        if not tokens and re.fullmatch(r"-?[0-9a-f]+", t) and re.search(r"[a-f]", t):
            tokens = ["0x" + t.lstrip("-")] if not t.startswith("-") else ["-0x" + t[1:]]
        else:
            return None
    token = tokens[0].replace(",", "").replace("_", "")
    is_hex = "0x" in token
    try:
        value = int(token, 16) if is_hex else int(token)
    except ValueError:
        return None
    if is_hex and signed_width and value >= 0:
        if signed_width == 64 and value >= 1 << 63 and value < 1 << 64:
            value -= 1 << 64
        elif value >= 1 << 31 and value < 1 << 32:
            value -= 1 << 32  # an int32 written as 8 hex digits
    return value


def parse_duration_ms(text: str, expected_ms: int | None = None) -> int | None:
    """A duration in ms: ``10000``, ``10000 ms``, ``10 s``, ``10s``, ``1 min 30 s``. A bare number that is not
    the expected ms but is the expected seconds is read as seconds."""
    t = text.strip().lower().replace(",", "").replace("_", "")
    parts = _DURATION.findall(t)
    if not parts:
        return None
    if len(parts) == 1 and not parts[0][1]:
        ms = float(parts[0][0])
        if expected_ms is not None and ms != expected_ms and ms * 1000 == expected_ms:
            ms *= 1000
        return round(ms)
    total = 0.0
    for number, unit in parts:
        if unit not in _UNIT_MS:
            return None
        total += float(number) * _UNIT_MS[unit]
    return round(total)


def parse_host_offset(text: str) -> tuple[str, int, int] | None:
    """(ip, port, offset) from text such as ``10.20.0.5:10911 56961`` or ``ip 10.20.0.5, port 10911, offset 0x1``."""
    t = text.strip().lower()
    ip = None
    m4 = _IPV4.search(t)
    if m4:
        ip, t = m4.group(1), t[: m4.start()] + " " + t[m4.end():]
    else:
        m6 = _IPV6.search(t)
        if m6:
            ip, t = m6.group(1) or m6.group(2), t[: m6.start()] + " " + t[m6.end():]
    if ip is None:
        return None
    try:
        ip = str(ipaddress.ip_address(ip))
    except ValueError:
        return None
    numbers = [n.replace(",", "").replace("_", "") for n in _INT_TOKEN.findall(t)]
    if len(numbers) != 2:
        return None
    try:
        port, offset = (int(n, 16) if "0x" in n else int(n) for n in numbers)
    except ValueError:
        return None
    return ip, abs(port), abs(offset)


def _norm_text(text: str) -> str:
    return " ".join(text.strip().strip("'\"`").split()).lower()


def read_answer(ex: Exercise, given: str):
    if not given:
        return UNREADABLE
    kind = ex.answer_type
    if kind == "int":
        width = 64 if ex.kind in ("tags-code",) else None
        v = parse_int(given, signed_width=width)
        return UNREADABLE if v is None else (v,)
    if kind == "int-or-none":
        if _norm_text(given) in NONE_WORDS:
            return ("none",)
        v = parse_int(given)
        return UNREADABLE if v is None else (v,)
    if kind == "duration":
        v = parse_duration_ms(given, ex.expected[0] if ex.expected else None)
        return UNREADABLE if v is None else (v,)
    if kind == "host-offset":
        v = parse_host_offset(given)
        return UNREADABLE if v is None else v
    if kind == "choice":
        exact = " ".join(given.strip().strip("'\"`").split())
        low = exact if ex.case_sensitive else exact.lower()
        fold = (lambda s: s) if ex.case_sensitive else str.lower
        for hits in ({c for c, sp in ex.choices if exact in sp},
                     {c for c, sp in ex.choices for s in sp if fold(s) == low},
                     # looser: the answer contains exactly one choice's distinctive spelling
                     {c for c, sp in ex.choices for s in sp if len(s) > 3 and fold(s) in low}):
            if len(hits) == 1:
                return (hits.pop(),)
        return UNREADABLE
    raise ValueError(f"unknown answer type {kind}")
