"""Is this path a store root? One rule for every front end, and a one-line answer saying where the store is.

The rule: a store root is a directory holding at least one of ``commitlog/``, ``consumequeue/``, ``index/``,
``checkpoint`` or ``config/`` (what every broker writes: a broker that has just started has ``checkpoint``, a
store copied for a bug report may have only ``checkpoint`` and ``config/``, a test store only ``commitlog/``), or
one of the 5.x data entries ``batchconsumequeue/``, ``consumequeue_ext/``, ``consumequeue_rocksdb/``,
``timerlog/``, ``timerwheel``. Not a store, with the answer given:

- a folder of a store (``STORE/commitlog``, ``STORE/consumequeue/T/0``, ``STORE/config``): "this is the commitlog
  folder of a store: open its parent (STORE)";
- a DLedger root (``dledger-<id>/data``, with or without ``commitlog/``) is a store; a DLedger member folder
  (``dledger-n0``) or its ``data/`` or ``index/`` opens as the store it belongs to (``Store`` moves up to the
  root); any other folder inside a member folder: where the store root is;
- a folder holding a store one level down in ``store/`` (``~/store/store``): open that;
- anything else, an empty folder included: "no RocketMQ store here (...)".

A path that is missing, a file or unreadable cannot be opened at all (:func:`unopenable`, also ``Store``'s check).
"""

from __future__ import annotations

import os
from pathlib import Path

from inspector.engine.model.bounds import decimal_name
from inspector.engine.model.errors import BadInput
from inspector.engine.read.dledger.dledger import homes, member_root
from inspector.engine.read.store.census import DLEDGER_PREFIX, ROOT_KINDS, TOPIC_FOLDERS, entry_is_dir
from inspector.engine.read.store.strays import INDEX_NAME_WIDTH, OFFSET_WIDTH

MARKERS = frozenset({"commitlog", "consumequeue", "index", "checkpoint", "config", "batchconsumequeue",
                     "consumequeue_ext", "consumequeue_rocksdb", "timerlog", "timerwheel"})
NO_STORE = "no RocketMQ store here (no commitlog/, consumequeue/, index/, checkpoint or config/)"
_FOLDER_KINDS = frozenset(name for name, (_, _, is_folder) in ROOT_KINDS.items() if is_folder)
_UP = 4  # STORE/consumequeue/<topic>/<queue> is the deepest folder a user opens by mistake
_CHILDREN = 64  # subfolders looked into for a store one level down (a big folder is not searched)


def _names(path: Path) -> dict[str, bool] | None:
    """Entry name -> is a folder, or None when ``path`` cannot be listed."""
    try:
        with os.scandir(path) as it:
            return {e.name: entry_is_dir(e) for e in it}
    except OSError:
        return None


def _dledger(names: dict[str, bool]) -> list[str]:
    return sorted(n for n, is_dir in names.items() if is_dir and n.startswith(DLEDGER_PREFIX))


def _inside_a_store(path: Path, own_markers: bool) -> str | None:
    """The answer when ``path`` is a folder of a store (up to four levels down), else None."""
    for depth, ancestor in enumerate(path.parents[:_UP], start=1):
        rel = path.relative_to(ancestor)
        first = rel.parts[0]
        dledger = first.startswith(DLEDGER_PREFIX)
        if first not in _FOLDER_KINDS and not dledger:
            continue
        # a store root may hold kind names itself: only a DLedger member folder (index/, checkpoint inside) and a
        # consume-queue folder (a topic named "index") are folders of a store whatever they hold
        if own_markers and not (dledger or (depth == 1 and first in TOPIC_FOLDERS)):
            continue
        names = _names(ancestor) or {}
        others = (MARKERS & names.keys()) - {first}
        if not (others or _dledger(names) or (depth == 1 and first in MARKERS and first in names)):
            continue
        if dledger:
            return (f"this is {rel.as_posix()} of a DLedger store: open the store root ({ancestor}); its data is in "
                    f"{first}/data")
        if depth == 1:
            return f"this is the {first} folder of a store: open its parent ({ancestor})"
        return f"this is {rel.as_posix()} inside a store: open the store root ({ancestor})"
    return None


def _hint(names: dict[str, bool]) -> str:
    """What the files of a folder that is no store look like, when they look like something."""
    files = [n for n, is_dir in names.items() if not is_dir]
    if not names:
        return "; the folder is empty"
    if files and all(decimal_name(n, OFFSET_WIDTH) is not None for n in files):
        return (f"; its {len(files)} file(s) named by a 20-digit offset look like a commitlog folder: a store is "
                "the folder that holds them as commitlog/")
    if files and all(decimal_name(n, INDEX_NAME_WIDTH) is not None for n in files):
        return (f"; its {len(files)} file(s) named by a 17-digit time look like index files: a store is the folder "
                "that holds them as index/")
    return ""


def unopenable(path: str | Path) -> str | None:
    """Why ``path`` cannot be opened as a folder at all (missing, a file, a symlink loop, not listable), or None."""
    try:
        resolved = Path(path).resolve(strict=True)
    except (OSError, RuntimeError) as e:
        return f"cannot open store: {getattr(e, 'strerror', None) or e}"
    if not resolved.is_dir():
        return "not a directory"
    try:  # a directory we may not list (no read/execute permission) fails here, not deep in a walk
        next(resolved.iterdir(), None)
    except OSError as e:
        return f"cannot open store: {e.strerror or e}"
    return None


def not_a_store(path: str | Path, *, commitlog_elsewhere: bool = False) -> str | None:
    """Why ``path`` is no store root, in one line saying where the store is when that can be told; None for a
    store root (and for a path that is missing, a file or unreadable: ``Store`` says why).
    ``commitlog_elsewhere``: a broker.conf names the commitlog's folders (``storePathCommitLog``), so the root
    is taken as given: its log is not under it, and a new broker's root may hold nothing yet."""
    if commitlog_elsewhere:
        return None
    try:
        resolved = Path(path).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    names = _names(resolved) if resolved.is_dir() else None
    if names is None or member_root(resolved) is not None:  # dledger-n0/ or its data/: Store opens the root
        return None
    own_markers = bool(MARKERS & names.keys())
    inside = _inside_a_store(resolved, own_markers)
    if inside is not None:
        return inside
    if own_markers or homes(resolved):  # a DLedger store may hold only dledger-<id>/ (a follower just started)
        return None
    stores = [child for child, is_dir in sorted(names.items(), key=lambda kv: kv[0] != "store")[:_CHILDREN]
              if is_dir and _looks_like_store(resolved / child)]
    if "store" in stores:  # ~/store/store: a copy one level too deep, or the broker's home folder
        return f"the store is one level down: open {resolved / 'store'}"
    below = f"; {len(stores)} folder(s) here hold one: {', '.join(stores[:3])}{', ...' if len(stores) > 3 else ''}"
    return NO_STORE + _hint(names) + (below if stores else "")


def _looks_like_store(path: Path) -> bool:
    names = _names(path) or {}
    return bool(MARKERS & names.keys() or _dledger(names))


def check_store_root(path: str | Path, *, commitlog_elsewhere: bool = False) -> None:
    """Raise ``BadInput`` (exit 2) naming ``path`` when it cannot be opened or is no store root (see
    :func:`not_a_store`): what every front end calls before it opens a store."""
    reason = unopenable(path) or not_a_store(path, commitlog_elsewhere=commitlog_elsewhere)
    if reason is not None:
        raise BadInput(reason, str(path))
