"""What every command-line front end shares (``rmq-inspect`` and its Spark jobs): the documented exit codes,
one-line argument errors, integer arguments read through the engine's one argument vocabulary."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable

from inspector.engine import (
    CQ_FILE_SIZE,
    EXIT_BAD_INPUT,
    EXIT_NOT_FOUND,
    EXIT_STORE_ERROR,
    INDEX_ITEMS,
    INDEX_SLOTS,
    SEGMENT_SIZE,
    ArgumentKind,
    SecondsKind,
    integer_kind,
    terminal_text,
)

# glibc's malloc hands the top of its heap back to the kernel once 128 KiB lie free there and grows it by no more
# than asked: verify's numpy temporaries (a few MB per batch of records or units, made and freed thousands of times)
# then fault their pages in afresh each time, 60,000 page faults more on a store of 8 x 128 MiB (+4.5% CPU for
# verify, measured against c86702a; 100,000 faults instead of 40,000). A 16 MiB pad at the top keeps them: peak
# RSS +5 MB. M_TOP_PAD is -2 in glibc's malloc.h; a user's own MALLOC_TOP_PAD_ is left as it is.
_M_TOP_PAD = -2
HEAP_TOP_PAD = 16 << 20
_heap_kept = False


def keep_heap_top(pad: int = HEAP_TOP_PAD) -> None:
    """Ask glibc's malloc to keep ``pad`` bytes at the top of its heap (see above); elsewhere nothing. Once a
    process: the command line calls it at each start (its tests run many in one process)."""
    global _heap_kept
    if _heap_kept or "MALLOC_TOP_PAD_" in os.environ or not sys.platform.startswith("linux"):
        return
    _heap_kept = True
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # no glibc (musl has no mallopt): its allocator does as it does
        return
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt(_M_TOP_PAD, pad)


# 1, 2, 3 are the engine's errors' codes (exit_code); 0 and 4 are the commands' own
EXIT_OK, EXIT_PROBLEMS = 0, 4
__all__ = ["EXIT_BAD_INPUT", "EXIT_NOT_FOUND", "EXIT_OK", "EXIT_PROBLEMS", "EXIT_STORE_ERROR"]

# argparse takes "-1" as a value only when it looks like a negative number; "-0x10" too, so that an out-of-range
# value gets the range message instead of "unrecognized arguments" (no option of ours starts with a digit); and a
# relative store time ("--since -15m", "-2h": STORE_TIME)
_NEGATIVE_NUMBER = re.compile(r"^-(?:\d+|0[xX][0-9a-fA-F]+|\d*\.\d+|\d+(?:ms|s|m|h|d|w))$")


class OneLineParser(argparse.ArgumentParser):
    """argparse exits 2 with usage on a bad argument; keep the code (2 is our "bad input" too), shorten the text.

    Positionals may stand between options (``key S --begin 5 TOPIC KEY``): plain argparse binds the positionals
    before the first option at once, which an optional positional (``key``'s STORE) turns into a wrong binding
    and "unrecognized arguments"."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_NUMBER
        self._intermixing = False

    def error(self, message: str):
        self.print_usage(sys.stderr)
        program = self.prog.split()[0]  # "rmq-inspect", also for subcommands: every error line starts with it
        sys.stderr.write(f"{program}: error: {terminal_text(message)}\n")  # it quotes what was typed
        raise SystemExit(EXIT_BAD_INPUT)

    def parse_known_args(self, args=None, namespace=None):
        if self._intermixing or not self._can_intermix():
            return super().parse_known_args(args, namespace)
        self._intermixing = True  # parse_known_intermixed_args calls back here, twice
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False

    def _can_intermix(self) -> bool:
        """Only a command with an optional positional needs it; argparse refuses it with a sub-command or a
        remainder argument."""
        actions = self._actions
        return (any(a.nargs == "?" and not a.option_strings for a in actions)
                and not any(a.nargs in (argparse.REMAINDER, argparse.PARSER) for a in actions))


def kind_arg(kind: ArgumentKind | SecondsKind) -> Callable[[str], int | float]:
    """An argparse ``type`` for one argument kind: exit 2 with its allowed range (``argument --limit: must be a
    message count, an integer in [1, 9223372036854775807], not '-5'``; a duration: ``argument --idle-timeout:
    must be an idle time, a decimal number of seconds in (0, 86400], not 'nan'``)."""

    def parse(text: str) -> int | float:
        value = kind.read(text)
        if value is None:
            raise argparse.ArgumentTypeError(kind.refusal(text))
        return value

    parse.__name__ = kind.noun  # argparse names the type in some messages
    return parse


int_arg = kind_arg(integer_kind(-(1 << 63), (1 << 63) - 1))  # any 64-bit integer, decimal or 0x hex


def geometry_options(group) -> None:
    """The broker's four sizes (``--segment-size`` ...), each held to its allowed range: a wrong one would
    invent findings ("-65510 remain") or be silently ignored (0)."""
    group.add_argument("--segment-size", type=kind_arg(SEGMENT_SIZE), help="mappedFileSizeCommitLog in bytes")
    group.add_argument("--cq-file-size", type=kind_arg(CQ_FILE_SIZE),
                       help="mappedFileSizeConsumeQueue in bytes (a multiple of 20)")
    group.add_argument("--index-slots", type=kind_arg(INDEX_SLOTS), help="maxHashSlotNum")
    group.add_argument("--index-items", type=kind_arg(INDEX_ITEMS), help="maxIndexNum")
