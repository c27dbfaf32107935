"""A result the viewer computes once, in the background: a salvage plan, the diff of two stores.

The viewer's stores never change under it, so such an answer (seconds on a big store) is computed once, in a daemon
thread, and every request shows it as it stands: still working, done, or failed with the reason (a page that
reloads until it is done would otherwise reload forever).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from inspector.engine import StoreError


class Background:
    """``work()`` run once in a daemon thread named ``name``; ``state()`` is what a page shows now. ``failed``
    begins the line said when ``work`` raises something other than a StoreError (whose own line is said)."""

    def __init__(self, work: Callable[[], dict], name: str, failed: str) -> None:
        self.began = time.monotonic()
        self.took: float | None = None
        self.result: dict | None = None
        self.error: str | None = None
        self._work, self._failed = work, failed
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self.result = self._work()
        except StoreError as e:  # a store that cannot be read or planned: its own line, on the page
            self.error = str(e)
        except Exception as e:  # noqa: BLE001 - said on the page (it would reload "working…" forever)
            self.error = f"{self._failed}: {type(e).__name__}: {e}"
        self.took = time.monotonic() - self.began

    def state(self) -> dict:
        """done, error and seconds (so far, or taken); the result is the caller's to name."""
        done = self.result is not None or self.error is not None
        return {"done": done, "error": self.error,
                "seconds": round((self.took if done else time.monotonic() - self.began) or 0.0, 2)}
