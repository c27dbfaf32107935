"""Exercises: questions about the store (``inspector.engine.workshop.exercises``), an answer field, and the verdict.

Pick a question in the list, type an answer and press enter: the engine checks it and explains the right answer.
``s`` asks for another seed (another variant of every question). Nothing is written anywhere. A question quotes
the store (topics, keys): every string is escaped (``fmt.esc``) and shown as a Text.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Header, OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from inspector.tui.copyout import Command
from inspector.tui.fmt import esc, plain, with_keys
from inspector.tui.screens.base import ViewScreen
from inspector.tui.widgets.forminput import FormInput
from inspector.tui.widgets.navbar import NavBar
from inspector.tui.widgets.safe import SafeStatic

COUNT = 12


@dataclass
class ExercisesReady(Message):
    seed: int
    exercises: list
    error: str | None = None


class ExercisesScreen(ViewScreen):
    BINDINGS = [
        Binding("a", "answer", "Answer"),
        Binding("s", "seed", "Seed"),
        Binding("h", "hint", "Hint", show=False),  # named in the head line (the footer keeps ? Help at 80 columns)
        Binding("question_mark", "app.help", "Help"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.seed = 0
        self.exercises: list = []
        self.results: dict[str, object] = {}  # exercise id -> CheckResult
        self.index = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield NavBar("exercises")
        yield SafeStatic("", id="ex-head")
        with Horizontal(id="ex-main"):
            yield OptionList(id="ex-list")
            with Vertical(id="ex-side"):
                with VerticalScroll(id="ex-question-box"):
                    yield SafeStatic(Text("generating exercises…", style="dim"), id="ex-question")
                yield FormInput(placeholder="your answer, then enter", id="ex-answer")
                with VerticalScroll(id="ex-result-box"):
                    yield SafeStatic("", id="ex-result")
        yield Footer()

    def command(self) -> Command:
        return Command("exercises", ("--seed", str(self.seed), "--count", str(COUNT)))

    def on_mount(self) -> None:
        self.focus_main()
        self._generate(self.seed)

    def focus_main(self) -> None:
        self.query_one("#ex-list", OptionList).focus()

    @work(thread=True, exclusive=True, group="exercises", exit_on_error=False)
    def _generate(self, seed: int) -> None:
        from inspector.engine import generate

        worker = get_current_worker()
        try:
            found = generate(self.app.store, seed, COUNT)
        except Exception as e:  # noqa: BLE001 - report, keep the UI alive
            self.post_message(ExercisesReady(seed, [], f"{type(e).__name__}: {e}"))
            return
        if not worker.is_cancelled:
            self.post_message(ExercisesReady(seed, found))

    def on_exercises_ready(self, message: ExercisesReady) -> None:
        message.stop()
        self.seed = message.seed
        self.exercises = message.exercises
        self.results = {}
        self._refresh_list()
        if message.error or not self.exercises:
            self.query_one("#ex-question", SafeStatic).update(
                plain(message.error or "this store has no case for any exercise", "bold red"))
        else:
            self.select(0)
        self.ready()

    # -- public API ----------------------------------------------------------------------------------------------

    @property
    def exercise(self):
        return self.exercises[self.index] if self.exercises else None

    def select(self, index: int) -> None:
        if self.later(lambda: self.select(index)):
            return
        if not 0 <= index < len(self.exercises):
            return
        self.index = index
        e = self.exercises[index]
        t = Text()
        t.append(f"{e.number}/{len(self.exercises)}  ", style="bold")
        t.append(esc(e.question, multiline=True))
        if e.format_hint:
            t.append(f"\nanswer as: {esc(e.format_hint)}", style="dim")
        self.query_one("#ex-question", SafeStatic).update(t)
        answer = self.query_one("#ex-answer", FormInput)
        result = self.results.get(e.id)
        answer.value = result.given if result is not None else ""
        self._show_result(result)
        options = self.query_one("#ex-list", OptionList)
        if options.highlighted != index:
            options.highlighted = index

    def answer(self, text: str) -> None:
        """Check ``text`` as the answer to the selected exercise and show the verdict."""
        if self.later(lambda: self.answer(text)):
            return
        e = self.exercise
        if e is None:
            return
        result = e.check(text)
        self.results[e.id] = result
        self._show_result(result)
        self._refresh_list()
        self._update_head()

    def use_seed(self, seed: int) -> None:
        self.query_one("#ex-question", SafeStatic).update(Text(f"generating exercises for seed {seed}…", style="dim"))
        self._generate(seed)

    # -- actions -------------------------------------------------------------------------------------------------

    def action_answer(self) -> None:
        self.query_one("#ex-answer", FormInput).focus()

    def action_seed(self) -> None:
        def use(text: str) -> None:
            if not text.strip().isdigit():
                self.notify(f"a seed is a number, not {text!r}", severity="error")
                return
            self.use_seed(int(text))

        self.app.ask("Another set of exercises: seed", str(self.seed + 1), use)

    @on(FormInput.Submitted, "#ex-answer")
    def _submitted(self, event: FormInput.Submitted) -> None:
        event.stop()
        self.answer(event.value)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index != self.index:
            self.select(event.option_index)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.select(event.option_index)
        self.action_answer()

    # -- drawing -------------------------------------------------------------------------------------------------

    def _update_head(self) -> None:
        score = sum(r.correct for r in self.results.values())
        t = Text()
        t.append(f"Exercises on this store, seed {self.seed}", style="bold")
        t.append(f"   answered {len(self.results)}/{len(self.exercises)}, right {score}", style="cyan")
        # the keys on a line of their own where they would be cut (80 columns ended at 'h:')
        self.query_one("#ex-head", SafeStatic).update(
            with_keys(t, "enter: answer · h: hint · s: another seed", self.app.size.width - 2))

    def on_resize(self) -> None:
        if self.exercises:
            self._update_head()

    def _refresh_list(self) -> None:
        options = self.query_one("#ex-list", OptionList)
        keep = self.index
        options.clear_options()
        options.add_options([_option(e, self.results.get(e.id)) for e in self.exercises])
        if self.exercises:
            options.highlighted = min(keep, len(self.exercises) - 1)
        self._update_head()

    def action_hint(self) -> None:
        """Where to look for the selected exercise's answer: the command that shows what it is read from."""
        e = self.exercise
        if e is None:
            return
        t = Text()
        t.append("Hint: ", style="bold")
        t.append("where to look: ")
        t.append(esc(e.command or "the overview and the hex view"), style="cyan")
        if e.format_hint:
            t.append(f"\nanswer as: {esc(e.format_hint)}", style="dim")
        self.query_one("#ex-result", SafeStatic).update(t)

    def _show_result(self, result) -> None:
        t = Text()
        if result is not None:
            t.append("✔ correct\n" if result.correct else "✘ incorrect\n",
                     style="bold green" if result.correct else "bold red")
            t.append(esc(result.explanation, multiline=True))
        self.query_one("#ex-result", SafeStatic).update(t)


def _option(e, result) -> Option:
    t = Text(no_wrap=True, overflow="ellipsis")
    mark = " " if result is None else ("✔" if result.correct else "✘")
    t.append(f"{mark} ", style="green" if result is not None and result.correct else "red")
    t.append(f"{e.number:>2} {esc(e.kind)}")
    return Option(t, id=f"ex-{e.id}")
