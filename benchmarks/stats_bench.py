"""``rmq-inspect stats`` measured (issue 31 item 4): ``python benchmarks/stats_bench.py [--quick | --smoke]``.

The store is run.py's ``segment`` store (datagen.py: one segment of ~776-byte records; 1 GiB, ``--quick``
128 MiB, ``--smoke`` 4 MiB), generated once under ``benchmarks/data/`` and shared with grep_bench.py. Each row is
the engine's ``store_stats`` over the whole segment by one key after an untimed warm-up (pages cached, kernels
loaded): the CPU time of the process. The target: a 1 GiB segment in under 3 s (scaled by size for --quick).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

import grep_bench  # noqa: E402  (the same store: its sizes and geometry)
from figures import mode_arguments, spread, verdict  # noqa: E402

from inspector.engine import Store, store_stats  # noqa: E402
from inspector.engine.scan.kernels import numba_enabled  # noqa: E402

GOAL_S_PER_GIB = 3.0


def one(root: Path, by: str) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, records counted) of one stats over the store."""
    with Store(root) as s:
        cpu, wall = time.process_time(), time.perf_counter()
        stats = store_stats(s, by)
        return time.process_time() - cpu, time.perf_counter() - wall, stats.total.messages


def row(root: Path, by: str, repeat: int, goal_s: float, goal: bool) -> list[str]:
    one(root, by)  # warm-up
    runs = [one(root, by) for _ in range(repeat)]
    cpus = [r[0] for r in runs]
    met = verdict(statistics.median(cpus) <= goal_s, goal)
    return [f"stats --by {by}", *spread(cpus), "s (CPU)",
            f"<= {goal_s:.2f}" if goal else "", met,
            f"{runs[-1][2]:,} records; wall {statistics.median(r[1] for r in runs):.2f} s"]


def main() -> int:
    args, mode, repeat = mode_arguments(__doc__, {"full": 3, "quick": 3, "smoke": 1})
    root, facts = grep_bench.store(args.data, mode)
    goal_s = GOAL_S_PER_GIB * grep_bench.SIZES[mode] / (1 << 30)
    print(f"store: {root} ({facts['records']:,} records, {facts['bytes'] / 1e9:.3g} GB of records); numba: "
          f"{'yes' if numba_enabled() else 'no'}")
    rows = [row(root, by, repeat, goal_s, True)  # the goal holds for every key
            for by in ("topic", "queue", "host", "minute", "hour", "size", "tag", "producer-group")]
    cli = [sys.executable, "-m", "inspector.cli.main", "stats", str(root), "--json"]
    walls = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cli, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t)
    rows.append(["`rmq-inspect stats STORE --json`, whole process", f"{statistics.median(walls):.2f}",
                 f"{min(walls):.2f}", f"{max(walls):.2f}", "s (wall)", "", "(info)", "start-up and kernels' load"])
    head = ["target", "median", "min", "max", "unit", "goal", "met", "notes"]
    print("| " + " | ".join(head) + " |\n|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0 if all(r[6] != "NO" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
