"""The web overview's next-start line: the engine's preflight banner, shown once the walk is done."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from inspector.engine import Store, preflight
from web.app import create_app

SAMPLE = Path(__file__).resolve().parents[2] / "sample_store"


def _overview_when_walked(client) -> str:
    for _ in range(600):  # the walk runs in the background: ask until it is done (a state, not a timing)
        if client.get("/api/").get_json()["walk"]["done"]:
            break
        time.sleep(0.05)
    return client.get("/").get_data(as_text=True)


def test_the_sample_store_starts_normally(client):
    page = _overview_when_walked(client)
    assert '<p class="summary" id="next-start"><span class="ok">next start: normal, nothing lost</span>' in page


def test_a_stray_empty_segment_is_a_refused_start(tmp_path):
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    (root / "commitlog" / "00000000000000000001").write_bytes(b"")
    with Store(root) as store:
        expected = preflight(store).banner
    app = create_app(root)
    try:
        page = _overview_when_walked(app.test_client())
    finally:
        app.extensions["rmq_store"].close()
    assert expected == "next start: refused (commitlog/00000000000000000001: empty-segment)"
    assert f'<span class="warn">{expected}</span>' in page
