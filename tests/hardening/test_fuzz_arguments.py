"""Fuzzing every command's integer arguments, on the CLI and through the web API's test client (issue 22, item 4).

For each example (an argument of argument_values.ARGUMENTS and a value drawn as text): ``rmq-inspect`` runs
in-process on a copy of ``sample_store/``; nothing may escape ``main()``, no output may hold a traceback, the
exit code is from the documented table, a value that cannot be one of that argument's (out of range, beyond 64
bits, non-ASCII digits, no integer) is exit 2 and not misread as something else ("unrecognized arguments"),
and the store is unchanged byte for byte. The same value goes to the web API where the argument has one:
200/400/404 (never 500), and 400 exactly when the CLI says bad input (one vocabulary). A foreign Host header
on the loopback viewer must be refused. A few minimal examples also run as ``python -m inspector.cli.main``.

Known classes (fuzz_known_bugs.py) are let through and counted; anything else fails. CI: a small deterministic
set; a long run (``RMQ_FUZZ_EXAMPLES=N``: half of N here): README, Testing.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from argument_values import ARGUMENTS, VALUES, Argument, argv_for, impossible, ungrouped
from fuzz_known_bugs import triage
from fuzz_support import (
    HTTP_OK,
    STARVED_WALL_FACTOR,
    CliRun,
    Symptom,
    _cpu_seconds,
    changed,
    fingerprint,
    run_cli,
)
from hypothesis import example, given
from hypothesis import strategies as st
from test_fuzz_store import LONG_RUN, SAMPLE, fuzz_settings, watchdog

from inspector.engine import Store
from web.app import create_app
from web.params import MAX_TEXT

pytestmark = [pytest.mark.timeout(0 if LONG_RUN else 600),  # 0: a long run is bounded by its caller
              pytest.mark.usefixtures("compiled_kernels")]
REPO = Path(__file__).resolve().parents[2]
ARGUMENT_SECONDS = 3.0  # one command on the sample store takes ~0.05 s; a run past this is a hang (a symptom)
# may run for minutes (exercises) or crash the interpreter (verify --index-slots -1000000000: SIGSEGV in a numba
# kernel): a process of their own each
RUN_AS_PROCESS = {"exercises --count", "verify --index-slots", "verify --index-items"}


def run_process(argv: list[str], timeout: float) -> CliRun:
    """``python -m inspector.cli.main argv`` with this checkout first on the path. TimeoutExpired when it used
    ``timeout`` seconds of CPU, or ran STARVED_WALL_FACTOR times that long without using them (a hang); a process
    starved by a busy machine (the long run shares its cores) is waited for, as run_isolated does."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with subprocess.Popen([sys.executable, "-m", "inspector.cli.main", *argv], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=REPO) as p:
        began = time.monotonic()
        while True:
            try:
                out, err = p.communicate(timeout=timeout)
                break
            except subprocess.TimeoutExpired:
                cpu, waited = _cpu_seconds(p.pid), time.monotonic() - began
                if cpu is not None and cpu < timeout and waited < timeout * STARVED_WALL_FACTOR:
                    continue  # starved, not stuck: wait again
                p.kill()
                p.communicate()
                raise
    return CliRun(tuple(argv), p.returncode if "Traceback" not in err else None, out, err or "(no output)")


@pytest.fixture(scope="module")
def store_copy(tmp_path_factory) -> tuple[Path, dict]:
    import shutil

    root = tmp_path_factory.mktemp("args") / "store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    return root, fingerprint(root)


@pytest.fixture(scope="module")
def web_client(store_copy):
    with Store(store_copy[0]) as store:
        yield create_app(store, {"TESTING": False}).test_client()


# what a terminal acts on: C0 controls but newline and tab, DEL, C1 controls, bidi overrides and isolates
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def cli_symptoms(arg: Argument, value: str, run: CliRun) -> list[Symptom]:
    found = run.symptoms()
    # --json output is data that gives store text back exactly (controls escaped by JSON itself, bidi kept)
    shown = run.err + ("" if "--json" in run.argv else run.out)
    raw = RAW_CONTROL.search(shown) if arg.takes != "integer" else None
    if raw is not None:  # a text argument echoed (a note naming the topic asked for, a REF not found) unescaped
        found.append(Symptom("unescaped", f"{arg.name} {value[:30]!r}: {raw.group()!r} printed raw"))
    if run.code == 2 and "unrecognized arguments" in run.err:
        found.append(Symptom("exit", f"{arg.name} {value[:30]!r}: exit 2 'unrecognized arguments' (misparsed)"))
    elif impossible(arg, value) and run.code not in (None, 2):
        found.append(Symptom("exit", f"{arg.name} {value[:30]!r}: exit {run.code}, want 2 "
                             f"({(run.err or run.out).strip()[-120:]!r})"))
    return found


