"""The arguments of ``tour``, ``exercises`` and ``templates``, apart from their code: building the parser (every
command, ``--help`` too) must not import rich or the engine's reader."""

from __future__ import annotations

import argparse
from collections.abc import Callable

DEFAULT_STORE = "sample_store"


def add_parsers(sub, store_args: Callable[[argparse.ArgumentParser], None], int_type) -> None:
    p = sub.add_parser("tour", help="a guided tour of a store, step by step (default: ./sample_store)")
    store_args(p)
    for action in p._actions:  # the store is optional here: the sample store is the default
        if action.dest == "store":
            action.nargs, action.required, action.default = "?", False, None
            action.help = f"store root directory (default: ./{DEFAULT_STORE})"
    p.add_argument("--step", type=int_type, help="print only step N (1-based) and exit")
    p.add_argument("--all", action="store_true", help="print every step without waiting")
    p.add_argument("--json", action="store_true", help="the steps as JSON (with --step: that step only)")

    p = sub.add_parser("exercises", help="questions about a store, checked against the engine")
    store_args(p)
    p.add_argument("--seed", type=int_type, default=0, help="another variant of the same set (default 0)")
    p.add_argument("--count", type=int_type, default=12, help="number of exercises (default 12)")
    p.add_argument("--answers", help='JSON file of answers: {"01-key-offset": "4096", ...} or a list in order')
    p.add_argument("--answer-key", action="store_true", help="print the questions with their answers (for trainers)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("templates", help="write Kaitai Struct (.ksy) and ImHex (.hexpat) templates of the formats")
    p.add_argument("--out", required=True, help="directory to write the templates into")
    p.add_argument("--json", action="store_true")
