"""The one rule for every tool outside Python the suite uses (Chromium, Java, node and the Kaitai Struct
compiler, setpriv, the installed `rmq-inspect` command), for the Python packages of ``pip install -e '.[all]'``
and for the real broker files beside the checkout (``../shared/realdata``).

A test that needs a tool calls ``need(TOOL)`` (usually through a fixture: ``browser``, ``spark``,
``kaitai_compiler``). When the tool is there it gets its location; when it is not, the test is skipped with one
line naming the tool and the command that installs it (or, for data, where it comes from), and the end of the run
repeats that line once per tool.
A missing optional tool is never an error or a failure, except under ``RMQ_INSPECT_REQUIRE_TOOLS=1`` (what
``.ci/run`` sets): then the same line is a failure, so a broken install step cannot hide behind a skip.

What needs no root is installed by the test run itself, with npm, once, when npm is there: the Kaitai Struct
compiler into ``.cache/ksc``, axe-core (the accessibility checker the browser tests inject) into ``.cache/axe``.

This module is also a pytest plugin (``pytest_terminal_summary``): tests/conftest.py re-exports the hook.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

REQUIRE_ENV = "RMQ_INSPECT_REQUIRE_TOOLS"
REALDATA_ENV = "RMQ_INSPECT_REALDATA"  # another copy of ../shared/realdata
REPO = Path(__file__).resolve().parents[1]
PIP_INSTALL = "pip install -e '.[all]'"


@dataclass(frozen=True)
class Tool:
    name: str
    needed_by: str  # which tests, in a few words
    debian: str  # the command that installs it on Debian/Ubuntu
    macos: str  # ... and on macOS (Homebrew)
    find: Callable[[], str | None]  # its location, or None
    kind: str = "TOOL"  # the end-of-run line says MISSING TOOL or MISSING DATA
    line: str = "{name} is not installed, needed by {needed_by}: install it with `{install}`"

    def install_command(self) -> str:
        return self.macos if sys.platform == "darwin" else self.debian

    def missing_line(self) -> str:
        return self.line.format(name=self.name, needed_by=self.needed_by, install=self.install_command())


_found: dict[str, str | None] = {}
_lines: dict[str, tuple[str, str]] = {}  # tool name -> (kind, missing line), for the tools missing in this run


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
    line = tool.missing_line()
    _lines[tool.name] = (tool.kind, line)
    if require_all():
        pytest.fail(f"{REQUIRE_ENV}=1 and {line}", pytrace=False)
    pytest.skip(line, allow_module_level=True)  # also from a test module's top (a package it imports)


def _reason(report) -> str:
    if isinstance(report.longrepr, tuple):  # a skip: (path, line, reason)
        return report.longrepr[2]
    return getattr(report, "longreprtext", "")


def pytest_terminal_summary(terminalreporter) -> None:
    """One line per missing tool at the end of the run (the skip reasons alone show only with -rs). Counted from
    the reports: a fixture that skipped once skips every test using it without calling need() again."""
    reports = [r for key in ("skipped", "failed", "error") for r in terminalreporter.stats.get(key, [])]
    what = f"failed ({REQUIRE_ENV}=1)" if require_all() else "skipped"
    for kind, line in _lines.values():
        count = sum(line in _reason(r) for r in reports)
        terminalreporter.write_line(f"MISSING {kind}: {count} test(s) {what}: {line}", yellow=True, bold=True)


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
        try:  # a dotted name imports its parent first, which may itself be missing
            spec = importlib.util.find_spec(name)
        except ImportError:
            return None
        return spec.origin if spec is not None else None

    return find


def _compiled_kernels() -> str | None:
    """numba, when the engine's compiled kernels load (outside ``python_only``, which no caller of need() is in).
    Imported here, not at the top: this module is a plugin, loaded before any test."""
    from inspector.engine.scan import kernels

    return "numba" if kernels.numba_enabled() else None


def _sample_store() -> str | None:
    where = REPO / "sample_store"
    return str(where) if (where / "commitlog").is_dir() else None


def realdata_dir() -> Path:
    """Where the real broker files are looked for: $RMQ_INSPECT_REALDATA, else ``shared/realdata`` beside the
    checkout (the project's shared directory; not in the repository: other projects' files)."""
    return Path(os.environ.get(REALDATA_ENV) or REPO.parent / "shared" / "realdata")


def _realdata() -> str | None:
    where = realdata_dir()
    return str(where) if where.is_dir() else None


CHROMIUM = Tool("Chromium", "the browser tests", "sudo apt-get install chromium",
                "brew install --cask chromium",
                _executable("RMQ_INSPECT_CHROMIUM", "/usr/bin/chromium",
                            "/Applications/Chromium.app/Contents/MacOS/Chromium", "chromium"))
PLAYWRIGHT = Tool("the playwright package", "the browser tests", PIP_INSTALL, PIP_INSTALL, _module("playwright"))
JAVA = Tool("Java 17+", "the Spark tests", "sudo apt-get install openjdk-17-jre-headless",
            "brew install openjdk@17", _java)
NODE = Tool("node (with npm)", "the Kaitai Struct round trip", "sudo apt-get install nodejs npm", "brew install node",
            _node)
NUMBA = Tool("the compiled kernels (numba)", "the comparisons of the compiled and the Python paths",
             f"{PIP_INSTALL} (numba; and RMQ_INSPECT_NO_NUMBA unset)",
             f"{PIP_INSTALL} (numba; and RMQ_INSPECT_NO_NUMBA unset)", _compiled_kernels,
             line="{name} are not in use, needed by {needed_by}: {install}")
_REALDATA_HOW = (f"put the project's shared directory beside the checkout (../shared/realdata: store files real "
                 f"brokers wrote, copied from public GitHub repositories, each listed in its README.md), or set "
                 f"{REALDATA_ENV} to a copy")
REALDATA = Tool(f"the real broker files ({realdata_dir()})", "the real-data tests", _REALDATA_HOW, _REALDATA_HOW,
                _realdata, kind="DATA", line="{name} are not there, needed by {needed_by}: {install}")
SAMPLE_STORE = Tool("the committed sample store (sample_store/)", "the sample-store tests",
                    "git checkout -- sample_store", "git checkout -- sample_store", _sample_store, kind="DATA",
                    line="{name} is not in this checkout, needed by {needed_by}: restore it with `{install}`")
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


def npm_install(base: Path, packages: list[str], ready: Callable[[], bool], what: str, line: str) -> None:
    """``npm install --prefix base packages`` unless ``ready()``, one install at a time across the run's workers
    (two at once share npm's cache: a fresh clone's run once lost axe-core that way), tried twice."""
    import fcntl

    lock = REPO / ".cache" / "npm-install.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # released when the file closes
        for _ in range(2):
            if ready():
                return
            sys.stderr.write(f"\ninstalling {what}: {line}\n")
            subprocess.run(["npm", "install", "--prefix", str(base), "--no-audit", "--no-fund", "--silent", *packages],
                           cwd=REPO, stdin=subprocess.DEVNULL, timeout=600, check=False)


def _ksc() -> str | None:
    """The compiler's directory; installed there with npm first when it is missing (once per run)."""
    base = _ksc_dir()
    if not _ksc_ready(base) and shutil.which("npm") and not os.environ.get(KSC_ENV):
        npm_install(base, list(KSC_PACKAGES), lambda: _ksc_ready(base), "the Kaitai Struct compiler", KSC_INSTALL)
    return str(base) if _ksc_ready(base) else None


