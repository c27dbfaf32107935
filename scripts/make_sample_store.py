#!/usr/bin/env python3
"""Generate the committed teaching store ``sample_store/`` from its scenario, ``scripts/sample_store.toml``.

Usage::

    python scripts/make_sample_store.py [--out DIR] [--scenario FILE]

``DIR`` defaults to ``sample_store/`` at the repository root. The store is written into a temporary
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

from sample_store_day import Day, Facts, Scenario, StoreWriter  # noqa: E402
from sample_store_readme import README_SKELETON, check, render_generated, update_readme  # noqa: E402

SCENARIO = Path(__file__).with_name("sample_store.toml")
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


def write_store(root: Path, sc: Scenario, **writer_options) -> Facts:
    """Play the scenario's day into a new store at ``root``. ``writer_options``: more StoreWriter arguments (the
    DLedger sample passes ``dledger=``)."""
    first = sc["producers"][0]  # the writer's default identity (every spec here names its own)
    with StoreWriter(root, sc.geometry, clock=None, tz=sc.tz, producer_ip=first["ip"], pid=first["pid"],
                     class_loader_hash=first["class_loader_hash"], store_host=sc["broker"]["store_host"],
                     **writer_options) as writer:
        day = Day(writer, sc)
        day.plan()
        day.run()
        writer.consumer_offsets = consumer_offsets(sc, writer.consume_queues.max_offsets)
        writer.delay_offsets = dict(sorted(day.delivered_levels.items()))
        writer.queue_nums = dict.fromkeys(sc.topics.values(), sc["broker"]["queues"])
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
        check(root, sc)
        generated = render_generated(root, sc, facts)
        replace_store_entries(root, target, STORE_ENTRIES)
        readme = target / "README.md"
        text = readme.read_text(encoding="utf-8") if readme.exists() else README_SKELETON
        new = update_readme(text, generated)
        if new != text or not readme.exists():
            readme.write_text(new, encoding="utf-8")
    return facts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "sample_store", help="target directory (default: %(default)s)")
    parser.add_argument("--scenario", type=Path, default=SCENARIO, help="the day to play (default: %(default)s)")
    args = parser.parse_args(argv)
    generate(args.out, args.scenario)
    total = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"wrote {args.out} ({total:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