def _beyond_web_cap(arg: Argument, value: str) -> bool:
    """A value the CLI may take but the web refuses, a documented 400: 0x hex (URLs carry decimal only), a
    decimal past the web's narrower page bounds, or a text past the web's bound on query texts."""
    if arg.takes != "integer" and len(value) > MAX_TEXT:
        return True  # a query text is bounded on the web (web/params.py text_arg); the CLI searches it
    value = ungrouped(value.strip())
    number_param = arg.takes == "integer" or arg.web is not None and arg.web[0].endswith("{V}")
    if number_param and re.fullmatch(r"[+-]?0[xX][0-9a-fA-F]+", value):  # (a text query may hold "0x10")
        return True
    digits = value.lstrip("+-").lstrip("0") or "0"  # leading zeros spell the same number ('0065536')
    if arg.web_cap is None or not re.fullmatch(r"[+-]?[0-9]+", value) or len(digits) > 19:
        return False
    return not arg.web_cap[0] <= int(value) <= arg.web_cap[1]


# the pages of the newer API routes (issue 35.4): the same query answered as HTML
PAGE_OF = {"/api/story": "/story", "/api/groups": "/groups", "/api/search": "/search"}


def _raw_in_page(client, page_url: str, html: str, value: str) -> bool:
    """True when the page shows ``value`` as raw markup: it holds the value more often than the same page asked
    with a harmless value instead (every page holds ``<`` and ``<a``: a short value alone proves nothing; the
    long run's round b-11 reported ``grep --limit '<'`` so, on a page that had escaped it)."""
    raw = value.strip()
    if raw not in html:
        return False
    neutral = client.get(page_url.replace(quote(value, safe=""), "7"))
    baseline = neutral.get_data(as_text=True)
    neutral.close()
    return html.count(raw) > baseline.count(raw)


def web_symptoms(client, arg: Argument, value: str, cli: CliRun) -> list[Symptom]:
    if arg.web is None or any(c in value for c in "/?#%\x00") or not value.isprintable():
        return []  # those cannot travel in a path segment unchanged (test_web_params_fuzz.py covers them raw)
    path, query = arg.web
    url = path.replace("{V}", quote(value, safe="")) + ("?" + query.replace("{V}", quote(value, safe=""))
                                                        if query else "")
    r = client.get(url)
    r.close()
    found = []
    if r.status_code not in HTTP_OK:
        found.append(Symptom("traceback" if r.status_code == 500 else "exit", f"GET {url[:80]}: {r.status_code}"))
    elif value.strip() == "":
        pass  # no value: an empty query value is an absent one (web/params.py), an empty path segment another URL
    elif _beyond_web_cap(arg, value):
        if r.status_code != 400:
            found.append(Symptom("inconsistent", f"{arg.name} {value[:30]!r}: hex or past the web's cap {arg.web_cap}, "
                                                 f"web {r.status_code}"))
    elif cli.code is not None and (cli.code == 2) != (r.status_code == 400):
        found.append(Symptom("inconsistent", f"{arg.name} {value[:30]!r}: CLI exit {cli.code}, web "
                             f"{r.status_code}"))
    if path in PAGE_OF and value:  # the page of the same query: the API's status, never the value as markup
        # (no value: the page shows its empty form where the API says 400 "required")
        page = client.get(PAGE_OF[path] + url[len(path):])
        html = page.get_data(as_text=True)
        page.close()
        if page.status_code != r.status_code:
            found.append(Symptom("traceback" if page.status_code == 500 else "inconsistent",
                                 f"{arg.name} {value[:30]!r}: page {page.status_code}, API {r.status_code}"))
        elif "<" in value and _raw_in_page(client, PAGE_OF[path] + url[len(path):], html, value):
            found.append(Symptom("unescaped", f"{arg.name} {value[:30]!r}: the page holds it as raw markup"))
    return found


def check_argument(root: Path, pristine: dict, client, arg: Argument, value: str) -> list[Symptom]:
    argv = argv_for(arg, str(root), value)
    if arg.name in RUN_AS_PROCESS and "\x00" not in value:  # no process argument can hold a NUL byte
        try:
            run = run_process(argv, ARGUMENT_SECONDS + 10)
        except subprocess.TimeoutExpired:
            return [Symptom("hang", f"{arg.name} {value[:30]!r}: still running after {ARGUMENT_SECONDS + 10} s")]
    else:
        run = run_cli(argv)
    return cli_symptoms(arg, value, run) + web_symptoms(client, arg, value, run) + changed(pristine,
                                                                                          fingerprint(root))