KAITAI_COMPILER = Tool("the Kaitai Struct compiler", "the Kaitai Struct round trip",
                       f"{KSC_INSTALL} (in the repository; or set {KSC_ENV} to a directory holding it)",
                       f"{KSC_INSTALL} (in the repository; or set {KSC_ENV} to a directory holding it)", _ksc)


# -- axe-core: installed by the run itself into .cache/axe, injected into the page by the browser tests ---------------

AXE_ENV = "RMQ_INSPECT_AXE_DIR"
AXE_PACKAGE = "axe-core@4.10.3"
AXE_INSTALL = f"npm install --prefix .cache/axe {AXE_PACKAGE}"


def _axe() -> str | None:
    """axe.min.js; installed with npm first when it is missing (once per run). It runs in the browser: no node."""
    base = Path(os.environ.get(AXE_ENV) or REPO / ".cache" / "axe")
    script = base / "node_modules" / "axe-core" / "axe.min.js"
    if not script.is_file() and shutil.which("npm") and not os.environ.get(AXE_ENV):
        npm_install(base, [AXE_PACKAGE], script.is_file, "axe-core", AXE_INSTALL)
    return str(script) if script.is_file() else None


AXE = Tool("axe-core", "the accessibility tests", f"{AXE_INSTALL} (in the repository; npm from `apt-get install npm`;"
           f" or set {AXE_ENV} to a directory holding it)",
           f"{AXE_INSTALL} (in the repository; npm from `brew install node`; or set {AXE_ENV} to a directory holding"
           f" it)", _axe)


def import_or_skip(module: str, needed_by: str = "these tests") -> ModuleType:
    """``pytest.importorskip`` by this module's rule: the skip (or, under RMQ_INSPECT_REQUIRE_TOOLS=1, the failure)
    names the package and ``pip install -e '.[all]'``, which brings every Python package the suite uses."""
    package = module.split(".")[0]
    need(Tool(f"the {package} package", needed_by, PIP_INSTALL, PIP_INSTALL, _module(module)))
    return importlib.import_module(module)


def kaitai_compiler() -> Path:
    """node, the kaitaistruct runtime and the compiler's directory (node_modules/kaitai-struct-compiler, js-yaml)."""
    need(NODE)
    need(KAITAI_RUNTIME)
    return Path(need(KAITAI_COMPILER))
