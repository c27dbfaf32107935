"""What every command-line front end shares (``rmq-inspect`` and its Spark jobs): the documented exit codes,
one-line argument errors, integer arguments in any base."""

from __future__ import annotations

import argparse
import sys

EXIT_OK, EXIT_NOT_FOUND, EXIT_BAD_INPUT, EXIT_STORE_ERROR, EXIT_PROBLEMS = 0, 1, 2, 3, 4


class OneLineParser(argparse.ArgumentParser):
    """argparse exits 2 with usage on a bad argument; keep the code (2 is our "bad input" too), shorten the text."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        program = self.prog.split()[0]  # "rmq-inspect", also for subcommands: every error line starts with it
        sys.stderr.write(f"{program}: error: {message}\n")
        raise SystemExit(EXIT_BAD_INPUT)


def int_arg(text: str) -> int:
    """An integer in decimal, 0x hex, 0o octal or 0b binary (offsets are often copied as hex)."""
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
