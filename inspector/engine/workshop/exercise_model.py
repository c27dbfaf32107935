"""An exercise and its check: :class:`Exercise` (a question with its canonical answer, explanation and the
hints for known misreadings), :class:`CheckResult`, and their JSON-ready views.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from inspector.engine.workshop.exercise_answers import UNREADABLE, read_answer

INT_HINT = "a number (decimal, or hex with 0x)"


@dataclass(frozen=True)
class CheckResult:
    correct: bool
    explanation: str
    expected: str  # the canonical answer
    given: str


@dataclass(frozen=True)
class Exercise:
    """One question about the store. ``answer`` is the canonical answer text; ``check`` reads any answer.

    ``answer_type`` says how answers are read: "int", "duration" (ms), "host-offset" (ip, port, offset),
    "choice" (one of ``choices``) or "int-or-none". ``expected`` holds the normalised right answer;
    ``hints`` maps normalised wrong answers that show a known misreading to an explanation of it.
    """

    id: str
    number: int
    kind: str
    question: str
    answer: str
    explanation: str
    answer_type: str
    expected: tuple
    format_hint: str = ""
    hints: tuple[tuple[object, str], ...] = ()
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (canonical, accepted spellings) for "choice"
    command: str = ""  # an rmq-inspect command that finds the answer
    case_sensitive: bool = False  # choices are key strings: 'topictest#coll-bb' is another key (another hashCode)

    def check(self, answer_text: str) -> CheckResult:
        given = "" if answer_text is None else str(answer_text).strip()
        if not given:
            return CheckResult(False, f"No answer. The answer is {self.answer}. {self.explanation}", self.answer, given)
        value = read_answer(self, given)
        if value is UNREADABLE:
            return CheckResult(False, f"Could not read {given!r} as {self.format_hint or 'an answer'}. The answer is "
                                      f"{self.answer}. {self.explanation}", self.answer, given)
        if value == self.expected:
            return CheckResult(True, f"Right: {self.answer}. {self.explanation}", self.answer, given)
        hint = next((h for wrong, h in self.hints if wrong == value), "")
        return CheckResult(False, f"Not quite: the answer is {self.answer}. " + (f"{hint} " if hint else "")
                           + self.explanation, self.answer, given)


def exercise_view(ex: Exercise, *, with_answer: bool = False) -> dict:
    """JSON-ready data of an exercise; the answer and explanation only when asked (a browser must not see them)."""
    view = {"id": ex.id, "number": ex.number, "kind": ex.kind, "question": ex.question, "format_hint": ex.format_hint,
            "answer_type": ex.answer_type}
    if with_answer:
        view.update(answer=ex.answer, explanation=ex.explanation, command=ex.command)
    return view


def result_view(result: CheckResult) -> dict:
    return dataclasses.asdict(result)


def draft(**kw) -> Exercise:
    """An exercise without its id, number and kind: ``generate`` gives it those."""
    kw.setdefault("id", "")
    kw.setdefault("number", 0)
    kw.setdefault("kind", "")
    return Exercise(**kw)
