"""Every documented example is a test (issue 27): each ``rmq-inspect`` command line in a fenced block of README.md,
sample_store/README.md, sample_store_dledger/README.md and sample_store_aged/README.md, each tour step's commands and each exercise's command
is run against the sample stores (or against the store its block writes, in a temporary folder), and its exit code
and the figures its text quotes are checked.

How a README block is read: in a ``console`` block ``$ `` starts a command and the lines under it are its output;
``$ cat NAME`` lines give a file's content (the file exists for every block of that document); ``$ echo $?``
gives the previous command's exit code; a comment ``# exit N`` / ``# exit code N`` does too; an output line
``rmq-inspect: ...`` means a refusal (exit 1, 2 or 3), otherwise 0. In plain blocks every line that starts with
``rmq-inspect`` is a command. Every figure of the shown output (numbers, dates, offsets, 32-hex ids) must appear in
the real output. ``| jq ...`` is applied with jq when jq is installed.

Paths: ``/tmp/NAME`` and ``~/NAME`` become folders of the block's own temporary directory; what a block reads
before writing it is built first (:data:`PREPARE`), ``~/store`` by what the line's own text says (:data:`HOME`).
A command line nobody mapped fails: a new example must run, or be listed here with the reason it cannot.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.engine import Store
from inspector.engine.workshop.exercises import generate
from inspector.engine.workshop.tour_steps import tour_steps

REPO = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "sample_store/README.md", "sample_store_dledger/README.md", "sample_store_aged/README.md")
SAMPLES = ("sample_store", "sample_store_dledger", "sample_store_aged")

# The sample store's geometry as a broker.conf says it (README: "--broker-config broker.conf" on a store whose
# settings it matches), and the documented path of that file.
BROKER_CONF = ("mappedFileSizeCommitLog=65536\nmappedFileSizeConsumeQueue=800\nmaxHashSlotNum=128\n"
               "maxIndexNum=512\n")
REWRITE = {"/opt/rocketmq/conf/broker.conf": "broker.conf"}

# Files a command names that no "$ cat" in the document shows, by what the text says of them.
FILES = {
    "broker.conf": BROKER_CONF,
    # "write /tmp/dl messages.jsonl --dledger --pre-dledger 100 --dledger-term 120:2": any 200 messages
    "messages.jsonl": "".join(json.dumps({"topic": "TopicA", "body": f"m{i}", "keys": [f"k{i}"]}) + "\n"
                              for i in range(200)),
    # "--consumer-offsets offsets.json   # {"%LMQ%x@%LMQ%x": {"0": 2}, ...}"
    "offsets.json": json.dumps({"%LMQ%x@%LMQ%x": {"0": 2}, "TopicA@g": {"0": 1}}),
}

# A store a block reads before (or without) writing it: the command that writes it, as the document writes it.
PREPARE = {
    "tmp/bcq": "rmq-inspect write tmp/bcq batch.jsonl --batch-topic Direct5BatchCQ",
    "tmp/lmq": "rmq-inspect write tmp/lmq lmq.jsonl --consumer-offsets offsets.json",
    "tmp/timers": "rmq-inspect write tmp/timers timers.jsonl --timer-now 1700000010000",
    "tmp/empty": "mkdir",
    "sample_copy": "copy sample_store",
    # "A root with several members": the DLedger sample with a copy of its member as dledger-n1
    "tmp/group": "copy sample_store_dledger dledger-n0 dledger-n1",
    # "DLedger 0.4.0+ also writes NOOP ... and CONFIG_CHANGE entries": the DLedger sample with both appended
    "tmp/dl04": "newer entries",
    # "Salvaging a damaged store": the sample with bytes 4096..8192 of its first segment zeroed
    "damaged_store": "zeroed page",
}

# Commands that are not run, each with the reason and where the same promise is tested. Keyed by the line as
# written (comment included, spaces collapsed).
SKIP = {
    "pip install -e '.[all]' && rmq-inspect sample_store":
        "installs the package and opens the interactive terminal UI (tests/inspector/tui/ drive it)",
    "rmq-inspect ~/store # the TUI: overview node \"Broker settings\", space: level by level, inferred ones marked":
        "the interactive terminal UI (tests/inspector/tui/test_tui_broker_config.py)",
    "rmq-inspect spark export /tmp/bcq --out /tmp/bcq-parquet # Direct5BatchCQ: rows at queue offsets 0, 1, ...":
        "a Spark session (a JVM, seconds per job; tests/inspector/spark/test_spark_batch_queues.py runs it)",
    "rmq-inspect spark stats /tmp/bcq # messages = inner messages, bytes = records":
        "a Spark session (a JVM, seconds per job; tests/inspector/spark/test_spark_batch_queues.py runs it)",
    "rmq-inspect key STORE T2 k1499 # the newest index file gone, as #8007 leaves it":
        "a writer-made store with its newest index file deleted (tests/unindexed_store.py); "
        "tests/inspector/cli/test_index_coverage_cli.py runs this lookup and checks the mark",
    "rmq-inspect messages sample_store --json --limit 100000 | jq -c 'select(.topic == \"OrderEvents\")' | "
    "rmq-inspect write /tmp/orders - --segment-size 65536":
        "a pipeline into write's stdin; tests/inspector/cli/test_write_roundtrip_cli.py writes a filtered export",
    "rmq-inspect messages sample_store --json --limit 100000 | rmq-inspect write /tmp/copy - --segment-size 65536 "
    "--keep-offsets":
        "a pipeline into write's stdin; tests/inspector/cli/test_write_roundtrip_cli.py runs this round trip",
    "rmq-inspect messages sample_store_dledger --json --limit 100000 | rmq-inspect write /tmp/dlcopy - "
    "--segment-size 65536 --dledger --pre-dledger 100 --dledger-term 120:2 --dledger-term 230:4 --keep-offsets":
        "a pipeline into write's stdin; tests/inspector/cli/test_write_roundtrip_cli.py runs this round trip",
    "rmq-inspect web sample_store --host 0.0.0.0 --port 8080 # prints http://HOST:8080/?token=... (the room's URL)":
        "serves until Ctrl-C on a fixed port; tests/web/test_web_access.py starts the same command bound everywhere "
        "(the token printed in the URL, 401 without it) and tests/web/test_web_server.py the warning",
    "rmq-inspect web sample_store --host 0.0.0.0 --workshop # prints the participants' URL and the trainer's":
        "serves until Ctrl-C; tests/web/test_web_live.py starts the same command (both URLs printed) and "
        "tests/web/test_browser_workshop_room.py drives the room in two Chromium pages",
    "rmq-inspect key STORE T2 k1499 --no-scan; echo $?":
        "the same store; tests/inspector/cli/test_index_coverage_cli.py checks the 'not searched' answer, exit 1",
}

# What ~/store (and ~/damaged) is, by the line's own words: "sample" a copy of the sample store,
# "nested" a folder holding a store one level down, "delay" a 4.9.8 broker's store whose delay table is not the
# default, "split" the sample with its commitlog over two folders and the broker.conf naming them,
# "lmq-mismatch" a record naming two LMQ queues with one offset (tests/lmq_store.py), "rocksdb" a
# storeType=defaultRocksDB broker's offsets database beside a stale consumerOffset.json (and a broker.conf with
# enableLmq=true), "rocksdb-damaged" that database with a CURRENT naming a missing MANIFEST
# (tests/offsets_support.py); else the reason it is not built here.
HOME = {
    "rmq-inspect verify ~/store --broker-config /opt/rocketmq/conf/broker.conf": "sample",
    "rmq-inspect info ~/store --broker-config broker.conf --json | jq .settings": "sample",
    "rmq-inspect info ~/store # a DLedger store (dledger-n0/data) opens: see \"DLedger stores\" below": "nested",
    "rmq-inspect info ~/store --json | jq -c '.settings[] | select(.name == \"messageDelayLevel\")' # a 4.9.8 "
    "broker, messageDelayLevel=1s 2s 3s ... 2h": "delay",
    "rmq-inspect verify ~/store # no false cq-mismatch on SCHEDULE_TOPIC_XXXX: exit 0": "delay",
    "rmq-inspect census ~/store --broker-config broker.conf # storePathCommitLog=/disk1/commitlog,/disk2/commitlog":
        "split",
    "rmq-inspect verify ~/store": "lmq-mismatch",
    "rmq-inspect info ~/store # a storeType=defaultRocksDB broker": "rocksdb",
    "rmq-inspect info ~/store --broker-config broker.conf --json | jq .offsets # enableLmq=true in broker.conf":
        "rocksdb",
    "rmq-inspect info ~/damaged # CURRENT names a MANIFEST that is not there": "rocksdb-damaged",
}


# Lines whose comment describes the input, not the output (elsewhere a comment's figures must be in the output).
COMMENT_IS_SETUP = {
    "rmq-inspect info ~/store --json | jq -c '.settings[] | select(.name == \"messageDelayLevel\")' # a 4.9.8 "
    "broker, messageDelayLevel=1s 2s 3s ... 2h",
    "rmq-inspect write /tmp/lmq lmq.jsonl --consumer-offsets offsets.json # {\"%LMQ%x@%LMQ%x\": {\"0\": 2}, ...}",
    "rmq-inspect write /tmp/timers timers.jsonl --timer-now 1700000010000 # the first is due by then: delivered",
}

# Figures that are the machine's, not the store's: allocated bytes depend on the file system and on how the copy
# was made (sparse or not).
VARYING = {
    "touch sample_copy/commitlog/00000000000000000001 && rmq-inspect census sample_copy": {"167,936", "331,776"},
}


@dataclass
class Command:
    doc: str
    line: int
    text: str  # as written, without "$ "
    output: list[str] = field(default_factory=list)
    exit_code: int | None = None  # from "echo $?"

    @property
    def key(self) -> str:
        return " ".join(self.text.split())

    @property
    def shell(self) -> str:
        """The command without its comment."""
        return re.split(r"\s{2,}#\s|\s#\s(?=[^'\"]*$)", self.text, maxsplit=1)[0].strip()

    @property
    def comment(self) -> str:
        return self.text[len(self.shell):].strip().lstrip("#").strip()


@dataclass
class Block:
    doc: str
    line: int
    commands: list[Command]

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def blocks(doc: str) -> tuple[list[Block], dict[str, str]]:
    """The fenced blocks of ``doc`` that hold rmq-inspect commands, and the files ``$ cat`` shows in it."""
    found: list[Block] = []
    files: dict[str, str] = {}
    fence: str | None = None
    current: list[Command] = []
    start = 0
    for n, raw in enumerate((REPO / doc).read_text(encoding="utf-8").splitlines(), 1):
        if raw.startswith("```"):
            if fence is None:
                fence, current, start = raw[3:].strip(), [], n
            else:
                for c in current:
                    if c.text.startswith("cat "):
                        files[c.text.split()[1]] = "".join(line + "\n" for line in c.output)
                runs = [c for c in current if "rmq-inspect" in c.text]
                if runs:
                    found.append(Block(doc, start, current))
                fence = None
            continue
        if fence is None:
            continue
        if fence == "console":
            if raw.startswith("$ "):
                current.append(Command(doc, n, raw[2:].strip()))
            elif current:
                if current[-1].text == "echo $?":  # its output is the exit code of the command before it
                    current[-2].exit_code = int(raw.strip())
                else:
                    current[-1].output.append(raw)
        elif "rmq-inspect" in raw and (raw.lstrip().startswith("rmq-inspect ") or "&& rmq-inspect " in raw):
            current.append(Command(doc, n, raw.strip()))
    return found, files


def all_blocks() -> list[tuple[Block, dict[str, str]]]:
    out = []
    for doc in DOCS:
        found, files = blocks(doc)
        out += [(b, files) for b in found]
    return out


BLOCKS = all_blocks()


def figures(lines: list[str]) -> set[str]:
    """The figures a shown output quotes: numbers (with their separators: dates, times, 1,234, 266.8) and ids."""
    text = "\n".join(lines)
    found = set(re.findall(r"(?<![\w.])\d(?:[\d,.:\-]*\d)?", text))
    found |= set(re.findall(r"\b[0-9A-F]{32}\b", text))
    return found


def expected_exit(c: Command) -> int | None:
    """0, the code the text states, or None for "a refusal" (1, 2 or 3)."""
    if c.exit_code is not None:
        return c.exit_code
    said = re.search(r"exit(?: code)? (\d)", c.comment)
    if said:
        return int(said.group(1))
    if any(line.startswith("rmq-inspect: ") for line in c.output):
        return None
    return 0


def local(text: str) -> str:
    """Document paths as paths of the block's folder: /tmp/X -> tmp/X, ~/X -> home/X."""
    for a, b in REWRITE.items():
        text = text.replace(a, b)
    return re.sub(r"(?<![\w/])~/", "home/", re.sub(r"(?<![\w/])/tmp/", "tmp/", text))


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    out.buffer = io.BytesIO()  # type: ignore[attr-defined]  # the JSON Lines path writes bytes
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    text = out.getvalue() + out.buffer.getvalue().decode("utf-8", "surrogateescape")  # type: ignore[attr-defined]
    return code, text, err.getvalue()


