"""The diff of two stores in the web viewer (``rmq-inspect web A --compare B``): ``/diff`` and ``/api/diff``.

Both stores are opened at start and never change under the viewer, so the comparison runs once, in the
background (it reads both logs whole: a second or more for big stores), and every request shows it as it
stands: still comparing, done, or failed with the reason. Without ``--compare`` the page says how to start one.
The second store is named only on the command line: no request names a path.
"""

from __future__ import annotations

import threading
import time

from flask import Blueprint, Flask, current_app, jsonify, render_template

from inspector.engine import Store, StoreError, diff_view, store_diff
from web.offsets import stringify_offsets

bp = Blueprint("compare", __name__)

DIFF_LIMIT = 100  # differing ranges, queues and index items listed (the rest counted: the page says so)


class Comparison:
    """``store_diff(a, b)`` computed once in a daemon thread; ``state()`` is what a page shows now."""

    def __init__(self, a: Store, b: Store, limit: int = DIFF_LIMIT) -> None:
        self.a, self.b, self.limit = a, b, limit
        self.began = time.monotonic()
        self.took: float | None = None
        self.view: dict | None = None
        self.error: str | None = None
        self._thread = threading.Thread(target=self._run, name="rmq-diff", daemon=True)

    def start(self) -> Comparison:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self.view = diff_view(store_diff(self.a, self.b, self.limit))
        except StoreError as e:  # a store that cannot be read all through: said on the page
            self.error = str(e)
        except Exception as e:  # noqa: BLE001 - said on the page (it would reload "comparing…" forever)
            self.error = f"the comparison failed: {type(e).__name__}: {e}"
        self.took = time.monotonic() - self.began

    def state(self) -> dict:
        done = self.view is not None or self.error is not None
        return {"a": str(self.a.root), "b": str(self.b.root), "done": done, "error": self.error,
                "seconds": round((self.took if done else time.monotonic() - self.began) or 0.0, 2),
                "limit": self.limit, "diff": self.view}


def install(app: Flask, other: Store) -> None:
    """Compare ``app``'s store with ``other`` (closing the viewer's store does not close ``other``: the caller
    owns it)."""
    app.extensions["rmq_compare"] = Comparison(app.extensions["rmq_store"], other).start()
    app.jinja_env.globals["rmq_compare"] = True  # the navbar's Diff link


def _comparison() -> Comparison | None:
    return current_app.extensions.get("rmq_compare")


@bp.route("/diff")
def diff_page():
    c = _comparison()
    return render_template("diff.html", c=None if c is None else c.state())


@bp.route("/api/diff")
def diff_api():
    c = _comparison()
    if c is None:
        return jsonify({"status": 404, "error": "Not Found",
                        "message": "this viewer compares no second store: start it with --compare B"}), 404
    return jsonify(stringify_offsets(c.state()))
