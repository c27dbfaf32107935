"""What the focused benchmark scripts (grep_bench, window_bench, stats_bench) share: their command line
(``--quick``/``--smoke``, ``--repeat``, ``--data``) and the figures of a row (median, min, max; goal met)."""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent


def mode_arguments(doc: str, repeats: dict[str, int],
                   argv: list[str] | None = None) -> tuple[argparse.Namespace, str, int]:
    """The parsed command line, the mode (full, quick or smoke) and the timed runs per row (``--repeat``, else
    ``repeats[mode]``); ``--data`` exists when this returns."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_const", dest="mode", const="quick")
    mode.add_argument("--smoke", action="store_const", dest="mode", const="smoke")
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--data", type=Path, default=HERE / "data")
    args = ap.parse_args(argv)
    chosen = args.mode or "full"
    args.data.mkdir(parents=True, exist_ok=True)
    return args, chosen, args.repeat or repeats[chosen]


def spread(values: Iterable[float], scale: float = 1.0, digits: int = 2) -> list[str]:
    """Median, minimum and maximum of ``values`` times ``scale``, each with ``digits`` decimals."""
    vs = [v * scale for v in values]
    return [f"{statistics.median(vs):.{digits}f}", f"{min(vs):.{digits}f}", f"{max(vs):.{digits}f}"]


def verdict(ok: bool, goal: bool) -> str:
    """The "met" column: yes or NO against a goal, "(info)" for a row that has none."""
    return ("yes" if ok else "NO") if goal else "(info)"
