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


# Every class issue 22 named is closed (its minimal examples replayed as REGRESSIONS). The classes below are the
# third round's (issue 35, item 7: test_fuzz_third_round.py), met on this branch while their fixes are open on
# others: delete an entry when its fix merges (its case in test_fuzz_third_round.CASES or REGRESSIONS must pass).
KNOWN_BUGS: list[KnownBug] = [
    # 35: guarded file opens. --broker-config is read whole with read_bytes(): /dev/zero is a MemoryError, a FIFO
    # or /dev/urandom blocks or reads forever, a 50 MB line takes the step's whole time
    KnownBug("broker-config-unguarded-read", "35.7 (--broker-config /dev/zero, /dev/urandom, FIFO, 50 MB line)",
             _any("traceback", "memory", "hang", subject=r"^case:broker-config-(dev-zero|dev-urandom|fifo|50MB-line)$",
                  detail=r"MemoryError|peak RSS|still running after .* --broker-config")),
    # 35: write's input. /dev/zero read as one line (MemoryError), a line nested 100,000 deep (RecursionError
    # from json.loads), a number of more than 4,300 digits (ValueError from int()), a byte no UTF-8 holds
    # (UnicodeDecodeError)
    KnownBug("write-input-unguarded", "35.7 (write NEW /dev/zero; JSON Lines nested 100,000 deep, 50,000 digits)",
             _any("traceback", "memory", subject=r"^(case:write-|write:)",
                  detail=r"rmq-inspect write .*(MemoryError|RecursionError|Exceeds the limit \(4300 digits\)|UnicodeDecodeError)"
                         r"|^write .*peak RSS")),
    # 35: arithmetic guards. A DLedger data file renamed to an unaligned name: AttributeError in verify
    KnownBug("dledger-unaligned-name", "35.7 (DLedger data file ...131072 renamed ...131000)",
             _any("traceback", "missing-finding", subject=r"^case:dledger-unaligned-name$",
                  detail=r"'NoneType' object has no attribute 'file'|verify exit None")),
    # 35: arithmetic guards. A batch unit's msgBaseOffset of 2^63-1 (not the queue's first): OverflowError in verify
    KnownBug("batch-msgbaseoffset-overflow", "35.7 (a batch unit whose msgBaseOffset is 2^63-1)",
             _any("traceback", "missing-finding", subject=r"^(case:batch-msgBaseOffset-max$|batch/batch-cq:msgBaseOffset#)",
                  detail=r"OverflowError|verify exit None")),
    # 35: arithmetic guards (empty files of every kind). A timerlog/ holding only empty files (every file of the
    # timer store emptied, or 2,000 empty ones in a store without a timer log): the timer-log file size is taken as
    # 0 (ZeroDivisionError in info, verify, every timer view and the web pages)
    KnownBug("timerlog-only-empty-files", "35.7 (a timer store whose timerlog/ file is empty)",
             _is("traceback", subject=r"^(\w+/many:timerlog#|case:timer-every-timerlog-empty$)",
                 detail=r"ZeroDivisionError|^GET /(timer|api/timer)?: 500$")),
    # 35: zero-tail and many-file performance. Every segment sparse-extended to 1 TiB: verify walks the holes;
    # 2,000 empty segment files: census and info take tens of seconds
    KnownBug("giant-sparse-segments-slow", "35.7 (every segment sparse-extended to 1 TiB)",
             _is("hang", subject=r"^(case:every-segment-1TiB-sparse$|\w+/giant:)", detail=r"still running after")),
    KnownBug("many-files-slow", "35.7 (20,000 empty files named as segments; 2,000 in CI)",
             _is("hang", subject=r"^(case:2000-empty-segments$|\w+/many:)", detail=r"still running after")),
    # 35: messages --follow --idle-timeout nan|inf|1e308 is taken as "wait for ever" on a store nobody writes
    KnownBug("follow-idle-timeout-unbounded", "35.7 (messages --follow --idle-timeout nan|inf|1e308)",
             _is("hang", subject=r"^case:follow-idle-timeout-(nan|inf|1e308)$", detail=r"--idle-timeout")),
    # 35: load checks. show at the log end offset is exit 3 ("no message here"), not 1 (not found)
    KnownBug("show-log-end-exit-3", "35.7 (show STORE <log end offset> must exit 1)",
             _is("exit", subject=r"^case:show-log-end-offset$", detail=r"exit 3, want 1")),
    # 35: load checks. Damage verify or census do not name
    KnownBug("cq-wrong-length-census", "35.7 (a consume-queue file of 16,007 bytes: census exit 0)",
             _is("missing-finding", subject=r"^case:cq-wrong-length$", detail=r"^census of a 16,007-byte")),
    KnownBug("lmq-queue-gone-silent", "35.7 (a %LMQ% queue folder deleted, or its last unit zeroed: verify exit 0)",
             _is("missing-finding", subject=r"^case:lmq-(folder-deleted|last-unit-zeroed)$", detail=r"verify exit 0")),
    KnownBug("plain-topic-marked-batchcq", "35.7 (a plain topic marked queue.type BatchCQ in topics.json)",
             _is("missing-finding", subject=r"^case:plain-topic-marked-batchcq$", detail=r"verify exit 0")),
    # 35: caps. The wheel reader lists the first 1,000 misplaced slots and says nothing of the rest
    KnownBug("misplaced-slots-silent-cap", "35.7 (a timer wheel with all slots misplaced)",
             _is("missing-finding", subject=r"^case:timer-wheel-all-misplaced$", detail=r"lists 1000 of")),
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
