"""The cheap commands start fast: ``--help`` and ``info`` of a small store import none of numba (its kernels load
on the first bulk job), Textual, Flask or PySpark; ``--help`` not even numpy, rich or construct, a command
printing JSON not rich, and ``verify`` not the rooms of other commands. Checked in a fresh process by what is
in ``sys.modules``, not by timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
HEAVY = ("numba", "llvmlite", "textual", "flask", "pyspark", "pyarrow")

_CHILD = r"""
import contextlib, io, json, runpy, sys
sys.argv = ["rmq-inspect", *sys.argv[1:]]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        runpy.run_module("inspector.cli.main", run_name="__main__")
    except SystemExit as e:
        code = e.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded(*argv: str) -> tuple[int, set[str]]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    env.pop("RMQ_INSPECT_NO_NUMBA", None)
    proc = subprocess.run([sys.executable, "-c", _CHILD, *argv], capture_output=True, text=True, env=env,
                          timeout=120, cwd=REPO, check=True)
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return out["code"], set(out["modules"])


@pytest.mark.parametrize("argv", [["--help"], ["info", "sample_store"], ["info", "sample_store", "--json"]])
def test_cheap_commands_load_no_heavy_module(argv):
    code, modules = loaded(*argv)
    assert code in (0, None)
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


def test_help_loads_neither_numpy_nor_rich():
    _code, modules = loaded("--help")
    assert not modules & {"numpy", "rich", "construct"}, sorted(modules & {"numpy", "rich", "construct"})


def test_info_of_a_broker_sized_store_holding_little_loads_no_kernels(tmp_path):
    """A broker's preallocated 1 GiB active segment (a hole past a few records) and 6,000,000-byte queue files:
    what is walked is the data, not the file's size, so a few records need no compiled kernels."""
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter

    root = tmp_path / "store"
    with StoreWriter(root) as w:  # the broker's geometry: 1 GiB segments, 6,000,000-byte queue files
        for i in range(40):
            w.append(MessageSpec(topic=f"T{i % 5}", queue_id=i % 4, body=b"x" * 100, store_timestamp=1_700_000_000_000))
    code, modules = loaded("info", str(root), "--json")
    assert code in (0, None)
    assert not modules & {"numba", "llvmlite"}, sorted(modules & {"numba", "llvmlite"})


@pytest.mark.parametrize("argv", [["verify", "sample_store", "--json"], ["info", "sample_store", "--json"],
                                  ["preflight", "sample_store", "--json"]])
def test_json_commands_load_no_rich(argv):
    """JSON goes to sys.stdout: the consoles (and Rich) are made at their first print, which these never do."""
    code, modules = loaded(*argv)
    assert code in (0, None)
    assert "rich" not in modules, sorted(m for m in modules if m.startswith("rich"))


def test_verify_loads_no_room_of_another_command():
    """The store-level questions of one command each (answers.py) import their room when asked."""
    code, modules = loaded("verify", "sample_store", "--json")
    assert code in (0, None)
    others = {f"inspector.engine.read.{room}" for room in ("groups.groups", "story.story", "search.grep")}
    assert not modules & others, sorted(modules & others)
    assert "rich" in loaded("verify", "sample_store")[1]  # the table is drawn by Rich, made when it prints
