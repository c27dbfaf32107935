"""``rmq-inspect grep`` measured (issue 31 item 1): ``python benchmarks/grep_bench.py [--quick | --smoke]``.

The store is run.py's ``segment`` store (datagen.py: one segment of ~776-byte records with ~560-byte JSON bodies,
uncompressed; 1 GiB, ``--quick`` 128 MiB, ``--smoke`` 4 MiB), generated once under ``benchmarks/data/``. Each row
is the engine's ``grep`` over the whole segment after an untimed warm-up (pages cached, kernels loaded): the
CPU time of the process (every thread) with one walking thread (``workers=1``: the one-core figure the goal is
about) and, for information, the wall time with the default threads. Throughput is commitlog bytes (10^9) per
CPU second. The target: 500 MB/s or more over uncompressed bodies on one core.
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

import datagen  # noqa: E402
from figures import mode_arguments, spread, verdict  # noqa: E402

from inspector.engine import GrepEnd, GrepHit, Store, compile_pattern, grep  # noqa: E402
from inspector.engine.scan.kernels import numba_enabled  # noqa: E402

MiB = 1 << 20
SIZES = {"full": 1024 * MiB, "quick": 128 * MiB, "smoke": 4 * MiB}
INDEX = {"full": {}, "quick": dict(index_slots=625_000, index_items=2_500_000),
         "smoke": dict(index_slots=4096, index_items=32_768)}  # run.py's geometry: the same cached store
GOAL_GBS = 0.5


def store(data: Path, mode: str) -> tuple[Path, dict]:
    root = data / mode / "segment"
    facts = datagen.cached_store(root, workdir=data, segments=1, segment_size=SIZES[mode], **INDEX[mode])
    return root, facts


def one(root: Path, text: str, workers: int | None, **kw) -> tuple[float, float, GrepEnd, int]:
    """(CPU seconds, wall seconds, the search's end, hits) of one grep over the store."""
    pattern = compile_pattern(text, fixed=kw.pop("fixed", False), ignore_case=kw.pop("ignore_case", False))
    with Store(root) as s:
        cpu, wall = time.process_time(), time.perf_counter()
        hits = 0
        end = None
        for item in grep(s, pattern, workers=workers, **kw):
            if isinstance(item, GrepHit):
                hits += 1
            elif isinstance(item, GrepEnd):
                end = item
        return time.process_time() - cpu, time.perf_counter() - wall, end, hits


def row(root: Path, name: str, text: str, repeat: int, goal: bool, warm: bool = True, **kw) -> list[str]:
    if warm:  # not in --smoke (the suite's run: every row runs once and prints its figure)
        one(root, text, 1, **dict(kw))  # warm-up
    runs = [one(root, text, 1, **dict(kw)) for _ in range(repeat)]
    walls = [one(root, text, None, **dict(kw))[1] for _ in range(repeat)]
    end, hits = runs[-1][2], runs[-1][3]
    rates = [end.total_bytes / r[0] / 1e9 for r in runs]
    met = verdict(statistics.median(rates) >= GOAL_GBS, goal)
    wall = statistics.median(end.total_bytes / w / 1e9 for w in walls)
    note = f"{hits:,} hit(s), {end.records_decoded:,} record(s) decoded; {end.how}; default threads: {wall:.2f} GB/s wall"
    return [name, *spread(rates), "GB/s (CPU, 1 walking thread)",
            f">= {GOAL_GBS}" if goal else "", met, note]


def main() -> int:
    args, mode, repeat = mode_arguments(__doc__, {"full": 5, "quick": 3, "smoke": 1})
    root, facts = store(args.data, mode)
    topic, key = facts["sample_keys"][len(facts["sample_keys"]) // 2]
    print(f"store: {root} ({facts['records']:,} records, {facts['bytes'] / 1e9:.3g} GB of records); numba: "
          f"{'yes' if numba_enabled() else 'no'}; load average: {' '.join(f'{x:.1f}' for x in _load())}")
    warm = mode != "smoke"
    rows = [
        row(root, "fixed string, no hit", "no-such-needle", repeat, True, warm, fixed=True),
        row(root, "fixed string, one key's records", key, repeat, True, warm, fixed=True),
        row(root, "regex with a literal (chargeback-\\d+)", r"chargeback-\d+", repeat, True, warm),
        row(root, "-i fixed string, no hit", "NO-SUCH-NEEDLE", repeat, True, warm, fixed=True, ignore_case=True),
        row(root, "regex without a literal (x\\d{3}q|y\\d{3}q)", r"x\d{3}q|y\d{3}q", repeat, False, warm),
        row(root, "a fifth of the records hits (--in tags, paid)", "paid", repeat, False, warm, fields=("tags",)),
    ]
    cli = [sys.executable, "-m", "inspector.cli.main", "grep", str(root), "no-such-needle", "--json"]
    if warm:
        subprocess.run(cli, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    walls = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cli, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t)
    rates = [facts["bytes"] / w / 1e9 for w in walls]
    rows.append(["`rmq-inspect grep STORE no-such-needle --json`, whole process", f"{statistics.median(rates):.2f}",
                 f"{min(rates):.2f}", f"{max(rates):.2f}", "GB/s (wall)", "", "(info)",
                 f"{statistics.median(walls):.2f} s: start-up, kernels loaded, both cores walking"])
    head = ["target", "median", "min", "max", "unit", "goal", "met", "notes"]
    print("| " + " | ".join(head) + " |\n|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0 if all(r[6] != "NO" for r in rows) else 1


def _load() -> tuple[float, float, float]:
    try:
        import os

        return os.getloadavg()
    except OSError:
        return (0.0, 0.0, 0.0)


if __name__ == "__main__":
    sys.exit(main())
