"""The architecture as a test, read from every module's imports with ``ast`` (STYLE.md):

    parsers  <-  engine.model  <-  engine.scan  <-  engine.read  <-  engine.maintain  <-  engine.workshop
                                                                      \\__ inspector.engine (the face) __/
                                                                                   ^
                                          { inspector.cli, inspector.tui, inspector.spark, web }

* ``parsers`` imports construct and the stdlib only.
* Each engine room imports only the rooms below it (and parsers, the stdlib, numeric libraries).
* The read side (``model``, ``scan``, ``read``) never writes: no write modes, no rename, unlink or mkdir.
* Front ends import the engine only through its face, ``inspector.engine``, never a room's module and never a
  parser; they never import each other (the CLI may start another front end inside the command that runs it).
* Front ends never read raw store bytes themselves (mmap, ``struct``/``frombuffer`` decoding, a record position
  plus a literal byte count, ``store.commitlog.read``): the ones there today are named in ``KNOWN_RAW_READS``
  with their issue, and the test fails on any other and on a stale one.
* ``scripts/`` (the sample-store builders) drive the engine: its face or a room, parsers and each other; never a
  front end, a benchmark or a test. ``benchmarks/`` measure every layer, so they may import any package of the
  project, but never the tests (a benchmark runs without the test tree).
* An import is an import wherever it is written: at the top, inside a function, under ``TYPE_CHECKING`` (for the
  room and face rules) or as an ``importlib.import_module("...")`` / ``__import__("...")`` string.

``breaches(root)`` holds every rule; the tests run it on this repository (nothing found) and on a copy with
deliberate breaches (each one found).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
ENGINE_OPTIONAL = {"numpy", "numba", "llvmlite", "isal", "orjson", "lz4", "zstandard", "rocksdict"}
UI_AND_CLUSTER = {"textual", "flask", "pyspark", "rich", "werkzeug", "jinja2"}
FRONT_ENDS = {"inspector.cli": "inspector/cli", "inspector.tui": "inspector/tui", "inspector.spark": "inspector/spark",
              "web": "web"}
# the engine's rooms, lowest first: a room may import the rooms before it, never one after it
ROOMS = ("model", "scan", "read", "present", "maintain", "workshop")
READ_SIDE = ("model", "scan", "read", "present")  # never writes
FACE = "inspector.engine"


@dataclass(frozen=True)
class Import:
    module: str  # absolute dotted name
    line: int
    in_function: bool
    type_checking_only: bool


def module_name(path: Path, root: Path = REPO) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, package: str | None = None, root: Path = REPO) -> list[Import]:
    """Every import statement of a module, absolute; ``package`` is the one relative imports start from."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    if package is None:
        name = module_name(path, root)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[Import] = []

    def is_module(dotted: str) -> bool:
        base = root / Path(*dotted.split("."))
        return base.is_dir() or base.with_suffix(".py").exists()

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
                             for a in child.names if is_module(f"{target}.{a.name}"))
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(child, True, type_checking)
            elif isinstance(child, ast.Call) and (named := imported_by_name(child)) is not None:
                found.append(Import(named, child.lineno, in_function, type_checking))
                visit(child, in_function, type_checking)
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                visit(ast.Module(body=child.body, type_ignores=[]), in_function, True)
                visit(ast.Module(body=child.orelse, type_ignores=[]), in_function, type_checking)
            else:
                visit(child, in_function, type_checking)

    visit(tree, False, False)
    return found


DYNAMIC_IMPORTS = {"importlib.import_module", "import_module", "__import__"}


def imported_by_name(call: ast.Call) -> str | None:
    """The module an ``importlib.import_module("a.b")`` or ``__import__("a.b")`` call names: the whole string, or
    the constant head of an f-string (``f"inspector.spark.jobs.{name}"`` -> ``inspector.spark.jobs``); relative
    names and names held in variables are not followed."""
    if _dotted(call.func) not in DYNAMIC_IMPORTS or not call.args:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        name = arg.value
    elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        name = str(arg.values[0].value).rstrip(".")
    else:
        return None
    return name if name and not name.startswith(".") else None


