"""The one rule for every tool outside Python the suite uses (Chromium, Java, node and the Kaitai Struct
compiler, setpriv, the installed `rmq-inspect` command).

A test that needs a tool calls ``need(TOOL)`` (usually through a fixture: ``browser``, ``spark``,
``kaitai_compiler``). When the tool is there it gets its location; when it is not, the test is skipped with one
line naming the tool and the command that installs it, and the end of the run repeats that line once per tool.
A missing optional tool is never an error or a failure, except under ``RMQ_INSPECT_REQUIRE_TOOLS=1`` (what
``.ci/run`` sets): then the same line is a failure, so a broken install step cannot hide behind a skip.

What needs no root is installed by the test run itself: the Kaitai Struct compiler goes into ``.cache/ksc``
with npm, once, when node and npm are there.

This module is also a pytest plugin (``pytest_terminal_summary``): tests/conftest.py re-exports the hook.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

REQUIRE_ENV = "RMQ_INSPECT_REQUIRE_TOOLS"
REPO = Path(__file__).resolve().parents[1]
PIP_INSTALL = "pip install -e '.[all]'"


@dataclass(frozen=True)
class Tool:
    name: str
    needed_by: str  # which tests, in a few words
    debian: str  # the command that installs it on Debian/Ubuntu
    macos: str  # ... and on macOS (Homebrew)
    find: Callable[[], str | None]  # its location, or None

    def install_command(self) -> str:
        return self.macos if sys.platform == "darwin" else self.debian

    def missing_line(self) -> str:
        return f"{self.name} is not installed, needed by {self.needed_by}: install it with `{self.install_command()}`"


_found: dict[str, str | None] = {}
_lines: dict[str, str] = {}  # tool name -> its missing line, for the tools found missing in this run


def require_all() -> bool:
    return os.environ.get(REQUIRE_ENV, "") not in ("", "0")


def need(tool: Tool) -> str:
    """The tool's location; or skip this test naming the tool and its install command (a failure when
    RMQ_INSPECT_REQUIRE_TOOLS=1). Each tool is looked for once per run."""
    if tool.name not in _found:
        _found[tool.name] = tool.find()
    where = _found[tool.name]
    if where is not None:
        return where
    line = _lines[tool.name] = tool.missing_line()
    if require_all():
        pytest.fail(f"{REQUIRE_ENV}=1 and {line}", pytrace=False)
    pytest.skip(line)


def _reason(report) -> str:
    if isinstance(report.longrepr, tuple):  # a skip: (path, line, reason)
        return report.longrepr[2]
    return getattr(report, "longreprtext", "")


def pytest_terminal_summary(terminalreporter) -> None:
    """One line per missing tool at the end of the run (the skip reasons alone show only with -rs). Counted from
    the reports: a fixture that skipped once skips every test using it without calling need() again."""
    reports = [r for key in ("skipped", "failed", "error") for r in terminalreporter.stats.get(key, [])]
    what = f"failed ({REQUIRE_ENV}=1)" if require_all() else "skipped"
    for line in _lines.values():
        count = sum(line in _reason(r) for r in reports)
        terminalreporter.write_line(f"MISSING TOOL: {count} test(s) {what}: {line}", yellow=True, bold=True)


# -- where each tool is looked for ------------------------------------------------------------------------------------


def _executable(env: str, *candidates: str) -> Callable[[], str | None]:
    """$env when set (then only there), else the first candidate that is a path to an executable or on PATH."""

    def find() -> str | None:
        override = os.environ.get(env)
        for c in [override] if override else candidates:
            path = c if os.sep in c else shutil.which(c)
            if path and os.path.isfile(path) and os.access(path, os.X_OK):
                return path
        return None

    return find


def _java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
        return os.path.join(home, "bin", "java")
    return shutil.which("java")


def _node() -> str | None:
    """node; npm too unless the compiler is already there (npm only installs it)."""
    return shutil.which("node") if shutil.which("npm") or _ksc_ready(_ksc_dir()) else None


def _module(name: str) -> Callable[[], str | None]:
    def find() -> str | None:
        spec = importlib.util.find_spec(name)
        return spec.origin if spec is not None else None

    return find


CHROMIUM = Tool("Chromium", "the browser tests", "sudo apt-get install chromium",
                "brew install --cask chromium",
                _executable("RMQ_INSPECT_CHROMIUM", "/usr/bin/chromium",
                            "/Applications/Chromium.app/Contents/MacOS/Chromium", "chromium"))
PLAYWRIGHT = Tool("the playwright package", "the browser tests", PIP_INSTALL, PIP_INSTALL, _module("playwright"))
JAVA = Tool("Java 17+", "the Spark tests", "sudo apt-get install openjdk-17-jre-headless",
            "brew install openjdk@17", _java)
NODE = Tool("node (with npm)", "the Kaitai Struct round trip", "sudo apt-get install nodejs npm", "brew install node",
            _node)
KAITAI_RUNTIME = Tool("the kaitaistruct package", "the Kaitai Struct round trip", PIP_INSTALL, PIP_INSTALL,
                      _module("kaitaistruct"))
SETPRIV = Tool("setpriv (util-linux)", "the no-read-permission tests run as root", "sudo apt-get install util-linux",
               "(Linux only)", _executable("RMQ_INSPECT_SETPRIV", "setpriv"))
CONSOLE_SCRIPT = Tool("the rmq-inspect command", "the installed-command tests", PIP_INSTALL, PIP_INSTALL,
                      _executable("RMQ_INSPECT_COMMAND", "rmq-inspect",
                                  os.path.join(os.path.dirname(sys.executable), "rmq-inspect")))

# -- the Kaitai Struct compiler: installed by the run itself into .cache/ksc ------------------------------------------

KSC_ENV = "RMQ_INSPECT_KSC_DIR"
KSC_PACKAGES = ("kaitai-struct-compiler@0.11.0", "js-yaml@4")
KSC_INSTALL = f"npm install --prefix .cache/ksc {' '.join(KSC_PACKAGES)}"


def _ksc_dir() -> Path:
    return Path(os.environ.get(KSC_ENV) or REPO / ".cache" / "ksc")


def _ksc_ready(base: Path) -> bool:
    return all((base / "node_modules" / p.rsplit("@", 1)[0]).is_dir() for p in KSC_PACKAGES)


def _ksc() -> str | None:
    """The compiler's directory; installed there with npm first when it is missing (once per run)."""
    base = _ksc_dir()
    if not _ksc_ready(base) and shutil.which("npm") and not os.environ.get(KSC_ENV):
        sys.stderr.write(f"\ninstalling the Kaitai Struct compiler: {KSC_INSTALL}\n")
        subprocess.run(["npm", "install", "--prefix", str(base), "--no-audit", "--no-fund", "--silent",
                        *KSC_PACKAGES], cwd=REPO, stdin=subprocess.DEVNULL, timeout=600, check=False)
    return str(base) if _ksc_ready(base) else None


KAITAI_COMPILER = Tool("the Kaitai Struct compiler", "the Kaitai Struct round trip",
                       f"{KSC_INSTALL} (in the repository; or set {KSC_ENV} to a directory holding it)",
                       f"{KSC_INSTALL} (in the repository; or set {KSC_ENV} to a directory holding it)", _ksc)


def kaitai_compiler() -> Path:
    """node, the kaitaistruct runtime and the compiler's directory (node_modules/kaitai-struct-compiler, js-yaml)."""
    need(NODE)
    need(KAITAI_RUNTIME)
    return Path(need(KAITAI_COMPILER))
