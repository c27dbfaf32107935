"""The web key lookup (the chain page and /api/chain) gives the CLI key's answer for a key whose record retention
removed, "expired: below the log's first offset ...", and for an absent key "no message indexed under ...";
a key a message has gets none. In headless Chromium as tests/web/test_browser.py drives it, and over the API."""

from __future__ import annotations

import contextlib
import io
import threading
from urllib.parse import quote

import pytest

from inspector.cli.main import main as cli_main
from tests.aged_store import age_store, write_store
from web.app import create_app, make_web_server

pytestmark = [pytest.mark.timeout(120)]


def _cli_key(root, topic: str, key: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = cli_main(["key", str(root), topic, key])
    return code, " ".join(err.getvalue().split())


@pytest.fixture(scope="module")
def aged(tmp_path_factory):
    """Segments deleted, index files not yet cleaned: k100's item is still there, its record is not."""
    root = tmp_path_factory.mktemp("aged") / "s"
    written = write_store(root)
    age_store(root, 2, cleanup=False)
    app = create_app(root)
    yield root, written, app
    app.extensions["rmq_store"].close()


def test_the_api_answers_as_the_cli_key(aged) -> None:
    root, written, app = aged
    client = app.test_client()
    for topic, key in (("T1", "k100"), ("T1", "no-such-key")):
        code, said = _cli_key(root, topic, key)
        assert code == 1
        answer = client.get(f"/api/chain?topic={topic}&key={key}").get_json()["answer"]
        assert answer is not None and answer in said
    assert client.get("/api/chain?topic=T1&key=k100").get_json()["answer"].startswith("expired: ")
    kept = len(written) - 1  # write_store keys record i "k{i}"
    assert client.get(f"/api/chain?topic={written[kept].topic}&key=k{kept}").get_json()["answer"] is None


def test_the_chain_page_in_chromium_says_expired(aged, browser) -> None:
    root, _, app = aged
    server = make_web_server(app, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{server.server_port}/chain?topic=T1&key={quote('k100')}")
        shown = " ".join(page.locator("#key-answer").inner_text().split())
        _, said = _cli_key(root, "T1", "k100")
        assert shown.startswith("expired: ") and shown in said
        page.goto(f"http://127.0.0.1:{server.server_port}/chain?topic=T1&key=no-such-key")
        assert page.locator("#key-answer").inner_text() == "no message indexed under T1#no-such-key"
    finally:
        context.close()
        server.shutdown()
        server.server_close()
        thread.join(5)
