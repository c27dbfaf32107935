"""``Store`` owns the files and nothing below it calls back up into it (issue 28 item 4), read with ``ast``:

* no module of ``engine/read/`` but the store's own (``read/store/store.py``, and ``read/store/answers.py``: the
  face's verbs over a whole Store; ``read/store/opening.py``, which opens one from user input) imports the Store's module or ``answers``, at the top, in a function or under
  ``TYPE_CHECKING``;
* none of them has a parameter named ``store`` or annotated ``Store``: a helper receives a CommitLog, the queues,
  paths or values, never the Store to call back;
* ``engine/model/`` never touches a read object: it imports nothing of ``engine/read/`` and takes no ``store``;
* ``Store`` is one class with a job per object it owns (StoreQueues, KeyIndex, LogScans), not a class plus mixins.

``store_callbacks(root)`` holds the rules; the tests run it on this repository (nothing found) and on a copy with
one breach of each rule (each found).
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[5]
ENGINE = Path("inspector/engine")
STORE_OWN = {ENGINE / "read/store/store.py", ENGINE / "read/store/answers.py", ENGINE / "read/store/opening.py"}
STORE_MODULES = {"inspector.engine.read.store.store", "inspector.engine.read.store.answers"}


def _imported(tree: ast.AST) -> list[tuple[str, int]]:
    """(absolute module, line) of every import in the module, wherever it is written (relative ones resolved
    only as far as the engine uses them: it has none)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, node.lineno))
            found += [(f"{node.module}.{alias.name}", node.lineno) for alias in node.names]
    return found


def _names_store(annotation: ast.expr | None) -> bool:
    """Whether an annotation mentions the Store class (``Store``, ``Store | None``, ``"Store"``, ``store.Store``)."""
    if annotation is None:
        return False
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id == "Store":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "Store":
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "Store" in node.value.replace(
                "|", " ").replace("[", " ").replace("]", " ").split():
            return True
    return False


def _store_parameters(tree: ast.AST) -> list[tuple[str, int]]:
    """(function, line) of each parameter named ``store`` or annotated ``Store``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        a = node.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]:
            if arg.arg == "store" or _names_store(arg.annotation):
                found.append((getattr(node, "name", "<lambda>"), arg.lineno))
    return found


def store_callbacks(root: Path) -> list[str]:
    """Every breach of the rules above under ``root`` (a checkout), one line each."""
    found = []
    for path in sorted((root / ENGINE / "read").rglob("*.py")):
        rel = path.relative_to(root)
        if rel in STORE_OWN:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(rel))
        found += [f"{rel}:{line}: imports {module} (the Store's own modules)" for module, line in _imported(tree)
                  if module in STORE_MODULES]
        found += [f"{rel}:{line}: {name}() takes the Store (give it the parts it reads)"
                  for name, line in _store_parameters(tree)]
    for path in sorted((root / ENGINE / "model").rglob("*.py")):
        rel = path.relative_to(root)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(rel))
        found += [f"{rel}:{line}: model imports {module} (model takes values)" for module, line in _imported(tree)
                  if module.startswith("inspector.engine.read")]
        found += [f"{rel}:{line}: {name}() takes a store (model takes values)"
                  for name, line in _store_parameters(tree)]
    store_py = root / ENGINE / "read/store/store.py"
    for node in ast.walk(ast.parse(store_py.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef) and node.name == "Store" and node.bases:
            found.append(f"{store_py.relative_to(root)}:{node.lineno}: Store has base classes (mixins): "
                         "give each part an object of its own")
    return found


def test_nothing_below_the_store_takes_it() -> None:
    assert store_callbacks(REPO) == []


def test_each_rule_finds_its_breach(tmp_path: Path) -> None:
    """A copy of the engine with one breach of each rule: every one is reported, naming its file."""
    shutil.copytree(REPO / ENGINE, tmp_path / ENGINE, ignore=shutil.ignore_patterns("__pycache__"))
    assert store_callbacks(tmp_path) == []
    breaches = {
        "read/index/keys.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from inspector.engine.read.store.store import Store\n",
        "read/queues/lmq.py": "def f(x: int, log: 'Store | None') -> None:\n    return None\n",
        "read/timer/timerstore.py": "def g(store) -> None:\n    import inspector.engine.read.store.answers\n",
        "model/geometry.py": "def h(store) -> int:\n    return store.commitlog.segment_size\n",
    }
    for rel, text in breaches.items():
        path = tmp_path / ENGINE / rel
        path.write_text(path.read_text(encoding="utf-8") + "\n\n" + text, encoding="utf-8")
    store_py = tmp_path / ENGINE / "read/store/store.py"
    store_py.write_text(store_py.read_text(encoding="utf-8").replace("class Store:", "class Store(QueueAccess):"),
                        encoding="utf-8")
    found = store_callbacks(tmp_path)
    said = "\n".join(found)
    assert "read/index/keys.py" in said and "imports inspector.engine.read.store.store" in said
    assert "read/queues/lmq.py" in said and "f() takes the Store" in said
    assert "read/timer/timerstore.py" in said and "g() takes the Store" in said
    assert "imports inspector.engine.read.store.answers" in said
    assert "model/geometry.py" in said and "h() takes a store" in said
    assert "Store has base classes" in said
    assert len(found) == 6, found
