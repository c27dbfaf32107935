"""keep_heap_top: the command line asks glibc's malloc once per process to keep a pad at its heap's top (verify's
numpy temporaries otherwise fault their pages in afresh each batch); a user's own MALLOC_TOP_PAD_ wins."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import ctypes, inspector.commandline as c
calls = []
class Libc:
    def __init__(self, *a):
        pass
    class mallopt:
        argtypes = None
        def __new__(cls, param, value):
            calls.append((param, value))
            return 1
ctypes.CDLL = Libc
c.keep_heap_top(); c.keep_heap_top()
print(calls)
"""


def _calls(env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env}, check=True)
    return done.stdout.strip()


def test_once_a_process_with_glibc_top_pad_and_not_over_the_users_own(monkeypatch):
    if not sys.platform.startswith("linux"):
        return
    monkeypatch.delenv("MALLOC_TOP_PAD_", raising=False)
    assert _calls({}) == f"[(-2, {16 << 20})]"  # M_TOP_PAD, once however often it is called
    assert _calls({"MALLOC_TOP_PAD_": "0"}) == "[]"
