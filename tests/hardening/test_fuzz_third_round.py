"""Fuzzing the hostile input of issue 35, item 7: special files, empty and all-zero files, sparse giants and
zero tails, many-file stores, extreme numbers, control characters in names, ``write``'s input and
``--broker-config``.

Every example runs in a forked process of its own (fuzz_support.run_isolated): a blocking open of a FIFO, a
read of /dev/zero or a loop is then a "hang" or "memory" symptom instead of a stuck or swapping test run. On a
copy of a pristine store (third_round_cases: the sample, the DLedger sample, a timer, an LMQ and a batch-queue
store) one :class:`~third_round_cases.Hostile` damage is made; the commands then run in-process in the child
(verify, info, census, messages, show, key, the timer views, the web pages /, /timer and /api/timer) and each
must: print no traceback, exit with a documented code, leave the store byte for byte as it was, and print no
control character (no byte below 0x20 but newline and tab, no DEL, C1, ESC or bidi override) in table output.
The issue's own cases are kept as explicit tests below (``test_issue_35_case``), replayed on every run.

Failure classes whose fix is not on this branch are let through by fuzz_known_bugs.triage (counted; see the
issue-35 entries there). CI runs a small deterministic set (``RMQ_FUZZ_EXAMPLES`` unset), every command and
page on each example. A long run (``RMQ_FUZZ_EXAMPLES=N``: the store damages take a quarter of N, write's input
and broker.conf a tenth each, the RocksDB files 0.02) draws one or two commands and, one example in three, one
page per example (COMMAND_PICKS), on a scratch copy where only what the last example damaged is copied again;
the regressions still run everything. The issue-35 run, its command and figures: README, Testing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from fuzz_known_bugs import MET, triage
from fuzz_support import (
    HTTP_OK,
    CliRun,
    Symptom,
    changed,
    fingerprint,
    note_step,
    run_cli,
    run_isolated,
    warm_web,
    web_client,
)
from hypothesis import event, example, given
from hypothesis import strategies as st
from store_mutations import BATCH_TOPIC, build_store, reuse_copy
from test_fuzz_store import LONG_RUN, fuzz_settings
from third_round_cases import (
    STORE_NAMES,
    Hostile,
    broker_configs,
    hostiles,
    make_special,
    store_files,
    write_lines,
)

pytestmark = [pytest.mark.timeout(0 if LONG_RUN else 900), pytest.mark.usefixtures("compiled_kernels")]
# a command (or web page) still running this long is a hang (a blocking open, an endless read). Each takes
# ~0.05-2 s here; the issue's 5 s is a speed goal, measured in benchmarks/, not a test's bound: a CI machine
# busy with other tests once took 5 s over 2,000 empty segment files
STEP_SECONDS = 20.0
# no byte below 0x20 but \n and \t, no DEL, no C1 (U+0080-U+009F), no bidi controls or marks
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
JSON_CONTROL = re.compile("[\x00-\x08\x0b-\x1f]")  # what JSON itself must escape
WEB_PAGES = ("/", "/timer", "/api/timer", "/api/messages?limit=5",
             # the newer pages (issue 35.4): a story by offset, the consumer groups, a search
             "/api/story?ref=0", "/story?ref=0", "/api/groups", "/groups", "/api/search?q=order&limit=5")
# CI runs every command and web page on each example. A long run draws one or two commands and, one example in
# three, one page: an example costs ~0.1 s instead of ~1 s, and 100,000 of them fit in an hour (every command
# and page still meets every kind of damage thousands of times). ``None``: every command.
if LONG_RUN:
    COMMAND_PICKS = st.lists(st.integers(0, 1 << 10), min_size=1, max_size=2)
    PAGE_PICKS = st.sampled_from(((),) * 8 + tuple((page,) for page in WEB_PAGES))
    HOSTILE_PICKS, HOSTILE_PAGES = COMMAND_PICKS, PAGE_PICKS
else:
    COMMAND_PICKS = st.just(None)
    PAGE_PICKS = st.just(WEB_PAGES)
    # the store damages' drawn CI examples: two commands and one page named by the damage itself (DERIVED: nothing
    # drawn, so the derandomized damages are the ones they were); each regression, replayed first, runs every
    # command and page, so each still meets each store in every run
    HOSTILE_PICKS = HOSTILE_PAGES = st.just("derived")


def derived(hostile: Hostile) -> tuple[list[int], tuple[str, ...]]:
    """Two commands (by index, modulo their count) and one page for ``hostile``, the same in every run."""
    spread = zlib.crc32(repr(hostile).encode())
    return [spread, spread // 7 + hostile.pick], (WEB_PAGES[spread % len(WEB_PAGES)],)


def picked(argvs: list[list[str]], picks: list[int] | None) -> list[list[str]]:
    """The commands ``picks`` names (by index, modulo their count; each once), all of them for ``None``."""
    if picks is None:
        return argvs
    chosen = sorted({k % len(argvs) for k in picks})
    for k in chosen:
        event(f"command {argvs[k][0]}{' --json' if '--json' in argvs[k] else ''}")
    return [argvs[k] for k in chosen]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> dict[str, tuple[Path, list[str]]]:
    """Every pristine store by name, with its files."""
    base = tmp_path_factory.mktemp("third-round-pristine")
    found = {}
    for name in STORE_NAMES:
        root = build_store(name, base / name)
        found[name] = (root, store_files(root))
        warm_web(root, WEB_PAGES + ("/no-such-page",))  # every example's fork inherits the compiled templates
    return found


def fresh_copy(pristine: dict, scratch: Path, name: str) -> Path:
    """The pristine store ``name`` at ``scratch/store-NAME`` (one scratch copy per store): only what the last
    example damaged there is copied again."""
    return reuse_copy(pristine[name][0], scratch / f"store-{name}")


def _unblock(func, path, exc_info) -> None:  # a FIFO or a loop is removed as a file, never opened
    os.unlink(path)


def control_symptoms(run: CliRun) -> list[Symptom]:
    """Raw control characters in a command's output. JSON output (``--json`` on stdout) escapes C0 itself and
    keeps C1 and bidi characters as the text they are (no change to JSON output here): only C0 and DEL there."""
    found = []
    for stream, text in (("stdout", run.out), ("stderr", run.err)):
        pattern = JSON_CONTROL if stream == "stdout" and "--json" in run.argv else RAW_CONTROL
        m = pattern.search(text)
        if m:
            shown = f"rmq-inspect {' '.join(a[:30] for a in run.argv)!r}"
            found.append(Symptom("control", f"{shown}: {stream} holds {m.group()!r} at {m.start()}: "
                                 f"{text[max(0, m.start() - 30) : m.start() + 10]!r}"))
    return found


def checked(argv: list[str]) -> tuple[CliRun, list[Symptom]]:
    run = run_cli(argv)
    return run, run.symptoms() + control_symptoms(run)


def web_symptoms(root: Path, paths: tuple[str, ...]) -> list[Symptom]:
    """The web viewer on the store: every page 200/400/404, never a 500 (nor an exception)."""
    from inspector.engine import Store, StoreError

    note_step(f"web {paths}")
    try:
        store = Store(root)
    except StoreError:
        return []  # the CLI said it (exit 3); the viewer would not start either
    found = []
    with store:
        client = web_client(store)
        for path in paths:
            note_step(f"GET {path}")
            r = client.get(path)
            r.close()
            if r.status_code not in HTTP_OK:
                found.append(Symptom("traceback" if r.status_code == 500 else "exit", f"GET {path}: {r.status_code}"))
    return found


def workload(root: Path, store: str) -> list[list[str]]:
    s = str(root)
    table = [["verify", s], ["info", s], ["census", s], ["messages", s, "--limit", "50"], ["show", s, "0"],
             # the newer commands (issue 35): a story and a trace at offset 0, the next start, groups, a search
             ["story", s, "0"], ["trace", s, "0"], ["preflight", s], ["groups", s], ["grep", s, "order", "-i"]]
    json_runs = [["verify", s, "--json"], ["messages", s, "--limit", "50", "--json"], ["story", s, "0", "--json"],
                 ["preflight", s, "--json"], ["groups", s, "--json"], ["grep", s, "-F", "order", "--json"],
                 ["salvage", s, "--plan", "--json"]]
    if store in ("timer",):
        table += [["timer", s], ["timer", s, "--wheel"], ["timer", s, "--summary"], ["timer", s, "--slot", "5"]]
    elif store == "batch":
        json_runs.append(["messages", s, "--topic", BATCH_TOPIC, "--queue", "0", "--json"])
    else:
        table += [["messages", s, "--topic", "OrderEvents", "--queue", "3", "--limit", "20"],
                  ["key", s, "OrderEvents", "order-1108"]]
    return table + json_runs


def hostile_symptoms(pristine: dict, scratch: Path, hostile: Hostile, picks: list[int] | None = None,
                     pages: tuple[str, ...] = WEB_PAGES) -> list[Symptom]:
    root = fresh_copy(pristine, scratch, hostile.store)
    done = hostile.apply(root, pristine[hostile.store][1])
    before = fingerprint(root)
    argvs = picked(workload(root, hostile.store), picks)

    def work() -> list[Symptom]:
        found = []
        for argv in argvs:
            found += checked(argv)[1]
        return found + (web_symptoms(root, pages) if pages else [])

    symptoms = run_isolated(work, STEP_SECONDS, f"{hostile} ({done})")
    return symptoms + changed(before, fingerprint(root))


def _assert_known(what: str, symptoms: list[Symptom]) -> None:
    unknown = triage(what, symptoms)
    assert not unknown, f"{what}: " + "; ".join(map(str, unknown))


# Minimal examples of every class the third-round fuzzer met: replayed first in every run.
REGRESSIONS = [
    Hostile("timer", "empty", "", 18),  # timerlog/00000000000000000000 empty (the issue's timer case, by pick)
    Hostile("sample", "special", "fifo", 0),  # checkpoint a FIFO
    Hostile("sample", "special", "dev-zero", 0),
    Hostile("dledger", "name", "member", 0, 0),  # dledger-ESC]0;PWNED BEL ESC[2J
    Hostile("sample", "name", "topic", 2, 0),  # consumequeue/ESC]0;PWNED BEL ESC[2J
    Hostile("sample", "giant", "", 5),
    Hostile("sample", "many", "segment", 0),
    Hostile("sample", "many", "timerlog", 0),  # a timerlog/ of empty files only: ZeroDivisionError (long run)
    # timerlog/…172 sparse-extended to 1 TiB (the long run, round 3): verify sized a per-unit array by the
    # file (19.7 GiB) before the timer log was read only up to its first hole
    Hostile("timer", "giant", "", 12),
]


def _replaying(test):
    for h in reversed(REGRESSIONS):
        test = example(hostile=h, picks=None, pages=WEB_PAGES)(test)  # each with every command and page
    return test


@fuzz_settings(5, long_share=0.25)
@given(hostile=hostiles(STORE_NAMES), picks=HOSTILE_PICKS, pages=HOSTILE_PAGES)
@_replaying
def test_hostile_files_and_names_get_documented_answers(pristine, scratch: Path, hostile: Hostile,
                                                        picks: list[int] | str | None,
                                                        pages: tuple[str, ...] | str) -> None:
    if picks == "derived":
        picks, pages = derived(hostile)
    event(f"store {hostile.store}")
    event(f"damage {hostile.kind}")
    _assert_known(f"{hostile}", hostile_symptoms(pristine, scratch, hostile, picks, pages))


# -- write's input and --broker-config ------------------------------------------------------------------------


def write_symptoms(scratch: Path, data: bytes | None, source: str | None = None) -> list[Symptom]:
    """``write NEW INPUT`` in its own process: a documented exit, no traceback, under the watchdog."""
    out = scratch / "written"
    shutil.rmtree(out, ignore_errors=True)
    if source is None:
        source = str(scratch / "input.jsonl")
        Path(source).write_bytes(data or b"")
    return run_isolated(lambda: checked(["write", str(out), source])[1], STEP_SECONDS, f"write {source}")


@fuzz_settings(5, long_share=0.1)
@given(data=write_lines())
@example(data=b'{"topic": "T", "properties": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
@example(data=b'{"topic": "T", "queue_id": ' + b"9" * 50_000 + b"}")
@example(data=b'{"topic": "T", "body": "x", "store_timestamp": -1}')
# a time past year 9999 (a long, as Java holds it): the unique key's month start overflowed datetime (a traceback,
# found by the long run on the final code of the session that added it)
@example(data=b'{"topic": "T", "body": "x", "store_timestamp": 9223372036854775807}\n'
              b'{"topic": "T", "body": "b", "store_timestamp": 1700000000500}')
@example(data=b'{"topic": "T", "body": "x", "born_timestamp": 253402300800000}')
def test_write_input_gets_a_documented_answer(scratch: Path, data: bytes) -> None:
    _assert_known(f"write:{data[:60]!r}", write_symptoms(scratch, data))


def broker_config_symptoms(pristine: dict, scratch: Path, config: str, picks: list[int] | None = None
                           ) -> list[Symptom]:
    root = pristine["sample"][0]
    before = fingerprint(root)
    argvs = picked([["info", str(root), "--broker-config", config], ["census", str(root), "--broker-config", config],
                    ["timer", str(root), "--broker-config", config, "--summary"]], picks)

    def work() -> list[Symptom]:
        found = []
        for argv in argvs:
            found += checked(argv)[1]
        return found

    return run_isolated(work, STEP_SECONDS, f"--broker-config {config}") + changed(before, fingerprint(root))


@fuzz_settings(8, long_share=0.1)
@given(content=broker_configs(), picks=COMMAND_PICKS)
@example(content=b"messageDelayLevel=99999999999999999999d", picks=None)
@example(content=b"messageDelayLevel=", picks=None)
@example(content=b"storePathCommitLog=/\n", picks=None)  # the file system as a commitlog folder: 34 s
def test_broker_config_content_gets_a_documented_answer(pristine, scratch: Path, content: bytes,
                                                        picks: list[int] | None) -> None:
    path = scratch / "broker.conf"
    path.write_bytes(content)
    _assert_known(f"broker-config:{content[:60]!r}", broker_config_symptoms(pristine, scratch, str(path), picks))


# -- the issue's cases, one by one ----------------------------------------------------------------------------------

CASES: dict[str, Callable[[dict, Path], list[Symptom]]] = {}


def case(name: str):
    def register(fn):
        CASES[name] = fn
        return fn
    return register


def _runs(root: Path, argvs: list[list[str]], what: str, web: tuple[str, ...] = ()) -> list[Symptom]:
    """The commands (and web pages) on ``root`` in an isolated process, the store unchanged after them."""
    before = fingerprint(root)

    def work() -> list[Symptom]:
        return [s for argv in argvs for s in checked(argv)[1]] + (web_symptoms(root, web) if web else [])

    return run_isolated(work, STEP_SECONDS, what) + changed(before, fingerprint(root))


def _verify_names(root: Path, what: str, file_pattern: str, codes: tuple[int, ...] = (4,)) -> list[Symptom]:
    """verify --json must exit with one of ``codes`` and name a file matching ``file_pattern``."""
    found: list[Symptom] = []

    def work() -> list[Symptom]:
        run, symptoms = checked(["verify", str(root), "--json"])
        files = []
        try:
            files = [p["file"] for p in json.loads(run.out).get("problems", [])]
        except ValueError:
            pass
        if run.code not in codes or not any(re.search(file_pattern, f) for f in files):
            symptoms.append(Symptom("missing-finding", f"{what}: verify exit {run.code}, no finding on "
                                    f"{file_pattern!r} (found {sorted(set(files))[:4]})"))
        return symptoms

    found += run_isolated(work, STEP_SECONDS, what)
    return found


for _name, _source in (("dev-zero", "/dev/zero"), ("dev-urandom", "/dev/urandom"), ("fifo", None),
                       ("50MB-line", None)):
    def _broker_config(pristine, scratch, name=_name, source=_source):
        path = scratch / "broker.conf"
        if source:
            path.symlink_to(source)
            config = source
        elif name == "fifo":
            os.mkfifo(path)
            config = str(path)
        else:
            path.write_bytes(b"messageDelayLevel=" + b"1s " * ((50 << 20) // 3))
            config = str(path)
        return broker_config_symptoms(pristine, scratch, config)
    case(f"broker-config-{_name}")(_broker_config)


@case("write-dev-zero")
def _write_dev_zero(pristine, scratch):
    return write_symptoms(scratch, None, "/dev/zero")


@case("write-deep-nesting")
def _write_deep(pristine, scratch):
    return write_symptoms(scratch, b'{"topic": "T", "properties": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")


@case("write-50000-digit-queue-id")
def _write_digits(pristine, scratch):
    return write_symptoms(scratch, b'{"topic": "T", "queue_id": ' + b"9" * 50_000 + b"}")


@case("write-negative-store-timestamp")
def _write_negative(pristine, scratch):
    return write_symptoms(scratch, b'{"topic": "T", "body": "x", "store_timestamp": -1}')


def _timer_empty(pristine, scratch, every: bool):
    """The first timerlog file (or every one) 0 bytes: the views and pages still answer."""
    root = fresh_copy(pristine, scratch, "timer")
    for path in sorted((root / "timerlog").iterdir())[: None if every else 1]:
        path.write_bytes(b"")
    s = str(root)
    return _runs(root, [["info", s], ["verify", s], ["timer", s], ["timer", s, "--wheel"], ["timer", s, "--summary"],
                        ["timer", s, "--slot", "5"], ["timer", s, "--json"], ["timer", s, "--wheel", "--json"]],
                 "an empty timerlog file", web=("/", "/timer", "/api/timer"))


case("timer-empty-timerlog")(lambda pristine, scratch: _timer_empty(pristine, scratch, False))
case("timer-every-timerlog-empty")(lambda pristine, scratch: _timer_empty(pristine, scratch, True))


@case("batch-msgBaseOffset-max")
def _batch_base(pristine, scratch):
    root = fresh_copy(pristine, scratch, "batch")
    unit = sorted((root / "batchconsumequeue" / BATCH_TOPIC / "0").iterdir())[0]
    raw = bytearray(unit.read_bytes())
    raw[46 + 28 : 46 + 36] = ((1 << 63) - 1).to_bytes(8, "big")  # msgBaseOffset of the queue's last unit (the
    # first one's is taken for the queue's start and fits; the next base is computed from this one)
    unit.write_bytes(bytes(raw))
    rel = unit.relative_to(root).as_posix()
    return _verify_names(root, "msgBaseOffset 2^63-1", re.escape(rel)) + _runs(
        root, [["verify", str(root)], ["messages", str(root), "--topic", BATCH_TOPIC, "--queue", "0"]], rel)


@case("dledger-unaligned-name")
def _dledger_unaligned(pristine, scratch):
    root = fresh_copy(pristine, scratch, "dledger")
    data = root / "dledger-n0" / "data"
    (data / "00000000000000131072").rename(data / "00000000000000131000")
    return _verify_names(root, "a DLedger data file named 131000", r"dledger-n0/data/") + _runs(
        root, [["info", str(root)], ["messages", str(root), "--limit", "20"]], "dledger 131000")


@case("zero-tail-segment")
def _zero_tail(pristine, scratch):
    root = fresh_copy(pristine, scratch, "sample")
    last = sorted((root / "commitlog").iterdir())[-1]
    with open(last, "ab") as f:  # written zeros, not a hole: the non-sparse case at CI size (the 1 GiB one is
        f.write(bytes(8 << 20))  # benchmarks/')
    s = str(root)
    return _runs(root, [["verify", s, "--json"], ["info", s], ["messages", s, "--limit", "1000", "--json"],
                        ["census", s]], "an 8 MB zero tail")


@case("every-segment-1TiB-sparse")
def _giant(pristine, scratch):
    root = fresh_copy(pristine, scratch, "sample")
    for seg in (root / "commitlog").iterdir():
        os.truncate(seg, 1 << 40)
    s = str(root)
    return _runs(root, [["verify", s, "--json"], ["info", s], ["messages", s, "--limit", "100"], ["census", s],
                        ["show", s, "0"]], "every segment 1 TiB")


@case("2000-empty-segments")
def _many(pristine, scratch):
    root = fresh_copy(pristine, scratch, "sample")
    for k in range(2000):
        (root / "commitlog" / f"{(1 << 30) + k * 65536:020d}").touch()
    s = str(root)
    return _runs(root, [["verify", s], ["info", s], ["census", s], ["messages", s, "--limit", "10"]],
                 "2,000 empty segments")


for _timeout in ("nan", "inf", "1e308", "-1"):
    def _follow(pristine, scratch, timeout=_timeout):
        root = pristine["sample"][0]
        return _runs(root, [["messages", str(root), "--follow", "--idle-timeout", timeout]],
                     f"--idle-timeout {timeout}")
    case(f"follow-idle-timeout-{_timeout}")(_follow)


for _levels in ("99999999999999999999d", ""):
    def _delay_flag(pristine, scratch, levels=_levels):
        root = pristine["sample"][0]
        s = str(root)
        return _runs(root, [["info", s, "--delay-levels", levels], ["verify", s, "--delay-levels", levels],
                            ["messages", s, "--topic", "SCHEDULE_TOPIC_XXXX", "--queue", "3",
                             "--delay-levels", levels]], f"--delay-levels {levels!r}")

    def _delay_conf(pristine, scratch, levels=_levels):
        path = scratch / "broker.conf"
        path.write_text(f"messageDelayLevel={levels}\n")
        return broker_config_symptoms(pristine, scratch, str(path))
    case(f"delay-levels-flag-{_levels or 'empty'}")(_delay_flag)
    case(f"delay-levels-conf-{_levels or 'empty'}")(_delay_conf)


@case("show-log-end-offset")
def _show_end(pristine, scratch):
    from inspector.engine import Store

    root = pristine["sample"][0]
    with Store(root) as store:
        end = store.max_offset()  # where the next record would go: no message there, not a damaged one

    def work():
        run, symptoms = checked(["show", str(root), str(end)])
        if run.code != 1:
            symptoms.append(Symptom("exit", f"show at the log end offset {end}: exit {run.code}, want 1 "
                                    f"({(run.err or run.out).strip()[-100:]!r})"))
        return symptoms

    return run_isolated(work, STEP_SECONDS, "show at the log end")


@case("lmq-folder-deleted")
def _lmq_deleted(pristine, scratch):
    root = fresh_copy(pristine, scratch, "lmq")
    shutil.rmtree(root / "consumequeue" / "%LMQ%x")
    return _verify_names(root, "%LMQ%x deleted", r"%LMQ%x|^commitlog/")


@case("lmq-last-unit-zeroed")
def _lmq_zeroed(pristine, scratch):
    root = fresh_copy(pristine, scratch, "lmq")
    cq = sorted((root / "consumequeue" / "%LMQ%x" / "0").iterdir())[-1]
    raw = bytearray(cq.read_bytes())
    last = max(k for k in range(0, len(raw), 20) if any(raw[k : k + 20]))
    raw[last : last + 20] = bytes(20)
    cq.write_bytes(bytes(raw))
    return _verify_names(root, "%LMQ%x's last unit zeroed", r"%LMQ%x|^commitlog/")


@case("cq-wrong-length")
def _cq_length(pristine, scratch):
    root = fresh_copy(pristine, scratch, "sample")
    cq = root / "consumequeue" / "OrderEvents" / "3" / "00000000000000000800"
    os.truncate(cq, 16007)
    rel = cq.relative_to(root).as_posix()
    symptoms = _verify_names(root, "a consume-queue file of 16,007 bytes", re.escape(rel))

    def work():
        run, found = checked(["census", str(root)])
        if run.code != 4 or "16007" not in run.out.replace(",", "") + run.err.replace(",", ""):
            found.append(Symptom("missing-finding", f"census of a 16,007-byte queue file: exit {run.code}, "
                                 "the length not said"))
        return found

    return symptoms + run_isolated(work, STEP_SECONDS, "census, a 16,007-byte queue file")


@case("plain-topic-marked-batchcq")
def _marked_batch(pristine, scratch):
    root = fresh_copy(pristine, scratch, "sample")
    path = root / "config" / "topics.json"
    doc = json.loads(path.read_text())
    doc["topicConfigTable"]["OrderEvents"]["attributes"] = {"queue.type": "BatchCQ"}
    path.write_text(json.dumps(doc))
    s = str(root)
    return _verify_names(root, "OrderEvents marked BatchCQ", r"topics\.json|OrderEvents") + _runs(
        root, [["info", s], ["messages", s, "--topic", "OrderEvents", "--queue", "3", "--limit", "5"]],
        "OrderEvents marked BatchCQ")


@case("timer-wheel-all-misplaced")
def _misplaced(pristine, scratch):
    """1,500 wheel slots each holding a time of another slot: verify --json lists every one or says how many
    it left out (the reader stopped at 1,000 without a word)."""
    root = fresh_copy(pristine, scratch, "timer")
    wheel = root / "timerwheel"
    n = 1500
    with open(wheel, "r+b") as f:
        for k in range(n):
            f.seek(k * 32)
            f.write((k + 7).to_bytes(8, "big") + bytes(24))

    def work():
        run, symptoms = checked(["verify", str(root), "--json"])
        try:
            problems = [p for p in json.loads(run.out)["problems"] if p["file"] == "timerwheel"]
        except (ValueError, KeyError):
            problems = []
        listed = sum(p["code"] == "timer-slot-misplaced" for p in problems)
        told = any(re.search(r"\b(500|1,?500)\b", p["reason"]) and re.search(
            r"\b(more|others?|not (listed|shown)|left out|further|in all|total)\b", p["reason"]) for p in problems)
        if listed < n and not told:
            symptoms.append(Symptom("missing-finding", f"all-misplaced wheel: verify --json lists {listed} of "
                                    f"{n} misplaced slots and does not say it left {n - listed} out"))
        return symptoms

    return run_isolated(work, STEP_SECONDS, "a wheel with every slot misplaced")


@case("control-topic-folder")
def _control_topic(pristine, scratch):
    root = fresh_copy(pristine, scratch, "sample")
    (root / "consumequeue" / "OrderEvents").rename(root / "consumequeue" / "\x1b]0;PWNED\x07\x1b[2J")
    s = str(root)
    return _runs(root, [["info", s], ["verify", s], ["census", s], ["messages", s, "--limit", "5"],
                        ["messages", s, "--topic", "\x1b]0;PWNED\x07\x1b[2J", "--queue", "3", "--limit", "5"]],
                 "a topic folder named ESC]0;PWNED BEL ESC[2J")


@case("control-dledger-member")
def _control_member(pristine, scratch):
    root = fresh_copy(pristine, scratch, "dledger")
    (root / "dledger-n0").rename(root / "dledger-\x1b]0;PWNED\x07\x1b[2J")
    s = str(root)
    return _runs(root, [["info", s], ["verify", s], ["census", s], ["messages", s, "--limit", "5"]],
                 "a DLedger member folder named ESC]0;PWNED BEL ESC[2J")


@case("special-files-everywhere")
def _specials(pristine, scratch):
    """A FIFO, /dev/zero and a link out of the store at once, in the places the fuzzer picks one at a time."""
    root = fresh_copy(pristine, scratch, "timer")
    for rel, kind in (("checkpoint", "fifo"), ("config/topics.json", "dev-zero"), ("timercheck", "fifo"),
                      ("timerwheel", "dev-zero"), ("abort", "outside")):
        make_special(root / rel, kind)
    s = str(root)
    return _runs(root, [["info", s], ["verify", s], ["census", s], ["timer", s, "--summary"]], "special files")


@pytest.mark.parametrize("name", sorted(CASES))
def test_issue_35_case(pristine, tmp_path: Path, name: str) -> None:
    _assert_known(f"case:{name}", CASES[name](pristine, tmp_path))


def test_the_isolation_catches_a_fifo_and_dev_zero(tmp_path: Path) -> None:
    """The guard itself: a blocking open of a FIFO is a hang, a read of /dev/zero stops at the memory limit."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    # a blocked open uses no CPU: found after STARVED_WALL_FACTOR times its seconds (0.5 s: 3 s of wall, not 12)
    (hang,) = run_isolated(lambda: [Symptom("read", fifo.read_text())], 0.5, "fifo")
    assert hang.check == "hang" and "fifo" in hang.detail
    (oom,) = run_isolated(lambda: [Symptom("read", str(len(Path("/dev/zero").read_bytes())))], 60, "zero")
    assert oom.check == "crash" and "MemoryError" in oom.detail


