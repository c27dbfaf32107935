"""The guided tour and the exercises, as pages and as JSON (``inspector.engine.workshop.tour_steps`` / ``.exercises``).

| route | shows |
| --- | --- |
| ``/tour?step=N`` | step N (1-based) of the tour: text, the view at the right place, prev/next, every step |
| ``/exercises?seed=N`` | the questions of variant N; ``&id=..&answer=..`` checks one answer (GET, nothing stored) |
| ``/api/tour`` | every step (``step_view``) |
| ``/api/tour/<n>`` | step n |
| ``/api/exercises?seed=N`` | the questions (no answers); ``&id=..&answer=..``: that exercise and ``result_view`` |

The tour is computed once per app (it reads a bounded sample of the store); exercises once per seed (a few kept).
Both get the request's time budget (``web.deadline``): a result cut short is shown with a "Truncated" note and
is not kept, so the next request tries again.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template, request, url_for

from inspector.engine import NOT_COMPUTED, NotFound, cursor_offset, hex_window, region_view
from web import data, svg
from web.offsets import stringify_offsets
from web.params import MAX_TEXT, get_deadline, get_limits, get_store, int_arg, parse_int, text_arg

bp = Blueprint("workshop", __name__)

MAX_HEX = 1024  # bytes of one hex view drawn on a tour page
EXERCISE_COUNT = 12
MAX_SEED = (1 << 31) - 1
KEEP_SEEDS = 8
HEX_KINDS = ("hex", "recovery")


# -- cached engine results -------------------------------------------------------------------------------------------


def tour() -> list:
    """Every step; ``truncated(steps)`` says whether the time budget cut the tour short (then it is not kept)."""
    steps = current_app.extensions.get("rmq_tour")
    if steps is None:
        from inspector.engine import tour_steps

        steps = tour_steps(get_store(), budget=get_deadline())
        if truncated(steps) is None:
            current_app.extensions["rmq_tour"] = steps
    return steps


def exercises(seed: int) -> list:
    """The set of ``seed``; a set cut short by the time budget is its first exercises, and is not kept."""
    from inspector.engine import generate

    cache: dict[int, list] = current_app.extensions.setdefault("rmq_exercises", {})
    found = cache.get(seed)
    if found is None:
        found = generate(get_store(), seed, EXERCISE_COUNT, budget=get_deadline())
        if truncated(found) is None:
            if len(cache) >= KEEP_SEEDS:
                cache.pop(next(iter(cache)))
            cache[seed] = found
    return found


def truncated(result: list) -> str | None:
    """The note of an engine result the time budget cut short (``inspector.engine.model.budget.Partial``), else None."""
    return getattr(result, "truncated", None)


def step_or_404(number: int):
    steps = tour()
    if not 1 <= number <= len(steps):
        raise NotFound(f"the tour has steps 1 to {len(steps)}, not {number}")
    return steps[number - 1]


def _checked_text(name: str, value: str) -> str:
    if len(value) > MAX_TEXT:
        abort(400, description=f"{name} is longer than {MAX_TEXT} characters")
    if any(ord(c) < 32 and c != "\t" for c in value):
        abort(400, description=f"{name} contains control characters")
    return value


def typed_answers() -> dict[str, str]:
    """The page's answer boxes (``a.ID=...``): one form holds them all, so checking one keeps the others typed."""
    return {k[2:]: _checked_text("answer", v) for k, v in request.args.items() if k.startswith("a.")}


def exercise_args() -> tuple[int, str | None, str | None]:
    """seed, and the exercise id and answer being checked (both or neither; an empty answer is allowed). The
    answer is ``answer``, else that exercise's box of the page's form (``a.ID``)."""
    seed = int_arg("seed", 0, low=0, high=MAX_SEED)
    ex_id = text_arg("id")
    answer = request.args.get("answer")
    if answer is None and ex_id is not None:
        answer = request.args.get(f"a.{ex_id}")
    if answer is not None:
        _checked_text("answer", answer)
    if (ex_id is None) != (answer is None):
        abort(400, description="checking an answer needs both id and answer")
    return seed, ex_id, answer


def find_exercise(found: list, ex_id: str):
    e = next((e for e in found if e.id == ex_id), None)
    if e is None:
        cut = truncated(found)
        raise NotFound(f"no exercise {ex_id!r} in this set" + (f" (the set was cut short: {cut}; try again)"
                                                                 if cut else ""))
    return e


# -- views of a step's targets ---------------------------------------------------------------------------------------



HL_COLOURS = 4  # the tour dumps' field colours (static/style.css .hl-c0 .. .hl-c3)