def modules_under(directory: str, root: Path = REPO) -> list[Path]:
    # os.walk, not rglob: benchmarks/data holds generated stores (tens of thousands of folders) that benchmark tests
    # on another xdist worker create and delete while this walks; rglob raises on a folder that vanished.
    found = []
    for here, dirs, files in os.walk(root / directory):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not (Path(here) == root / "benchmarks" and d == "data")]
        found += [Path(here) / f for f in files if f.endswith(".py")]
    return sorted(found)


def top(name: str) -> str:
    return name.split(".")[0]


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def room_of(module: str) -> str | None:
    """``inspector.engine.read.store.store`` -> ``read``; the face itself -> None."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["inspector", "engine"] else None


# -- the rules ------------------------------------------------------------------------------------------------------

WRITE_CALLS = {"os.replace", "os.rename", "os.renames", "os.unlink", "os.remove", "os.rmdir", "os.removedirs",
               "os.mkdir", "os.makedirs", "os.truncate", "os.ftruncate", "os.write", "os.link", "os.symlink",
               "os.chmod", "os.utime", "shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree",
               "shutil.move", "shutil.rmtree"}
WRITE_METHODS = {"write_text", "write_bytes", "unlink", "mkdir", "rmdir", "rename", "replace", "touch",
                 "symlink_to", "hardlink_to", "chmod"}
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND", "ACCESS_WRITE", "ACCESS_COPY"}
# The one place the read side writes, and why it may: the RocksDB consume queue is opened through a private
# snapshot in a fresh temporary directory, because RocksDB writes into any database it opens (even
# read-only); the store itself is never written (tests/hardening/test_read_only.py audits every open).
READ_SIDE_WRITERS = {("inspector.engine.read.queues.rocksdb_queue", "_snapshot"),
                     ("inspector.engine.read.queues.rocksdb_queue", "_drop_snapshot")}
# The Kaitai/ImHex templates are generated from the construct schemas themselves, so that one package reads
# construct's classes; every other engine module sees only what parsers give it.
CONSTRUCT_READERS = "inspector.engine.workshop.templates"


def _dotted(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - an odd node is simply not a dotted name
        return ""


def write_sites(path: Path, root: Path = REPO) -> list[tuple[str, int]]:
    """Every place a module could write to the file system: (what, line), outside the allowed functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    name = module_name(path, root)
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            fn = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
            if (name, fn) in READ_SIDE_WRITERS:
                continue
            if isinstance(child, ast.Call):
                callee = _dotted(child.func)
                if callee in WRITE_CALLS:
                    found.append((callee, child.lineno))
                elif isinstance(child.func, ast.Attribute) and child.func.attr in WRITE_METHODS and not (
                        child.func.attr == "replace" and len(child.args) + len(child.keywords) != 1):
                    found.append((callee, child.lineno))  # Path.replace(target); str.replace(old, new) is no write
                elif callee in ("open", "io.open") or (callee.endswith(".open") and callee != "os.open"):
                    at = 1 if callee in ("open", "io.open") else 0  # Path.open(mode), open(file, mode)
                    modes = child.args[at : at + 1] + [k.value for k in child.keywords if k.arg == "mode"]
                    for m in modes:
                        if isinstance(m, ast.Constant) and isinstance(m.value, str) and set(m.value) & set("wax+"):
                            found.append((f"{callee}(mode={m.value!r})", child.lineno))
            elif isinstance(child, ast.Attribute) and child.attr in WRITE_FLAGS:
                found.append((_dotted(child), child.lineno))
            visit(child, fn)

    visit(tree, None)
    return found


# Reading store bytes is the engine's job (issue 28 item 2 gives the views a hex window with its bands and
# Arrow columns through the face); what a front end must not do itself:
RAW_MODULES = {"mmap", "struct"}
RAW_CALLS = ("frombuffer", "from_bytes", "unpack", "unpack_from", "iter_unpack", "mmap", "read_bytes",
             "commitlog.read")
# a record's or entry's position plus a literal byte count is a field read at a fixed offset
RECORD_POSITIONS = {"start", "position", "positions", "pos", "offset", "entry_header", "record_start",
                    "entry_start"}
