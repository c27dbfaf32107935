"""Untrusted store text is escaped everywhere; nothing is written; the app binds to 127.0.0.1; no request names a
path; the addresses stay what users bookmark."""

from __future__ import annotations

import inspect
import json
import re
from urllib.parse import quote

import pytest
from web_support import PAYLOAD_MARKERS, XSS_KEYS, XSS_TOPIC, tree_digest, write_hostile_store

from web.app import WaitressServer, create_app, make_web_server, serve

pytestmark = pytest.mark.timeout(60)


def hostile_pages(facts) -> list[str]:
    t, k = quote(XSS_TOPIC, safe=""), quote(XSS_KEYS[0], safe="")
    evil = facts["evil"]
    return ["/", "/messages", f"/messages?topic={t}&queue=0", f"/messages?topic={t}", f"/message/{evil}",
            f"/message/{evil}?body=json", f"/message/{evil}?body=hex", f"/hex?offset={evil}", f"/hex?offset={facts['plain']}",
            f"/hex?offset={evil}&addr=hex&length=64",
            f"/chain?topic={t}&key={k}", f"/chain?topic={t}&key={quote(XSS_KEYS[1], safe='')}",
            f"/resolve?id={facts['evil_msg_id']}", "/slot", f"/messages?topic={t}&queue=0&from=0&limit=1"]


def test_payloads_are_escaped_on_every_page(hostile_client, hostile):
    _, facts = hostile
    for url in hostile_pages(facts):
        r = hostile_client.get(url)
        assert r.status_code == 200, (url, r.data[:300])
        html = r.get_data(as_text=True)
        for marker in PAYLOAD_MARKERS:
            assert marker not in html, (url, marker)
        assert "onerror=" not in html.replace("onerror=window.__pwned", "") or "&lt;img" in html, url


def test_payloads_show_as_text(hostile_client, hostile):
    _, facts = hostile
    html = hostile_client.get(f"/message/{facts['evil']}").get_data(as_text=True)
    assert "&lt;script&gt;window.__pwned=4&lt;/script&gt;" in html  # a key, as text
    assert "&#34;&gt;&lt;img src=x onerror=window.__pwned=1&gt;" in html  # the topic
    assert "&lt;/script&gt;&lt;script&gt;window.__pwned=2" in html  # the body


def test_error_pages_escape_what_they_echo(hostile_client):
    r = hostile_client.get("/resolve?id=<script>alert(1)</script>")
    assert r.status_code == 400 and b"<script>alert" not in r.data
    r = hostile_client.get("/slot?file=<img src=x onerror=alert(1)>")
    assert r.status_code == 400 and b"<img" not in r.data
    r = hostile_client.get("/hex?offset=<img src=x onerror=alert(1)>")  # "jump to" echoes what was typed
    assert r.status_code == 400 and b"<img" not in r.data


def test_json_embedded_in_a_page_cannot_close_its_script_element(hostile_client, hostile):
    _, facts = hostile
    html = hostile_client.get(f"/hex?offset={facts['evil']}").get_data(as_text=True)
    embedded = re.search(r'<script type="application/json" id="hex-data">(.*?)</script>', html, re.S).group(1)
    assert "<" not in embedded and ">" not in embedded
    data = json.loads(embedded)
    assert any(XSS_TOPIC in r["label"] for r in data["regions"])  # the text survives, as data
    assert data["current"]["start"] == str(facts["evil"])


def test_svg_text_is_escaped(hostile_client, hostile):
    _, facts = hostile
    t, k = quote(XSS_TOPIC, safe=""), quote(XSS_KEYS[0], safe="")
    html = hostile_client.get(f"/chain?topic={t}&key={k}").get_data(as_text=True)
    svg = re.search(r"<svg .*?</svg>", html, re.S).group(0)
    assert "<script" not in svg and "&lt;script&gt;" in svg
    assert svg.count('data-kind="match"') == 1


def test_api_is_json_with_nosniff(hostile_client, hostile):
    _, facts = hostile
    r = hostile_client.get(f"/api/message/{facts['evil']}")
    assert r.mimetype == "application/json"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.get_json()["topic"] == XSS_TOPIC


