"""The salvage plan in the web viewer: ``/salvage`` and ``/api/salvage`` (what ``rmq-inspect salvage STORE --plan``
says: every commitlog span intact, recoverable or lost, the lost records, what salvage does with each file).

The plan runs verify first (seconds on a big store) and the viewer's store never changes under it, so it is
computed once, in the background, started by the first request that asks for it (a viewer nobody asks does not
pay for a verify); every request shows it as it stands: still planning, done, or failed with the reason. The
page and the API only read: writing the salvaged store stays the command's (``salvage STORE --out DIR``).
"""

from __future__ import annotations

import threading

from flask import Blueprint, current_app, jsonify, render_template

from inspector.engine import Store, salvage_plan
from web.background import Background
from web.offsets import stringify_offsets

bp = Blueprint("salvage", __name__)

SAMPLE = 100  # lost records listed per span (the rest counted: the page says "first N of M")
_START = threading.Lock()  # two first requests at once start one plan


class Planning:
    """``salvage_plan(store).as_dict(SAMPLE)`` computed once in the background; ``state()`` is what a page
    shows now."""

    def __init__(self, store: Store, sample: int = SAMPLE) -> None:
        self.store, self.sample = store, sample
        self._job = Background(lambda: salvage_plan(store).as_dict(sample), "rmq-salvage-plan", "the plan failed")

    def state(self) -> dict:
        return {"store": str(self.store.root), **self._job.state(), "sample": self.sample, "plan": self._job.result}


def _planning() -> Planning:
    with _START:
        p = current_app.extensions.get("rmq_salvage")
        if p is None:
            p = current_app.extensions["rmq_salvage"] = Planning(current_app.extensions["rmq_store"])
    return p


@bp.route("/salvage")
def salvage_page():
    return render_template("salvage.html", p=_planning().state())


@bp.route("/api/salvage")
def salvage_api():
    return jsonify(stringify_offsets(_planning().state()))