# The raw reads that exist today, by (file, what): each names why it is there; removing one means deleting its
# line here (a stale entry fails the test, so the list only shrinks).
KNOWN_RAW_READS = {
}
# reads of bytes that are not the store's
NOT_STORE_BYTES = {
    ("inspector/spark/session.py", "path.read_bytes"): "the project's own files, hashed for the executors' zip",
}


def raw_reads(path: Path) -> list[tuple[str, int]]:
    """Every place a module reads or decodes bytes itself: (what, line); ``what`` is the code as written."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(f"import {a.name}", node.lineno) for a in node.names if top(a.name) in RAW_MODULES]
        elif isinstance(node, ast.ImportFrom) and not node.level and top(node.module or "") in RAW_MODULES:
            found.append((f"from {node.module} import", node.lineno))
        elif isinstance(node, ast.Call):
            callee = _dotted(node.func)
            if callee.split(".")[-1] in RAW_CALLS or callee.endswith(".commitlog.read"):
                found.append((callee, node.lineno))
            elif callee in ("open", "io.open") or callee.endswith(".open"):
                at = 1 if callee in ("open", "io.open") else 0
                modes = node.args[at : at + 1] + [k.value for k in node.keywords if k.arg == "mode"]
                if any(isinstance(m, ast.Constant) and isinstance(m.value, str) and "b" in m.value
                       and not set(m.value) & set("wax+") for m in modes):
                    found.append((f"{callee}(binary read)", node.lineno))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
            for position, count in ((node.left, node.right), (node.right, node.left)):
                if (isinstance(count, ast.Constant) and type(count.value) is int and count.value >= 4
                        and _dotted(position).split(".")[-1] in RECORD_POSITIONS):
                    found.append((_dotted(node), node.lineno))
    return sorted(found, key=lambda f: f[1])  # ast.walk goes breadth first; a report reads top down


def breaches(root: Path = REPO) -> list[str]:
    """Every breach of the layering and of the read side's promise, as 'file:line: what' lines."""
    out: list[str] = []

    def say(path: Path, line: int, what: str) -> None:
        out.append(f"{path.relative_to(root)}:{line}: {what}")

    for path in modules_under("parsers", root):
        for i in imports_of(path, root=root):
            if not (top(i.module) in STDLIB or top(i.module) == "construct" or within(i.module, "parsers")):
                say(path, i.line, f"parsers import {i.module}")
    for path in modules_under("inspector/engine", root):
        me = room_of(module_name(path, root))
        for i in imports_of(path, root=root):
            if top(i.module) in UI_AND_CLUSTER:
                say(path, i.line, f"the engine imports {i.module}")
            elif within(i.module, "inspector.engine"):
                them = room_of(i.module)
                if me is not None and them is not None and ROOMS.index(them) > ROOMS.index(me):
                    say(path, i.line, f"engine.{me} imports engine.{them} ({i.module}), a room above it")
                elif me is not None and them is None and i.module == FACE:
                    say(path, i.line, "a room imports the face (import the module that holds the name)")
            elif top(i.module) == "construct" and within(module_name(path, root), CONSTRUCT_READERS):
                continue
            elif not (top(i.module) in STDLIB | ENGINE_OPTIONAL or within(i.module, "parsers") or i.module == "inspector"):
                say(path, i.line, f"the engine imports {i.module}")
        if me in READ_SIDE:
            for what, line in write_sites(path, root):
                say(path, line, f"engine.{me} (read side) writes: {what}")
    for front_end, directory in FRONT_ENDS.items():
        for path in modules_under(directory, root):
            for i in imports_of(path, root=root):
                if within(i.module, "inspector.engine") and i.module != FACE:
                    say(path, i.line, f"{front_end} imports {i.module}: front ends import only {FACE}")
                if within(i.module, "parsers") or top(i.module) == "construct":
                    say(path, i.line, f"{front_end} imports {i.module}: front ends never parse bytes")
                if i.type_checking_only:
                    continue
                for other in FRONT_ENDS:
                    # the command line is the launcher: it may start the terminal UI, the web app or a Spark job,
                    # importing each only inside the command that runs it (so `info` never loads Flask or Spark)
                    if other != front_end and within(i.module, other) and not (
                            front_end == "inspector.cli" and i.in_function):
                        say(path, i.line, f"{front_end} imports another front end, {i.module}")
            rel = path.relative_to(root).as_posix()
            for what, line in raw_reads(path):
                if (rel, what) not in KNOWN_RAW_READS and (rel, what) not in NOT_STORE_BYTES:
                    say(path, line, f"{front_end} reads raw store bytes itself: {what}")
    front_ends = tuple(FRONT_ENDS)
    # the helper modules a benchmark could reach by putting tests/ on sys.path (``import timer_store``)
    tests = {p.stem for p in (root / "tests").glob("*.py")}
    scripts = {p.stem for p in modules_under("scripts", root)}
    for path in modules_under("scripts", root):
        for i in imports_of(path, package="", root=root):
            if any(within(i.module, f) for f in front_ends) or top(i.module) in UI_AND_CLUSTER:
                say(path, i.line, f"a script imports a front end, {i.module}: scripts drive the engine")
            elif top(i.module) in {"benchmarks", "tests"} | (tests - scripts):
                say(path, i.line, f"a script imports {i.module}, a benchmark or test module")
    for path in modules_under("benchmarks", root):
        for i in imports_of(path, package="", root=root):
            if top(i.module) == "tests" or top(i.module) in tests:
                say(path, i.line, f"a benchmark imports {i.module}, a test module: benchmarks run without tests/")
    return out


