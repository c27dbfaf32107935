"""The layer shape of STYLE.md, held by reading every module's imports with ``ast``:

    parsers  <-  inspector.engine  <-  { inspector.cli, inspector.tui, inspector.spark, web }
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
ENGINE_OPTIONAL = {"numpy", "numba", "llvmlite", "isal", "lz4", "zstandard", "rocksdict"}
UI_AND_CLUSTER = {"textual", "flask", "pyspark", "rich", "werkzeug", "jinja2"}
FRONT_ENDS = {"inspector.cli": "inspector/cli", "inspector.tui": "inspector/tui", "inspector.spark": "inspector/spark",
              "web": "web"}


@dataclass(frozen=True)
class Import:
    module: str  # absolute dotted name
    line: int
    in_function: bool
    type_checking_only: bool


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, package: str | None = None) -> list[Import]:
    """Every import statement of a module, absolute; ``package`` is the one relative imports start from."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    if package is None:
        package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool, type_checking: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.extend(Import(a.name, child.lineno, in_function, type_checking) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                found.append(Import(target, child.lineno, in_function, type_checking))
                # "from pkg import submodule" imports pkg.submodule too
                found.extend(Import(f"{target}.{a.name}", child.lineno, in_function, type_checking)
                             for a in child.names if (REPO / Path(*f"{target}.{a.name}".split("."))).exists()
                             or (REPO / Path(*f"{target}.{a.name}".split("."))).with_suffix(".py").exists())
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(child, True, type_checking)
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                visit(ast.Module(body=child.body, type_ignores=[]), in_function, True)
                visit(ast.Module(body=child.orelse, type_ignores=[]), in_function, type_checking)
            else:
                visit(child, in_function, type_checking)

    visit(tree, False, False)
    return found


def modules_under(directory: str) -> list[Path]:
    base = REPO / directory
    return sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts) if base.is_dir() else []


def top(name: str) -> str:
    return name.split(".")[0]


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


PARSER_MODULES = modules_under("parsers")
ENGINE_MODULES = modules_under("inspector/engine")


def _id(path: Path) -> str:
    return str(path.relative_to(REPO))


def test_the_layers_exist() -> None:
    assert len(PARSER_MODULES) >= 10 and len(ENGINE_MODULES) >= 10
    assert any(module_name(p) == "parsers.commitlog" for p in PARSER_MODULES)
    assert any(module_name(p) == "inspector.engine.read.store" for p in ENGINE_MODULES)


def test_the_walker_sees_the_store_imports() -> None:
    path = REPO / "inspector" / "engine" / "store.py"
    names = {i.module for i in imports_of(path)}
    assert "inspector.engine.read.commitlog" in names and "parsers.commitlog" in names


@pytest.mark.parametrize("path", PARSER_MODULES, ids=_id)
def test_parsers_import_only_construct_stdlib_and_parsers(path: Path) -> None:
    bad = [(i.module, i.line) for i in imports_of(path)
           if not (top(i.module) in STDLIB or top(i.module) == "construct" or within(i.module, "parsers"))]
    assert bad == []


@pytest.mark.parametrize("path", ENGINE_MODULES, ids=_id)
def test_engine_imports_only_parsers_engine_and_stdlib(path: Path) -> None:
    bad = [(i.module, i.line) for i in imports_of(path)
           if not (top(i.module) in STDLIB | ENGINE_OPTIONAL or within(i.module, "parsers")
                   or within(i.module, "inspector.engine") or i.module == "inspector")]
    assert bad == []


@pytest.mark.parametrize("path", PARSER_MODULES + ENGINE_MODULES, ids=_id)
def test_no_ui_or_cluster_library_below_the_front_ends(path: Path) -> None:
    assert [(i.module, i.line) for i in imports_of(path) if top(i.module) in UI_AND_CLUSTER] == []


def _front_end_modules() -> list[tuple[str, Path]]:
    return [(fe, p) for fe, directory in FRONT_ENDS.items() for p in modules_under(directory)]


@pytest.mark.parametrize(("front_end", "path"), _front_end_modules(), ids=[_id(p) for _, p in _front_end_modules()])
def test_front_ends_do_not_import_each_other(front_end: str, path: Path) -> None:
    others = [fe for fe in FRONT_ENDS if fe != front_end]
    bad = []
    for i in imports_of(path):
        if i.type_checking_only:
            continue
        for other in others:
            if within(i.module, other):
                # the command line is the launcher: it may start the terminal UI, the web app or a Spark job,
                # importing each only inside the command that runs it (so `info` never loads Flask or Spark)
                if front_end == "inspector.cli" and i.in_function:
                    continue
                bad.append((i.module, i.line))
        if top(i.module) == "construct":
            bad.append((i.module, i.line))  # front ends never parse bytes themselves
    assert bad == []


def test_importing_the_engine_loads_no_ui_library() -> None:
    """At run time too: the engine and the CLI entry point pull in no Flask, Textual or Spark."""
    code = (
        "import sys, importlib\n"
        "importlib.import_module('inspector.engine.read.store')\n"
        "bad = sorted(m for m in ('textual', 'flask', 'pyspark', 'rich') if m in sys.modules)\n"
        "assert not bad, ('engine', bad)\n"
        "try:\n"
        "    importlib.import_module('inspector.cli.main')\n"
        "except ModuleNotFoundError:\n"
        "    pass\n"
        "bad = sorted(m for m in ('textual', 'flask', 'pyspark') if m in sys.modules)\n"
        "assert not bad, ('cli', bad)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_the_ast_walk_classifies_nested_type_checking_and_relative_imports(tmp_path: Path) -> None:
    """Guard for the walker itself."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "import os\n"
        "from .commitlog import CommitLog\n"
        "from .. import engine\n"
        "if TYPE_CHECKING:\n"
        "    import flask\n"
        "def f():\n"
        "    import web.app\n"
        "    return os\n"
    )
    found = [(i.module, i.in_function, i.type_checking_only) for i in imports_of(probe, "inspector.engine")]
    assert found == [
        ("typing", False, False), ("os", False, False), ("inspector.engine.read.commitlog", False, False),
        ("inspector", False, False), ("inspector.engine", False, False), ("flask", False, True),
        ("web.app", True, False),
    ]