def prepare(work: Path, name: str) -> None:
    how = PREPARE[name]
    if how == "mkdir":
        (work / name).mkdir(parents=True)
    elif how == "zeroed page":
        from zeroed_page_store import zeroed_page_store

        zeroed_page_store(work / name)
    elif how == "newer entries":
        from dledger_newer import newer_entries_store

        newer_entries_store(work / name)
    elif how.startswith("copy "):
        source, *member = how.split()[1:]
        shutil.copytree(REPO / source, work / name)
        if member:
            shutil.copytree(work / name / member[0], work / name / member[1])
    else:
        code, _, err = run_cli(shlex.split(how)[1:])
        assert code == 0, f"preparing {name}: {how}: {err}"


BUILT = ("sample", "nested", "delay", "split", "lmq-mismatch", "rocksdb", "rocksdb-damaged")
# the 4.9.8 broker's table of the README's example: the sampled levels 2, 5, 13 and 18 differ from the default
DELAY_TABLE = "1s 2s 3s 4s 5s 6s 7s 8s 9s 10s 20s 30s 1m 2m 3m 4m 1h 2h"


def home(work: Path, c: Command) -> None:
    """Build the store a ~/ path names for this line (:data:`HOME`)."""
    what = HOME[c.key]
    store = work / "home" / re.search(r"~/(\w+)", c.shell).group(1)
    if store.exists():  # one block's lines read one ~/store
        return
    (work / "home").mkdir(exist_ok=True)
    if what == "sample":
        shutil.copytree(REPO / "sample_store", store)
    elif what == "nested":
        shutil.copytree(REPO / "sample_store", store / "store")
    elif what == "delay":
        _delay_store(store)
    elif what == "split":
        from split_commitlog import split_commitlog

        _, conf, _ = split_commitlog(REPO / "sample_store", work / "home" / "disks")
        shutil.move(work / "home" / "disks" / "split" / "store", store)
        shutil.copy(conf, work / "broker.conf")
    elif what == "lmq-mismatch":
        from lmq_store import write_odd_multi_dispatch_store

        write_odd_multi_dispatch_store(store, {"INNER_MULTI_DISPATCH": "%LMQ%a,%LMQ%b",
                                               "INNER_MULTI_QUEUE_OFFSET": "0"})
    elif what in ("rocksdb", "rocksdb-damaged"):
        from offsets_support import offsets_store, v1_offsets_db

        offsets_store(store)  # TopicTest queue 0: 5 messages
        v1_offsets_db(store, {"TopicTest@g1": b'{"offsetTable":{0:1}}'})
        (store / "config" / "consumerOffset.json").write_text('{"offsetTable":{"TopicTest@g1":{0:4}}}')
        (work / "broker.conf").write_text("enableLmq=true\n")
        if what == "rocksdb-damaged":
            (store / "config" / "consumerOffsets" / "CURRENT").write_text("MANIFEST-000099\n")
    else:
        raise AssertionError(what)