# -- this repository ------------------------------------------------------------------------------------------------


def test_the_rooms_exist() -> None:
    for room in ROOMS:
        assert len(modules_under(f"inspector/engine/{room}")) >= 2, room
    assert module_name(REPO / "inspector" / "engine" / "read" / "store" / "store.py") == "inspector.engine.read.store.store"


def test_each_room_says_its_job_and_no_folder_is_crowded() -> None:
    """Every engine package (a room or a subroom such as ``read/commitlog``) has a docstring naming its job and
    what it may import, and holds at most about 15 modules side by side (issue 28)."""
    crowded, silent = [], []
    for init in sorted((REPO / "inspector" / "engine").rglob("__init__.py")):
        folder = init.parent
        if len([p for p in folder.glob("*.py") if p.name != "__init__.py"]) > 15:
            crowded.append(str(folder.relative_to(REPO)))
        if folder.name != "engine" and "import" not in (ast.get_docstring(ast.parse(init.read_text())) or "").lower():
            silent.append(str(init.relative_to(REPO)))
    assert crowded == [] and silent == []


def test_the_walker_sees_the_store_imports() -> None:
    names = {i.module for i in imports_of(REPO / "inspector" / "engine" / "read" / "store" / "store.py")}
    assert "inspector.engine.read.commitlog.commitlog" in names and "parsers.commitlog" in names


def test_the_repository_keeps_its_layers() -> None:
    assert breaches() == []


