"""A workshop room (``rmq-inspect web --workshop``, issue 34 item 3): the trainer's browser drives the tour, every
participant's page follows it live, and the participants' answers make an anonymous tally for the trainer.

| route | who | does |
| --- | --- | --- |
| ``/room`` | trainer | the room's step, previous/next, and the live tally (tried / solved per exercise) |
| ``POST /room/step`` | trainer | sets the step everyone follows (``step``); a participant gets a 403 |
| ``POST /room/answer`` | anyone | checks an answer (``seed``, ``id``, ``answer``), counts it, shows the result |
| ``/room/events`` | anyone | server-sent events: ``step`` (and, to the trainer, ``tally``) |

The state is a ``web.room.Room`` in memory: the store is never written. The trainer is whoever holds the trainer
token (``web.access.is_trainer``); participants are told apart only by a random id in a cookie of their own,
which is never shown: the tally counts distinct ids. The trainer's own answers are not counted. POSTs must come
from the viewer's own pages (``web.origin``). The page script (``static/app.js``, served by the viewer: no CDN, so
a classroom with no internet works) follows the events.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Iterator

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from web.access import admitted, cookie_name, is_trainer
from web.params import MAX_TEXT, parse_int
from web.room import Room, RoomState
from web.workshop import MAX_SEED, exercises, find_exercise, step_or_404, tour, truncated

bp = Blueprint("live", __name__)

STREAM_PATH = "/room/events"
PARTICIPANT_COOKIE = "rmq_inspect_participant"
ROOM_SEED = 0  # the exercise set the trainer's tally lists (answers to other seeds count under the same ids)
# Each open event stream holds one server thread (waitress has a fixed pool). So the streams are bounded
# (``ROOM_STREAMS``: 30 participants, the trainer and a second tab each fit) and ``make_production_server`` adds
# that many threads to the pool, so pages are never starved by streams. Each stream also ends after
# STREAM_SECONDS and the browser's EventSource reconnects (RETRY_MS later, re-sent the current step): a laptop
# that closed its lid without closing the connection holds its thread and its slot for 25 s at most, not forever,
# and no proxy's response timeout ever cuts a stream mid-way. Heartbeat comments keep idle proxies from closing it.
STREAM_SECONDS = 25.0
HEARTBEAT_SECONDS = 10.0
RETRY_MS = 1000
FULL_RETRY_MS = 5000  # a stream refused because the room is full: the browser tries again after this
DEFAULTS = {"ROOM_STREAMS": 64, "ROOM_STREAM_SECONDS": STREAM_SECONDS, "ROOM_HEARTBEAT_SECONDS": HEARTBEAT_SECONDS}
_PARTICIPANT_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")


def install(app) -> None:
    """Make ``app`` a workshop room: its state, its stream bound, its routes and the room bar on every page."""
    for k, v in DEFAULTS.items():
        app.config.setdefault(k, v)
    app.extensions["rmq_room"] = Room()
    app.extensions["rmq_room_streams"] = threading.BoundedSemaphore(app.config["ROOM_STREAMS"])
    app.register_blueprint(bp)


def room() -> Room:
    return current_app.extensions["rmq_room"]


@bp.app_context_processor
def room_bar() -> dict:
    """What base.html's room bar shows: who this browser is in the room, and the step everyone follows (nothing on
    the 401 page of a browser without the token)."""
    if not admitted():
        return {"room": None}
    return {"room": {"role": "trainer" if is_trainer() else "participant", "step": room().state().step,
                     "events": url_for("live.events"), "tour": url_for("workshop.tour_page"),
                     "drive": url_for("live.set_step"), "tally": url_for("live.trainer_page")}}


def _trainer_only() -> None:
    if not is_trainer():
        abort(403, description="only the trainer's browser drives the room and sees the tally (it opened the "
                               "trainer URL, …?trainer=…, printed where `rmq-inspect web --workshop` runs)")


# -- pages -------------------------------------------------------------------------------------------------------------


@bp.route("/room")
def trainer_page():
    _trainer_only()
    state = room().state()
    steps = tour()
    found = exercises(ROOM_SEED)
    counts = {row.exercise: row for row in state.tally}
    listed = {e.id for e in found}
    return render_template("room.html", state=state, steps=steps, step=steps[state.step - 1] if state.step <= len(steps)
                           else None, exercises=found, counts=counts, others=[r for r in state.tally if r.exercise
                                                                               not in listed],
                           truncated=truncated(found), seed=ROOM_SEED)


@bp.route("/room/step", methods=["POST"])
def set_step():
    """The trainer's step: a fetch from the trainer's tour page (JSON back) or a form (a redirect back)."""
    _trainer_only()
    number = parse_int(request.form.get("step", ""), "step", 1, 1 << 31)
    step_or_404(number)  # a step the tour has: a 404 naming the range otherwise
    state = room().set_step(number)
    if request.form.get("back") == "tour":
        return redirect(url_for("workshop.tour_page", step=state.step), 303)
    if request.form.get("back") == "room":
        return redirect(url_for("live.trainer_page"), 303)
    return {"step": state.step}


@bp.route("/room/answer", methods=["POST"])
def answer():
    """Check an answer as ``/exercises?id=..&answer=..`` does, count it in the tally (not the trainer's), and show
    that page's result (a redirect to it: reloading it checks again but counts nothing)."""
    form = request.form
    seed = parse_int(form.get("seed", "") or "0", "seed", 0, MAX_SEED)
    ex_id, given = form.get("id", ""), form.get("answer", "")
    for name, text in (("id", ex_id), ("answer", given)):
        if len(text) > MAX_TEXT:
            abort(400, description=f"{name} is longer than {MAX_TEXT} characters")
        if any(ord(c) < 32 and c != "\t" for c in text):
            abort(400, description=f"{name} contains control characters")
    if not ex_id:
        abort(400, description="id is required")
    result = find_exercise(exercises(seed), ex_id).check(given)
    target = redirect(url_for("workshop.exercises_page", seed=seed, id=ex_id, answer=given, _anchor=f"ex-{ex_id}"), 303)
    if is_trainer():
        return target
    participant = request.cookies.get(cookie_name(PARTICIPANT_COOKIE), "")
    if not _PARTICIPANT_ID.fullmatch(participant):
        participant = secrets.token_urlsafe(16)  # random: nothing about the browser or its address
        target.set_cookie(cookie_name(PARTICIPANT_COOKIE), participant, httponly=True, samesite="Strict", path="/")
    room().record(ex_id, participant, result.correct)
    return target


# -- the event stream ------------------------------------------------------------------------------------------------


@bp.route(STREAM_PATH)
def events():
    """``text/event-stream``: the current step at once, then each change, heartbeats between; the trainer also gets
    the tally. Not behind the ``_Workers`` gate (``web.app``): a stream waits, it does not work."""
    config = current_app.config
    stream = _stream(room(), current_app.extensions["rmq_room_streams"], is_trainer(),
                     config["ROOM_STREAM_SECONDS"], config["ROOM_HEARTBEAT_SECONDS"])
    return Response(stream, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _stream(shared: Room, slots: threading.BoundedSemaphore, trainer: bool, seconds: float,
            heartbeat: float) -> Iterator[str]:
    # the slot is taken in the generator, not before: a response the server never starts never releases it
    if not slots.acquire(blocking=False):
        yield f"retry: {FULL_RETRY_MS}\n: the room's streams are all taken; trying again\n\n"
        return
    try:
        state = shared.state()
        yield f"retry: {RETRY_MS}\n\n"
        yield from _changes(None, state, trainer)
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            now = shared.wait(state.version, min(heartbeat, left))
            if now.closed:
                return
            if now.version == state.version:
                yield ": heartbeat\n\n"
                continue
            yield from _changes(state, now, trainer)
            state = now
    finally:
        slots.release()


def _changes(before: RoomState | None, now: RoomState, trainer: bool) -> Iterator[str]:
    if before is None or before.step != now.step:
        yield _event("step", {"step": now.step})
    if trainer and (before is None or before.tally != now.tally):
        yield _event("tally", {"tally": [{"exercise": r.exercise, "tried": r.tried, "solved": r.solved}
                                         for r in now.tally]})


def _event(name: str, value: dict) -> str:
    return f"event: {name}\ndata: {json.dumps(value)}\n\n"  # json.dumps: one line, any text escaped
