"""What the terminal UI remembers between runs: the theme the user chose (``ctrl+p`` "Change theme"). One small
JSON file under ``$RMQ_INSPECT_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/rmq-inspect``, else ``~/.config/rmq-inspect``;
a file that cannot be read or written is ignored (the default theme, nothing remembered): preferences never stop
the UI, and nothing is ever written next to a store."""

from __future__ import annotations

import json
import os
from pathlib import Path

MAX_BYTES = 4096  # a preferences file larger than this is not ours


def prefs_path() -> Path:
    base = os.environ.get("RMQ_INSPECT_CONFIG_DIR")
    if base:
        return Path(base) / "tui.json"
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(xdg) / "rmq-inspect" / "tui.json"


def load_prefs() -> dict:
    path = prefs_path()
    try:
        if not path.is_file() or path.stat().st_size > MAX_BYTES:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_pref(key: str, value: str) -> None:
    path = prefs_path()
    data = load_prefs() | {key: value}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)  # whole or not at all
    except OSError:
        pass
