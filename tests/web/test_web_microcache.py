"""The shared answer cache (web/microcache.py): a hit is the answer itself and says so in Server-Timing, entries
expire after their second (a store changed on disk shows then), a refused client is never answered from it, a workshop
room's trainer and participants never get each other's pages, and POSTs, cookies, errors and transient
overviews are never kept."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest

from inspector.engine import Store
from web import data
from web.access import COOKIE
from web.app import create_app
from web.microcache import Microcache

TOKEN = "participants-Token_0123456789"
TRAINER = "trainer-Token_9876543210abcdef"
SAME = {"Origin": "http://localhost"}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def _app(store, clock: Clock, **config):
    app = create_app(store, {"TESTING": True, **config})
    app.extensions["rmq_microcache"].clock = clock
    return app


def hit(r) -> bool:
    return "cache;desc=hit" in r.headers["Server-Timing"]


def test_a_hit_is_the_answer_itself(sample_store, clock):
    client = _app(sample_store, clock).test_client()
    for url in ("/messages", "/api/messages?limit=3", "/hex?offset=0", "/tour?step=2"):
        first, second = client.get(url), client.get(url)
        assert not hit(first) and hit(second), url
        assert second.data == first.data and second.status_code == 200
        assert second.headers["Content-Type"] == first.headers["Content-Type"]
        for name in ("Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy"):
            assert second.headers[name] == first.headers[name]
        assert second.headers.get("Cache-Control") == first.headers.get("Cache-Control")
        assert int(second.headers["Content-Length"]) == len(first.data)
    assert not hit(client.get("/messages?limit=3"))  # the query is part of the key
    assert not hit(client.head("/tour?step=3")) and hit(client.get("/tour?step=3"))  # HEAD and GET share one


def test_entries_expire_and_a_changed_store_shows(sample_store, clock, monkeypatch):
    client = _app(sample_store, clock).test_client()
    before = client.get("/api/messages?limit=1").get_json()
    real = data.message_list

    def changed(*a, **k):  # the store's answer changes (a live store took a message): only the topic here
        d = real(*a, **k)
        d["messages"][0]["topic"] = "ChangedMeanwhile"
        return d

    monkeypatch.setattr(data, "message_list", changed)
    clock.now += 0.9
    r = client.get("/api/messages?limit=1")
    assert hit(r) and r.get_json() == before  # within the second: the kept answer
    clock.now += 0.2
    r = client.get("/api/messages?limit=1")
    assert not hit(r) and r.get_json()["messages"][0]["topic"] == "ChangedMeanwhile"


def test_a_store_changed_on_disk_shows_once_the_second_is_over(tmp_path, clock):
    root = tmp_path / "store"
    shutil.copytree(Path(__file__).resolve().parents[2] / "sample_store", root)
    with Store(root) as store:
        client = _app(store, clock).test_client()
        before = client.get("/api/message/0").get_json()
        body = base64.b64decode(before["body_base64"])
        segment = sorted((root / "commitlog").iterdir())[0]
        at = segment.read_bytes().index(body)
        with open(segment, "r+b") as f:  # the record's body rewritten in place, as a live broker's file changes
            f.seek(at)
            f.write(b"CHANGED!")
        clock.now += 0.5
        r = client.get("/api/message/0")
        assert hit(r) and r.get_json() == before
        clock.now += 0.6
        r = client.get("/api/message/0")
        assert not hit(r) and base64.b64decode(r.get_json()["body_base64"]).startswith(b"CHANGED!")
        assert b"CHANGED!" in client.get("/message/0").data


def test_off_with_zero_seconds(sample_store):
    app = create_app(sample_store, {"TESTING": True, "MICROCACHE_SECONDS": 0})
    client = app.test_client()
    assert "rmq_microcache" not in app.extensions
    assert not hit(client.get("/teach?step=3")) and not hit(client.get("/teach?step=3"))


def test_a_refused_client_is_never_answered_from_it(sample_store, clock):
    app = _app(sample_store, clock)
    app.config["ACCESS_TOKEN"] = TOKEN
    holder = app.test_client()
    holder.set_cookie(COOKIE, TOKEN)
    page = holder.get("/teach?step=3")
    assert page.status_code == 200 and hit(holder.get("/teach?step=3"))
    stranger = app.test_client().get("/teach?step=3")
    assert stranger.status_code == 401 and stranger.data != page.data and not hit(stranger)
    foreign = holder.get("/teach?step=3", headers={"Host": "evil.example"})
    assert foreign.status_code == 400 and foreign.data != page.data and not hit(foreign)
    api = holder.get("/api/teach?step=4")
    assert api.status_code == 200
    bearer = app.test_client().get("/api/teach?step=4", headers={"Authorization": "Bearer wrong"})
    assert bearer.status_code == 401 and not hit(bearer)


def test_a_rate_limited_client_is_refused_before_the_cache(sample_store, clock):
    app = _app(sample_store, clock, RATE_BURST=1, RATE_PER_SECOND=0.001)
    client = app.test_client()
    far = {"REMOTE_ADDR": "203.0.113.9"}  # not loopback: limited
    assert client.get("/messages", environ_base=far).status_code == 200
    r = client.get("/messages", environ_base=far)
    assert r.status_code == 429 and not hit(r)


def test_trainer_and_participant_pages_do_not_mix(sample_store, clock):
    app = _app(sample_store, clock, WORKSHOP=True)
    app.config.update(ACCESS_TOKEN=TOKEN, TRAINER_TOKEN=TRAINER)
    trainer = app.test_client()
    assert trainer.get("/room", query_string={"trainer": TRAINER}).status_code == 303  # its cookie set
    participant = app.test_client()
    participant.set_cookie(COOKIE, TOKEN)
    led = trainer.get("/tour?step=2")
    followed = participant.get("/tour?step=2")
    assert not hit(followed) and b"you lead" in led.data and b"you lead" not in followed.data
    assert b'data-role="participant"' in followed.data and b'data-role="trainer"' in led.data
    assert hit(trainer.get("/tour?step=2")) and hit(participant.get("/tour?step=2"))
    assert participant.get("/room").status_code == 403  # the trainer's page is never a participant's hit
    trainer.get("/room")
    assert participant.get("/room").status_code == 403
    # a new step shows at once on every page (the room's state is part of the key), not a second later
    assert trainer.post("/room/step", data={"step": "3"}, headers=SAME).status_code == 200
    r = participant.get("/tour?step=2")
    assert not hit(r) and b'data-step="3"' in r.data


def test_posts_cookies_and_errors_are_never_kept(sample_store, clock):
    app = _app(sample_store, clock, WORKSHOP=True)
    app.config.update(TRAINER_TOKEN=TRAINER)
    cache: Microcache = app.extensions["rmq_microcache"]
    client = app.test_client()
    form = {"seed": "0", "id": "no-such-exercise", "answer": "x"}
    for _ in range(2):
        r = client.post("/room/answer", data=form, headers=SAME)
        assert not hit(r)
    assert client.get("/room", query_string={"trainer": TRAINER}).status_code == 303  # sets a cookie: not kept
    for _ in range(2):
        r = client.get("/message/1")
        assert r.status_code == 404 and not hit(r)
    assert all(key[1] not in ("/room/answer", "/room", "/message/1") for key in cache.kept)


def test_the_overview_is_not_kept_while_its_walk_runs(sample_store, clock, monkeypatch):
    client = _app(sample_store, clock).test_client()
    monkeypatch.setattr(data, "overview_done", lambda d: False)
    assert not hit(client.get("/")) and not hit(client.get("/")) and not hit(client.get("/api/"))
    monkeypatch.undo()
    client.get("/")
    assert hit(client.get("/"))


def test_bounds_in_entries_and_bytes():
    clock = Clock()
    cache = Microcache(1.0, entries=3, max_bytes=800, clock=clock)
    for n in range(5):
        cache.put(("h", f"/{n}", b"", ()), b"x" * 50, ())
    assert [k[1] for k in cache.kept] == ["/2", "/3", "/4"]
    cache.put(("h", "/big", b"", ()), b"y" * 101, ())  # over an eighth of the bytes: not kept
    assert ("h", "/big", b"", ()) not in cache.kept
    clock.now += 1.5  # every entry expired: the next put drops them all
    cache.put(("h", "/new", b"", ()), b"z" * 10, ())
    assert list(cache.kept) == [("h", "/new", b"", ())] and cache.size == 10
    assert cache.lookup(("h", "/new", b"", ())).body == b"z" * 10
    by_bytes = Microcache(1.0, entries=100, max_bytes=800, clock=clock)
    for n in range(9):
        by_bytes.put(("h", f"/{n}", b"", ()), b"x" * 100, ())
    assert len(by_bytes.kept) == 8 and by_bytes.size == 800 and ("h", "/0", b"", ()) not in by_bytes.kept


def test_a_request_waits_for_the_one_rendering_its_key():
    import threading

    cache = Microcache(1.0, entries=8, max_bytes=800, clock=Clock())
    key = ("h", "/tour", b"step=2", ())
    assert cache.claim(key) and not cache.claim(key)  # one renders; a second asking is not the one to fill it
    got = []
    waiter = threading.Thread(target=lambda: got.append(cache.lookup(key)))
    waiter.start()
    cache.put(key, b"the page", ())
    cache.done(key)
    waiter.join(30)
    assert [e.body for e in got] == [b"the page"] and cache.claim(key)  # done: the key may be filled again
