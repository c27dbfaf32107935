"""What the issue-22 fuzzers share: the CLI run in-process with captured output, a store's byte-for-byte
fingerprint, and the outcome checks every example must pass (no traceback, a documented exit code).

A failed check is a :class:`Symptom`; the fuzz tests hand each one to :func:`fuzz_known_bugs.triage`, which lets
the classes already named in issue 22 through (counted, so a run says what it met) and fails on anything else.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import traceback
from dataclasses import dataclass
from pathlib import Path

from inspector.cli.main import main as cli_main
from inspector.engine.read.commitlog.mapped import data_extents

EXIT_CODES = {0, 1, 2, 3, 4}  # README "Never a traceback": the documented table
HTTP_OK = {200, 400, 404}


@dataclass(frozen=True)
class Symptom:
    """One broken promise: ``check`` is "traceback", "exit", "changed", "missing-finding", "inconsistent",
    "hang" or "crash"."""

    check: str
    detail: str

    def __str__(self) -> str:
        return f"{self.check}: {self.detail}"


@dataclass(frozen=True)
class CliRun:
    argv: tuple[str, ...]
    code: int | None  # None: an exception escaped main() (what a user sees as a traceback)
    out: str
    err: str

    def symptoms(self) -> list[Symptom]:
        shown = f"rmq-inspect {' '.join(a[:40] for a in self.argv)}"
        if self.code is None:
            return [Symptom("traceback", f"{shown}: {self.err.strip().splitlines()[-1]}")]
        found = []
        if "Traceback (most recent call last)" in self.out + self.err:
            found.append(Symptom("traceback", f"{shown}: printed a traceback"))
        if self.code < 0:  # a subprocess killed by a signal
            found.append(Symptom("crash", f"{shown}: killed by signal {-self.code}"))
        elif self.code not in EXIT_CODES:
            found.append(Symptom("exit", f"{shown}: exit {self.code}"))
        return found


def run_cli(argv: list[str]) -> CliRun:
    """``rmq-inspect argv`` in-process (about 20x faster than a subprocess); an escaping exception is recorded
    with its traceback text as the user would have seen it."""
    note_step("rmq-inspect " + " ".join(a[:40] for a in argv))
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli_main(argv)
    except SystemExit as e:  # main() returns its code; SystemExit escaping it is a bug of its own
        code = e.code if isinstance(e.code, int) else -1
    except Exception:  # noqa: BLE001 - the whole point: whatever escapes is the finding
        return CliRun(tuple(argv), None, out.getvalue(), err.getvalue() + traceback.format_exc())
    return CliRun(tuple(argv), code, out.getvalue(), err.getvalue())


def fingerprint(root: Path) -> dict[str, tuple]:
    """Every path under ``root``: kind, size, mode and content hash (what "unchanged byte for byte" means)."""
    seen: dict[str, tuple] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            seen[rel] = ("link", str(path.readlink()))
        elif path.is_file():
            st = path.stat()
            seen[rel] = ("file", st.st_size, st.st_mode, _content_hash(path, st.st_size))
        else:
            seen[rel] = ("dir", path.stat().st_mode)
    return seen


def _content_hash(path: Path, size: int) -> str:
    """SHA-256 of the file's bytes. A large sparse file (the timer wheel) is hashed extent by extent with the
    extents themselves: bytes outside them are zeros, and a write into a hole makes a new extent, so this is
    still "byte for byte" at a fraction of the reading."""
    extents = data_extents(path) if size >= 1 << 20 else None
    if extents is None:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    h = hashlib.sha256(repr(extents).encode())
    with open(path, "rb") as f:
        for start, end in extents:
            f.seek(start)
            h.update(f.read(end - start))
    return h.hexdigest()


def changed(before: dict[str, tuple], after: dict[str, tuple]) -> list[Symptom]:
    diff = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    return [Symptom("changed", f"the store changed: {', '.join(diff[:5])}")] if diff else []


# -- one example in a process of its own -------------------------------------------------------------------------

ISOLATED_DATA_BYTES = 512 << 20  # RLIMIT_DATA headroom of a forked example: /dev/zero read whole stops here
MEMORY_GROWTH_BYTES = 300 << 20  # issue 35: "under 300 MB" on the sample stores (peak RSS over the fork's start)


_STEP: list[int] = []  # in a forked example: the pipe end the child names its current step on


def note_step(text: str) -> None:
    """In an isolated example, what it is doing now (a hang then names the command that hung)."""
    if _STEP:
        import os

        with contextlib.suppress(BlockingIOError):  # a full pipe: the name is lost, never the example
            os.write(_STEP[0], (text[:200].replace("\n", " ") + "\n").encode("utf-8", "replace"))


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def run_isolated(work, seconds: float, what: str) -> list[Symptom]:
    """``work()`` (returning its symptoms) in a forked child: already-imported modules and compiled kernels come
    along (a fork costs milliseconds, a fresh interpreter ~2 s), while what it does cannot hurt the test
    process: a step (a command: :func:`note_step`) still running ``seconds`` after it began, a blocking open of a
    FIFO or a loop, is killed ("hang", naming the step), a read of /dev/zero stops at RLIMIT_DATA (a
    MemoryError: a "traceback"), a segfault is a "crash", and a peak RSS growing more than
    MEMORY_GROWTH_BYTES is a "memory" symptom. (RLIMIT_DATA, not RLIMIT_AS: a 1 TiB sparse segment must still
    map, as it does for a user.)"""
    import os
    import pickle
    import resource
    import select
    import signal
    import time

    read_end, write_end = os.pipe()
    step_read, step_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 0
        try:
            os.close(read_end)
            os.close(step_read)
            os.set_blocking(step_write, False)
            _STEP[:] = [step_write]
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            resource.setrlimit(resource.RLIMIT_DATA, (_status_kib("VmData") * 1024 + ISOLATED_DATA_BYTES,
                                                      resource.getrlimit(resource.RLIMIT_DATA)[1]))
            start_rss = _status_kib("VmRSS")
            found = list(work())
            grown = (_status_kib("VmHWM") - start_rss) * 1024
            if grown > MEMORY_GROWTH_BYTES:
                found.append(Symptom("memory", f"{what}: peak RSS grew {grown >> 20} MB"))
            payload = pickle.dumps(found)
        except BaseException as e:  # noqa: BLE001 - whatever escapes is the finding
            payload = pickle.dumps([Symptom("crash", f"{what}: {type(e).__name__}: {str(e)[:200]}")])
        try:
            with os.fdopen(write_end, "wb") as f:
                f.write(payload)
        except BaseException:  # noqa: BLE001
            code = 1
        os._exit(code)
    os.close(write_end)
    os.close(step_write)
    data, steps, last, deadline = b"", b"", "(no step named)", time.monotonic() + seconds
    open_fds = [read_end, step_read]
    try:
        while read_end in open_fds:
            left = deadline - time.monotonic()
            ready = select.select(open_fds, [], [], left)[0] if left > 0 else []
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return [Symptom("hang", f"{what}: still running after {seconds:g} s in {last}")]
            for fd in ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    open_fds.remove(fd)
                elif fd == read_end:
                    data += chunk
                else:
                    *done, steps = (steps + chunk).split(b"\n")
                    if done:
                        last = done[-1].decode("utf-8", "replace")
                        deadline = time.monotonic() + seconds  # a new step: its own time
    finally:
        os.close(read_end)
        os.close(step_read)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return [Symptom("crash", f"{what}: killed by signal {os.WTERMSIG(status)} in {last}")]
    return pickle.loads(data) if data else [Symptom("crash", f"{what}: the example's process said nothing")]
