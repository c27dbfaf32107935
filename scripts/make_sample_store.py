#!/usr/bin/env python3
"""Generate the committed teaching store ``sample_store/`` from its scenario, ``scripts/sample_store.toml``.

Usage::

    python scripts/make_sample_store.py [--out DIR] [--scenario FILE]
    python scripts/make_sample_store.py --aged    # sample_store_aged/ from scripts/sample_store_aged.toml

``DIR`` defaults to ``sample_store/`` at the repository root. A scenario with an ``[aging]`` table (the aged
sample's: the same day, then retention and a crash) is aged by the writer after the day (the engine's
``Aging``), and its README section and self-checks are the aged store's. The store is written into a temporary
directory next to the target and then moved into place: only the entries a store consists of
(``commitlog/``, ``consumequeue/``, ``index/``, ``config/``, ``checkpoint``, ``lock``, ``abort``) are
deleted and replaced; ``README.md`` is kept and only its section between the ``<!-- generated -->`` and
``<!-- /generated -->`` markers is rewritten from the new store (a README is created from a skeleton if
the target has none). Other files in the target are left alone.

Three parts: the scenario (data: what happens in the day), ``sample_store_day.py`` (the rules that turn it
into messages for the engine's ``StoreWriter``) and ``sample_store_readme.py`` (the README section and the
self-checks, read back from the finished store). This script wires them together.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a plain script from a checkout
    sys.path.insert(0, str(REPO))

from sample_store_day import Day, Facts, Scenario, StoreWriter, _ms  # noqa: E402
from sample_store_readme import (  # noqa: E402
    README_SKELETON,
    check,
    check_aged,
    render_aged,
    render_generated,
    update_readme,
)

from inspector.engine.maintain.write.aging import Aging  # noqa: E402

SCENARIO = Path(__file__).with_name("sample_store.toml")
AGED_SCENARIO = Path(__file__).with_name("sample_store_aged.toml")
HOUR_MS = 3_600_000
STORE_ENTRIES = ("commitlog", "consumequeue", "index", "config", "checkpoint", "lock", "abort")


def consumer_offsets(sc: Scenario, max_offsets: dict[tuple[str, int], int]) -> dict[tuple[str, str], dict[int, int]]:
    """Where each group stands at shutdown: its queues' max offsets, less the scenario's ``behind``."""
    result = {}
    for row in sc["consumers"]:
        offsets = {q: o for (t, q), o in max_offsets.items() if t == row["topic"]}
        for queue, behind in row.get("behind", {}).items():
            offsets[int(queue)] = max(0, offsets[int(queue)] - behind)
        result[(row["topic"], row["group"])] = offsets
    return result


def aging_of(sc: Scenario) -> Aging | None:
    """The scenario's ``[aging]`` table as the writer's Aging (None: the store stays as the day left it)."""
    a = sc.data.get("aging")
    if a is None:
        return None
    return Aging(retention_now=_ms(a["retention_now"]) if "retention_now" in a else None,
                 file_reserved_ms=a.get("file_reserved_hours", 72) * HOUR_MS,
                 crashed=a.get("crashed", False), torn_tail=a.get("torn_tail", 0),
                 restarted_at=_ms(a["restarted_at"]) if "restarted_at" in a else None)


def write_store(root: Path, sc: Scenario, **writer_options) -> Facts:
    """Play the scenario's day into a new store at ``root``. ``writer_options``: more StoreWriter arguments (the
    DLedger sample passes ``dledger=``)."""
    first = sc["producers"][0]  # the writer's default identity (every spec here names its own)
    with StoreWriter(root, sc.geometry, clock=None, tz=sc.tz, producer_ip=first["ip"], pid=first["pid"],
                     class_loader_hash=first["class_loader_hash"], store_host=sc["broker"]["store_host"],
                     aging=aging_of(sc), **writer_options) as writer:
        day = Day(writer, sc)
        day.plan()
        day.run()
        writer.consumer_offsets = consumer_offsets(sc, writer.consume_queues.max_offsets)
        for row in sc.data.get("aging", {}).get("consumers", []):  # groups that stopped early: offsets as given
            writer.consumer_offsets[(sc.topics.get(row["topic"], row["topic"]), row["group"])] = {
                int(q): o for q, o in row["offsets"].items()}
        writer.delay_offsets = dict(sorted(day.delivered_levels.items()))
        writer.queue_nums = dict.fromkeys(sc.topics.values(), sc["broker"]["queues"])
    day.facts.aged = writer.aged  # set on close, after the day
    return day.facts


def replace_store_entries(root: Path, target: Path, entries: tuple[str, ...]) -> None:
    """Delete the store entries of ``target`` (only those), then move every entry of ``root`` into it."""
    for name in entries:
        old = target / name
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old)
        elif old.exists() or old.is_symlink():
            old.unlink()
    for entry in sorted(root.iterdir()):
        os.replace(entry, target / entry.name)


@contextmanager
def scratch_store(target: Path, prefix: str) -> Iterator[Path]:
    """A store path in a scratch folder beside ``target`` (which is created), the folder removed afterwards."""
    target.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=prefix, dir=target.parent))
    try:
        yield work / "store"
    finally:
        shutil.rmtree(work, ignore_errors=True)


def generate(target: Path, scenario: Path = SCENARIO) -> Facts:
    sc = Scenario(scenario)
    target = target.resolve()
    with scratch_store(target, ".sample_store-") as root:
        facts = write_store(root, sc)
        aged = "aging" in sc.data
        (check_aged if aged else check)(root, sc)
        generated = (render_aged if aged else render_generated)(root, sc, facts)
        replace_store_entries(root, target, STORE_ENTRIES)
        readme = target / "README.md"
        text = readme.read_text(encoding="utf-8") if readme.exists() else README_SKELETON.replace(
            "# sample_store", f"# {target.name}", 1)
        new = update_readme(text, generated)
        if new != text or not readme.exists():
            readme.write_text(new, encoding="utf-8")
    return facts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "sample_store", help="target directory (default: %(default)s)")
    parser.add_argument("--scenario", type=Path, default=SCENARIO, help="the day to play (default: %(default)s)")
    parser.add_argument("--aged", action="store_true",
                        help=f"the aged sample: --scenario {AGED_SCENARIO.name} --out sample_store_aged")
    args = parser.parse_args(argv)
    if args.aged:
        args.scenario = AGED_SCENARIO
        if args.out == REPO / "sample_store":
            args.out = REPO / "sample_store_aged"
    generate(args.out, args.scenario)
    total = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"wrote {args.out} ({total:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