def test_pages_carry_a_strict_content_security_policy(client):
    r = client.get("/")
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe-inline" not in csp
    assert r.headers["X-Frame-Options"] == "DENY"
    assert "style=" not in r.get_data(as_text=True)  # inline styles would be blocked: none used


def test_nothing_is_written(hostile, tmp_path):
    root = tmp_path / "store"
    facts = write_hostile_store(root)
    before = tree_digest(root)
    app = create_app(root)  # opened from a path: the app owns this Store
    try:
        client = app.test_client()
        for url in hostile_pages(facts) + ["/api/", "/slot?file=" + sorted((root / "index").iterdir())[0].name + "&slot=1",
                                           "/teach?step=3"]:
            for method in ("GET", "HEAD", "POST", "PUT", "DELETE"):
                client.open(url, method=method)
                client.open("/api" + url if url != "/api/" else url, method=method)
    finally:
        app.extensions["rmq_store"].close()
    assert tree_digest(root) == before
    assert sorted(p.name for p in root.iterdir()) == sorted({k.split("/")[0] for k in before})


def test_every_route_is_get_only(app):
    for rule in app.url_map.iter_rules():
        assert rule.methods <= {"GET", "HEAD", "OPTIONS"}, rule


def test_the_addresses_are_stable(app):
    routes = sorted(str(r) for r in app.url_map.iter_rules() if r.endpoint != "static")
    assert routes == sorted([
        "/", "/messages", "/message/<offset>", "/hex", "/chain", "/slot", "/teach", "/resolve",
        "/api/", "/api/messages", "/api/message/<offset>", "/api/hex", "/api/chain", "/api/slot", "/api/teach",
        "/api/resolve",
        "/tour", "/exercises", "/api/tour", "/api/tour/<number>", "/api/exercises",  # workshops (issue 9)
        "/timer", "/api/timer",  # the 5.x timer wheel (issue 18)
        "/story", "/api/story",  # the story of a message (issue 30)
        "/search", "/api/search",  # grep (issue 31)
        "/groups", "/api/groups",  # consumer groups (issue 30)
        "/stats", "/api/stats",  # statistics (issue 31)
        "/diff", "/api/diff",  # two stores compared (web --compare B, issue 32)
        "/salvage", "/api/salvage",  # the salvage plan (issue 32)
    ])


def test_no_route_takes_a_path(app, client):
    """Only Flask's own /static/ (the viewer's CSS and JS, joined safely under web/static) has a path argument."""
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        for converter in rule._converters.values():
            assert type(converter).__name__ != "PathConverter", rule
    for url in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py", "/static//etc/passwd"):
        r = client.get(url, follow_redirects=True)
        assert r.status_code == 404, url
        r.close()


def test_binds_to_localhost_by_default():
    assert inspect.signature(serve).parameters["host"].default == "127.0.0.1"
    assert inspect.signature(make_web_server).parameters["host"].default == "127.0.0.1"
    from inspector.cli.main import build_parser

    args = build_parser().parse_args(["web", "some_store"])
    assert args.host == "127.0.0.1"


def test_server_serves_on_a_free_localhost_port(app):
    import threading
    import urllib.request

    server = make_web_server(app, port=0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert server.server_address[0] == "127.0.0.1"
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/api/teach?step=1", timeout=10) as r:
            assert json.load(r)["state"]["slots"][16] == 1
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_serve_reports_a_busy_port(sample_store, capsys):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        assert serve(sample_store, port=busy.getsockname()[1]) == 2
    assert "cannot listen on 127.0.0.1" in capsys.readouterr().err


def test_serve_runs_until_interrupted(sample_store, monkeypatch, capsys):
    from werkzeug.serving import BaseWSGIServer

    def interrupted(self, *a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(BaseWSGIServer, "serve_forever", interrupted)
    monkeypatch.setattr(WaitressServer, "serve_forever", interrupted)
    assert serve(sample_store, port=0) == 0
    assert "read-only on http://127.0.0.1:" in capsys.readouterr().out
