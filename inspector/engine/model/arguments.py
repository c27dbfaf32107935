"""One argument vocabulary: what a user may type for an offset, a limit, a length, a size, a time or a port.

This is about user text (command-line arguments, TUI prompts, web query parameters), not store bytes. Every
front end reads its numbers through one ``ArgumentKind``, so the same value gets the same answer everywhere:
the same range and the same one-line message (``BadInput``: CLI exit 2, web 400, a TUI notification).

Syntax: an optional sign, then ASCII decimal digits or ``0x`` hex digits, grouped or not: the TUI and the tables
show offsets as ``14,924``, so ``14,924`` (commas every three digits exactly), ``14_924`` and ``0x3a_4c``
(underscores between digits, as Python and Java literals) read as the number, copied back from a screen. Nothing
else: ``int()`` would take Arabic-Indic or full-width digits and blow up on 4,300+ digits; ``1,2`` is no number
(a list?); any text of digits longer than a 64-bit value can be is simply out of range. The broker's own
``broker.conf`` numbers are read as Java reads them (``grouped=False``: ``Long.parseLong`` takes no separator).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from inspector.engine.model.errors import BadInput

INT64_MAX = (1 << 63) - 1
INT32_MAX = (1 << 31) - 1
_SYNTAX = re.compile(r"([+-]?)(?:0[xX]([0-9a-fA-F]+)|([0-9]+))", re.ASCII)
_GROUPED = re.compile(r"([+-]?)(?:0[xX]([0-9a-fA-F]+(?:_[0-9a-fA-F]+)*)|([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+(?:_[0-9]+)+))",
                      re.ASCII)
_TOO_BIG = 1 << 64  # stands for any number with more digits than a 64-bit value: out of every range
_SHOWN = 40  # characters of a bad value echoed in the message


def parse_integer(text: str, *, decimal_only: bool = False, grouped: bool = True) -> int | None:
    """The integer ``text`` spells (decimal or 0x hex, optional sign, digits grouped by ``,`` or ``_`` unless
    ``grouped`` is False: the module docstring), or None when it spells none. A number too long for 64 bits comes
    back as +-2**64 (out of every kind's range) without converting it."""
    text = text.strip()
    match = _SYNTAX.fullmatch(text) or (_GROUPED.fullmatch(text) if grouped else None)
    if match is None:
        return None
    sign, hex_digits, digits = (g if g is None else g.replace(",", "").replace("_", "") for g in match.groups())
    if decimal_only and hex_digits is not None:
        return None
    body, base, longest = (hex_digits, 16, 17) if hex_digits is not None else (digits, 10, 21)
    body = body.lstrip("0") or "0"
    value = _TOO_BIG if len(body) > longest else int(body, base)
    return -value if sign == "-" else value


def _shown(text: str) -> str:
    text = text.strip()
    return repr(text) if len(text) <= _SHOWN else f"{text[:_SHOWN]!r}... ({len(text)} characters)"


@dataclass(frozen=True)
class ArgumentKind:
    """A kind of integer argument: what it is (``noun``), its inclusive range, and a step it must be a multiple
    of (the consume-queue file size holds whole 20-byte units)."""

    noun: str
    low: int
    high: int
    multiple: int = 1

    def allowed(self, *, decimal_only: bool = False) -> str:
        step = f" that is a multiple of {self.multiple}" if self.multiple > 1 else ""
        return f"{'a decimal' if decimal_only else 'an'} integer in [{self.low}, {self.high}]{step}"

    def refusal(self, given: int | str, *, decimal_only: bool = False) -> str:
        """``must be a message count, an integer in [1, ...], not '-5'`` (argparse puts the name in front)."""
        shown = _shown(given) if isinstance(given, str) else given
        return f"must be {self.noun}, {self.allowed(decimal_only=decimal_only)}, not {shown}"

    def message(self, name: str, given: int | str, *, decimal_only: bool = False) -> str:
        """The one wording of every refusal: ``--limit must be a message count, an integer in [1, ...], not '-5'``."""
        return f"{name} {self.refusal(given, decimal_only=decimal_only)}"

    def fits(self, value: int) -> bool:
        return self.low <= value <= self.high and value % self.multiple == 0

    def read(self, text: str, *, decimal_only: bool = False) -> int | None:
        """The value ``text`` spells when it is one of this kind, else None (the caller words the refusal)."""
        value = parse_integer(text, decimal_only=decimal_only)
        return value if value is not None and self.fits(value) else None

    def parse(self, text: str, name: str, *, decimal_only: bool = False) -> int:
        """The value of ``text`` for the argument called ``name``; ``BadInput`` with the allowed range otherwise.
        ``decimal_only``: no 0x hex (the web's URLs and JSON carry offsets in decimal)."""
        value = self.read(text, decimal_only=decimal_only)
        if value is None:
            raise BadInput(self.message(name, text, decimal_only=decimal_only))
        return value

    def check(self, value: int | None, name: str) -> int | None:
        """An int already parsed (a Python caller's, or None for "not given") held to the same range."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not self.fits(value):
            raise BadInput(self.message(name, value if isinstance(value, int) else repr(value)))
        return value

    def at_most(self, high: int) -> ArgumentKind:
        """The same kind under a front end's cap (the web's page size): the message then states the cap."""
        return replace(self, high=min(self.high, high))

    def at_least(self, low: int) -> ArgumentKind:
        return replace(self, low=max(self.low, low))


# a decimal number of seconds: digits, an optional fraction and exponent, ASCII only (float() would also take
# 'nan', 'inf', '1_0' and non-ASCII digits); at most _FLOAT_CHARACTERS characters before it is converted
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_FLOAT_CHARACTERS = 40


@dataclass(frozen=True)
class SecondsKind:
    """A kind of duration argument in seconds, a decimal number (``2``, ``0.5``, ``1e3``) in (``low``, ``high``]:
    finite, above ``low`` (0: a wait of nothing is no wait), at most ``high``. The same methods as
    :class:`ArgumentKind`, so every front end reads it the same way (``nan``, ``inf``, ``1e308``, ``-1``: the
    range message)."""

    noun: str
    low: float
    high: float

    def allowed(self, *, decimal_only: bool = False) -> str:
        return f"a decimal number of seconds in ({self.low:g}, {self.high:g}]"

    def refusal(self, given: float | str, *, decimal_only: bool = False) -> str:
        shown = _shown(given) if isinstance(given, str) else repr(given)
        return f"must be {self.noun}, {self.allowed()}, not {shown}"

    def message(self, name: str, given: float | str, *, decimal_only: bool = False) -> str:
        return f"{name} {self.refusal(given)}"

    def fits(self, value: float) -> bool:
        return math.isfinite(value) and self.low < value <= self.high

    def read(self, text: str, *, decimal_only: bool = False) -> float | None:
        text = text.strip()
        if len(text) > _FLOAT_CHARACTERS or not _DECIMAL.fullmatch(text):
            return None
        value = float(text)  # finite or inf (1e999): fits() says
        return value if self.fits(value) else None

    def parse(self, text: str, name: str, *, decimal_only: bool = False) -> float:
        value = self.read(text)
        if value is None:
            raise BadInput(self.message(name, text))
        return value

    def check(self, value: float | None, name: str) -> float | None:
        """A number already parsed (a Python caller's, None for "not given") held to the same range."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not self.fits(value):
            raise BadInput(self.message(name, value if isinstance(value, int | float) else repr(value)))
        return value


def integer_kind(low: int, high: int) -> ArgumentKind:
    """A plain integer in [low, high], for arguments with no name of their own (a tour step, a seed)."""
    return ArgumentKind("an integer", low, high)


OFFSET = ArgumentKind("a physical offset", 0, INT64_MAX)
QUEUE_OFFSET = ArgumentKind("a queue offset", 0, INT64_MAX)
START = ArgumentKind("a physical or queue offset", 0, INT64_MAX)  # messages --from: which one depends on --queue
QUEUE_ID = ArgumentKind("a queue id", 0, INT32_MAX)
LIMIT = ArgumentKind("a message count", 1, INT64_MAX)
LENGTH = ArgumentKind("a length in bytes", 1, INT64_MAX)
TIME_MS = ArgumentKind("a time in epoch milliseconds", 0, INT64_MAX)
COUNT = ArgumentKind("a count", 1, INT32_MAX)
# each exercise reads a sample of the store (~1.5 ms on the sample store): a bound keeps one command short
EXERCISE_COUNT = ArgumentKind("an exercise count", 1, 1000)
PORT = ArgumentKind("a TCP port", 0, 65535)
INDEX_SLOT = ArgumentKind("a hash slot number", 0, INT32_MAX)
# geometry: the broker keeps these in Java ints; a segment holds at least one record, a queue file whole units.
# The smallest record is parsers.commitlog.record_length(0, 0, 0) (a test holds them equal), written here as a
# number: parsing the command line (--help, a refused argument) then does not import the schemas (construct, ~40 ms)
MIN_RECORD_LENGTH = 91
SEGMENT_SIZE = ArgumentKind("a commitlog segment size in bytes", MIN_RECORD_LENGTH, INT32_MAX)
CQ_FILE_SIZE = ArgumentKind("a consume-queue file size in bytes", 20, INT32_MAX - INT32_MAX % 20, multiple=20)
INDEX_SLOTS = ArgumentKind("a hash slot count", 1, INT32_MAX)
INDEX_ITEMS = ArgumentKind("an index item count", 1, INT32_MAX)
# broker.conf's timer settings (MessageStoreConfig: timerPrecisionMs int, mappedFileSizeTimerLog int,
# timerMaxDelaySec long)
TIMER_PRECISION = ArgumentKind("a timer precision in ms", 1, INT32_MAX)
TIMER_LOG_SIZE = ArgumentKind("a timer log file size in bytes", 1, INT32_MAX)
TIMER_MAX_DELAY = ArgumentKind("a delay in seconds", 1, INT64_MAX)
TIMER_SLOT = ArgumentKind("a timer wheel slot", 0, 2 * 7 * 86_400 - 1)  # TimerWheel: 2 x 7 days of slots
TIMER_START = ArgumentKind("a timer-log offset or slot number", 0, INT64_MAX)  # timer --from (units or --wheel)
# DLedger stores (spec part 2 §16): records before DLedger was switched on; index files hold whole 32-byte units
PRE_DLEDGER = ArgumentKind("a record count", 0, INT64_MAX)
DLEDGER_INDEX_FILE_SIZE = ArgumentKind("a DLedger index file size in bytes", 32, INT32_MAX - INT32_MAX % 32,
                                       multiple=32)
# messages --follow --idle-timeout: stop after this long with nothing new. Past a day is no "idle" timeout
# (leave it out to follow for ever); nan, inf or 1e308 would never stop, 0 or -1 stops before the first look
IDLE_TIMEOUT = SecondsKind("an idle time", 0.0, 86_400.0)
# key / show --budget: stop the scan of the log no index file covers after this long (a day at most)
SCAN_BUDGET = SecondsKind("a time budget", 0.0, 86_400.0)


# --since / --until (issue 31 item 2): a store time typed as an ISO 8601 date and time, epoch ms, or a time
# before now. A time of day without a date ("10:00") is refused: which day would be a guess.
_RELATIVE = re.compile(r"-([0-9]{1,12})(ms|s|m|h|d|w)", re.ASCII)
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_DATE_FIRST = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ]|$)", re.ASCII)
_SHOWN_ZONE = re.compile(r"(.+[0-9]) ([+-][0-9]{2}:[0-9]{2}|Z)", re.ASCII)
_EPOCH = None  # datetime's epoch, made on first use (datetime is imported only when a time is typed)