# Minimal examples of every argument class met on the code before issue 22's fixes (fuzz_known_bugs.py).
REGRESSIONS = [
    ("show OFFSET", "1" * 4301),  # ValueError: Exceeds the limit (4300 digits)
    ("show OFFSET", "٣"),  # reads offset 3
    ("messages --limit", "-5"),  # exit 0, nothing printed; the web API says 400
    ("verify --segment-size", "-1"),  # exit 4 with invented findings
    ("verify --segment-size", "0"),  # silently ignored
    ("info --cq-file-size", "7"),
    ("verify --index-items", "-1"),
    ("verify --index-slots", str(1 << 63)),
    ("messages log --from", "-1"),  # starts at 0
    ("hex OFFSET", "-1"),  # exit 1
    ("hex --length", "0"),  # shows one byte
    ("key --begin", "-1"),  # "unrecognized arguments"
    ("messages --from", "99999999999999999999999"),
    ("verify --index-slots", "-16"),  # found by the fuzzer: ValueError from struct (offset must be non-negative)
    ("verify --index-slots", "-1000000000"),  # found by the fuzzer: SIGSEGV in verify_kernels.index_match
    ("exercises --count", "01"),  # the long run: the oracle's int(text, 0) refused a leading zero (the CLI reads 1)
    ("hex --length", "00000000000000065536"),  # the oracle took 20 digits for past 64 bits, not past the web's cap
    # issue 35: --idle-timeout was float(): nan, inf and 1e308 never stopped, -1 exited 0 at once with nothing
    ("messages --idle-timeout", "nan"),
    ("messages --idle-timeout", "inf"),
    ("messages --idle-timeout", "1e308"),
    ("messages --idle-timeout", "-1"),
    ("messages --idle-timeout", "0.5"),  # a valid one: the first message ends the run
    # issue 35, the newer commands: a --trace-topic no topic has, on a store with no broker.conf: AttributeError
    ("story --trace-topic", "\x1b]0;PWNED\x07"),
    ("trace --trace-topic", "\u202eevil"),
    ("story KEY", "-x"),
    ("story REF", "0" * 56),
    ("trace REF", "1" * 4301),
    ("story REF --no-scan", "60781"),
    ("show --budget", "nan"),
    ("preflight --cq-file-size", "7"),
    # the long run on 680e633 (round b-11): every page holds '<', so the oracle called an escaped '<' raw markup
    ("grep --limit", "<"),
    ("grep --limit", "<script>x</script>"),  # and a value that would be markup is still caught if shown raw
]


def _with_regressions(test):
    for name, value in reversed(REGRESSIONS):
        test = example(name=name, value=value)(test)
    return test


@fuzz_settings(60, long_share=0.5)
@given(name=st.sampled_from(sorted(ARGUMENTS)), value=VALUES)
@_with_regressions
def test_every_argument_value_gets_a_documented_answer(store_copy, web_client, name: str, value: str) -> None:
    root, pristine = store_copy
    with watchdog():
        symptoms = check_argument(root, pristine, web_client, ARGUMENTS[name], value)
    unknown = triage(f"args:{name}={value[:40]}", symptoms)
    assert not unknown, f"{name} {value[:40]!r}: " + "; ".join(map(str, unknown))


LOOPBACK = ("127.0.0.1", "127.0.0.1:8080", "localhost", "localhost:8080", "[::1]:8080")
FOREIGN = st.one_of(st.sampled_from(["attacker.example", "attacker.example:8080", "127.0.0.1.attacker.example",
                                     "localhost.attacker.example", "10.0.0.1", "evil"]),
                    st.from_regex(r"[a-z]{1,12}\.(com|example|net)(:[0-9]{1,5})?", fullmatch=True))


@fuzz_settings(15, long_share=0.05)
@given(host=FOREIGN)
@example(host="attacker.example")
def test_a_foreign_host_header_is_refused_on_loopback(web_client, host: str) -> None:
    """DNS rebinding (22.2): a page of attacker.example resolving to 127.0.0.1 must get no store bytes."""
    try:
        r = web_client.get("/api/message/0", headers={"Host": host})
    except ValueError:  # werkzeug's test client cannot build it (a port past 65535); the real server's own test
        return  # (tests/web/test_web_server.py) sends such raw headers and gets a 400
    r.close()
    symptoms = [] if r.status_code in (400, 403, 421) else [
        Symptom("exit", f"foreign Host {host!r}: {r.status_code}, want a refusal")]
    unknown = triage(f"host:{host}", symptoms)
    assert not unknown, "; ".join(map(str, unknown))


@pytest.mark.parametrize("host", LOOPBACK)
def test_loopback_host_names_are_served(web_client, host: str) -> None:
    assert web_client.get("/api/message/0", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize(("name", "value"), REGRESSIONS[:4] + [("key --begin", "-1")])
def test_the_command_as_a_process_prints_no_traceback(store_copy, name: str, value: str) -> None:
    """The same minimal examples through ``python -m inspector.cli.main`` (what a user's shell runs)."""
    root, pristine = store_copy
    run = run_process(argv_for(ARGUMENTS[name], str(root), value), 120)
    unknown = triage(f"args:{name}={value[:40]}", cli_symptoms(ARGUMENTS[name], value, run) +
                     changed(pristine, fingerprint(root)))
    assert not unknown, "; ".join(map(str, unknown))
