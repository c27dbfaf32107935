"""A workshop room (web/live.py, ``rmq-inspect web --workshop``) through Flask's test client: the trainer's token
and cookie apart from the participants', only the trainer drives, POSTs only from the viewer's own pages, the
anonymous tally of distinct participants, the event stream's first events, and the start-up banner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from web_support import PAYLOAD_MARKERS

from inspector.engine.workshop.exercises import generate
from web.access import COOKIE, TRAINER_COOKIE
from web.app import create_app, serve
from web.live import PARTICIPANT_COOKIE

pytestmark = pytest.mark.timeout(120)

TOKEN = "participants-Token_0123456789"
TRAINER = "trainer-Token_9876543210abcdef"
SAME = {"Origin": "http://localhost"}  # what a browser sends with a POST from the viewer's own page


@pytest.fixture
def room_app(sample_store):
    app = create_app(sample_store, {"TESTING": True, "WORKSHOP": True, "ROOM_STREAM_SECONDS": 0.3,
                                    "ROOM_HEARTBEAT_SECONDS": 0.1})
    app.config.update(ACCESS_TOKEN=TOKEN, TRAINER_TOKEN=TRAINER)
    return app


def participant(app):
    client = app.test_client()
    client.set_cookie(COOKIE, TOKEN)
    return client


def trainer(app):
    client = app.test_client()
    r = client.get("/room", query_string={"trainer": TRAINER})
    assert r.status_code == 303 and r.headers["Location"] == "/room"  # the token leaves the address bar
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith(f"{TRAINER_COOKIE}={TRAINER};") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    return client


def events(client, role_trainer: bool = False) -> list[tuple[str, dict]]:
    """The (event, data) pairs of one stream (it ends by itself: ROOM_STREAM_SECONDS)."""
    r = client.get("/room/events")
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    assert r.headers["Cache-Control"] == "no-store"
    text = r.get_data(as_text=True)
    assert text.startswith("retry: ") and ": heartbeat" in text
    found = []
    for block in text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":") and ": " in line)
        if "event" in lines:
            found.append((lines["event"], json.loads(lines["data"])))
    return found


def answer(client, ex, given: str, seed: int = 0):
    return client.post("/room/answer", data={"seed": str(seed), "id": ex.id, "answer": given}, headers=SAME)


@pytest.fixture(scope="module")
def exercise_set(sample_store):
    return generate(sample_store, 0, 12)


def test_without_workshop_there_is_no_room(sample_store):
    client = create_app(sample_store, {"TESTING": True}).test_client()
    for path in ("/room", "/room/events"):
        assert client.get(path).status_code == 404
    assert client.post("/room/step", data={"step": "2"}, headers=SAME).status_code == 404
    assert "room-bar" not in client.get("/tour").get_data(as_text=True)


def test_the_trainer_token_opens_the_room_and_reads_the_viewer(room_app):
    client = trainer(room_app)
    page = client.get("/room").get_data(as_text=True)
    assert "Tally" in page and 'data-role="trainer"' in page
    assert client.get("/messages").status_code == 200  # the trainer's cookie reads, with no participant token


@pytest.mark.parametrize("wrong", ["", "x", TRAINER[:-1], TOKEN])
def test_a_wrong_trainer_token_is_refused(room_app, wrong):
    client = participant(room_app)
    r = client.get("/room", query_string={"trainer": wrong})
    assert r.status_code == 403 and "not the trainer" in r.get_data(as_text=True)
    assert "Set-Cookie" not in r.headers
    client.set_cookie(TRAINER_COOKIE, wrong)
    assert client.get("/room").status_code == 403
    assert client.post("/room/step", data={"step": "2"}, headers={**SAME, "Authorization": f"Bearer {wrong}"}
                       ).status_code in (401, 403)


def test_a_participant_cannot_drive(room_app):
    client = participant(room_app)
    page = client.get("/tour").get_data(as_text=True)
    assert 'data-role="participant"' in page and "back to the trainer" in page and "room-drive" not in page
    r = client.post("/room/step", data={"step": "4"}, headers=SAME)
    assert r.status_code == 403 and "only the trainer" in r.get_data(as_text=True)
    assert client.get("/room").status_code == 403  # nor see the tally
    assert room_app.extensions["rmq_room"].state().step == 1


def test_the_trainer_drives_by_form_fetch_or_bearer(room_app):
    client = trainer(room_app)
    r = client.post("/room/step", data={"step": "3", "back": "tour"}, headers=SAME)
    assert r.status_code == 303 and r.headers["Location"] == "/tour?step=3"
    assert client.post("/room/step", data={"step": "5"}, headers=SAME).get_json() == {"step": 5}
    bearer = room_app.test_client().post("/room/step", data={"step": "6"},
                                         headers={"Authorization": f"Bearer {TRAINER}"})  # no Origin: not a browser
    assert bearer.get_json() == {"step": 6}
    assert room_app.extensions["rmq_room"].state().step == 6
    assert client.post("/room/step", data={"step": "999"}, headers=SAME).status_code == 404
    assert client.post("/room/step", data={"step": "x"}, headers=SAME).status_code == 400


@pytest.mark.parametrize("headers", [{}, {"Origin": "http://evil.example"}, {"Origin": "null"},
                                     {"Origin": "https://localhost"},
                                     {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
                                     {"Origin": "http://evil.example", "Sec-Fetch-Site": "same-origin"}])
def test_a_post_from_another_page_is_refused(room_app, exercise_set, headers):
    """A cross-site form (or no Origin at all) neither drives the room nor counts in the tally."""
    client = trainer(room_app)
    r = client.post("/room/step", data={"step": "2"}, headers=headers)
    assert r.status_code == 403 and "own page" in r.get_data(as_text=True)
    ex = exercise_set[0]
    r = participant(room_app).post("/room/answer", data={"id": ex.id, "answer": ex.answer}, headers=headers)
    assert r.status_code == 403
    state = room_app.extensions["rmq_room"].state()
    assert state.step == 1 and state.tally == ()


def test_a_form_whose_origin_the_browser_hid_is_taken_when_same_origin(room_app):
    """Referrer-Policy: no-referrer makes a browser send a form's POST with Origin: null; Sec-Fetch-Site tells."""
    r = trainer(room_app).post("/room/step", data={"step": "2"}, headers={"Origin": "null",
                                                                          "Sec-Fetch-Site": "same-origin"})
    assert r.get_json() == {"step": 2}


