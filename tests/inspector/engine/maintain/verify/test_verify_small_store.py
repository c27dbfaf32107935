"""verify of a store under kernels.LAZY_BYTES neither imports numba nor writes its cache when the kernels are not
loaded yet (issue 27: the first verify of the 170 KB sample compiled them, 7.8 s with an empty cache), and its
report is the one the compiled kernels give."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from inspector.engine import Store
from inspector.engine.maintain.verify.verify import verify
from inspector.engine.scan.kernels import LAZY_BYTES

REPO = Path(__file__).resolve().parents[5]
SAMPLE = REPO / "sample_store"

CHILD = """
import json, sys
from inspector.engine import Store
from inspector.engine.maintain.verify.verify import verify
with Store(sys.argv[1]) as store:
    report = verify(store)
print(json.dumps({"numba": "numba" in sys.modules, "messages": report.messages, "units": report.cq_units,
                  "items": report.index_items, "problems": [[p.file, p.offset, p.code] for p in report.problems]}))
"""


def _report(report) -> dict:
    return {"messages": report.messages, "units": report.cq_units, "items": report.index_items,
            "problems": [[p.file, p.offset, p.code] for p in report.problems]}


def test_the_sample_is_verified_without_numba_and_nothing_is_cached(tmp_path):
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = dict(os.environ, PYTHONPATH=str(REPO), NUMBA_CACHE_DIR=str(cache))
    env.pop("RMQ_INSPECT_NO_NUMBA", None)
    child = subprocess.run([sys.executable, "-c", CHILD, str(SAMPLE)], capture_output=True, text=True, env=env,
                           cwd=REPO, timeout=300, check=True)
    found = json.loads(child.stdout)
    assert found.pop("numba") is False
    assert [p for p in cache.rglob("*") if p.is_file()] == []
    with Store(SAMPLE) as store:
        assert store.commitlog.data_bytes() < LAZY_BYTES
        assert found == _report(verify(store))


def test_the_cli_verify_of_the_sample_writes_no_kernel_cache(tmp_path):
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = dict(os.environ, PYTHONPATH=str(REPO), NUMBA_CACHE_DIR=str(cache))
    env.pop("RMQ_INSPECT_NO_NUMBA", None)
    done = subprocess.run([sys.executable, "-m", "inspector.cli.main", "verify", str(SAMPLE), "--json"],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    assert [p for p in cache.rglob("*") if p.is_file()] == []