def _delay_store(root: Path) -> None:
    """Two delayed messages at each of levels 2, 5, 13 and 18 under :data:`DELAY_TABLE` (8 units of
    SCHEDULE_TOPIC_XXXX), between ordinary ones."""
    from inspector.engine import Geometry
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter

    t0 = 1_760_000_000_000
    with StoreWriter(root, Geometry(8192, 400, 64, 256, DELAY_TABLE), clock=lambda: t0 + 10_000_000) as w:
        for i, level in enumerate((0, 2, 5, 13, 18) * 2):
            w.append(MessageSpec("Orders", f"order {i}".encode(), delay_level=level, store_timestamp=t0 + 1000 * i,
                                 born_timestamp=t0 + 1000 * i - 1))


def run_command(work: Path, c: Command, made: set[str]) -> tuple[int, str, str]:
    shell = local(c.shell)
    if " && " in shell:  # "touch FILE && rmq-inspect ...": the touch is done here
        before, shell = shell.rsplit(" && ", 1)
        for part in before.split(" && "):
            words = shlex.split(part)
            assert words[0] == "touch", f"{c.doc}:{c.line}: no way to run {part!r}"
            for name in words[1:]:
                _need(work, name, made)
                (work / name).touch()
    pipe = None
    filters: list[list[str]] = []
    if " | jq " in shell:
        shell, pipe = shell.split(" | jq ", 1)
    elif " | " in shell:  # "... --format tsv | cut -f3,20,23", "| head -3": plain filters, each run on the output
        shell, *rest = shell.split(" | ")
        filters = [shlex.split(f) for f in rest]
        assert all(f[0] in ("head", "tail", "cut", "grep", "sort", "wc") for f in filters), \
            f"{c.doc}:{c.line}: no way to run {rest}"
    words = shlex.split(shell)
    assert words[0] == "rmq-inspect", f"{c.doc}:{c.line}: not an rmq-inspect command: {shell}"
    argv = words[1:]
    if argv and argv[0] == "write":
        made.add(argv[1])
    for word in argv:
        _need(work, word, made)
    code, out, err = run_cli(argv)
    if pipe is not None and code == 0 and shutil.which("jq"):
        jq = subprocess.run(["jq", *shlex.split(pipe)], input=out, capture_output=True, text=True, timeout=30)
        assert jq.returncode == 0, f"{c.doc}:{c.line}: jq {pipe}: {jq.stderr}"
        out = jq.stdout
    for f in filters:
        out = subprocess.run(f, input=out, capture_output=True, text=True, timeout=30).stdout
    return code, out, err


