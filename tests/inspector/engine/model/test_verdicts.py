"""One verdict per fact (issue 29 item 3): every finding code the engine can give has one severity, the table's
(``model/verdicts.py``), found by walking the engine's source: every place a ``Problem`` is made, and the severity
it passes. What the commands say of the same findings: tests/inspector/cli/test_verdicts_cli.py."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from inspector.engine.model.records import Problem
from inspector.engine.model.verdicts import BY_CONTEXT, SEVERITIES, VERDICTS

ENGINE = Path(__file__).resolve().parents[4] / "inspector" / "engine"
CODE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# codes made where the AST walk sees a variable: parsers' RecordError codes and DLedger header faults (careful.py),
# the DLedger index/term walk (verify/dledger.py), the bounded walk's note, the timer folder's non-files
INDIRECT = {"bad-magic", "bad-size", "bad-body-length", "bad-properties-length", "bad-topic-length",
            "length-mismatch", "torn-record", "dledger-body-length", "dledger-magic", "dledger-pos", "dledger-size",
            "dledger-torn-entry", "dledger-index", "dledger-term", "tail-not-checked", "not-a-timer-file",
            "cq-missing", "cq-behind", "timercheck-queue-offset"}


def _strings(node: ast.AST | None) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        a, b = _strings(node.body), _strings(node.orelse)
        return None if a is None or b is None else a + b
    return None


def _made() -> dict[str, set[tuple[str, str | None]]]:
    """code -> {(where, the severity passed: None when none is)} for every Problem the engine's source makes."""
    made: dict[str, set[tuple[str, str | None]]] = defaultdict(set)
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            args, kw = node.args, {k.arg: k.value for k in node.keywords}
            if name == "Problem":
                shift = 1 if args and isinstance(args[0], ast.Starred) else 0  # Problem(*where, reason, code)
                code = args[3 - shift] if len(args) > 3 - shift else kw.get("code")
                severity = args[4 - shift] if len(args) > 4 - shift else kw.get("severity")
            elif name == "_problem" and len(args) == 4:  # verify/coverage.py's Problem at a record's place
                code, severity = args[2], args[3]
            elif name == "in_progress" and len(args) == 4:  # commitlog/tail.py: the torn tail's warning
                code, severity = args[3], ast.Constant("warning")
            elif name == "problem" and len(args) == 3:  # store/retention.py's expired count: an info
                code, severity = args[1], ast.Constant("info")
            elif name == "before" and len(args) == 4:  # ExpiredRange.before(problems, what, code, why): the same
                code, severity = args[2], ast.Constant("info")
            else:
                continue
            codes, severities = _strings(code), _strings(severity) if severity is not None else [None]
            for c in codes or []:
                for s in severities or ["?"]:
                    made[c].add((f"{path.relative_to(ENGINE)}:{node.lineno}", s))
    return made


def test_the_table_is_whole() -> None:
    assert not set(VERDICTS) & set(BY_CONTEXT)
    assert all(v.severity in SEVERITIES and v.source for v in VERDICTS.values())
    assert all(CODE.match(c) for c in [*VERDICTS, *BY_CONTEXT])


def test_every_code_the_engine_makes_is_in_the_table_and_every_entry_is_made() -> None:
    made = set(_made())
    assert made - set(VERDICTS) - set(BY_CONTEXT) == set()  # a new code needs its verdict (or its context)
    assert set(VERDICTS) | set(BY_CONTEXT) == made | INDIRECT  # no verdict for a code nothing makes


def test_no_producer_passes_another_severity_than_the_table() -> None:
    """The table wins (Problem.__post_init__), but a producer saying otherwise would read as a second verdict."""
    disagree = sorted((where, code, severity) for code, sites in _made().items() if code in VERDICTS
                      for where, severity in sites if severity is not None and severity != VERDICTS[code].severity)
    assert disagree == []


def test_a_problem_takes_the_tables_severity() -> None:
    assert Problem("commitlog/x", 0, "r", "empty-segment", "warning").severity == "error"
    assert Problem("x", 0, "r", "unknown-file").severity == "warning"
    assert Problem("x", 0, "r", "cq-expired", "error").severity == "info"
    assert Problem("x", 0, "r", "cq-behind", "warning").severity == "warning"  # BY_CONTEXT: the producer's
