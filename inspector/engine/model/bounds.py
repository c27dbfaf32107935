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


# -- arithmetic on values read from a store ------------------------------------------------------------------
# A file's length, a configured size, a long read from a unit: any may be 0, negative or at a bound of the
# Java long. These few functions are the one guard every reader and check does its arithmetic through (a
# timer log whose file is empty gave ``x % 0``, a batch unit at msgBaseOffset 2^63-1 a sum no int64 array can
# hold), so a hostile value becomes a finding, never a ZeroDivisionError or OverflowError.


def usable_size(*candidates: int | None, default: int) -> int:
    """The first candidate that is a positive size (a configured value, one read from the files), else
    ``default``: a 0-byte file gives no size to divide by."""
    return next((c for c in candidates if c is not None and c > 0), default)


def whole_units(length: int, unit: int) -> int:
    """How many whole ``unit``-byte units ``length`` bytes hold (0 for a length or unit <= 0)."""
    return length // unit if length > 0 and unit > 0 else 0


def misalignment(value: int, size: int) -> int:
    """How far ``value`` is past the last multiple of ``size`` below it (0: aligned). A size <= 0 aligns only 0:
    the answer is then ``value`` itself (any other value is said to be misaligned, never a division by 0)."""
    return value % size if size > 0 else value


def int64_sum(*values: int) -> int | None:
    """The sum when it is a Java long, else None (Java would wrap it negative: the caller says so)."""
    total = sum(values)
    return total if INT64_MIN <= total <= INT64_MAX else None


def java_long_wrap(value: int) -> int:
    """``value`` as Java's long arithmetic leaves it: wrapped into the signed 64-bit range (two's complement).
    Where the broker computes a long from stored values and writes the result (a delayed record's tagsCode is
    ``storeTimestamp + delay`` in ``DefaultMessageStore.computeDeliverTimestamp``), a hostile timestamp near
    Long.MAX_VALUE overflows there too, and the broker writes the wrapped value."""
    return ((value - INT64_MIN) % (1 << 64)) + INT64_MIN
