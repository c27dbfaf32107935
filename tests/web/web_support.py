"""Helpers shared by the web tests (imported by name: conftest modules are not importable reliably)."""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from web.app import make_web_server

# Chromium is Debian's package (external_tools.CHROMIUM finds it), driven by Playwright: its own browser download
# is not used.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]

# Untrusted text: each payload would set window.__pwned (or pop a dialog) if it ever ran.
XSS_TOPIC = '"><img src=x onerror=window.__pwned=1>'
XSS_BODY = b'</script><script>window.__pwned=2;alert(2)</script>"><img src=x onerror=window.__pwned=3>'
XSS_KEYS = ["<script>window.__pwned=4</script>", '"><svg/onload=window.__pwned=5>']
XSS_TAGS = "<b onmouseover=window.__pwned=6>tag</b>"
XSS_PROPS = {"<i>name</i>": "<script>window.__pwned=7</script>", "plain": "'\"><img src=x onerror=alert(8)>"}
PAYLOAD_MARKERS = ("<script>window", "<img src=x", "<svg/onload", "<b onmouseover", "<i>name</i>")



def write_hostile_store(root: Path) -> dict:
    """A tiny store whose topic, keys, tags, properties and body are HTML/JS payloads."""
    t0 = 1_758_272_400_000
    geometry = Geometry(segment_size=4096, cq_file_size=200, index_slots=16, index_items=64)
    with StoreWriter(root, geometry, store_host="10.0.0.1:10911", consumer_offsets={(XSS_TOPIC, "<g>"): {0: 0}}) as w:
        evil = w.append(MessageSpec(topic=XSS_TOPIC, body=XSS_BODY, keys=XSS_KEYS, tags=XSS_TAGS, properties=XSS_PROPS,
                                    store_timestamp=t0))
        plain = w.append(MessageSpec(topic="Plain", body=b'{"ok": true}', keys=["k1"], store_timestamp=t0 + 1000))
    return {"evil": evil.physical_offset, "plain": plain.physical_offset, "evil_msg_id": evil.msg_id}


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under root with its SHA-256 and mtime (to prove nothing was written)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() + f"@{p.stat().st_mtime_ns}"
            for p in sorted(root.rglob("*")) if p.is_file()}


@dataclass
class Watched:
    """A browser page and what it did that a page of ours never does: dialogs opened (each dismissed), page errors
    and console errors or warnings logged."""

    page: Any
    dialogs: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)


@contextlib.contextmanager
def watched_page(browser) -> Iterator[Watched]:
    """A fresh page of ``browser`` in a context of its own (closed after), watched (:class:`Watched`)."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    watched = Watched(page)
    page.on("dialog", lambda d: (watched.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: watched.console.append(f"pageerror: {e}"))
    page.on("console", lambda m: watched.console.append(f"{m.type}: {m.text}") if m.type in ("error", "warning")
            else None)
    try:
        yield watched
    finally:
        context.close()


@contextlib.contextmanager
def served(app) -> Iterator[str]:
    """The app on a real threaded server on a free loopback port (as `rmq-inspect web` serves it); its base URL."""
    server = make_web_server(app, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
