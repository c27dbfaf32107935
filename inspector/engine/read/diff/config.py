"""The checkpoint and the config JSON files (``.bak`` too) of two stores, field by field, through the existing
readers."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from inspector.engine.model.errors import StoreError
from inspector.engine.read.config.checkpoint import read_checkpoint
from inspector.engine.read.config.config import _read
from inspector.engine.read.diff.result import FileDiff


def _flat(value: object, prefix: str = "") -> dict[str, str]:
    if isinstance(value, dict):
        out: dict[str, str] = {}
        for k, v in value.items():
            out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix or "(value)": repr(value)}


def _fields(file: str, fa: dict[str, str], fb: dict[str, str]) -> list[FileDiff]:
    return [FileDiff(file, k, fa.get(k), fb.get(k)) for k in sorted(fa.keys() | fb.keys()) if fa.get(k) != fb.get(k)]


def _checkpoint(root: Path) -> dict[str, str]:
    try:
        cp = read_checkpoint(root)
    except StoreError as e:
        return {"(file)": f"unreadable: {e}"}
    if cp is None:
        return {}
    return {k: repr(v) for k, v in asdict(cp).items() if k != "file"}


def _config_files(root: Path) -> dict[str, Path]:
    folder = root / "config"
    if not folder.is_dir():
        return {}
    return {f"config/{p.name}": p for p in folder.iterdir()
            if p.is_file() and (p.name.endswith(".json") or p.name.endswith(".json.bak"))}


def diff_config(a: Path, b: Path) -> list[FileDiff]:
    out = _fields("checkpoint", _checkpoint(a), _checkpoint(b))
    files_a, files_b = _config_files(a), _config_files(b)
    for rel in sorted(files_a.keys() | files_b.keys()):
        sides = []
        for files in (files_a, files_b):
            if rel not in files:
                sides.append({})
                continue
            value, why = _read(files[rel], rel)
            sides.append(_flat(value) if why is None else {"(file)": f"unreadable: {why}"})
        out += _fields(rel, sides[0], sides[1])
    return out