def test_the_tally_counts_distinct_participants_and_never_who(room_app, exercise_set):
    first, second = exercise_set[0], exercise_set[1]
    alice, bob = participant(room_app), participant(room_app)
    r = answer(alice, first, "not it")
    assert r.status_code == 303 and r.headers["Location"].startswith("/exercises?seed=0&id=")
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith(f"{PARTICIPANT_COOKIE}=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    answer(alice, first, "still not")
    answer(alice, first, str(first.answer))  # solved on the third try: one participant
    answer(bob, first, "wrong")
    answer(bob, second, str(second.answer))
    shown = alice.get(r.headers["Location"]).get_data(as_text=True)  # the redirect shows the check as before
    assert "✘ incorrect" in shown
    tally = {row.exercise: (row.tried, row.solved) for row in room_app.extensions["rmq_room"].state().tally}
    assert tally == {first.id: (2, 1), second.id: (1, 1)}
    boss = trainer(room_app)
    answer(boss, first, str(first.answer))  # the trainer's own answers do not count
    page = boss.get("/room").get_data(as_text=True)
    row = page.split(f'<tr data-exercise="{first.id}">')[1].split("</tr>")[0]
    assert '<td class="num tried">2</td><td class="num solved">1</td>' in row
    ids = [c.value for c in (alice.get_cookie(f"{PARTICIPANT_COOKIE}"), bob.get_cookie(f"{PARTICIPANT_COOKIE}"))]
    assert ids[0] != ids[1] and not any(i in page for i in ids)  # nobody's id is ever shown
    trainer_events = events(boss)
    assert ("tally", {"tally": [{"exercise": first.id, "tried": 2, "solved": 1},
                                {"exercise": second.id, "tried": 1, "solved": 1}]}) in trainer_events


def test_an_answer_is_checked_strictly(room_app, exercise_set):
    client = participant(room_app)
    assert client.post("/room/answer", data={"id": "nope", "answer": "1"}, headers=SAME).status_code == 404
    assert client.post("/room/answer", data={"answer": "1"}, headers=SAME).status_code == 400
    assert answer(client, exercise_set[0], "a\x1bb").status_code == 400
    assert room_app.extensions["rmq_room"].state().tally == ()


def test_the_exercises_page_submits_to_the_room(room_app):
    page = participant(room_app).get("/exercises").get_data(as_text=True)
    assert 'method="post" action="/room/answer"' in page and "never who" in page


def test_the_stream_starts_with_the_step_and_the_trainer_gets_the_tally(room_app):
    trainer(room_app).post("/room/step", data={"step": "4"}, headers=SAME)
    seen = events(participant(room_app))
    assert seen == [("step", {"step": 4})]  # a participant gets no tally
    assert events(trainer(room_app)) == [("step", {"step": 4}), ("tally", {"tally": []})]


def test_the_stream_is_refused_politely_when_the_room_is_full(room_app):
    slots = room_app.extensions["rmq_room_streams"]
    taken = 0
    while slots.acquire(blocking=False):
        taken += 1
    try:
        r = participant(room_app).get("/room/events")
        assert r.status_code == 200 and r.get_data(as_text=True).startswith("retry: 5000\n")  # EventSource retries
    finally:
        for _ in range(taken):
            slots.release()


def test_without_the_token_the_stream_and_the_bar_are_closed(room_app):
    client = room_app.test_client()
    assert client.get("/room/events").status_code == 401
    page = client.get("/tour").get_data(as_text=True)
    assert "room-bar" not in page


def test_the_banner_prints_both_urls(sample_store, no_serving, capsys):
    assert serve(sample_store, "0.0.0.0", 0, token=TOKEN, workshop=True, trainer_token=TRAINER) == 0
    out = capsys.readouterr().out
    assert f"/?token={TOKEN} (participants)" in out and f"/room?trainer={TRAINER} " in out
    assert serve(sample_store, "127.0.0.1", 0, workshop=True) == 0
    out = capsys.readouterr().out
    assert "participants open http://127.0.0.1:" in out
    random_trainer = out.split("?trainer=")[1].split()[0]
    assert len(random_trainer) >= 32


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"trainer_token": TRAINER}, "add --workshop"),
    ({"workshop": True, "trainer_token": TOKEN, "token": TOKEN}, "must differ"),
    ({"workshop": True, "trainer_token": " "}, "printable ASCII"),
])
def test_bad_trainer_tokens_are_bad_input(sample_store, no_serving, capsys, kwargs, message):
    assert serve(sample_store, "0.0.0.0", 0, **kwargs) == 2
    assert message in capsys.readouterr().err


