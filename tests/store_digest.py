"""What tests use to prove a store was not written to, and to damage a copy of one: a file's content hash (a large
sparse file hashed extent by extent), one digest of a whole tree, and byte surgery at a position."""

from __future__ import annotations

import hashlib
from pathlib import Path

from inspector.engine.read.commitlog.mapped import data_extents


def content_hash(path: Path, size: int | None = None) -> str:
    """SHA-256 of the file's bytes. A large sparse file (a writer-made 1 GiB segment, the timer wheel) is hashed
    extent by extent with the extents themselves: bytes outside them are zeros, and a write into a hole makes a
    new extent, so this is still "byte for byte" at a fraction of the reading."""
    if size is None:
        size = path.stat().st_size
    extents = data_extents(path) if size >= 1 << 20 else None
    if extents is None:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    h = hashlib.sha256(repr(extents).encode())
    with open(path, "rb") as f:
        for start, end in extents:
            f.seek(start)
            h.update(f.read(end - start))
    return h.hexdigest()


def tree_digest(root: Path) -> str:
    """One hash of every file's path and bytes under ``root``: equal before and after = nothing was written."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + content_hash(p).encode())
    return h.hexdigest()


def patch_bytes(path: Path, at: int, data: bytes) -> None:
    """Overwrite the bytes of ``path`` at ``at`` with ``data`` (a damaged copy of a store's file)."""
    raw = bytearray(path.read_bytes())
    raw[at : at + len(data)] = data
    path.write_bytes(bytes(raw))
