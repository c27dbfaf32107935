"""The guided tour and the exercises in the terminal UI, driven with the pilot on ``sample_store/``."""

from __future__ import annotations

from textual.widgets import OptionList
from tui_helpers import SIZE, drive, screen_text, settle, static_text

from inspector.engine.workshop.exercises import generate
from inspector.engine.workshop.tour_steps import tour_steps
from inspector.tui.app import create_app
from inspector.tui.screens.dialogs import PromptScreen
from inspector.tui.screens.workshop.tour import TourHexView, cursor_offset
from inspector.tui.widgets.forminput import FormInput
from inspector.tui.widgets.hexview import HexView


def test_the_whole_tour_step_by_step_shows_each_target_at_its_place(store):
    steps = tour_steps(store)
    app = create_app(store, screen="tour")

    async def script(pilot):
        seen = []
        await pilot.press("7")
        await settle(pilot)
        for n, step in enumerate(steps):
            screen = app.screen
            got = {"number": screen.step.number, "head": static_text(screen.query_one("#tour-head")),
                   "text": static_text(screen.query_one("#tour-text"), width=2000)}
            target = step.target
            kind = target.kind if target is not None else None
            if kind in ("hex", "recovery"):
                hex_view = screen.query_one(TourHexView)
                info = hex_view.cursor_info()
                got["hex"] = (hex_view.display, hex_view.cursor, info.field.name if info.field else None,
                              hex_view.spans)
            else:
                got["panel"] = static_text(screen.query_one("#tour-panel"), width=300)
            if kind == "chain":  # o opens the chain walker on the step's key; 7 comes back
                await pilot.press("o")
                await settle(pilot)
                walker = app.screen
                got["chain"] = (app.current_mode, walker.query_one("#c-topic", FormInput).value,
                                walker.query_one("#c-key", FormInput).value,
                                static_text(walker.query_one("#chain-summary"), width=300))
                await pilot.press("7")
                await settle(pilot)
            seen.append(got)
            if n < len(steps) - 1:
                await pilot.press("n")
                await settle(pilot)
        return seen

    seen = drive(app, script)
    assert len(seen) == len(steps) == 14
    for step, got in zip(steps, seen, strict=True):
        assert got["number"] == step.number
        assert f"Step {step.number}/{len(steps)}" in got["head"] and step.title in got["head"]
        target = step.target
        if not step.available:
            assert "lacks this case" in got["text"]
            continue
        assert step.text.split(".")[0] in got["text"].replace("\n", " ")
        if target.kind in ("hex", "recovery"):
            display, cursor, field, spans = got["hex"]
            assert display
            assert cursor == cursor_offset(target)
            assert spans == tuple(target.highlights)
            if getattr(target, "focus", None):
                assert field == target.focus, step.id
            else:
                assert cursor == target.start
        elif target.kind == "chain":
            assert target.key_string in got["panel"]
            mode, topic, key, summary = got["chain"]
            assert (mode, topic, key) == ("chain", target.topic, target.key)
            assert f"{target.topic}#{target.key}" in summary
            if step.id == "collision":
                assert "✘ collision" in got["panel"] and target.other_key in got["panel"]
                assert "collision" in summary
        elif target.kind == "cq":
            assert target.unit_hex[0:16] in got["panel"] and f"{target.physical_offset:,}" in got["panel"]
        elif target.kind == "directory":
            assert all(e.path in got["panel"] for e in target.entries)
        elif target.kind == "index-header":
            assert all(name in got["panel"] for name in target.fields)
        elif target.kind == "ids":
            assert target.msg_id in got["panel"] and target.unique_key in got["panel"]
        elif target.kind == "rebuild":
            assert target.command in got["panel"]


def test_tour_previous_jump_list_and_open_hex(store):
    steps = tour_steps(store)
    transaction = next(s for s in steps if s.id == "transaction")
    app = create_app(store, screen="tour")

    async def script(pilot):
        await settle(pilot)
        screen = app.screen
        await pilot.press("p")  # already on the first step: stays
        first = screen.step.number
        await pilot.press("j")
        await pilot.pause()
        prompt = isinstance(app.screen, PromptScreen)
        await pilot.press(*str(transaction.number), "enter")
        await settle(pilot)
        jumped = screen.step.id
        await pilot.press("p")
        await settle(pilot)
        back = screen.step.number
        options = screen.query_one("#tour-steps", OptionList)
        options.focus()
        options.highlighted = 0
        await pilot.press("enter")
        await settle(pilot)
        listed = screen.step.number
        screen.goto_step(transaction.number)
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        hex_view = app.screen.query_one(HexView)
        info = hex_view.cursor_info()
        return first, prompt, jumped, back, listed, app.current_mode, hex_view.cursor, info.field.name

    first, prompt, jumped, back, listed, mode, cursor, field = drive(app, script)
    assert first == 1 and prompt
    assert jumped == "transaction" and back == transaction.number - 1 and listed == 1
    assert mode == "hex" and cursor == cursor_offset(transaction.target) and field == transaction.target.focus


