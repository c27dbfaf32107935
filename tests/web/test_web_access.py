"""The viewer's token (web/access.py): bound elsewhere than loopback a request needs it (query once, then the
cookie; or a Bearer header); on loopback none is asked; ``--no-token`` warns loudly. And the cookie flow in real
headless Chromium on waitress, as ``rmq-inspect web --host`` serves it."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request

import pytest

from web.access import COOKIE
from web.app import create_app, make_production_server, serve

pytestmark = pytest.mark.timeout(120)

TOKEN = "s3cret-Token_for-the-room"


@pytest.fixture
def guarded(sample_store):
    app = create_app(sample_store, {"TESTING": True})
    app.config["ACCESS_TOKEN"] = TOKEN
    return app


@pytest.mark.parametrize("path", ["/", "/api/", "/messages", "/api/message/0", "/tour"])
def test_without_the_token_is_a_401_saying_where_it_is_printed(guarded, path):
    r = guarded.test_client().get(path)
    assert r.status_code == 401
    assert "printed on the terminal" in r.get_data(as_text=True)
    assert r.headers["WWW-Authenticate"].startswith("Bearer")
    if path.startswith("/api/"):
        assert r.get_json()["status"] == 401


@pytest.mark.parametrize("wrong", ["", "x", TOKEN[:-1], TOKEN + "x", TOKEN.upper(), "é" * 10])
def test_a_wrong_token_is_refused_everywhere_it_can_be_given(guarded, wrong):
    client = guarded.test_client()
    assert client.get("/", query_string={"token": wrong}).status_code == 401
    assert client.get("/api/", headers={"Authorization": f"Bearer {wrong}"}).status_code == 401
    client.set_cookie(COOKIE, wrong)
    assert client.get("/").status_code == 401


def test_the_right_token_in_the_query_sets_a_strict_cookie_and_redirects_without_it(guarded):
    client = guarded.test_client()
    r = client.get("/messages", query_string={"token": TOKEN, "topic": "T1", "queue": "0"})
    assert r.status_code == 303
    assert r.headers["Location"] == "/messages?topic=T1&queue=0"  # the token stays out of history and Referer
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith(f"{COOKIE}={TOKEN};") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert client.get("/").status_code == 200  # the cookie now does


def test_the_right_token_as_bearer_or_cookie_is_let_in(guarded):
    assert guarded.test_client().get("/api/", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    client = guarded.test_client()
    client.set_cookie(COOKIE, TOKEN)
    assert client.get("/api/").status_code == 200


def test_the_stylesheet_needs_no_token(guarded):
    with guarded.test_client().get("/static/style.css") as r:
        assert r.status_code == 200


def test_loopback_asks_no_token(sample_store, no_serving, capsys):
    assert serve(sample_store, "127.0.0.1", 0) == 0
    out = capsys.readouterr()
    assert "token" not in out.out and out.err == ""


def test_bound_elsewhere_a_random_token_is_printed_in_the_url(sample_store, no_serving, capsys):
    assert serve(sample_store, "0.0.0.0", 0) == 0
    first = capsys.readouterr()
    assert serve(sample_store, "0.0.0.0", 0) == 0
    second = capsys.readouterr()
    tokens = [line.split("?token=")[1] for out in (first, second) for line in out.out.splitlines() if "?token=" in line]
    assert len(tokens) == 2 and tokens[0] != tokens[1] and len(tokens[0]) >= 32
    assert "token printed below" in first.err and "no login" not in first.err


def test_a_given_token_is_the_one_printed(sample_store, no_serving, capsys):
    assert serve(sample_store, "0.0.0.0", 0, token=TOKEN) == 0
    assert f"/?token={TOKEN}\n" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["", "  ", "a b\n", "tok\x1b[31m"])
def test_an_unusable_token_is_bad_input(sample_store, no_serving, capsys, bad):
    assert serve(sample_store, "0.0.0.0", 0, token=bad) == 2
    assert "must be printable ASCII" in capsys.readouterr().err


def test_no_token_prints_a_loud_warning(sample_store, no_serving, capsys):
    assert serve(sample_store, "0.0.0.0", 0, no_token=True) == 0
    out = capsys.readouterr()
    assert "--no-token: NO TOKEN IS ASKED" in out.err and "every message body" in out.err
    assert "?token=" not in out.out


def test_the_cli_takes_the_token_from_the_environment_or_the_flag(monkeypatch):
    from inspector.cli.main import build_parser

    monkeypatch.setenv("RMQ_INSPECT_TOKEN", TOKEN)
    assert build_parser().parse_args(["web", "sample_store"]).token == TOKEN
    assert build_parser().parse_args(["web", "sample_store", "--token", "other"]).token == "other"
    monkeypatch.delenv("RMQ_INSPECT_TOKEN")
    args = build_parser().parse_args(["web", "sample_store", "--host", "0.0.0.0", "--no-token", "--dev-server"])
    assert args.token is None and args.no_token and args.dev_server


def test_the_cookie_flow_in_chromium_on_waitress(browser, sample_store):
    app = create_app(sample_store)
    app.config["ACCESS_TOKEN"] = TOKEN
    server = make_production_server(app, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        r = page.goto(f"{base}/messages")
        assert r.status == 401 and "printed on the terminal" in page.content()
        page.goto(f"{base}/messages?token={TOKEN}")
        assert page.url == f"{base}/messages"  # redirected, the token gone from the address bar
        assert page.locator("table").count() >= 1
        cookie = next(c for c in context.cookies() if c["name"] == f"{COOKIE}_{server.server_port}")  # per viewer
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert page.evaluate("document.cookie") == ""  # HttpOnly: no script reads it
        assert page.goto(f"{base}/tour").status == 200  # the next page on the cookie alone
        with pytest.raises(urllib.error.HTTPError) as e:  # and a client without it still gets nothing
            urllib.request.urlopen(f"{base}/api/", timeout=10)
        assert e.value.code == 401
        e.value.close()
    finally:
        context.close()
        server.shutdown()
        server.server_close()
        thread.join(5)
