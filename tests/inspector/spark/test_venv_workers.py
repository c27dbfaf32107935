"""Spark run from a virtual environment's own ``rmq-inspect`` (not activated): the local Python workers must be
the interpreter running the command, not whatever ``python3`` is first on PATH (PySpark 4 takes the worker
interpreter from $PYSPARK_PYTHON only)."""

from __future__ import annotations

import os
import site
import subprocess
import sys
from pathlib import Path

from external_tools import JAVA, need

REPO = Path(__file__).resolve().parents[3]
SAMPLE_STORE = REPO / "sample_store"

# what pip writes as a console script: the venv's own interpreter in the shebang
_CONSOLE_SCRIPT = """#!{python}
import sys
from inspector.cli.main import main
sys.exit(main())
"""


def _outer_site_dirs() -> list[str]:
    """The site directories this interpreter imports the project's dependencies from: its environment's
    site-packages (a venv's own, or the system's), and the user site when it is on."""
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return [d for d in dirs if os.path.isdir(d)]


def _venv_command(tmp_path: Path) -> Path:
    """A new venv whose Python sees this interpreter's packages, and its own ``rmq-inspect`` script.

    Not ``--system-site-packages``: from inside a venv that gives the *base* interpreter's packages, not the
    venv's. A ``.pth`` line that adds this interpreter's site directories (their own .pth files included: editable
    installs live there) works the same from a venv, from pipx or from the system Python, and needs no network."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    inner = subprocess.run([str(venv / "bin" / "python"), "-c", purelib], capture_output=True, text=True, check=True,
                           timeout=60).stdout.strip()
    adds = "; ".join(f"site.addsitedir({d!r})" for d in _outer_site_dirs())
    (Path(inner) / "_rmq_inspect_outer_site.pth").write_text(f"import site; {adds}\n")
    script = venv / "bin" / "rmq-inspect"
    script.write_text(_CONSOLE_SCRIPT.format(python=venv / "bin" / "python"))
    script.chmod(0o755)
    return script


def _bare_python3(tmp_path: Path) -> Path:
    """A directory whose ``python3`` has no site-packages (no pyspark, pyarrow, numpy) and ignores PYTHONPATH."""
    bin_dir = tmp_path / "bare-bin"
    bin_dir.mkdir()
    python3 = bin_dir / "python3"
    python3.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "$@"\n')
    python3.chmod(0o755)
    probe = subprocess.run([str(python3), "-c", "import numpy"], capture_output=True, timeout=60)
    assert probe.returncode != 0, "the bare python3 must not find numpy"
    return bin_dir


def test_export_from_a_venv_with_a_bare_python3_first_on_path(tmp_path):
    need(JAVA)
    script = _venv_command(tmp_path)
    bare = _bare_python3(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([str(bare), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)  # this checkout
    out = tmp_path / "out"
    proc = subprocess.run([str(script), "spark", "export", str(SAMPLE_STORE), "--out", str(out), "--format", "jsonl",
                           "--master", "local[1]", "--no-progress", "--conf", "spark.ui.enabled=false"],
                          env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = sum(p.read_bytes().count(b"\n") for p in out.rglob("*.json") if p.is_file())
    assert lines > 0, sorted(str(p.relative_to(out)) for p in out.rglob("*"))