def test_the_read_side_has_no_write_but_the_audited_one() -> None:
    """The one allowed writer exists (else the allowance is stale) and does write."""
    for module, function in READ_SIDE_WRITERS:
        path = REPO / Path(*module.split(".")).with_suffix(".py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
        assert any(isinstance(n, ast.Call) and _dotted(n.func) in WRITE_CALLS for n in ast.walk(fn)), function


def test_the_known_raw_reads_are_still_there() -> None:
    """Each named exception is still in its file (else the allowance is stale: delete its line)."""
    found = {(path.relative_to(REPO).as_posix(), what)
             for directory in FRONT_ENDS.values() for path in modules_under(directory) for what, _ in raw_reads(path)}
    assert set(KNOWN_RAW_READS) - found == set() and set(NOT_STORE_BYTES) - found == set()


def test_every_breach_is_found_in_a_copy_with_deliberate_ones(tmp_path: Path) -> None:
    """The test fails when the architecture is breached: a copy of the tree with one breach of each rule."""
    def sources_only(directory: str, names: list[str]) -> set[str]:
        # Python sources are all the test reads. benchmarks/data is skipped: benchmark tests on another xdist
        # worker create and delete stores there while this copy runs (a CI failure: "No such file").
        here = Path(directory)
        return {n for n in names
                if n == "__pycache__" or (here / n).is_file() and not n.endswith(".py")
                or here == REPO / "benchmarks" and n == "data"}

    for d in ("parsers", "inspector", "web", "scripts", "benchmarks"):
        shutil.copytree(REPO / d, tmp_path / d, ignore=sources_only)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "timer_store.py").write_text("")
    # (no check of the clean copy first: the exact list below holds only if the copy has no other breach)
    (tmp_path / "parsers" / "evil.py").write_text("from inspector.engine import Store\n")
    (tmp_path / "inspector" / "engine" / "read" / "evil.py").write_text(
        "import os\n"
        "from inspector.engine.maintain.write.writer import StoreWriter\n"
        "def f(p):\n"
        "    open(p, 'wb').close()\n"
        "    os.replace(p, p)\n"
        "    fd = os.open(p, os.O_RDWR)\n")
    (tmp_path / "inspector" / "engine" / "model" / "evil.py").write_text("from inspector.engine.read.store.store import Store\n")
    (tmp_path / "web" / "evil.py").write_text(
        "from parsers.java import index_key\n"
        "from inspector.engine.read.store.store import Store\n"
        "from inspector.tui.app import InspectorApp\n"
        "import importlib, mmap\n"
        "def f(store, msg, p):\n"
        "    from inspector.engine.maintain.verify import verify\n"
        "    importlib.import_module('inspector.engine.read.index.slots')\n"
        "    open(p, 'rb').read()\n"
        "    return store.commitlog.read(msg.position + 16, 8)\n")
    (tmp_path / "scripts" / "evil.py").write_text("import timer_store\nfrom inspector.cli.main import main\n")
    (tmp_path / "benchmarks" / "evil.py").write_text("def f():\n    __import__('timer_store')\n")
    found = breaches(tmp_path)
    assert found == [
        "parsers/evil.py:1: parsers import inspector.engine",
        "inspector/engine/model/evil.py:1: engine.model imports engine.read (inspector.engine.read.store.store), a room above it",
        "inspector/engine/read/evil.py:2: engine.read imports engine.maintain (inspector.engine.maintain.write.writer), "
        "a room above it",
        "inspector/engine/read/evil.py:4: engine.read (read side) writes: open(mode='wb')",
        "inspector/engine/read/evil.py:5: engine.read (read side) writes: os.replace",
        "inspector/engine/read/evil.py:6: engine.read (read side) writes: os.O_RDWR",
        "web/evil.py:1: web imports parsers.java: front ends never parse bytes",
        "web/evil.py:2: web imports inspector.engine.read.store.store: front ends import only inspector.engine",
        "web/evil.py:3: web imports another front end, inspector.tui.app",
        "web/evil.py:6: web imports inspector.engine.maintain.verify: front ends import only inspector.engine",
        "web/evil.py:6: web imports inspector.engine.maintain.verify.verify: front ends import only inspector.engine",
        "web/evil.py:7: web imports inspector.engine.read.index.slots: front ends import only inspector.engine",
        "web/evil.py:4: web reads raw store bytes itself: import mmap",
        "web/evil.py:8: web reads raw store bytes itself: open(binary read)",
        "web/evil.py:9: web reads raw store bytes itself: store.commitlog.read",
        "web/evil.py:9: web reads raw store bytes itself: msg.position + 16",
        "scripts/evil.py:1: a script imports timer_store, a benchmark or test module",
        "scripts/evil.py:2: a script imports a front end, inspector.cli.main: scripts drive the engine",
        "benchmarks/evil.py:2: a benchmark imports timer_store, a test module: benchmarks run without tests/",
    ]


# -- the face -------------------------------------------------------------------------------------------------------


def _face_tree() -> ast.Module:
    return ast.parse((REPO / "inspector" / "engine" / "__init__.py").read_text(encoding="utf-8"))


def test_the_face_lists_each_name_once_and_every_name_resolves() -> None:
    import importlib

    engine = importlib.import_module("inspector.engine")
    face = engine._FACE
    names = [n for ns in face.values() for n in ns]
    assert len(names) == len(set(names)), "a name is given by two modules"
    for module, ns in face.items():
        mod = importlib.import_module(f"inspector.engine.{module}")
        for n in ns:
            assert getattr(engine, n) is getattr(mod, n)


