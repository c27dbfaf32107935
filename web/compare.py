"""The diff of two stores in the web viewer (``rmq-inspect web A --compare B``): ``/diff`` and ``/api/diff``.

Both stores are opened at start and never change under the viewer, so the comparison runs once, in the
background (it reads both logs whole: a second or more for big stores), and every request shows it as it
stands: still comparing, done, or failed with the reason. Without ``--compare`` the page says how to start one.
The second store is named only on the command line: no request names a path.
"""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, jsonify, render_template

from inspector.engine import Store, diff_view, store_diff
from web.background import Background
from web.offsets import stringify_offsets

bp = Blueprint("compare", __name__)

DIFF_LIMIT = 100  # differing ranges, queues and index items listed (the rest counted: the page says so)


class Comparison:
    """``store_diff(a, b)`` computed once in the background; ``state()`` is what a page shows now."""

    def __init__(self, a: Store, b: Store, limit: int = DIFF_LIMIT) -> None:
        self.a, self.b, self.limit = a, b, limit
        self._job = Background(lambda: diff_view(store_diff(a, b, limit)), "rmq-diff", "the comparison failed")

    def state(self) -> dict:
        return {"a": str(self.a.root), "b": str(self.b.root), **self._job.state(), "limit": self.limit,
                "diff": self._job.result}


def install(app: Flask, other: Store) -> None:
    """Compare ``app``'s store with ``other`` (closing the viewer's store does not close ``other``: the caller
    owns it)."""
    app.extensions["rmq_compare"] = Comparison(app.extensions["rmq_store"], other)
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
