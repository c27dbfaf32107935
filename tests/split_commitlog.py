"""A copy of a store whose commitlog is split over two folders outside it, as a broker with
``storePathCommitLog=dirA,dirB`` leaves it (``MultiPathMappedFileQueue``), and the broker.conf that says so."""

from __future__ import annotations

import shutil
from pathlib import Path


def split_commitlog(original: Path, where: Path, **settings: str) -> tuple[Path, Path, list[Path]]:
    """(store root, broker.conf, the two folders): segments moved alternately into ``where/disk1/commitlog`` and
    ``where/disk2/commitlog``; ``settings`` are more lines for the broker.conf (written first)."""
    root = where / "split" / "store"
    shutil.copytree(original, root)
    dirs = [where / "disk1" / "commitlog", where / "disk2" / "commitlog"]
    for d in dirs:
        d.mkdir(parents=True)
    for i, seg in enumerate(sorted((root / "commitlog").iterdir())):
        shutil.move(seg, dirs[i % 2] / seg.name)
    (root / "commitlog").rmdir()
    conf = where / "broker.conf"
    lines = [f"{k}={v}" for k, v in settings.items()] + [f"storePathCommitLog={dirs[0]}, {dirs[1]}"]
    conf.write_text("\n".join(lines) + "\n")
    return root, conf, dirs


def split_under_root(original: Path, where: Path) -> tuple[Path, Path, list[Path]]:
    """(store root, broker.conf, the segments): a copy of ``original`` whose commitlog is in ``log0/`` and
    ``log1/`` under the root (the last segment in log1), named in a broker.conf under another
    ``storePathRootDir`` (``/data/store``), as a copy of such a broker's store is found."""
    root = where / "store"
    shutil.copytree(original, root)
    (root / "commitlog").rename(root / "log0")
    (root / "log1").mkdir()
    segs = sorted((root / "log0").iterdir())
    shutil.move(segs[-1], root / "log1" / segs[-1].name)
    conf = where / "b.conf"
    conf.write_text("storePathRootDir=/data/store\nstorePathCommitLog=/data/store/log0,/data/store/log1\n")
    return root, conf, segs
