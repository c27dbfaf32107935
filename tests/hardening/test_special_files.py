"""Issue 35: special files where a config or input file is expected, the writer's hostile JSON Lines, arguments
outside the shared vocabulary. Each case: no traceback, a documented exit code and one line naming what is
wrong, the store unchanged; a FIFO never blocks (the module's timeout would fail the test)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from damage_scenarios import SAMPLE
from fuzz_support import changed, fingerprint, run_cli
from store_mutations import build_store, make_special

pytestmark = pytest.mark.timeout(120)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("special") / "store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    return root, fingerprint(root)


def _one_line_refusal(run, code: int, *words: str) -> str:
    """The run's error: exit ``code``, one line, holding ``words``, no traceback."""
    assert run.code == code, (run.code, run.err[-400:], run.out[-200:])
    assert "Traceback" not in run.out + run.err
    lines = [line for line in run.err.splitlines() if line.startswith("rmq-inspect:")]
    assert len(lines) == 1, run.err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _special(kind: str, where: Path) -> Path:
    """A file of ``kind`` at ``where``: a FIFO, a directory, or a link to a character device."""
    return make_special(where, kind)


SPECIAL = ("fifo", "directory", "zero", "urandom")
WHAT = {"fifo": "a FIFO", "directory": "a directory", "zero": "a character device", "urandom": "a character device"}


# --- files the user names: exit 2 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", SPECIAL)
@pytest.mark.parametrize("command", ["info", "verify", "census"])
def test_a_broker_config_that_is_no_regular_file_is_refused(store, tmp_path, kind, command):
    root, pristine = store
    conf = _special(kind, tmp_path / "broker.conf")
    run = run_cli([command, str(root), "--broker-config", str(conf)])
    _one_line_refusal(run, 2, str(conf), "not a regular file", WHAT[kind])
    assert not changed(pristine, fingerprint(root))


def test_the_device_paths_themselves_are_refused(store):
    root, _ = store
    for device in ("/dev/zero", "/dev/urandom"):
        _one_line_refusal(run_cli(["info", str(root), "--broker-config", device]), 2, device, "a character device")


def test_a_50_mb_single_line_broker_config_is_refused_unread(store, tmp_path):
    root, pristine = store
    conf = tmp_path / "broker.conf"
    with open(conf, "wb") as f:  # one line of 50 MB (a hole: the test asserts the refusal, not the memory)
        f.write(b"messageDelayLevel=")
        f.truncate(50_000_000)
    line = _one_line_refusal(run_cli(["verify", str(root), "--broker-config", str(conf)]), 2, "too large",
                             "50,000,000 bytes", "a broker.conf")
    assert "1,048,576" in line
    assert not changed(pristine, fingerprint(root))


@pytest.mark.parametrize("kind", SPECIAL)
def test_write_refuses_an_input_that_is_no_regular_file(tmp_path, kind):
    source = _special(kind, tmp_path / "in.jsonl")
    target = tmp_path / "new"
    _one_line_refusal(run_cli(["write", str(target), str(source)]), 2, "cannot read the input", WHAT[kind])
    assert not target.exists()


