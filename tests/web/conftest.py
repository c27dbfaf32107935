"""Fixtures for the web viewer: the app on the committed sample store and on a hostile store, their test
clients, and expectations derived from the engine (never copied from the app under test)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from external_tools import CHROMIUM, PLAYWRIGHT, SAMPLE_STORE, need
from web_support import CHROMIUM_ARGS, write_hostile_store

from inspector.engine import Message, Store
from parsers.java import index_key, index_key_hash
from web.app import create_app

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_store"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

@pytest.fixture(scope="session")
def sample_store():
    need(SAMPLE_STORE)
    store = Store(SAMPLE)
    yield store
    store.close()


@pytest.fixture
def app(sample_store):
    return create_app(sample_store, {"TESTING": True})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile") / "store"
    facts = write_hostile_store(root)
    store = Store(root)
    yield store, facts
    store.close()


@pytest.fixture
def hostile_client(hostile):
    return create_app(hostile[0], {"TESTING": True}).test_client()


# -- expectations from the engine -----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def sample_messages(sample_store) -> list[Message]:
    return [e for e in sample_store.entries() if isinstance(e, Message)]


@pytest.fixture(scope="session")
def colliding_key(sample_store, sample_messages) -> tuple[str, str, str]:
    """(topic, key, other key): two different index keys of one topic with the same Java hash, both indexed."""
    by_hash: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for m in sample_messages:
        for k in m.keys:
            by_hash[index_key_hash(index_key(m.topic, k))].add((m.topic, k))
    for h in sorted(by_hash):
        keys = sorted(by_hash[h])
        for (t1, k1), (t2, k2) in zip(keys, keys[1:], strict=False):
            if t1 == t2 and k1 != k2:
                walks = sample_store.chain(t1, k1)
                if any(s.hash_matches and s.key_matches is False for w in walks for s in w.steps):
                    return t1, k1, k2
    pytest.skip("the sample store has no colliding keys")


@pytest.fixture(scope="module")
def browser():
    """Headless Debian Chromium through Playwright, one per module (the tests are skipped without them)."""
    executable = need(CHROMIUM)
    need(PLAYWRIGHT)
    from playwright import sync_api

    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def no_serving(monkeypatch):
    """serve() binds the real socket (waitress or werkzeug), then returns as if Ctrl-C came at once."""
    from werkzeug.serving import BaseWSGIServer

    from web.app import WaitressServer

    def interrupted(self, *a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(BaseWSGIServer, "serve_forever", interrupted)
    monkeypatch.setattr(WaitressServer, "serve_forever", interrupted)
