"""Integers that come from a store file (offsets, sizes, counts, file names): parsed with explicit bounds.

RocketMQ keeps every offset, size and count in a Java ``long`` or ``int``; a value outside the signed 64-bit
range cannot be one, and the bulk kernels (numpy int64) cannot hold it. So a file name or number beyond it is
refused here, by one rule, with a message saying what the range is, instead of an OverflowError later.
"""

from __future__ import annotations

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
_ASCII_DIGITS = frozenset("0123456789")


MAX_DIGITS = 64  # longer digit strings are no number of a store at all (and int() refuses past 4300)


def decimal_name(name: str, width: int | None = None) -> int | None:
    """The value of a name made only of ASCII digits (``width`` of them when given, at most MAX_DIGITS), None
    otherwise. Not ``str.isdigit()`` or ``\\d``: those take "٣" or "²"; the broker writes ``%020d`` and
    ``yyyyMMddHHmmssSSS``.
    """
    if not name or len(name) > MAX_DIGITS or (width is not None and len(name) != width):
        return None
    return int(name) if set(name) <= _ASCII_DIGITS else None


def offset_text(text: str) -> int | None:
    """A physical offset typed or stored as decimal text: its value, None when ``text`` is not ASCII digits.
    Raises ValueError (one line, with the range) for digits beyond the signed 64-bit range, however many."""
    if not text or not set(text) <= _ASCII_DIGITS:
        return None
    if len(text.lstrip("0")) > 19 or int(text) > INT64_MAX:
        raise ValueError(f"offset {text[:24]}{'...' if len(text) > 24 else ''} ({len(text)} digits) is outside the "
                         f"signed 64-bit range [0, {INT64_MAX}]")
    return int(text)


def int64_problem(value: int, what: str) -> str | None:
    """Why ``value`` cannot be a Java long (``what`` names it), or None when it can."""
    if INT64_MIN <= value <= INT64_MAX:
        return None
    return f"{what} {value} is outside the signed 64-bit range [{INT64_MIN}, {INT64_MAX}]"
