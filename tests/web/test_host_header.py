"""A foreign Host header is hostile input: DNS rebinding lets any web page reach a viewer on 127.0.0.1 under its
own name, so the viewer answers only the names it can be reached by (loopback ones when bound to loopback)."""

from __future__ import annotations

import pytest

from web.app import create_app, make_web_server
from web.hosts import allowed, split_host

# (the test client cannot send a port above 65535: tests/web/test_web_server.py sends it to the real server)
FOREIGN = ["attacker.example", "attacker.example:8080", "127.0.0.1.attacker.example", "localhost.", "evil.localhost",
           "127.0.0.2", "[::2]", "0.0.0.0", "2130706433", "", "localhost:x", "[::1", "::1",
           "a b", "localhost:8080:1"]


@pytest.mark.parametrize(("header", "parts"), [
    ("127.0.0.1", ("127.0.0.1", None)), ("LocalHost:8080", ("localhost", 8080)), ("[::1]:80", ("[::1]", 80)),
    ("[::1]", ("[::1]", None)), ("[::1]x", None), ("[zz]:1", None), (":80", None), ("a:", None), ("a:-1", None),
])
def test_host_headers_are_split_strictly(header, parts):
    assert split_host(header) == parts


@pytest.mark.parametrize("host", FOREIGN)
def test_a_foreign_host_gets_a_400_and_nothing_from_the_store(client, sample_messages, host):
    m = sample_messages[len(sample_messages) // 2]  # an offset of several digits, a topic: neither may be echoed
    for url in (f"/api/message/{m.physical_offset}", f"/message/{m.physical_offset}", "/api/", "/", "/no/such"):
        r = client.get(url, environ_overrides={"HTTP_HOST": host})  # as sent: the client would parse headers=
        assert r.status_code == 400, (url, host, r.status_code)
        assert m.topic.encode() not in r.data and str(m.physical_offset).encode() not in r.data, url
    r = client.get(f"/api/message/{m.physical_offset}", environ_overrides={"HTTP_HOST": host})
    assert r.get_json()["error"] == "Bad Request" and "host name" in r.get_json()["message"]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "LOCALHOST", "127.0.0.1:8080", "[::1]:1"])
def test_loopback_names_are_answered(client, sample_messages, host):
    m = sample_messages[0]
    r = client.get(f"/api/message/{m.physical_offset}", headers={"Host": host})
    assert r.status_code == 200 and r.get_json()["topic"] == m.topic


def test_no_host_header_is_answered():
    """HTTP/1.0 tools send none; no browser does, so no rebinding page can omit it."""
    assert allowed(None, ("localhost",), 80)


def test_a_bound_loopback_server_wants_its_own_port(sample_store, sample_messages):
    app = create_app(sample_store)
    server = make_web_server(app, "127.0.0.1", 0, quiet=True)
    try:
        port, client = server.server_port, app.test_client()
        url = f"/api/message/{sample_messages[0].physical_offset}"
        for host, status in [(f"127.0.0.1:{port}", 200), ("127.0.0.1", 200), (f"localhost:{port}", 200),
                             (f"[::1]:{port}", 200), (f"127.0.0.1:{port + 1 if port < 65535 else 1}", 400),
                             (f"attacker.example:{port}", 400)]:
            assert client.get(url, headers={"Host": host}).status_code == status, host
    finally:
        server.server_close()


def test_bound_elsewhere_any_host_unless_names_are_given(sample_store, sample_messages):
    """Today's behaviour off loopback (a warning is printed), and --allow-host for users who want the check."""
    url = f"/api/message/{sample_messages[0].physical_offset}"
    app = create_app(sample_store)
    server = make_web_server(app, "0.0.0.0", 0, quiet=True)
    try:
        assert app.test_client().get(url, headers={"Host": "viewer.corp.example"}).status_code == 200
    finally:
        server.server_close()
    app = create_app(sample_store)
    server = make_web_server(app, "0.0.0.0", 0, quiet=True, allow_hosts=("Viewer.Corp.Example",))
    try:
        client, port = app.test_client(), server.server_port
        for host, status in [("viewer.corp.example", 200), (f"viewer.corp.example:{port}", 200),
                             (f"127.0.0.1:{port}", 200), ("localhost", 200), ("attacker.example", 400),
                             (f"viewer.corp.example:{port + 1 if port < 65535 else 1}", 400)]:
            assert client.get(url, headers={"Host": host}).status_code == status, host
    finally:
        server.server_close()


def test_the_warning_says_whether_host_names_are_checked():
    from web.app import exposure_warning

    assert "--allow-host" in exposure_warning("0.0.0.0") and "any host" in exposure_warning("0.0.0.0")
    assert "viewer.example" in exposure_warning("0.0.0.0", ("viewer.example",))
