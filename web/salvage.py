"""The salvage plan in the web viewer: ``/salvage`` and ``/api/salvage`` (what ``rmq-inspect salvage STORE --plan``
says: every commitlog span intact, recoverable or lost, the lost records, what salvage does with each file).

The plan runs verify first (seconds on a big store) and the viewer's store never changes under it, so it is
computed once, in the background, started by the first request that asks for it (a viewer nobody asks does not
pay for a verify); every request shows it as it stands: still planning, done, or failed with the reason. The
page and the API only read: writing the salvaged store stays the command's (``salvage STORE --out DIR``).
"""

from __future__ import annotations

import threading
import time

from flask import Blueprint, current_app, jsonify, render_template

from inspector.engine import Store, StoreError, salvage_plan
from web.offsets import stringify_offsets

bp = Blueprint("salvage", __name__)

SAMPLE = 100  # lost records listed per span (the rest counted: the page says "first N of M")
_START = threading.Lock()  # two first requests at once start one plan


class Planning:
    """``salvage_plan(store).as_dict(SAMPLE)`` computed once in a daemon thread; ``state()`` is what a page
    shows now."""

    def __init__(self, store: Store, sample: int = SAMPLE) -> None:
        self.store, self.sample = store, sample
        self.began = time.monotonic()
        self.took: float | None = None
        self.plan: dict | None = None
        self.error: str | None = None
        self._thread = threading.Thread(target=self._run, name="rmq-salvage-plan", daemon=True)

    def start(self) -> Planning:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self.plan = salvage_plan(self.store).as_dict(self.sample)
        except StoreError as e:  # a store salvage cannot plan (DLedger, RocksDB queues, unreadable): said on the page
            self.error = str(e)
        except Exception as e:  # noqa: BLE001 - said on the page (it would reload "planning…" forever)
            self.error = f"the plan failed: {type(e).__name__}: {e}"
        self.took = time.monotonic() - self.began

    def state(self) -> dict:
        done = self.plan is not None or self.error is not None
        return {"store": str(self.store.root), "done": done, "error": self.error,
                "seconds": round((self.took if done else time.monotonic() - self.began) or 0.0, 2),
                "sample": self.sample, "plan": self.plan}


def _planning() -> Planning:
    with _START:
        p = current_app.extensions.get("rmq_salvage")
        if p is None:
            p = current_app.extensions["rmq_salvage"] = Planning(current_app.extensions["rmq_store"]).start()
    return p


@bp.route("/salvage")
def salvage_page():
    return render_template("salvage.html", p=_planning().state())


@bp.route("/api/salvage")
def salvage_api():
    return jsonify(stringify_offsets(_planning().state()))
