"""Loading the numba kernels does not import scipy.linalg (numba's BLAS probe, ~0.2 s of every verify), the
kernels still give the same answer as the Python path, and scipy.linalg stays importable afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from external_tools import import_or_skip

REPO = Path(__file__).resolve().parents[4]

CHILD = """
import sys
from inspector.engine import Store
from inspector.engine.maintain.verify.verify import verify
from inspector.engine.scan.kernels import numba_enabled
enabled = numba_enabled()  # loaded first: a store this small alone would not load them (kernels.small_job)
with Store(sys.argv[1]) as store:
    report = verify(store)
print(enabled, "scipy.linalg" in sys.modules, report.messages, report.cq_units, report.index_items,
      len(report.problems))
try:
    import scipy.linalg  # noqa: F401
except ImportError:
    pass
else:
    print("scipy.linalg importable")
"""


def _child(no_numba: bool) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("RMQ_INSPECT_NO_NUMBA", None)
    if no_numba:
        env["RMQ_INSPECT_NO_NUMBA"] = "1"
    proc = subprocess.run([sys.executable, "-c", CHILD, str(REPO / "sample_store")], capture_output=True,
                          text=True, env=env, cwd=REPO, timeout=300, check=True)
    return proc.stdout.splitlines()


def test_kernels_load_without_scipy_linalg_same_answer():
    import_or_skip("numba")
    fast, slow = _child(False), _child(True)
    enabled, linalg_loaded, *counts = fast[0].split()
    assert enabled == "True" and linalg_loaded == "False"
    assert counts == slow[0].split()[2:]
    assert fast[1:] == slow[1:]  # scipy.linalg importable afterwards exactly when it is without numba


WARM = """
import sys
from inspector.engine import Store
from inspector.engine.maintain.verify.verify import verify
from inspector.engine.scan.kernels import numba_enabled
numba_enabled()  # loaded first: a store this small alone would not load them (kernels.small_job)
with Store(sys.argv[1]) as store:
    report = verify(store)
print(report.messages, "numba.typed.typedlist" in sys.modules)
"""


def test_cached_kernels_load_without_the_compile_registries():
    """A kernel loaded from numba's cache skips numba's target-context refresh (its typing registries, ~0.1 s):
    the second run (the first may compile) imports none of them and answers the same."""
    import_or_skip("numba")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("RMQ_INSPECT_NO_NUMBA", None)
    runs = [subprocess.run([sys.executable, "-c", WARM, str(REPO / "sample_store")], capture_output=True, text=True,
                           env=env, cwd=REPO, timeout=300, check=True).stdout.split() for _ in range(2)]
    assert runs[1] == [runs[0][0], "False"]


FROZEN = """
import gc, sys
from inspector.engine.scan.kernels import numba_enabled
before = gc.get_freeze_count()
enabled = numba_enabled()
print(enabled, before, gc.get_freeze_count(), gc.isenabled(), "numba.core.dispatcher" in sys.modules)
"""


def test_numba_start_up_objects_are_frozen_and_collection_goes_on():
    """What numba's start-up makes lives as long as the process: frozen (no full collection, nor the one at exit,
    walks it again), and the cycle collector enabled again afterwards."""
    import_or_skip("numba")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("RMQ_INSPECT_NO_NUMBA", None)
    out = subprocess.run([sys.executable, "-c", FROZEN], capture_output=True, text=True, env=env, cwd=REPO,
                         timeout=300, check=True).stdout.split()
    enabled, before, after, collecting, dispatcher = out
    assert enabled == "True" and dispatcher == "True"
    assert int(before) == 0 and int(after) > 50_000  # numba's import makes ~70,000 objects the collector tracks
    assert collecting == "True"
