"""A workshop room in real headless Chromium (two browsers: the trainer's and a participant's) on waitress, as
``rmq-inspect web --workshop`` serves it: the participant's page follows the trainer's tour step within 2 s, can
step away and come back, and a solved exercise shows in the trainer's tally. No request leaves the viewer."""

from __future__ import annotations

import threading
import time

import pytest
from playwright.sync_api import expect

from inspector.engine.workshop.exercises import generate
from web.app import create_app, make_production_server

pytestmark = pytest.mark.timeout(120)

TOKEN = "room-token-0123456789abcdef"
TRAINER = "trainer-token-fedcba9876543210"
FOLLOW_MS = 2000  # issue 34: the participant page follows within 2 s


@pytest.fixture
def room(sample_store):
    app = create_app(sample_store, {"WORKSHOP": True})
    app.config.update(ACCESS_TOKEN=TOKEN, TRAINER_TOKEN=TRAINER)
    server = make_production_server(app, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        app.extensions["rmq_room"].close()  # as serve() does: the open streams end now
        server.shutdown()
        server.server_close()
        thread.join(5)


def open_page(browser, base: str, requests: list[str]):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    return context, page


def test_the_participant_follows_the_trainer_and_the_tally_shows_a_solved_exercise(browser, room, sample_store):
    requests: list[str] = []
    trainer_context, trainer = open_page(browser, room, requests)
    participant_context, participant = open_page(browser, room, requests)
    try:
        participant.goto(f"{room}/?token={TOKEN}")
        participant.wait_for_url("**/tour?step=1")  # following from the start: the room is at step 1
        expect(participant.locator("#room-bar")).to_have_attribute("data-following", "yes")

        trainer.goto(f"{room}/room?trainer={TRAINER}")
        assert trainer.url == f"{room}/room"  # the trainer token left the address bar
        trainer.goto(f"{room}/tour?step=1")
        trainer.locator(".tour-stepper a.next").click()
        trainer.wait_for_url("**/tour?step=2")
        started = time.monotonic()
        participant.wait_for_url("**/tour?step=2", timeout=FOLLOW_MS)
        followed = time.monotonic() - started
        print(f"the participant followed to step 2 in {followed:.2f} s")
        assert participant.locator("article#tour-step").get_attribute("data-step") == "2"

        # the participant steps away (a step of their own), the trainer goes on: the participant stays
        participant.locator("aside.tour-steps li").nth(4).locator("a").click()
        participant.wait_for_url("**/tour?step=5")
        expect(participant.locator("#room-bar")).to_have_attribute("data-following", "no")
        trainer.locator(".tour-stepper a.next").click()
        trainer.wait_for_url("**/tour?step=3")
        expect(participant.locator("#room-bar .room-step")).to_have_text("3", timeout=FOLLOW_MS)  # told, not moved
        assert participant.url.endswith("/tour?step=5")
        participant.locator("#room-bar a.room-back").click()  # back to the trainer
        participant.wait_for_url("**/tour?step=3")
        expect(participant.locator("#room-bar")).to_have_attribute("data-following", "yes")

        # the trainer watches the tally; the participant solves the first exercise
        trainer.goto(f"{room}/room")
        ex = generate(sample_store, 0, 12)[0]
        row = trainer.locator(f'#room-tally tr[data-exercise="{ex.id}"]')
        expect(row.locator(".solved")).to_have_text("0")
        participant.locator("header nav a", has_text="Exercises").click()
        participant.wait_for_url("**/exercises")
        item = participant.locator(f"#ex-{ex.id}")
        item.locator("input[name=answer]").fill(str(ex.answer))
        item.locator("button").click()
        expect(participant.locator(f"#ex-{ex.id} .result.correct")).to_be_visible()
        expect(row.locator(".tried")).to_have_text("1", timeout=FOLLOW_MS)
        expect(row.locator(".solved")).to_have_text("1", timeout=FOLLOW_MS)
        assert participant.url.split("#")[0].endswith(f"id={ex.id}&answer={ex.answer}")  # the usual check page
        assert trainer.errors == [] and participant.errors == []
        assert all(u.startswith(room + "/") for u in requests), [u for u in requests if not u.startswith(room)]
    finally:
        participant_context.close()
        trainer_context.close()