@dataclass(frozen=True)
class StoreTimeKind:
    """A store time argument (``--since``, ``--until``), read to epoch milliseconds: ``2025-09-19T10:00:00`` or
    ``2025-09-19 10:00:00.250`` (local time), with a zone (``Z``, ``+08:00``), a date alone (its midnight, local),
    epoch ms digits, or ``-15m`` / ``-2h`` / ``-7d`` (also ``ms``, ``s``, ``w``) before now. The same methods as
    :class:`ArgumentKind`, so ``kind_arg`` and the TUI read it the same way; a text it does not read gets the one
    range message."""

    noun: str

    def allowed(self, *, decimal_only: bool = False) -> str:
        return ("an ISO 8601 date and time (2025-09-19T10:00:00 local, or with a zone: Z, +08:00), epoch "
                "milliseconds, or a time before now (-15m, -2h, -7d)")

    def refusal(self, given: int | str, *, decimal_only: bool = False) -> str:
        shown = _shown(given) if isinstance(given, str) else repr(given)
        return f"must be {self.noun}, {self.allowed()}, not {shown}"

    def message(self, name: str, given: int | str, *, decimal_only: bool = False) -> str:
        return f"{name} {self.refusal(given)}"

    def read(self, text: str, *, decimal_only: bool = False, now_ms: int | None = None) -> int | None:
        """Epoch ms, or None when ``text`` is no store time. ``now_ms``: what a relative time counts back from
        (default: this machine's clock)."""
        text = text.strip()
        if len(text) > 64:
            return None
        if text.isascii() and text.isdigit():
            return TIME_MS.read(text, decimal_only=True)
        relative = _RELATIVE.fullmatch(text)
        if relative is not None:
            import time

            now = int(time.time() * 1000) if now_ms is None else now_ms
            value = now - int(relative.group(1)) * _UNIT_MS[relative.group(2)]
            return value if TIME_MS.fits(value) else None
        if not _DATE_FIRST.match(text):
            return None
        return _iso_ms(text)

    def parse(self, text: str, name: str, *, decimal_only: bool = False, now_ms: int | None = None) -> int:
        value = self.read(text, now_ms=now_ms)
        if value is None:
            raise BadInput(self.message(name, text))
        return value

    def check(self, value: int | None, name: str) -> int | None:
        """Epoch ms already read (a Python caller's; None: not given) held to TIME_MS's range."""
        return TIME_MS.check(value, name)


def _iso_ms(text: str) -> int | None:
    """Epoch ms of an ISO 8601 date (and time; a naive one is local time), exact to the millisecond (integer
    arithmetic: a float timestamp times 1000 can land a millisecond low); None when it is no such time."""
    import datetime as dt

    global _EPOCH
    shown = _SHOWN_ZONE.fullmatch(text)
    if shown is not None:  # a time as the tables show it, its zone after a space: read back as shown
        text = shown.group(1) + shown.group(2)
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        from inspector.engine.model.clock import in_output_zone

        try:
            moment = in_output_zone(moment)  # a naive time is in the output zone: local, or UTC under --utc
        except (OverflowError, OSError, ValueError):
            return None
    if _EPOCH is None:
        _EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    value = (moment - _EPOCH) // dt.timedelta(milliseconds=1)
    return value if TIME_MS.fits(value) else None


STORE_TIME = StoreTimeKind("a store time")


def check_window(since: int | None, until: int | None) -> None:
    """BadInput when ``--since`` comes after ``--until`` (the window holds nothing: a typo, not a question)."""
    if since is not None and until is not None and since > until:
        raise BadInput(f"--since ({since} ms) is after --until ({until} ms): the window [since, until) is empty")
