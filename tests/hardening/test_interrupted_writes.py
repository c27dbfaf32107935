"""Crash-safe writers (issue 7): `write`, `rebuild --out` and `rebuild --in-place` killed with SIGKILL at every step.

Each run is a forked child running the real CLI; ``RMQ_INSPECT_CRASH_AT`` (the documented test hook in
``inspector/engine/maintain/write/staging.py``) makes it SIGKILL itself at a chosen step, and a few runs are killed at random
times instead. Afterwards the target is either absent/old or complete and byte-identical to an uninterrupted
run, never a mix; an interrupted in-place rebuild is reported by readers (without being touched) and finished
by the next ``rebuild --in-place``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from inspector.cli.main import main as cli_main
from inspector.engine import Store
from inspector.engine.maintain.rebuild.rebuild import finish_interrupted
from inspector.engine.maintain.verify.verify import verify
from inspector.engine.maintain.write import staging as staging_mod
from inspector.engine.maintain.write.staging import CRASH_ENV
from inspector.engine.read.commitlog.journal import JOURNAL, STAGING_MARK

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_store"
GEOMETRY = ["--segment-size", "4096", "--cq-file-size", "400", "--index-slots", "64", "--index-items", "256"]
pytestmark = pytest.mark.timeout(120)


def _files(root: Path, *subs: str) -> dict[str, bytes | None]:
    """Every path under root (or under the given children of it): file bytes, None for a directory."""
    out = {}
    bases = [root / s for s in subs] if subs else [root]
    for base in bases:
        if base.is_file():
            out[str(base.relative_to(root))] = base.read_bytes()
        for p in sorted(base.rglob("*")) if base.is_dir() else []:
            out[str(p.relative_to(root))] = p.read_bytes() if p.is_file() else None
    return out


def _cli(argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return cli_main(argv)


def _child(argv: list[str], crash_at: str | None) -> int:
    """Fork, run the CLI in the child (crash hook armed); the child's pid."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 98
        try:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            sys.stdin, sys.stdout, sys.stderr = open(0), open(1, "w"), open(2, "w")  # noqa: SIM115
            if crash_at:
                os.environ[CRASH_ENV] = crash_at
            staging_mod._reached.clear()
            code = cli_main(argv)
        finally:
            os._exit(code)
    return pid


def _killed_at(argv: list[str], crash_at: str) -> None:
    _, status = os.waitpid(_child(argv, crash_at), 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (crash_at, status)


def _killed_after(argv: list[str], seconds: float) -> bool:
    """Run and SIGKILL after ``seconds``; True if the kill came before the run ended."""
    pid = _child(argv, None)
    time.sleep(seconds)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status)


def _run_seconds(argv: list[str]) -> float:
    """Wall time of one uninterrupted forked run, so random kills land inside a run on a fast or a slow machine."""
    started = time.monotonic()
    _, status = os.waitpid(_child(argv, None), 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    return time.monotonic() - started


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if STAGING_MARK in p.name or p.name.startswith(JOURNAL))


# -- write --------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def messages(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("input") / "in.jsonl"
    with path.open("w") as f:
        for i in range(300):
            ts = 1_700_000_000_000 + i * 997
            f.write(json.dumps({"topic": f"T{i % 3}", "body": f"hello {i} " * (i % 17), "keys": [f"k{i}"], "tags": "a",
                                "queue_id": i % 2, "store_timestamp": ts, "born_timestamp": ts}) + "\n")
    return path


def _write_argv(out: Path, messages: Path) -> list[str]:
    return ["write", str(out), str(messages), *GEOMETRY]


@pytest.fixture(scope="module")
def written(tmp_path_factory, messages) -> dict:
    out = tmp_path_factory.mktemp("ref") / "store"
    assert _cli(_write_argv(out, messages)) == 0
    return _files(out)


@pytest.mark.parametrize("step", ["record:1", "record:150", "fsync:1", "fsync:12", "before-rename", "after-rename"])
def test_write_killed_at_a_step_leaves_nothing_or_the_whole_store(tmp_path, messages, written, step):
    out = tmp_path / "store"
    _killed_at(_write_argv(out, messages), step)
    if step == "after-rename":
        assert _files(out) == written  # renamed: complete and identical to an uninterrupted run
    else:
        assert not out.exists()  # not renamed yet: no store at all, only a staging directory beside it
        assert len(_leftovers(tmp_path)) == 1
        assert _cli(_write_argv(out, messages)) == 0  # the next write clears the dead writer's staging
        assert _files(out) == written
    assert _leftovers(tmp_path) == []
    with Store(out) as store:
        assert verify(store).problems == ()  # a complete store, as clean as an uninterrupted run's


def test_write_into_an_empty_directory_is_atomic_too(tmp_path, messages, written):
    out = tmp_path / "store"
    out.mkdir()
    _killed_at(_write_argv(out, messages), "before-rename")
    assert out.is_dir() and not any(out.iterdir())  # still the empty directory the user made
    assert _cli(_write_argv(out, messages)) == 0 and _files(out) == written


