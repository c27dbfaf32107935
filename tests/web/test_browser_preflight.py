"""The overview's next-start banner in real headless Chromium (Debian's, through Playwright) on a store whose
consume-queue folder (the topic) is a script tag with a terminal's control bytes and a bidi override: preflight
refuses the start naming that file, and the banner shows the name as literal text, its controls escaped, nothing
run, no element injected. Without Chromium the ``browser`` fixture skips."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from web_support import served, watched_page

from inspector.engine import Store, preflight
from web.app import create_app

pytestmark = [pytest.mark.timeout(180)]

SAMPLE = Path(__file__).resolve().parents[2] / "sample_store"
# a file name holds no '/': the script tag is left open, which a page taking it as markup would run to the end
TOPIC = "<script>window.__pwned=1;alert(1)<\\script>\x1b[2J\u202e"


@pytest.fixture(scope="module")
def hostile_banner_store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("banner") / "store"
    shutil.copytree(SAMPLE, root)
    queue = root / "consumequeue" / TOPIC / "0"
    queue.mkdir(parents=True)
    (queue / f"{0:020d}").write_bytes(bytes(100))  # not the configured file size: the broker does not start
    return root


def test_the_next_start_banner_shows_store_text_escaped_and_inert(browser, hostile_banner_store):
    with Store(hostile_banner_store) as store:
        banner = preflight(store).banner
    assert TOPIC in banner and "wrong-cq-file-size" in banner  # the store text reaches the banner as it is
    app = create_app(hostile_banner_store)
    try:
        with watched_page(browser) as watched, served(app) as url:
            page = watched.page
            for _ in range(600):  # the walk runs in the background: the banner is shown once it is done
                if page.request.get(f"{url}/api/").json()["walk"]["done"]:
                    break
                page.wait_for_timeout(50)
            page.goto(url + "/")
            page.wait_for_load_state("load")
            shown = page.locator("#next-start span.warn").text_content()
            injected = page.evaluate("""() => ({
                pwned: typeof window.__pwned === 'undefined' ? null : String(window.__pwned),
                scripts: [...document.querySelectorAll('script')].filter(s => !s.src && s.type !== 'application/json')
                    .filter(s => s.textContent.includes('__pwned')).length,
                in_banner: document.querySelectorAll('#next-start span.warn *').length,
            })""")
    finally:
        app.extensions["rmq_store"].close()
    assert injected == {"pwned": None, "scripts": 0, "in_banner": 0}
    assert watched.dialogs == [] and watched.console == []
    assert "<script>window.__pwned=1;alert(1)<\\script>\\x1b[2J\\u202e" in shown  # literal, controls spelled out
    assert "\x1b" not in shown and "\u202e" not in shown