def _need(work: Path, word: str, made: set[str]) -> None:
    top = "/".join(word.split("/")[:2]) if word.startswith(("tmp/", "home/")) else word.split("/")[0]
    if top in made or (work / top).exists():
        return
    if top in PREPARE:
        prepare(work, top)
        made.add(top)


@pytest.mark.parametrize(("block", "files"), BLOCKS, ids=[b.id for b, _ in BLOCKS])
def test_documented_block_runs_and_shows_what_it_says(block: Block, files: dict[str, str], tmp_path: Path,
                                                     monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for sample in SAMPLES:
        (tmp_path / sample).symlink_to(REPO / sample, target_is_directory=True)
    for name, content in {**FILES, **files}.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
    made: set[str] = set()
    ran = 0
    for c in block.commands:
        if "rmq-inspect" not in c.text:
            if c.text.startswith("ls "):  # "ls DIR": the names it shows are there
                names = sorted(p.name for p in (tmp_path / local(c.text.split()[1])).iterdir())
                assert names == sorted(" ".join(c.output).split()), f"{c.doc}:{c.line}"
            continue
        if c.key in SKIP:
            continue
        if re.search(r"(?<![\w/])~/", c.shell):
            assert c.key in HOME, f"{c.doc}:{c.line}: {c.text!r} names a store nobody built: add it to HOME"
            if HOME[c.key] not in BUILT:
                continue  # the reason is in HOME
            home(tmp_path, c)
        code, out, err = run_command(tmp_path, c, made)
        ran += 1
        want = expected_exit(c)
        if want is None:
            assert code in (1, 2, 3), f"{c.doc}:{c.line}: {c.text}: exit {code}, a refusal expected\n{out}{err}"
        else:
            assert code == want, f"{c.doc}:{c.line}: {c.text}: exit {code}, not {want}\n{out}{err}"
        assert "Traceback" not in out + err
        said = re.sub(r"exit(?: code)? \d|\S*/\S*", "", c.comment)  # exit codes are checked above; paths are names
        shown = c.output + ([] if c.key in COMMENT_IS_SETUP else [said])
        missing = sorted(f for f in figures(shown) - VARYING.get(c.key, set()) if f not in out + err)
        assert not missing, f"{c.doc}:{c.line}: {c.text}: figures not in the output: {missing}\n{out}{err}"
    skipped = [c for c in block.commands if c.key in SKIP or HOME.get(c.key, "sample") not in BUILT]
    if not ran:
        pytest.skip("; ".join(SKIP.get(c.key) or HOME[c.key] for c in skipped))


def test_every_documented_command_is_found() -> None:
    """The extraction sees the examples (a change of the block format would otherwise test nothing)."""
    commands = [c for b, _ in BLOCKS for c in b.commands if "rmq-inspect" in c.text]
    by_doc = {doc: sum(1 for c in commands if c.doc == doc) for doc in DOCS}
    assert by_doc["README.md"] >= 40 and by_doc["sample_store/README.md"] >= 30, by_doc
    # every table key names a documented line: a stale entry would hide nothing, but says the docs moved on
    keys = {c.key for c in commands}
    assert not set(SKIP) - keys and not set(HOME) - keys, (set(SKIP) - keys, set(HOME) - keys)


def test_inline_commands_name_real_subcommands(capsys) -> None:
    """`rmq-inspect X ...` in the prose: X is a subcommand (its --help answers) or the STORE the TUI opens."""
    names = set()
    for doc in DOCS:
        for span in re.findall(r"`rmq-inspect ([^`]*)`", (REPO / doc).read_text(encoding="utf-8")):
            first = span.split()[0] if span.split() else ""
            if first and not first.startswith("-") and first not in ("STORE", "sample_store", "~/store"):
                names.add(first)
    assert names, "no inline command found"
    for name in sorted(names):
        try:
            code = main([name, "--help"])
        except SystemExit as done:  # argparse's --help
            code = done.code
        assert code == 0, name
    capsys.readouterr()


# -- the tour and the exercises ----------------------------------------------------------------------------------


def _run_line(line: str) -> tuple[int, str, str]:
    return run_cli(shlex.split(local(line))[1:])


@pytest.fixture
def samples_here(tmp_path: Path, monkeypatch) -> Path:
    """A folder holding the sample stores (linked) as the current directory: a command's /tmp/X writes there."""
    monkeypatch.chdir(tmp_path)
    for sample in SAMPLES:
        (tmp_path / sample).symlink_to(REPO / sample, target_is_directory=True)
    (tmp_path / "tmp").mkdir()
    return tmp_path


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_tour_step_command_runs(sample: str, samples_here: Path) -> None:
    with Store(sample) as store:
        steps = tour_steps(store)
    lines = [c for s in steps for c in s.commands]
    assert len(lines) >= 10
    for line in lines:
        code, out, err = _run_line(line)
        assert code == 0 and "Traceback" not in out + err, f"{line}: exit {code}\n{err}"


EXERCISE_SEEDS = (0, 1, 2)


@pytest.mark.parametrize("seed", EXERCISE_SEEDS)
def test_every_exercise_command_runs_and_shows_the_answer(seed: int, samples_here: Path) -> None:
    """Each exercise's command exits 0 (1 where the answer is that nothing is found) and its output holds the
    answer (for the kinds whose answer is a figure the command prints; the others are listed with the reason)."""
    with Store("sample_store") as store:
        exercises = generate(store, seed=seed)
    assert len(exercises) >= 10
    for ex in exercises:
        assert ex.command.startswith("rmq-inspect "), ex.kind
        code, out, err = _run_line(ex.command)
        want = 1 if ex.expected == ("none",) else 0  # a rolled-back transaction: key finds no COMMIT
        assert code == want and "Traceback" not in out + err, f"{ex.kind}: {ex.command}: exit {code}\n{err}"
        if ex.kind in ANSWER_NOT_PRINTED or ex.expected == ("none",):  # "none": the not-found line is the answer
            continue
        assert all(str(e) in out for e in ex.expected), f"{ex.kind}: {ex.command} does not show {ex.expected}"


# exercise kinds whose command shows what the answer is worked out from, not the answer itself
ANSWER_NOT_PRINTED = {
    "delay-tagscode": "the answer is a difference: the unit's tagsCode (given) minus the store time the listing shows",
}


if __name__ == "__main__":  # list what the suite runs
    for b, _ in BLOCKS:
        for c in b.commands:
            print(f"{c.doc}:{c.line}: {c.text}")
    sys.exit(0)
