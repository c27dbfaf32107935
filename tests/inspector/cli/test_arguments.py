"""Impossible arguments: every command refuses them with exit 2 and the argument's allowed range, in-process and
as a process, and the same value gets the same answer from every command (issue 22)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.engine import BadInput, Store

REPO = Path(__file__).resolve().parents[3]
SAMPLE = str(REPO / "sample_store")
HUGE = "1" * 4400  # past Python's 4,300-digit int() limit
INT64 = "[0, 9223372036854775807]"

# (argv, what stderr must say): every one exit 2
IMPOSSIBLE = [
    (["messages", SAMPLE, "--limit", "-5"], "argument --limit: must be a message count, an integer in [1, "),
    (["messages", SAMPLE, "--limit", "0"], "argument --limit: must be a message count"),
    (["verify", SAMPLE, "--segment-size", "3"], "argument --segment-size: must be a commitlog segment size in bytes"),
    (["verify", SAMPLE, "--segment-size", "-1"], "argument --segment-size: must be"),
    (["verify", SAMPLE, "--segment-size", "0"], "argument --segment-size: must be"),
    (["verify", SAMPLE, "--index-items", "-1"], "argument --index-items: must be an index item count"),
    (["verify", SAMPLE, "--cq-file-size", "7"], "that is a multiple of 20, not '7'"),
    (["verify", SAMPLE, "--index-slots", str(1 << 63)], "argument --index-slots: must be a hash slot count"),
    (["messages", SAMPLE, "--from", "-1"], f"argument --from: must be a physical or queue offset, an integer in {INT64}"),
    (["show", SAMPLE, "-1"], f"offset must be a physical offset, an integer in {INT64}, not '-1'"),
    (["hex", SAMPLE, "-1"], f"argument offset: must be a physical offset, an integer in {INT64}, not '-1'"),
    (["hex", SAMPLE, "-0x10"], "argument offset: must be a physical offset"),
    (["hex", SAMPLE, "0", "--length", "0"], "argument --length: must be a length in bytes, an integer in [1, "),
    (["show", SAMPLE, "٣"], "is neither a physical offset (an integer in [0, "),
    (["hex", SAMPLE, "٣"], "argument offset: must be a physical offset"),
    (["key", SAMPLE, "--begin", "-1", "OrderEvents", "order-1108"],
     "argument --since/--begin: must be a store time"),  # --begin is --since's alias (issue 31 item 2)
    (["key", SAMPLE, "OrderEvents", "order-1108", "--end", "-1"], "argument --end: must be a store time"),
    (["show", SAMPLE, HUGE], f"offset must be a physical offset, an integer in {INT64}, not '1111"),
    (["hex", SAMPLE, HUGE], "(4400 characters)"),
    (["messages", SAMPLE, "--from", HUGE], "argument --from: must be"),
    (["messages", SAMPLE, "--topic", "OrderEvents", "--queue", "-1"], "argument --queue: must be a queue id"),
    (["web", SAMPLE, "--port", "99999"], "argument --port: must be a TCP port, an integer in [0, 65535]"),
]


def _one_line(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("rmq-inspect:")]


@pytest.mark.parametrize(("argv", "says"), IMPOSSIBLE, ids=lambda v: " ".join(v)[:60] if isinstance(v, list) else "")
def test_impossible_arguments_are_exit_2_with_the_range(capsys, argv, says):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (argv, err)
    assert "Traceback" not in out + err
    lines = _one_line(err)
    assert len(lines) == 1 and says in lines[0], lines


def test_the_same_refusals_from_a_process():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for argv, says in IMPOSSIBLE[::3] + [IMPOSSIBLE[17]]:
        proc = subprocess.run([sys.executable, "-m", "inspector.cli.main", *argv], capture_output=True, text=True,
                              timeout=120, env=env, check=False)
        assert proc.returncode == 2, (argv, proc.stderr)
        assert "Traceback" not in proc.stdout + proc.stderr
        assert says in proc.stderr, (argv, proc.stderr)


def test_minus_one_gets_one_answer_from_every_command(capsys):
    """messages --from, show and hex: the same value, the same exit code and the same range."""
    answers = []
    for argv in (["messages", SAMPLE, "--from", "-1"], ["show", SAMPLE, "-1"], ["hex", SAMPLE, "-1"]):
        code = main(argv)
        answers.append((code, INT64 in capsys.readouterr().err))
    assert answers == [(2, True)] * 3


def test_positionals_may_follow_options(capsys):
    for argv in (["key", SAMPLE, "--begin", "1", "OrderEvents", "order-1108", "--json"],
                 ["key", SAMPLE, "OrderEvents", "order-1108", "--begin", "1", "--json"]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0 and len(json.loads(out)["messages"]) == 3, (argv, err)  # order-1108 is under 3 messages


def test_values_in_range_still_work(capsys):
    assert main(["hex", SAMPLE, "0x10", "--length", "1", "--json"]) == 0
    assert main(["messages", SAMPLE, "--limit", "1", "--from", "0", "--json"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("geometry", [dict(segment_size=3), dict(segment_size=0), dict(cq_file_size=7),
                                      dict(index_items=-1), dict(index_slots=1 << 63)])
def test_the_store_refuses_impossible_geometry_from_python_callers_too(geometry):
    with pytest.raises(BadInput, match="must be"):
        Store(SAMPLE, **geometry)


@pytest.mark.parametrize("offset", ["2,458", "2_458", "0x99a"])
def test_an_offset_as_the_screens_show_it_names_the_same_record(cli, offset):
    """The TUI and the tables group digits (2,458): copied into `show`, `hex` or `--from` they read (issue 33)."""
    code, out, _ = cli("show", SAMPLE, offset, "--json")
    assert code == 0 and json.loads(out)["physical_offset"] == 2458
    code, out, _ = cli("messages", SAMPLE, "--from", offset, "--limit", "1", "--json")
    assert code == 0 and json.loads(out.splitlines()[0])["physical_offset"] == 2458