def test_the_pristine_stores_hold_every_promise(pristine, scratch: Path) -> None:
    """The oracle: no damage, no symptom (a control character or a finding there would mask everything)."""
    for name in STORE_NAMES:
        root = fresh_copy(pristine, scratch, name)
        symptoms = _runs(root, workload(root, name), f"pristine {name}")
        assert not symptoms, (name, [str(s) for s in symptoms])


def test_known_bug_summary() -> None:
    """Not a check: prints which known classes this run met (``-s`` to see it)."""
    print("\nknown classes met:", dict(MET) or "none")


# -- the RocksDB consume queue's files ---------------------------------------------------------------------------

ROCKS_KINDS = ("empty", "zeros", "fifo", "dev-zero", "directory", "outside")


@pytest.fixture(scope="module")
def rocks_store(tmp_path_factory):
    """test_fuzz_rocksdb's pristine RocksDB store (its builder, called once here): root and database files."""
    pytest.importorskip("rocksdict")
    import test_fuzz_rocksdb

    root, files, _ = test_fuzz_rocksdb.rocks.__wrapped__(tmp_path_factory)
    return root, files


@fuzz_settings(4, long_share=0.02)
@given(kind=st.sampled_from(ROCKS_KINDS), pick=st.integers(0, 63), picks=COMMAND_PICKS)
@example(kind="empty", pick=0, picks=None)
@example(kind="fifo", pick=1, picks=None)
def test_special_empty_and_zero_rocksdb_files(rocks_store, scratch: Path, kind: str, pick: int,
                                              picks: list[int] | None) -> None:
    """A RocksDB file (CURRENT, MANIFEST, an .sst, OPTIONS, the log) empty, all zeros or a special file."""
    pristine_root, files = rocks_store
    root = scratch / "rocks"
    if root.exists():
        shutil.rmtree(root, onerror=_unblock)
    shutil.copytree(pristine_root, root)
    name = files[pick % len(files)]
    path = root / "consumequeue" / name
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "zeros":
        path.write_bytes(bytes(path.stat().st_size))
    else:
        make_special(path, kind)
    s = str(root)
    symptoms = _runs(root, picked([["verify", s, "--json"], ["info", s], ["census", s],
                                   ["messages", s, "--topic", "OrderEvents", "--queue", "3", "--limit", "5"]], picks),
                     f"rocksdb {name} {kind}")
    _assert_known(f"rocksdb/{kind}:{name}", symptoms)
