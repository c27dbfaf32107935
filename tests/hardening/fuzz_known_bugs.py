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


KNOWN_BUGS: list[KnownBug] = [
    # item 1: tracebacks
    KnownBug("config-number-over-4300-digits", "22.1 tracebacks: 5,000-digit integer in a config file",
             _is("traceback", subject=r"^config:", detail="Exceeds the limit")),
    KnownBug("config-number-over-4300-digits-unreported", "22.1 the JSON reader limits number length and says "
             "which file (a long number where the engine does not look is accepted silently)",
             _is("missing-finding", subject=r"^config:huge-number")),
    KnownBug("segment-name-above-2^63", "22.1 tracebacks: commitlog segment named above 2^63",
             _is("traceback", subject=r"^name:commitlog", detail="OverflowError")),
    KnownBug("argument-over-4300-digits", "22.1 tracebacks: an offset argument of over 4,300 digits",
             _is("traceback", subject=r"^args:", detail="Exceeds the limit")),
    # item 1: damage reported as "no problems"
    KnownBug("compressed-flag-on-plain-body", "22.1 no problems: sysFlag says compressed, body does not decompress",
             _is("missing-finding", subject=r"^record:SYSFLAG")),
    KnownBug("negative-cq-unit", "22.1 no problems: a consume-queue unit with a negative offset or size (or size 0)",
             _is("missing-finding", subject=r"^cq:(offset|size)#\d+=(-|0$)")),  # size 0 ends the walk the same way
    KnownBug("checkpoint-times-unchecked", "found by the fuzzer: a negative checkpoint time, or an index time "
             "far in the future, is no finding (only physic/logics times running ahead are)",
             _is("missing-finding", subject=r"^checkpoint:\w+Timestamp")),
    KnownBug("index-header-count-unchecked", "22.1 no problems: index header counts of -1 (also 0, or any "
             "count the slots and items disagree with: counts are not checked against the file's geometry)",
             _is("missing-finding", subject=r"^index-header:(hashSlotCount|indexCount)#")),
    KnownBug("index-header-range-unchecked", "found by the fuzzer (22.1's index header checks): begin/end "
             "timestamp and phy offset in the header are never compared with the items",
             _is("missing-finding", subject=r"^index-header:(begin|end)")),
    KnownBug("config-wrong-top-level", "22.1 no problems: a config file whose top level is [], null, a string",
             _is("missing-finding", subject=r"^config:top-level")),
    KnownBug("foreign-file-names-skipped", "22.1 files the engine does not know are skipped without a word",
             _is("missing-finding", subject=r"^name:")),
    # item 3: impossible arguments
    KnownBug("impossible-argument-accepted", "22.3 impossible arguments accepted (limit, length, geometry, "
             "negative offsets, non-ASCII digits, beyond 64 bits)", _is("exit", subject=r"^args:", detail="want 2")),
    KnownBug("argument-misparsed", "22.3 key --begin -1 fails as 'unrecognized arguments'",
             _is("exit", subject=r"^args:", detail="unrecognized arguments")),
    KnownBug("cli-and-web-disagree", "22.3 one vocabulary: the CLI and the web API answer the same value "
             "differently", _is("inconsistent", subject=r"^args:")),
    KnownBug("negative-geometry-traceback", "found by the fuzzer (22.3 geometry arguments): a negative "
             "--index-slots is a ValueError traceback from struct, not exit 2",
             _is("traceback", subject=r"^args:verify --index-(slots|items)", detail="ValueError")),
    KnownBug("negative-geometry-segfault", "found by the fuzzer (22.3 geometry arguments): verify "
             "--index-slots -1000000000 kills the interpreter (SIGSEGV in scan/verify_kernels.index_match)",
             _is("crash", subject=r"^args:verify --index-(slots|items)")),
    KnownBug("unbounded-count", "found by the fuzzer (22.3 one vocabulary for counts): exercises --count 30000 "
             "runs for minutes; no upper bound", _is("hang", subject=r"^args:exercises --count")),
    # item 2: the Host header
    KnownBug("foreign-host-header-served", "22.2 a foreign Host header is answered on loopback",
             _is("exit", subject=r"^host:", detail="foreign Host")),
]

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