def _write_process(target: Path, stdin, *extra: str, text: str | None = None) -> subprocess.CompletedProcess:
    """``rmq-inspect write target ...`` as a process, stdin from a file or ``text``."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "inspector.cli.main", "write", str(target), *extra], stdin=stdin,
                          input=text, capture_output=True, text=True, timeout=60, env=env, cwd=REPO)


def test_write_from_dev_zero_on_stdin_stops_at_the_line_bound(tmp_path):
    """/dev/zero piped in holds no newline: read a bounded line at a time, refused at the bound (was: MemoryError)."""
    target = tmp_path / "new"
    with open("/dev/zero", "rb") as zero:
        p = _write_process(target, zero, "-")
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr[-400:]
    assert p.stderr.strip() == "rmq-inspect: <stdin>: line 1: longer than 33,554,432 bytes"
    assert not target.exists()


def test_write_reads_stdin_given_as_a_dash(tmp_path):
    target = tmp_path / "new"
    p = _write_process(target, None, "-", text='{"topic": "T", "body": "x"}\n\n{"topic": "T", "body": "y"}\n')
    assert p.returncode == 0, p.stderr
    assert "wrote 2 message(s)" in p.stdout


# --- the writer's JSON Lines ----------------------------------------------------------------------------------------

HOSTILE_LINES = [
    ("nested", "[" * 100_000 + "]" * 100_000, "line 2: not JSON this tool reads: nesting deeper than 200 levels"),
    ("huge-queue-id", '{"topic": "T", "queue_id": ' + "9" * 50_000 + "}",
     "line 2: field queue_id must be an integer in [0, 2147483647], not a number of 50,000 characters"),
    ("negative-store-time", '{"topic": "T", "store_timestamp": -1}',
     "line 2: field store_timestamp must be an integer in [0, 9223372036854775807], not -1"),
    ("negative-born-time", '{"topic": "T", "born_timestamp": -5}', "line 2: field born_timestamp must be"),
    ("queue-id-past-int", '{"topic": "T", "queue_id": 2147483648}', "line 2: field queue_id must be"),
    ("offset-past-long", '{"topic": "T", "transaction": "raw_prepared", "prepared_transaction_offset": '
     '9223372036854775808}', "line 2: field prepared_transaction_offset must be"),
    ("negative-deliver", '{"topic": "T", "deliver_ms": -1}', "line 2: field deliver_ms must be"),
    ("nan", '{"topic": "T", "flag": NaN}', "line 2: not JSON: NaN is no JSON number"),
    ("not-utf8", b'{"topic": "\xff"}', "line 2: not UTF-8"),
]


@pytest.mark.parametrize(("line", "message"), [(line, message) for _, line, message in HOSTILE_LINES],
                         ids=[name for name, _, _ in HOSTILE_LINES])
def test_write_refuses_a_hostile_line_naming_line_and_field(tmp_path, line, message):
    source = tmp_path / "in.jsonl"
    first = b'{"topic": "T", "body": "fine"}\n'
    source.write_bytes(first + (line if isinstance(line, bytes) else line.encode()) + b"\n")
    target = tmp_path / "new"
    text = _one_line_refusal(run_cli(["write", str(target), str(source)]), 2, message, str(source))
    assert len(text) < 400  # the 50,000 digits are not echoed
    assert not target.exists()


def test_a_store_written_by_write_passes_its_own_verify(tmp_path):
    """What write accepts, verify accepts: the times at their lowest allowed value (0) included."""
    source = tmp_path / "in.jsonl"
    source.write_text('{"topic": "T", "store_timestamp": 0, "born_timestamp": 0}\n')
    assert run_cli(["write", str(tmp_path / "new"), str(source)]).code == 0
    run = run_cli(["verify", str(tmp_path / "new"), "--json"])
    assert run.code in (0, 4)
    assert not [p for p in json.loads(run.out)["problems"] if p["code"] in ("record-bad", "checkpoint-time")]


# --- special files inside the store: a finding or one line, never a hang ---------------------------------------------

def _first_segment(root: Path) -> Path:
    return sorted((root / "commitlog").iterdir())[0]


PLACES = {
    "config": lambda root: root / "config" / "topics.json",
    "segment": _first_segment,
    "checkpoint": lambda root: root / "checkpoint",
    "queue-file": lambda root: root / "consumequeue" / "OrderEvents" / "0" / "00000000000000000000",
    "index-file": lambda root: sorted((root / "index").iterdir())[0],
}


@pytest.mark.parametrize("kind", ("fifo", "zero", "directory"))
@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_special_file_inside_the_store_is_a_finding_not_a_hang(tmp_path, place, kind):
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    path = PLACES[place](root)
    rel = path.relative_to(root).as_posix()
    path.unlink()
    _special(kind, path)
    before = fingerprint(root)
    verify = run_cli(["verify", str(root), "--json"])
    assert verify.code in (3, 4) and "Traceback" not in verify.out + verify.err, verify.err[-400:]
    if verify.code == 4:
        named = [p for p in json.loads(verify.out)["problems"] if p["file"] == rel]
        assert named, f"verify names nothing at {rel}"
    else:
        assert rel in verify.err
    for argv in (["info", str(root)], ["census", str(root)], ["messages", str(root), "--limit", "5"],
                 ["key", str(root), "OrderEvents", "order-1108"]):
        run = run_cli(argv)
        assert run.code in (0, 1, 3, 4) and "Traceback" not in run.out + run.err, (argv, run.err[-400:])
    assert not changed(before, fingerprint(root))


def test_rebuild_in_place_with_a_fifo_for_a_lock_refuses_without_blocking(tmp_path):
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    (root / "lock").unlink()
    os.mkfifo(root / "lock")
    before = fingerprint(root)
    _one_line_refusal(run_cli(["rebuild", str(root), "--in-place"]), 3, "lock", "not a regular file (a FIFO)")
    assert not changed(before, fingerprint(root))


# --- arguments outside the shared vocabulary -----------------------------------------------------------------------

@pytest.mark.parametrize("value", ["nan", "inf", "1e308", "-1", "0", "", "1e999", "86400.5", "abc"])
def test_idle_timeout_outside_its_range_is_bad_input(store, value):
    root, pristine = store
    run = run_cli(["messages", str(root), "--follow", "--idle-timeout", value])
    assert run.code == 2 and "Traceback" not in run.err
    assert "argument --idle-timeout: must be an idle time, a decimal number of seconds in (0, 86400]" in run.err
    assert not changed(pristine, fingerprint(root))


def test_idle_timeout_in_range_stops_the_follow(store):
    root, _ = store
    run = run_cli(["messages", str(root), "--follow", "--idle-timeout", "0.05"])
    assert run.code == 0 and run.out == ""


@pytest.mark.parametrize("levels", ["99999999999999999999d", "", "   ", "1s 5x", "1s 9223372036854775807s"])
def test_delay_levels_flag_outside_the_broker_notation_is_bad_input(store, levels):
    root, pristine = store
    _one_line_refusal(run_cli(["verify", str(root), "--delay-levels", levels]), 2, "--delay-levels")
    assert not changed(pristine, fingerprint(root))


@pytest.mark.parametrize(("value", "words"), [("99999999999999999999d", "delay level 1"),
                                              ("", "no delay level at all"), ("1s 2s 3q", "'3q' (level 3)")])
def test_delay_levels_in_broker_config_outside_the_notation_name_the_line(store, tmp_path, value, words):
    root, pristine = store
    conf = tmp_path / "broker.conf"
    conf.write_text(f"# a broker\nbrokerName=b\nmessageDelayLevel={value}\n")
    _one_line_refusal(run_cli(["verify", str(root), "--broker-config", str(conf)]), 2, str(conf), "line 3",
                      "messageDelayLevel", words)
    assert not changed(pristine, fingerprint(root))


def test_show_at_the_log_end_offset_names_nothing(store):
    root, pristine = store
    end = json.loads(run_cli(["info", str(root), "--json"]).out)["max_physical_offset"]
    for offset in (end, end + 1):
        run = _one_line_refusal(run_cli(["show", str(root), str(offset)]), 1, "past the end of the log")
        assert f"physical offset {offset}" in run
    assert not changed(pristine, fingerprint(root))


@pytest.mark.parametrize("kind", ("fifo", "zero", "directory"))
def test_a_special_file_in_place_of_a_timer_log_file_is_a_finding(tmp_path, kind):

    root = build_store("timer", tmp_path / "store")
    path = sorted((root / "timerlog").iterdir())[-1]
    rel = path.relative_to(root).as_posix()
    path.unlink()
    _special(kind, path)
    before = fingerprint(root)
    verify = run_cli(["verify", str(root), "--json"])
    assert verify.code == 4 and "Traceback" not in verify.out + verify.err, verify.err[-400:]
    assert [p for p in json.loads(verify.out)["problems"] if p["file"] == rel and p["code"] == "not-a-timer-file"]
    for argv in (["timer", str(root), "--json"], ["timer", str(root), "--summary", "--json"], ["info", str(root)]):
        run = run_cli(argv)
        assert run.code in (0, 3, 4) and "Traceback" not in run.out + run.err, (argv, run.err[-400:])
    assert not changed(before, fingerprint(root))


@pytest.mark.parametrize(("content", "words"), [
    (None, "not a regular file (a FIFO)"),
    ('{"T@g": {"0": -5}}', "'-5' is no offset in [0, 2^63-1]"),
    ('{"T@g": {"3000000000": 5}}', "'3000000000' is no queue id in [0, 2^31-1]"),
    ('{"T@g": {"0": ' + "9" * 5000 + "}}", "number too long"),
])
def test_write_consumer_offsets_file_is_guarded_and_bounded(tmp_path, content, words):
    offsets = tmp_path / "offsets.json"
    if content is None:
        os.mkfifo(offsets)
    else:
        offsets.write_text(content)
    source = tmp_path / "in.jsonl"
    source.write_text('{"topic": "T"}\n')
    target = tmp_path / "new"
    _one_line_refusal(run_cli(["write", str(target), str(source), "--consumer-offsets", str(offsets)]), 2,
                      "--consumer-offsets", words)
    assert not target.exists()


@pytest.mark.parametrize("kind", ("fifo", "zero"))
@pytest.mark.parametrize("rel", ["dledger-n0/data/00000000000000131072", "dledger-n0/index/00000000000000000000",
                                 "dledger-n0/checkpoint", "dledger-n0/currterm"])
def test_a_special_file_in_a_dledger_store_is_a_finding(tmp_path, rel, kind):
    root = tmp_path / "store"
    shutil.copytree(SAMPLE.parent / "sample_store_dledger", root, ignore=shutil.ignore_patterns("README.md"))
    (root / rel).unlink()
    _special(kind, root / rel)
    before = fingerprint(root)
    verify = run_cli(["verify", str(root), "--json"])
    assert verify.code == 4 and "Traceback" not in verify.out + verify.err, verify.err[-400:]
    assert [p for p in json.loads(verify.out)["problems"] if p["file"] == rel]
    for argv in (["info", str(root)], ["messages", str(root), "--limit", "5"]):
        run = run_cli(argv)
        assert run.code in (0, 3) and "Traceback" not in run.out + run.err, (argv, run.err[-400:])
    assert not changed(before, fingerprint(root))


def test_a_key_table_holding_a_fifo_is_refused_before_it_is_opened(tmp_path):
    table = tmp_path / "keys"
    table.mkdir()
    os.mkfifo(table / "part-0.parquet")  # pyarrow would open it and wait for a writer
    _one_line_refusal(run_cli(["key", "--keyindex", str(table), "T", "K"]), 2,
                      "not a key table: part-0.parquet is no regular file")


def test_a_zero_delay_level_is_the_brokers_own(store):
    """``ScheduleMessageService.parseDelayLevel`` (4.9.8, 5.3.1) stores ``tu * num`` without a check: 0s is a level
    the broker runs with (it delivers at once), so it is read, not refused."""
    root, pristine = store
    run = run_cli(["info", str(root), "--delay-levels", "0s 5s", "--json"])
    assert run.code == 0, run.err
    assert not changed(pristine, fingerprint(root))


@pytest.mark.parametrize("kind", ("fifo", "directory"))
@pytest.mark.parametrize(("source", "rel"), [("timer", None), ("dledger", "dledger-n0/index/00000000000000000000")])
def test_info_names_a_special_file_where_a_timer_log_or_dledger_index_file_belongs(tmp_path, source, rel, kind):
    """info lists such an entry as verify does (one rule: the same finding, file, code and reason), once in the
    table; the other kinds (commitlog, consume queues) were already named by both."""
    root = tmp_path / "store"
    if source == "timer":
        build_store("timer", root)
        rel = sorted((root / "timerlog").iterdir())[-1].relative_to(root).as_posix()
    else:
        shutil.copytree(SAMPLE.parent / "sample_store_dledger", root, ignore=shutil.ignore_patterns("README.md"))
    (root / rel).unlink()
    _special(kind, root / rel)
    before = fingerprint(root)
    verify = json.loads(run_cli(["verify", str(root), "--json"]).out)["problems"]
    said = [p for p in verify if p["file"] == rel]
    assert len(said) == 1, verify
    info = run_cli(["info", str(root), "--json"])
    assert info.code == 0, info.err[-400:]
    assert [p for p in json.loads(info.out)["problems"] if p["file"] == rel] == said
    table = run_cli(["info", str(root)])
    assert table.code == 0 and (table.out + table.err).count(f"{rel} @ 0: ") == 1, table.err[-400:]
    assert not changed(before, fingerprint(root))