def hex_fragment(store, target) -> dict:
    """The bytes of a hex-like target (at most MAX_HEX, around the focus) as ``web.data.hex_rows`` rows, each span
    also marked ``hl`` and ``hl-cN`` (in a highlighted span: N its highlight's colour) and ``hl-focus`` (in the
    focused one), with its label."""
    focus_at = cursor_offset(target)
    start = target.start
    if target.end - start > MAX_HEX and focus_at - start > MAX_HEX // 2:
        start = max(start, (focus_at - MAX_HEX // 2) // 16 * 16)
    end = min(target.end, start + MAX_HEX)
    window = hex_window(store, start, end - start)
    raw, end, cur = window.data, window.end, window.region_at(focus_at)
    page = {"window_start": start, "regions": [region_view(r) for r in window.regions],
            "current": None if cur is None else {"kind": cur.kind, "start": cur.start, "end": cur.end,
                                                 "label": cur.label}}
    rows = data.hex_rows(page, raw)
    focus = getattr(target, "focus", None)
    for row in rows:
        for s in row["spans"]:
            width = len(s["ascii"])
            hits = [sp for sp in target.highlights if sp.start < s["offset"] + width and s["offset"] < sp.end]
            if hits:
                # a colour per field (four, in turn: neighbours always differ), the legend's chip in the same one
                s["classes"] += f" hl hl-c{target.highlights.index(hits[0]) % HL_COLOURS}"
                if focus and any(sp.label.endswith(focus) for sp in hits):
                    s["classes"] += " hl-focus"
                s["title"] = "; ".join(sp.label for sp in hits) + "\n" + s["title"]
    return {"start": start, "end": end, "cut": target.end - target.start > len(raw), "rows": rows,
            "cursor": focus_at, "spans": target.highlights, "focus": focus}


def chain_drawings(store, target) -> list:
    d = data.chain_data(store, target.topic, target.key, get_limits(), get_deadline())
    files = [f for f in d["files"] if f["file"] == target.file] or d["files"]
    return [(f, svg.chain_svg(f, lambda o: url_for("pages.message", offset=o),
                                 lambda o: url_for("pages.hex_view", offset=o))) for f in files]


def view_of(store, target) -> dict:
    view = {"target": target, "kind": target.kind}
    if target.kind in HEX_KINDS:
        view["hex"] = hex_fragment(store, target)
    elif target.kind == "chain":
        view["drawings"] = chain_drawings(store, target)
    return view


# -- pages -------------------------------------------------------------------------------------------------------------


@bp.route("/tour")
def tour_page():
    number = int_arg("step", 1, low=-(1 << 31), high=1 << 31)
    step = step_or_404(number)
    steps = tour()
    store = get_store()
    views = [view_of(store, t) for t in ([step.target, *step.extra] if step.available and step.target else [])]
    cut = truncated(steps)
    return render_template("tour.html", step=step, steps=steps, views=views, total=len(steps), truncated=cut,
                           not_computed=bool(cut) and not step.available and step.missing_reason.startswith(NOT_COMPUTED),
                           legend=svg.legend(("match", "collision", "other", "unreadable")))


@bp.route("/exercises")
def exercises_page():
    seed, ex_id, answer = exercise_args()
    found = exercises(seed)
    checked = None
    if ex_id is not None:
        e = find_exercise(found, ex_id)
        checked = (e.id, e.check(answer or ""))
    typed = typed_answers()
    if checked is not None:
        typed[checked[0]] = checked[1].given
    # the score of every answer typed so far (each box is sent with every check): right / answered / asked
    answered = [e.check(typed[e.id]).correct for e in found if typed.get(e.id, "").strip()]
    score = {"right": sum(answered), "answered": len(answered), "asked": len(found)}
    return render_template("exercises.html", seed=seed, exercises=found, checked=checked, truncated=truncated(found),
                           count=EXERCISE_COUNT, typed=typed, score=score)


# -- JSON ----------------------------------------------------------------------------------------------------------------


def send(value, status: int = 200):
    from flask import jsonify

    return jsonify(stringify_offsets(value)), status


@bp.route("/api/tour")
def api_tour():
    from inspector.engine import step_view

    steps = tour()
    return send({"steps": [step_view(s) for s in steps], "truncated": truncated(steps)})


@bp.route("/api/tour/<number>")
def api_tour_step(number: str):
    from inspector.engine import step_view

    return send(step_view(step_or_404(parse_int(number, "step", -(1 << 31), 1 << 31))))


@bp.route("/api/exercises")
def api_exercises():
    from inspector.engine import exercise_view, result_view

    seed, ex_id, answer = exercise_args()
    found = exercises(seed)
    if ex_id is None:
        return send({"seed": seed, "exercises": [exercise_view(e) for e in found], "truncated": truncated(found)})
    e = find_exercise(found, ex_id)
    return send({"seed": seed, "exercise": exercise_view(e), "result": result_view(e.check(answer or ""))})