def test_tour_extra_views_cycle_with_v(store):
    steps = tour_steps(store)
    step = next(s for s in steps if s.available and s.extra and s.target.kind == "cq")
    app = create_app(store, screen="tour")

    async def script(pilot):
        await settle(pilot)
        app.screen.goto_step(step.number)
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        hex_view = app.screen.query_one(TourHexView)
        return hex_view.display, hex_view.cursor

    display, cursor = drive(app, script)
    assert display and cursor == cursor_offset(step.extra[0])


def test_exercises_right_and_wrong_answers(store):
    exercises = generate(store, 0, 12)
    app = create_app(store, screen="exercises")

    async def script(pilot):
        await pilot.press("8")
        await settle(pilot)
        screen = app.screen
        question = static_text(screen.query_one("#ex-question"), width=400)
        await pilot.press("a")
        await pilot.press(*exercises[0].answer, "enter")
        await pilot.pause()
        right = static_text(screen.query_one("#ex-result"), width=400)
        await pilot.press("escape")
        screen.select(1)
        await pilot.pause()
        await pilot.press("a")
        await pilot.press(*"12345", "enter")
        await pilot.pause()
        wrong = static_text(screen.query_one("#ex-result"), width=400)
        head = static_text(screen.query_one("#ex-head"), width=400)
        listed = screen_text(app)
        return question, right, wrong, head, listed

    question, right, wrong, head, listed = drive(app, script)
    assert exercises[0].question[:60] in question.replace("\n", " ")
    assert "✔ correct" in right and exercises[0].check(exercises[0].answer).explanation[:40] in right.replace("\n", " ")
    assert "✘ incorrect" in wrong and f"the answer is {exercises[1].answer}" in wrong.replace("\n", " ")
    assert "answered 2/12, right 1" in head
    assert "✔  1" in listed and "✘  2" in listed


def test_exercises_another_seed(store):
    other = generate(store, 3, 12)
    app = create_app(store, screen="exercises", background_scan=False)

    async def script(pilot):
        await settle(pilot)
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("ctrl+a", "ctrl+k")  # the prompt is empty; clear it anyway
        await pilot.press("3", "enter")
        await settle(pilot)
        screen = app.screen
        return screen.seed, [e.id for e in screen.exercises], static_text(screen.query_one("#ex-question"), width=400)

    seed, ids, question = drive(app, script, size=SIZE)
    assert seed == 3 and ids == [e.id for e in other]
    assert other[0].question[:40] in question.replace("\n", " ")


def test_tour_snapshot_segment_end(snap_compare, store):
    """The tour on its BLANK step: the text above, the hex view with the MAGICCODE under the cursor."""
    step = next(s for s in tour_steps(store) if s.id == "segment-end")

    async def run_before(pilot):
        await settle(pilot)
        pilot.app.switch_mode("tour")
        await settle(pilot)
        pilot.app.screen.goto_step(step.number)
        await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(create_app(store), terminal_size=SIZE, run_before=run_before)


def test_exercises_hint_says_where_to_look(store):
    exercises = generate(store, 0, 12)
    app = create_app(store, screen="exercises")

    async def script(pilot):
        await pilot.press("8")
        await settle(pilot)
        screen = app.screen
        screen.focus_main()
        screen.select(2)
        await pilot.press("h")
        await pilot.pause()
        return static_text(screen.query_one("#ex-result"), width=400), static_text(screen.query_one("#ex-head"), width=400)

    hint, head = drive(app, script)
    assert "Hint: where to look:" in hint and exercises[2].command in hint.replace("\n", " ")
    assert exercises[2].answer not in hint.replace(exercises[2].command, "")  # a place to look, not the answer
    assert "h: hint" in head
