"""The README's pictures of the web viewer, taken in headless Chromium on the sample store (issue 33):

    python tools/web_screenshots.py [--chromium /usr/bin/chromium] [--out docs]

docs/web-hex.png: the hex page with its byte inspector, the cursor on a message's BORNTIMESTAMP (moved there with
the keyboard, as a person would); docs/web-present.png: the tour's record step in presentation mode. Needs the
``web`` extra and Playwright (the browser tests' tools). docs/web-chain.png comes from tests/web/test_browser.py
(RMQ_INSPECT_UPDATE_DOCS=1)."""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's viewer, not another one installed in the environment

from inspector.engine import Message, Store  # noqa: E402
from web.app import create_app, make_production_server  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--out", type=Path, default=REPO / "docs")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with Store(REPO / "sample_store") as store:
        record = [e for e in store.entries() if isinstance(e, Message)][1]
        server = make_production_server(create_app(store), "127.0.0.1", 0, quiet=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        base = f"http://127.0.0.1:{server.server_port}"
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                page.goto(f"{base}/hex?offset={record.physical_offset}&length=512")
                page.locator("#hexview .b.cur").focus()
                for key in ["ArrowDown", "ArrowDown"] + ["ArrowRight"] * 8:  # +40: BORNTIMESTAMP
                    page.keyboard.press(key)
                page.evaluate("window.scrollBy(0, document.querySelector('.hexnav').getBoundingClientRect().top - 8)")
                page.screenshot(path=str(args.out / "web-hex.png"))
                page.goto(f"{base}/tour?step=2&present=1")
                page.screenshot(path=str(args.out / "web-present.png"))
                browser.close()
        finally:
            server.shutdown()
            server.server_close()
            thread.join(5)
    print(f"wrote {args.out / 'web-hex.png'} and {args.out / 'web-present.png'}")


if __name__ == "__main__":
    main()
