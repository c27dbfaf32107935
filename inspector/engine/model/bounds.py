"""Integers that come from a store file (offsets, sizes, counts, file names): parsed with explicit bounds.

RocketMQ keeps every offset, size and count in a Java ``long`` or ``int``; a value outside the signed 64-bit
range cannot be one, and the bulk kernels (numpy int64) cannot hold it. So a file name or number beyond it is
refused here, by one rule, with a message saying what the range is, instead of an OverflowError later.
"""

from __future__ import annotations

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
_ASCII_DIGITS = frozenset("0123456789")


def decimal_name(name: str, width: int | None = None) -> int | None:
    """The value of a file name made only of ASCII digits (``width`` of them when given), None otherwise.

    Not ``str.isdigit()`` or ``\\d``: those take "٣" or "²"; the broker writes ``%020d`` / ``yyyyMMddHHmmssSSS``.
    """
    if not name or (width is not None and len(name) != width) or not set(name) <= _ASCII_DIGITS:
        return None
    return int(name)


def int64_problem(value: int, what: str) -> str | None:
    """Why ``value`` cannot be a Java long (``what`` names it), or None when it can."""
    if INT64_MIN <= value <= INT64_MAX:
        return None
    return f"{what} {value} is outside the signed 64-bit range [{INT64_MIN}, {INT64_MAX}]"
