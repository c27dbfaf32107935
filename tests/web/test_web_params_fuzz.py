"""Every route, every parameter, hostile values: the answer is 200/302/400/404, never a 500, and never the bytes
of a file outside the store (a marker file is planted right next to it)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from web_support import write_hostile_store

from inspector.engine import Store
from inspector.engine.workshop.exercises import generate
from web.app import create_app

pytestmark = pytest.mark.timeout(120)

MARKER = "SECRET-MARKER-6b1f0c9e-must-never-be-served"
OK = {200, 302, 400, 404}

HOSTILE = [
    "-1", "-9223372036854775808", str(1 << 63), str((1 << 63) - 1), str(1 << 64), "99999999999999999999999",
    "1e9", "1.5", "+1", " 7 ", "0x10", "deadbeef", "abc", "NaN", "", " ", "../../etc/passwd", "/etc/passwd",
    "..%2f..%2fetc%2fpasswd", "....//....//etc/passwd", "C:\\Windows\\win.ini", "file:///etc/passwd",
    "a\x00b", "\x00", "\r\nSet-Cookie: x=1", "x" * 5000, "9" * 5000, "é漢字🙂", "\u202e\u0000",
    "<script>alert(1)</script>", "{{7*7}}", "00000000000000000000", "20250919090000196/../../x",
]

# Each route's query parameters, and valid companions so each one is also tried where it is really read.
ROUTES: dict[str, tuple[list[str], dict[str, str]]] = {
    "/": (["file"], {}),
    "/messages": (["topic", "queue", "from", "limit"], {"topic": "Plain", "queue": "0"}),
    "/message/<offset>": (["body"], {}),
    "/hex": (["offset", "length", "addr"], {"offset": "0"}),
    "/chain": (["topic", "key"], {"topic": "Plain", "key": "k1"}),
    "/slot": (["file", "slot"], {"file": "{index}", "slot": "1"}),
    "/teach": (["hashes", "slots", "step", "lookup"], {"step": "1"}),
    "/resolve": (["id"], {}),
    "/tour": (["step"], {}),
    "/exercises": (["seed", "id", "answer"], {"id": "{exercise}", "answer": "x"}),
    "/api/": (["file"], {}),
    "/api/messages": (["topic", "queue", "from", "limit"], {"topic": "Plain", "queue": "0"}),
    "/api/message/<offset>": (["body"], {}),
    "/api/hex": (["offset", "length"], {"offset": "0"}),
    "/api/chain": (["topic", "key"], {"topic": "Plain", "key": "k1"}),
    "/api/slot": (["file", "slot"], {"file": "{index}", "slot": "1"}),
    "/api/teach": (["hashes", "slots", "step", "lookup"], {"step": "1"}),
    "/api/resolve": (["id"], {}),
    "/api/tour": (["step"], {}),
    "/api/tour/<number>": ([], {}),
    "/api/exercises": (["seed", "id", "answer"], {"id": "{exercise}", "answer": "x"}),
    "/timer": (["slot"], {}),
    "/api/timer": (["slot"], {}),
    "/story": (["ref", "key"], {"ref": "Plain"}),
    "/api/story": (["ref", "key"], {"ref": "Plain"}),
    "/search": (["q", "fixed", "i", "in", "topic", "tag", "limit"], {"q": "body"}),
    "/api/search": (["q", "fixed", "i", "in", "topic", "tag", "limit"], {"q": "body"}),
    "/groups": (["name", "limit"], {"name": "g"}),
    "/api/groups": (["name", "limit"], {"name": "g"}),
    "/stats": (["by"], {"by": "tag"}),
    "/api/stats": (["by"], {"by": "tag"}),
    "/diff": ([], {}),  # no parameter: the second store is named on the command line only
    "/api/diff": ([], {}),
    "/salvage": ([], {}),  # no parameter: the plan of the viewer's own store
    "/api/salvage": ([], {}),
}


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory):
    """The hostile store, with a marker file planted next to it (and one inside its directory, outside its
    layout): a parameter that could name a file would serve one of them."""
    base = tmp_path_factory.mktemp("fuzz")
    root = base / "store"
    facts = write_hostile_store(root)
    (base / "secret.txt").write_text(MARKER)
    (root / "secret.txt").write_text(MARKER)
    store = Store(root)
    app = create_app(store, {"TESTING": False})  # errors answer as users see them, not re-raised
    fill = {"{index}": store.index_files()[0].name, "{exercise}": generate(store, 0, 12)[0].id}
    yield app.test_client(), facts, fill, base
    store.close()


def _path(route: str, value: str) -> str:
    for name in ("<offset>", "<number>"):
        route = route.replace(name, value)
    return route


def _check(client, path: str, query: list[tuple[str, str]]) -> int:
    r = client.get(path, query_string=urlencode(query), follow_redirects=True)  # e.g. werkzeug merging "//"
    body = r.get_data()
    assert r.status_code in OK, (path, query, r.status_code, body[:300])
    assert MARKER.encode() not in body, (path, query)
    assert b"root:x:0:0" not in body and b"[fonts]" not in body, (path, query)
    assert b"Traceback" not in body, (path, query)
    if path.startswith("/api") and r.status_code >= 400:
        assert r.mimetype == "application/json" and r.get_json()["status"] == r.status_code, (path, query)
    r.close()
    return r.status_code


def test_the_table_covers_every_route(fuzz):
    client = fuzz[0]
    routes = {str(r) for r in client.application.url_map.iter_rules() if r.endpoint != "static"}
    assert routes == set(ROUTES)


def test_every_parameter_with_hostile_values(fuzz):
    client, facts, fill, _ = fuzz
    seen: set[int] = set()
    for route, (params, base) in ROUTES.items():
        base = {k: fill.get(v, v) for k, v in base.items()}
        path = _path(route, str(facts["plain"]))
        for value in HOSTILE:
            if "<" in route:  # the value in the path itself (werkzeug decodes %2F: some then match no route)
                seen.add(_check(client, _path(route, value.replace("/", "%2F")), []))
            for name in params:
                seen.add(_check(client, path, [(name, value)]))
                seen.add(_check(client, path, [*((k, v) for k, v in base.items() if k != name), (name, value)]))
                # the parameter repeated: the first wins, the second must not sneak past the checks
                seen.add(_check(client, path, [*base.items(), (name, value), (name, "../../secret.txt")]))
    assert {200, 400, 404} <= seen  # the table reaches all three outcomes, not only the validators


def test_no_parameter_names_a_file(fuzz):
    client, facts, _, base = fuzz
    for value in (str(base / "secret.txt"), "../secret.txt", "secret.txt", "../../" + str(base / "secret.txt")):
        for route, (params, _) in ROUTES.items():
            path = _path(route, str(facts["plain"]))
            for name in params:
                _check(client, path, [(name, value)])
        for prefix in ("/static/", "/api/", "/", "/message/"):
            _check(client, prefix + value, [])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(sorted(ROUTES)), params=st.lists(
    st.tuples(st.sampled_from(["topic", "queue", "from", "limit", "offset", "length", "key", "file", "slot", "id",
                               "step", "seed", "answer", "hashes", "slots", "lookup", "body"]),
              st.one_of(st.text(max_size=40), st.integers(min_value=-(1 << 70), max_value=1 << 70).map(str))),
    max_size=4), path_value=st.text(
    # no lone surrogates: no URL can carry one (the test client itself cannot encode it: not the viewer's answer)
    alphabet=st.characters(blacklist_characters="/?#", blacklist_categories=("Cs",)), max_size=30))
def test_random_parameters_never_fail(fuzz, route, params, path_value):
    client = fuzz[0]
    _check(client, _path(route, path_value) if "<" in route else route, params)


def test_overlong_urls_are_refused_not_crashed(fuzz):
    client = fuzz[0]
    assert _check(client, "/chain", [("topic", "t" * 100_000), ("key", "k")]) == 400
    assert _check(client, "/teach", [("hashes", ",".join(["1"] * 10_000))]) == 400
    assert _check(client, "/messages", [("from", "1" * 100_000)]) == 400


def test_a_store_of_payloads_never_gives_a_500(tmp_path):
    """Store-controlled strings that are not what the engine expects (a UNIQ_KEY that is no id, keys full of
    markup) still give pages: every tour step, the exercises, each message and chain."""
    from hostile_support import write_rich_hostile_store

    root = tmp_path / "store"
    facts = write_rich_hostile_store(root)
    with Store(root) as store:
        client = create_app(store, {"TESTING": False}).test_client()
        steps = client.get("/api/tour").get_json()["steps"]
        assert len(steps) > 5
        urls = [f"/tour?step={n}" for n in range(1, len(steps) + 1)] + ["/", "/exercises", "/api/exercises", "/slot"]
        urls += [f"/message/{facts[k]}?body={b}" for k in ("evil", "evil2", "plain") for b in ("text", "json", "hex")]
        urls += [f"/chain?{urlencode({'topic': store.message_at(facts['evil']).topic, 'key': k})}" for k in facts["keys"]]
        for url in urls:
            r = client.get(url)
            assert r.status_code == 200, (url, r.status_code)
