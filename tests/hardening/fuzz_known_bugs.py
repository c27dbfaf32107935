"""The failure classes the issue-22 fuzzers met on the code before the fixes, each with its issue item.

The fuzz tests pass every broken promise (a :class:`fuzz_support.Symptom`) of an example to :func:`triage`:
a symptom matching a class here is counted in :data:`MET` and let through, so the suite stays green on a
branch where the bug is still open; anything else fails the example. When a fix merges, delete its entry:
the fuzzer then holds the fix, and the minimal example kept for it (``REGRESSIONS`` in test_fuzz_mutations.py
and test_fuzz_arguments.py, replayed first in every run) must pass.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from fuzz_support import Symptom


@dataclass(frozen=True)
class KnownBug:
    name: str
    item: str  # where issue 22 names it
    matches: Callable[[str, Symptom], bool]  # (what was fuzzed, symptom)


def _is(check: str, *, subject: str = "", detail: str = "") -> Callable[[str, Symptom], bool]:
    return lambda what, s: (s.check == check and re.search(subject, what) is not None
                            and re.search(detail, s.detail) is not None)


def _any(*checks: str, subject: str = "", detail: str = "") -> Callable[[str, Symptom], bool]:
    """Like :func:`_is`, for one class seen as several checks (a MemoryError is a "traceback" and a "memory")."""
    return lambda what, s: any(_is(c, subject=subject, detail=detail)(what, s) for c in checks)


# Empty: every class issue 22 and issue 35 (item 7: test_fuzz_third_round.py) named is closed, its minimal examples
# replayed (REGRESSIONS, test_fuzz_third_round.CASES). A class found while its fix is still open goes here, e.g.
# KnownBug("name", "where", _is("missing-finding", subject=r"^cq:")).
KNOWN_BUGS: list[KnownBug] = []

MET: Counter[str] = Counter()  # known class -> examples that met it (printed by the fuzz tests' summary)


def triage(what: str, symptoms: list[Symptom]) -> list[Symptom]:
    """The symptoms no known class explains (the caller asserts there are none)."""
    unknown = []
    for s in symptoms:
        bug = next((b for b in KNOWN_BUGS if b.matches(what, s)), None)
        if bug is None:
            unknown.append(s)
        else:
            MET[bug.name] += 1
    return unknown