def test_the_cli_takes_workshop_and_the_trainer_token(monkeypatch):
    from inspector.cli.main import build_parser

    monkeypatch.setenv("RMQ_INSPECT_TRAINER_TOKEN", TRAINER)
    args = build_parser().parse_args(["web", "sample_store", "--workshop"])
    assert args.workshop and args.trainer_token == TRAINER
    assert build_parser().parse_args(["web", "sample_store", "--trainer-token", "x"]).trainer_token == "x"


def test_the_documented_command_prints_both_urls(no_serving, capsys, monkeypatch):
    """README's "Running a workshop room": `rmq-inspect web sample_store --host 0.0.0.0 --workshop` (port 0 here)."""
    from inspector.cli.main import main

    monkeypatch.delenv("RMQ_INSPECT_TOKEN", raising=False)
    monkeypatch.delenv("RMQ_INSPECT_TRAINER_TOKEN", raising=False)
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    assert main(["web", "sample_store", "--host", "0.0.0.0", "--workshop", "--port", "0"]) == 0
    out = capsys.readouterr().out
    token = out.split("/?token=")[1].split()[0]
    trainer_token = out.split("/room?trainer=")[1].split()[0]
    assert len(token) >= 32 and len(trainer_token) >= 32 and token != trainer_token


def test_the_room_adds_exactly_its_four_routes(sample_store, room_app):
    plain = {str(r) for r in create_app(sample_store, {"TESTING": True}).url_map.iter_rules()}
    added = {str(r): r.methods - {"HEAD", "OPTIONS"} for r in room_app.url_map.iter_rules() if str(r) not in plain}
    assert added == {"/room": {"GET"}, "/room/step": {"POST"}, "/room/answer": {"POST"}, "/room/events": {"GET"}}


def test_store_text_on_the_room_pages_is_escaped(hostile):
    app = create_app(hostile[0], {"TESTING": True, "WORKSHOP": True})
    app.config.update(TRAINER_TOKEN=TRAINER)
    client = trainer(app)
    for path in ("/room", "/exercises", "/tour"):
        page = client.get(path).get_data(as_text=True)
        assert not [m for m in PAYLOAD_MARKERS if m in page], path


def test_the_stream_passes_the_workers_gate_and_has_threads_of_its_own(room_app, sample_store):
    """With every worker busy (slow walks) a page waits for a 503, but the room's stream still starts; waitress gets
    ROOM_STREAMS threads more than a viewer without a room."""
    from werkzeug.test import EnvironBuilder

    from web.app import _Workers, make_production_server

    gate = _Workers(room_app, workers=1, busy_seconds=0.05)

    def call(path: str) -> tuple[str, bytes]:
        status = []
        environ = EnvironBuilder(path=path, headers={"Cookie": f"{COOKIE}={TOKEN}"}).get_environ()
        body = b"".join(gate(environ, lambda s, h, e=None: status.append(s)))
        return status[0], body

    with gate.all_busy():
        assert call("/tour")[0].startswith("503")
        status, body = call("/room/events")
        assert status.startswith("200") and b"event: step" in body
    threads = {}
    for name, app in (("room", room_app), ("plain", create_app(sample_store, {"TESTING": True}))):
        server = make_production_server(app, "127.0.0.1", 0, quiet=True)
        threads[name] = len(server._server.task_dispatcher.threads)
        server.server_close()
    assert threads["room"] - threads["plain"] == room_app.config["ROOM_STREAMS"]


def test_the_answer_key_is_the_trainers_only(room_app):
    assert 'id="answer-key"' not in participant(room_app).get("/exercises").get_data(as_text=True)
    assert 'id="answer-key"' in trainer(room_app).get("/exercises").get_data(as_text=True)