def test_write_killed_at_random_times(tmp_path, messages, written):
    rng = random.Random(11)
    # the shortest of two timed runs: one run slowed by a busy machine would put every kill after the end
    seconds = min(_run_seconds(_write_argv(tmp_path / f"timed{i}", messages)) for i in range(2))
    killed = []
    for n in range(12):  # until three kills landed inside a run (each outcome checked either way)
        out = tmp_path / f"store{n}"
        killed.append(_killed_after(_write_argv(out, messages), rng.uniform(0.05, 0.9) * seconds))
        assert not out.exists() or _files(out) == written, n
        if sum(killed) >= 3:
            break
    assert any(killed)


# -- rebuild --out ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("src") / "store"
    shutil.copytree(SAMPLE, root)
    out = root.parent / "ref-out"
    assert _cli(["rebuild", str(root), "--out", str(out)]) == 0
    return root, _files(out)


@pytest.mark.parametrize("step", ["dispatch:1", "dispatch:30", "fsync:3", "before-rename", "after-rename"])
def test_rebuild_out_killed_at_a_step(tmp_path, rebuilt, step):
    root, expected = rebuilt
    out = tmp_path / "out"
    _killed_at(["rebuild", str(root), "--out", str(out)], step)
    if step == "after-rename":
        assert _files(out) == expected
    else:
        assert not out.exists()
        assert _cli(["rebuild", str(root), "--out", str(out)]) == 0 and _files(out) == expected
    assert _leftovers(tmp_path) == []


# -- rebuild --in-place -------------------------------------------------------------------------------------------

SWAPPED = ("consumequeue", "index", "checkpoint")


def _damaged_copy(dest: Path) -> Path:
    shutil.copytree(SAMPLE, dest)
    (dest / "consumequeue" / "OrderEvents" / "0" / "00000000000000000000").write_bytes(b"\0" * 200)  # damage
    return dest


@pytest.fixture(scope="module")
def in_place(tmp_path_factory) -> tuple[dict, dict]:
    """(the damaged store's swapped paths, the same after an uninterrupted in-place rebuild)."""
    root = _damaged_copy(tmp_path_factory.mktemp("inplace") / "store")
    old = _files(root, *SWAPPED)
    assert _cli(["rebuild", str(root), "--in-place"]) == 0
    new = _files(root, *SWAPPED)
    assert new != old
    return old, new


def _assert_reported_untouched(root: Path) -> None:
    """Readers name the leftover as a problem and leave every byte of it alone."""
    before = _files(root)
    with Store(root) as store:
        found = [p for p in store.problems() if p.code == "interrupted-rebuild"]
        report = verify(store)
    assert found and "run rebuild --in-place again" in found[0].reason
    assert any(p.code == "interrupted-rebuild" for p in report.errors)
    assert _files(root) == before


@pytest.mark.parametrize("step", ["dispatch:5", "fsync:2", "staged", "journal", "swap:1", "swap:2", "swap:4",
                                  "before-journal-remove"])
def test_in_place_killed_at_a_step_is_finished_by_the_next_run(tmp_path, in_place, step):
    old, new = in_place
    root = _damaged_copy(tmp_path / "store")
    _killed_at(["rebuild", str(root), "--in-place"], step)
    journal = (root / JOURNAL).exists()
    if not journal:  # killed before the commit point: the store's files are untouched
        assert _files(root, *SWAPPED) == old
    if _leftovers(root):
        _assert_reported_untouched(root)
    assert _cli(["rebuild", str(root), "--in-place"]) == 0
    assert _files(root, *SWAPPED) == new and _leftovers(root) == []
    with Store(root) as store:
        assert verify(store).errors == []


def test_roll_forward_alone_completes_the_swap(tmp_path, in_place):
    _, new = in_place
    root = _damaged_copy(tmp_path / "store")
    _killed_at(["rebuild", str(root), "--in-place"], "swap:1")  # one path moved out, nothing moved in yet
    assert finish_interrupted(root) == "rolled forward"
    assert _files(root, *SWAPPED) == new and _leftovers(root) == []
    assert finish_interrupted(root) is None


def test_in_place_killed_at_random_times(tmp_path, in_place):
    old, new = in_place
    rng = random.Random(5)
    seconds = min(_run_seconds(["rebuild", str(_damaged_copy(tmp_path / f"timed{i}")), "--in-place"]) for i in range(2))
    killed = []
    for n in range(12):  # until three kills landed inside a run (a busy machine makes single timings unreliable)
        if sum(killed) >= 3:
            break
        root = _damaged_copy(tmp_path / f"store{n}")
        killed.append(_killed_after(["rebuild", str(root), "--in-place"], rng.uniform(0.05, 0.9) * seconds))
        if not (root / JOURNAL).exists():
            assert _files(root, *SWAPPED) in (old, new), n  # no journal: all old, or all new (finished)
        assert _cli(["rebuild", str(root), "--in-place"]) == 0
        assert _files(root, *SWAPPED) == new and _leftovers(root) == []
    assert any(killed)