def test_the_face_is_declared_once_by_its_type_checking_imports() -> None:
    """The TYPE_CHECKING block ends the file and holds only from-imports of the engine's modules: what checkers
    see is exactly what ``__getattr__`` loads (``_FACE`` is read from it), and no other table lists names."""
    import importlib

    face = importlib.import_module("inspector.engine")._FACE
    tree = _face_tree()
    block = tree.body[-1]
    assert isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
    seen = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.module.startswith("inspector.engine."), ast.unparse(node)
        seen[node.module.removeprefix("inspector.engine.")] = sorted(a.name for a in node.names)
    assert seen == {m: sorted(ns) for m, ns in face.items()}
    literals = [n for n in ast.walk(tree) if isinstance(n, ast.Dict) and n.keys]
    assert literals == [], "a second table of the face's names"


def test_the_face_docstring_names_every_name_by_question() -> None:
    """A newcomer reads the face first: its docstring lists each name under the question it answers (the argument
    kinds of model/arguments.py as one group), on about one screen."""
    import importlib
    import re

    engine = importlib.import_module("inspector.engine")
    words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", engine.__doc__))
    unlisted = [n for module, ns in engine._FACE.items() if module != "model.arguments" for n in ns if n not in words]
    assert unlisted == []
    assert len(engine.__doc__.splitlines()) <= 50


def test_front_ends_use_names_the_face_gives() -> None:
    import importlib

    given = set(importlib.import_module("inspector.engine").__all__)
    missing = []
    for _, directory in FRONT_ENDS.items():
        for path in modules_under(directory):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module == FACE:
                    missing += [f"{path.relative_to(REPO)}: {a.name}" for a in node.names if a.name not in given]
    assert missing == []


def test_importing_the_engine_loads_no_ui_library_and_only_what_is_asked() -> None:
    """At run time too: the face is lazy, so opening a store loads no writer, workshop, Flask, Textual or Spark."""
    code = (
        "import sys, importlib\n"
        "from inspector.engine import Store\n"
        "bad = sorted(m for m in ('textual', 'flask', 'pyspark', 'rich') if m in sys.modules)\n"
        "assert not bad, ('engine', bad)\n"
        "rooms = sorted(m for m in sys.modules if m.startswith(('inspector.engine.maintain', 'inspector.engine.workshop')))\n"
        "assert not rooms, ('Store loaded', rooms)\n"
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
        ("typing", False, False), ("os", False, False), ("inspector.engine.commitlog", False, False),
        ("inspector", False, False), ("inspector.engine", False, False), ("flask", False, True),
        ("web.app", True, False),
    ]


def test_the_walker_follows_import_module_strings(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import importlib\n"
        "def f(name, job):\n"
        "    importlib.import_module('inspector.engine.read.store.store')\n"
        "    importlib.import_module(f'inspector.spark.jobs.{job}')\n"
        "    __import__('web.app')\n"
        "    importlib.import_module(name)\n"
        "    importlib.import_module('.x', 'inspector')\n")
    found = [(i.module, i.in_function) for i in imports_of(probe, "inspector.engine")]
    assert found == [("importlib", False), ("inspector.engine.read.store.store", True),
                     ("inspector.spark.jobs", True), ("web.app", True)]


@pytest.mark.parametrize(("source", "expected"), [
    ("open(p)", []), ("open(p, 'rb')", []), ("open(p, 'r+b')", ["open(mode='r+b')"]),
    ("p.open('a')", ["p.open(mode='a')"]), ("Path(p).write_bytes(b'')", ["Path(p).write_bytes"]),
    ("shutil.rmtree(p)", ["shutil.rmtree"]), ("mmap.mmap(f, 0, access=mmap.ACCESS_READ)", []),
    ("mmap.mmap(f, 0, access=mmap.ACCESS_WRITE)", ["mmap.ACCESS_WRITE"]), ("text.replace('a', 'b')", []),
    ("p.unlink()", ["p.unlink"]), ("p.replace(q)", ["p.replace"]),
])
def test_write_sites_are_recognised(tmp_path: Path, source: str, expected: list[str]) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(f"def f(p, f, text):\n    {source}\n")
    assert [what for what, _ in write_sites(probe, tmp_path)] == expected
