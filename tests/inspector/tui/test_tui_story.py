"""The terminal UI's story screen (issue 30 item 1) on the committed sample store: reached with ``s`` from the
hex view, a message window, the message browser and the msgId screen, and from the command palette's prompt;
every record with its role in store-time order, the groups' table, the searched note; enter and ``x`` open a
record; an unknown REF is a red line, no crash; store text (a hostile topic, a group named with controls) shown
escaped. And a snapshot of the screen.

The sample store's poison order (``scripts/sample_store.toml`` ``poison``): its PaymentEvents message at 86020
failed billing-consumer three times (each send-back parked in SCHEDULE_TOPIC_XXXX, then delivered into
%RETRY%billing-consumer) and its fourth failure wrote the dead letter at 90151.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from hostile_tui import TOPIC_DIR, painted, write_hostile_store
from textual.widgets import DataTable, Static
from tui_helpers import SIZE, drive, settle, static_text

from inspector.engine import Store
from inspector.tui.app import create_app
from inspector.tui.screens.dialogs import MessageScreen, PromptScreen, help_text

ORIGINAL, DEAD_LETTER = 86020, 90151
UNIQ_KEY = "0A1401151E276D06D69C5F7499F40168"
ROLES = ["original", "retry-scheduled", "retry", "retry-scheduled", "retry", "retry-scheduled", "retry",
         "dead-letter"]
OFFSETS = [86020, 86383, 86883, 87379, 87879, 88375, 89655, 90151]


def story_rows(app) -> tuple[list[str], list[int], list[tuple], str, str]:
    """What the story screen shows: the records' roles and offsets, the groups' rows, the summary, the notes."""
    screen = app.views["story"]
    story = screen.story
    groups = screen.query_one("#story-groups", DataTable)
    return ([r.role for r in story.records], [r.physical_offset for r in story.records],
            [tuple(str(c) for c in groups.get_row_at(i)) for i in range(groups.row_count)],
            static_text(screen.query_one("#story-summary", Static)), static_text(screen.query_one("#story-notes", Static)))


async def then_s(pilot, go) -> None:
    """``go()`` (put a message on the screen), then ``s`` on it, each let settle."""
    await settle(pilot)
    go()
    await settle(pilot)
    await pilot.press("s")
    await settle(pilot)


def test_s_on_the_hex_view_tells_the_story_of_the_record_under_the_cursor(store):
    app = create_app(store, background_scan=False, screen="hex")

    async def script(pilot):
        await then_s(pilot, lambda: app.show_hex(DEAD_LETTER))
        return app.current_mode, story_rows(app)

    mode, (roles, offsets, groups, summary, notes) = drive(app, script)
    assert mode == "story"
    assert roles == ROLES and offsets == OFFSETS
    assert UNIQ_KEY in summary and "8 record(s)" in summary and "3 retry" in summary and "1 dead-letter" in summary
    # billing-consumer has committed PaymentEvents queue 2 past the original (queue offset 15, committed 27)
    assert ("billing-consumer", "PaymentEvents", "2", "15", "27", "yes", "", "", "") in groups
    assert len(groups) == 4
    assert "offsets from config/consumerOffset.json" in notes and f"searched: every topic's index for UNIQ_KEY {UNIQ_KEY}" in notes


def test_s_on_a_message_window_and_in_the_message_browser(store):
    app = create_app(store, background_scan=False, screen="messages")

    async def script(pilot):
        await settle(pilot)
        lst = app.views["messages"].message_list
        first = lst.source.offset(0)
        await pilot.press("s")
        await settle(pilot)
        from_browser = (app.current_mode, app.views["story"].story.ref)
        await then_s(pilot, lambda: app.show_message(ORIGINAL))
        return first, from_browser, isinstance(app.screen, MessageScreen), story_rows(app)

    first, from_browser, still_modal, (roles, offsets, *_rest) = drive(app, script)
    assert from_browser == ("story", str(first))
    assert not still_modal  # s closed the message window
    assert roles == ROLES and offsets == OFFSETS


def test_s_on_the_msgid_screen_tells_the_story_of_the_id(store):
    app = create_app(store, background_scan=False, screen="ids")

    async def script(pilot):
        await then_s(pilot, lambda: app.resolve(UNIQ_KEY))
        return app.views["story"].story.ref, story_rows(app)

    ref, (roles, offsets, *_rest) = drive(app, script)
    assert ref == UNIQ_KEY
    # by UNIQ_KEY the story starts at the message that has it: the same eight records
    assert roles == ROLES and offsets == OFFSETS


def test_the_command_palette_prompt_takes_a_topic_and_a_key(store):
    app = create_app(store, background_scan=False)

    async def script(pilot):
        await settle(pilot)
        app.action_story_prompt()
        await settle(pilot)
        prompted = isinstance(app.screen, PromptScreen)
        await pilot.press(*"PaymentEvents pay-880571", "enter")
        await settle(pilot)
        commands = [c.title for c in app.get_system_commands(app.screen)]
        return prompted, app.current_mode, app.views["story"].story.ref, story_rows(app)[1], commands

    prompted, mode, ref, offsets, commands = drive(app, script)
    assert prompted and mode == "story"
    assert ref == "PaymentEvents pay-880571"
    assert offsets == OFFSETS  # the first message under PaymentEvents#pay-880571 is the original
    assert "Story: of a message" in commands and "Go to Story of a message" in commands


def test_enter_opens_a_record_and_x_shows_its_bytes(store):
    app = create_app(store, background_scan=False, screen="story")

    async def script(pilot):
        await settle(pilot)
        app.show_story(str(DEAD_LETTER))
        await settle(pilot)
        table = app.views["story"].query_one("#story-records", DataTable)
        table.move_cursor(row=2)
        await pilot.press("enter")
        await settle(pilot)
        opened = app.screen.phy_offset if isinstance(app.screen, MessageScreen) else None
        windows = sum(isinstance(s, MessageScreen) for s in app.screen_stack)
        await pilot.press("escape")
        await settle(pilot)
        detail = static_text(app.views["story"].query_one("#story-detail", Static))
        await pilot.press("x")
        await settle(pilot)
        return opened, windows, detail, app.current_mode, app.views["hex"].hex_view.cursor

    opened, windows, detail, mode, cursor = drive(app, script)
    assert opened == OFFSETS[2] and windows == 1  # enter opens one window (the table's, not also the screen's)
    assert detail.startswith("retry: the sent-back copy delivered into %RETRY%group")
    assert "found by index (index/" in detail
    assert "reconsume times 1" in detail and "ORIGIN_MESSAGE_ID 0A14000500002A9F0000000000015004" in detail
    assert (mode, cursor) == ("hex", OFFSETS[2])


def test_an_unknown_ref_is_a_red_line_not_a_crash(store):
    app = create_app(store, background_scan=False, screen="story")

    async def script(pilot):
        await settle(pilot)
        app.show_story("7F00000100002A9F00000000FFFFFFFF")
        await settle(pilot)
        screen = app.views["story"]
        return screen.story, static_text(screen.query_one("#story-summary", Static)), app.is_running

    story, summary, running = drive(app, script)
    assert story is None and running
    assert summary.strip() == "no message with id 7F00000100002A9F00000000FFFFFFFF in this store"


def test_store_text_on_the_story_is_escaped(tmp_path):
    root = tmp_path / "store"
    made = write_hostile_store(root)

    async def main():
        with Store(root) as store:
            app = create_app(store, screen="story")
            async with app.run_test(size=SIZE, notifications=True) as pilot:
                await settle(pilot)
                app.show_story(str(made["evil"].physical_offset))
                await settle(pilot)
                evil = painted(app)
                app.show_story(str(made["folder"].physical_offset))
                await settle(pilot)
                return evil, painted(app), app.control_net.hits

    evil, folder, hits = asyncio.run(main())
    assert "g\\x1b[2J[bold]G" in evil  # the group with an offset on Evil queue 0, markup shown as text
    assert TOPIC_DIR.replace("\x1b", "\\x1b").replace("\x07", "\\x07") in folder
    assert hits == 0


def test_the_help_names_the_story():
    text = help_text().plain
    assert "story of a message" in text and "rmq-inspect story" in text


def test_story_screen_snapshot(snap_compare, store):
    async def run_before(pilot):
        await settle(pilot)
        pilot.app.show_story(str(DEAD_LETTER))
        await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(create_app(store, background_scan=False, screen="story"), terminal_size=SIZE,
                        run_before=run_before)



def test_trace_records_and_a_group_behind_on_the_scenario_store(tmp_path):
    """tests/story_store.py's R: its trace records (Pub, SubBefore + SubAfter of G) are rows with their decoded
    fields in the panel; H has not consumed it (offset 0), G's SubAfter says it failed after 12 ms."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[2]))
    from story_store import R, write_story_store

    at = write_story_store(tmp_path / "store")
    with Store(tmp_path / "store") as store:
        app = create_app(store, background_scan=False, screen="story")

        async def script(pilot):
            await settle(pilot)
            app.show_story(R)
            await settle(pilot)
            screen = app.views["story"]
            table = screen.query_one("#story-records", DataTable)
            table.move_cursor(row=1)
            await settle(pilot)
            return story_rows(app), static_text(screen.query_one("#story-detail", Static))

        (roles, offsets, groups, _summary, _notes), detail = drive(app, script)
    assert roles == ["original", "trace", "trace", "trace", "retry-scheduled", "retry", "retry-scheduled", "retry",
                     "dead-letter"]
    assert offsets[:2] == [at["original"], at["pub"]] and offsets[-1] == at["dlq"]
    assert ("G", "TopicTest", "0", "0", "5", "yes", "", "12", "NO") in groups
    assert ("H", "TopicTest", "0", "0", "0", "no", "", "", "") in groups
    assert detail.startswith("trace: a trace record mentioning the message")
    assert "type=Pub" in detail and f"offset_msg_id={at['msg_id']}" in detail


