"""The rule for missing tools (tests/external_tools.py), proven on a tiny generated test file run by a real pytest:
without RMQ_INSPECT_REQUIRE_TOOLS the test is skipped with one line naming the tool and its install command; with
it (as in .ci/run) the same missing tool is a failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import external_tools

TESTS = Path(__file__).resolve().parent

GENERATED = '''
from external_tools import Tool, need

ABSENT = Tool("frobnicator", "the frob tests", "sudo apt-get install frobnicator", "brew install frobnicator",
              lambda: None)
PRESENT = Tool("python", "the frob tests", "unused", "unused", lambda: "/usr/bin/python3")


def test_needs_the_absent_tool():
    need(ABSENT)


def test_needs_it_too():
    need(ABSENT)


def test_needs_a_present_tool():
    assert need(PRESENT) == "/usr/bin/python3"
'''


def _run(tmp_path: Path, require: str | None) -> subprocess.CompletedProcess:
    (tmp_path / "test_generated.py").write_text(GENERATED, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in (external_tools.REQUIRE_ENV, "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    if require is not None:
        env[external_tools.REQUIRE_ENV] = require
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "external_tools", "-p", "no:cacheprovider",
                           "-p", "no:randomly", "-o", "addopts=", "--rootdir", str(tmp_path), "-rs",
                           str(tmp_path / "test_generated.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


LINE = "frobnicator is not installed, needed by the frob tests: install it with `{}`".format(
    "brew install frobnicator" if sys.platform == "darwin" else "sudo apt-get install frobnicator")


def test_a_missing_tool_is_a_skip_naming_the_tool_and_its_install_command(tmp_path):
    proc = _run(tmp_path, None)
    assert proc.returncode == 0, proc.stdout
    assert "1 passed, 2 skipped" in proc.stdout
    summary = [line for line in proc.stdout.splitlines() if line.startswith("MISSING TOOL:")]
    assert summary == [f"MISSING TOOL: 2 test(s) skipped: {LINE}"], proc.stdout
    assert "SKIPPED [2] " in proc.stdout and proc.stdout.count(LINE) == 2  # -rs: one grouped line, then ours
    assert "Error" not in proc.stdout and "Traceback" not in proc.stdout


def test_a_zero_switch_is_off(tmp_path):
    assert _run(tmp_path, "0").returncode == 0


def test_with_the_switch_a_missing_tool_is_a_failure(tmp_path):
    proc = _run(tmp_path, "1")
    assert proc.returncode == 1, proc.stdout
    assert "2 failed, 1 passed" in proc.stdout and "skipped" not in proc.stdout.splitlines()[-1]
    assert f"{external_tools.REQUIRE_ENV}=1 and {LINE}" in proc.stdout
    assert f"MISSING TOOL: 2 test(s) failed ({external_tools.REQUIRE_ENV}=1): {LINE}" in proc.stdout


def test_every_real_tool_names_how_to_install_it():
    tools = [v for v in vars(external_tools).values() if isinstance(v, external_tools.Tool)]
    assert len(tools) >= 7
    for tool in tools:
        line = tool.missing_line()
        if tool.line == external_tools.Tool.line:  # a program or package; data and the kernels say it their way
            assert line.startswith(f"{tool.name} is not installed, needed by ") and "`" in line
        assert line.startswith(tool.name) and f"needed by {tool.needed_by}" in line
        assert tool.debian and tool.macos and tool.install_command() in line
