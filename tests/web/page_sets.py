"""The pages a person opens in the viewer, per store (issue 33's browser checks: axe-core and the viewports), and
the stores themselves: the sample store, the zeroed-page copy (tests/zeroed_page_store.py) and the workshop room.
Imported by name, like web_support."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from inspector.engine import Message, Problem, Store
from inspector.engine.workshop.exercises import generate
from inspector.engine.workshop.tour_steps import tour_steps
from web.app import create_app, make_production_server

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_store"
ROOM_TOKEN = "room-token-0123456789abcdef"
TRAINER_TOKEN = "trainer-token-fedcba9876543210"


def q(text: str) -> str:
    return quote(text, safe="")


def store_pages(store: Store) -> list[str]:
    """Every page kind of the viewer once (a few twice: a form and its answer), on this store's own values."""
    messages = _messages(store)
    first = next((m for m in messages if m.keys), messages[0])
    key = first.keys[0] if first.keys else "k"
    index = store.index_files()
    slot = store.chain(first.topic, key)[0].slot if index and store.chain(first.topic, key) else 0
    return ["/", "/messages", f"/messages?topic={q(first.topic)}&queue={first.queue_id}",
            f"/message/{first.physical_offset}", f"/hex?offset={first.physical_offset}",
            f"/chain?topic={q(first.topic)}&key={q(key)}", "/chain", "/slot",
            *([f"/slot?file={index[0].name}&slot={slot}"] if index else []),
            f"/resolve?id={first.msg_id}", "/resolve", f"/story?ref={first.physical_offset}",
            "/groups", "/search?q=order", "/stats?by=topic", "/timer", "/diff"]


def workshop_pages(store: Store) -> list[str]:
    """The teaching pages: every tour step, the hash lesson's steps, the exercises (one answered)."""
    ex = generate(store, 0, 12)
    return [*(f"/tour?step={n}" for n in range(1, len(tour_steps(store)) + 1)), "/teach", "/teach?step=3",
            "/exercises", *([f"/exercises?id={ex[0].id}&answer=x"] if ex else [])]


def damaged_pages(store: Store) -> list[str]:
    """What a damaged store adds: the hex at its first damage and inside it, the records either side of it, the
    messages listed from it. Its offsets come from the store's first Problem (a damaged record answers 404)."""
    problem = next(e for e in store.entries() if isinstance(e, Problem))
    before = max((m.physical_offset for m in _messages(store) if m.physical_offset < problem.offset), default=0)
    after = min((m.physical_offset for m in _messages(store) if m.physical_offset > problem.offset), default=0)
    return ["/", "/messages", f"/messages?from={problem.offset}", f"/hex?offset={problem.offset}",
            f"/hex?offset={problem.offset + 200}", f"/message/{before}", f"/message/{after}",
            "/salvage"]  # the salvage plan with a lost span and its records (the page reloads until planned)


def _messages(store: Store) -> list[Message]:
    return [e for e in store.entries() if isinstance(e, Message)]


def open_settled(page, url: str, seconds: float = 60):
    """``page.goto(url)``, again until the page no longer reloads itself (the overview while the store's walk runs,
    a comparison in progress): a check sees the finished page, and no reload cuts it. The last response."""
    deadline = time.monotonic() + seconds
    response = page.goto(url)
    while page.locator('meta[http-equiv="refresh"]').count() and time.monotonic() < deadline:
        page.wait_for_timeout(300)
        response = page.goto(url)
    return response


@contextlib.contextmanager
def room_served(store: Store) -> Iterator[str]:
    """The app as ``rmq-inspect web --workshop`` serves it (waitress: the room's event streams stay open)."""
    app = create_app(store, {"WORKSHOP": True})
    app.config.update(ACCESS_TOKEN=ROOM_TOKEN, TRAINER_TOKEN=TRAINER_TOKEN)
    server = make_production_server(app, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        app.extensions["rmq_room"].close()
        server.shutdown()
        server.server_close()
        thread.join(5)


ROOM_PAGES = [f"/room?trainer={TRAINER_TOKEN}", "/room", f"/tour?step=2&token={ROOM_TOKEN}"]