def test_escape_stops_the_engine_s_telling_not_just_the_wait(store):
    """``escape`` while a story is read sets the telling's stop (the budget ``story_of`` checks between its
    steps and scan batches): the engine's call, held mid-way here (the store's lock, taken by the test while the
    worker reads the consumer offsets), stops at its next step once let go, and the summary says where; a newer
    REF stops an older telling too."""
    app = create_app(store, background_scan=False, screen="story")

    async def script(pilot):
        await settle(pilot)
        screen = app.views["story"]
        app.show_story(str(DEAD_LETTER))
        first = screen.stop_telling
        with store._lock:  # the worker's story_of waits here, after finding the REF, before telling the story
            app.show_story(str(ORIGINAL))  # a newer REF: the first telling is told to stop
            second = screen.stop_telling
            await asyncio.sleep(0.2)
            await pilot.press("escape")
            asked_to_stop = second.is_set()
        await app.workers.wait_for_complete()
        for _ in range(50):  # the cut answer's message, posted by the worker thread
            await pilot.pause(0.05)
            summary = static_text(screen.query_one("#story-summary", Static))
            if ":" in summary:
                break
        return first.is_set(), asked_to_stop, summary, screen.story

    first, asked_to_stop, summary, story = drive(app, script)
    assert first and asked_to_stop
    assert summary.startswith(f"stopped reading the story of {ORIGINAL}: stopped on request after reading the "
                              "REF's record")
    assert story is None  # the cut answer is not shown as the story
