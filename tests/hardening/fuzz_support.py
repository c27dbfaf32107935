"""What the issue-22 fuzzers share: the CLI run in-process with captured output, a store's byte-for-byte
fingerprint, and the outcome checks every example must pass (no traceback, a documented exit code).

A failed check is a :class:`Symptom`; the fuzz tests hand each one to :func:`fuzz_known_bugs.triage`, which lets
the classes already named in issue 22 through (counted, so a run says what it met) and fails on anything else.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from inspector.cli.main import main as cli_main
from tests.store_digest import content_hash

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
            seen[rel] = ("file", st.st_size, st.st_mode, _settled_hash(path, st))
        else:
            seen[rel] = ("dir", path.stat().st_mode)
    return seen


# A file's hash by its inode's identity (device, inode, size, mtime, ctime): a write, truncate, chmod or rename
# moves ctime, which nothing can set back, so the same key is the same bytes. Only files whose ctime lies
# SETTLED_NS in the past are kept: a write in the same clock tick as the hash cannot hide behind a coarse ctime.
# The long run re-fingerprints the same unchanged scratch files (sync_copy keeps them) thousands of times.
_HASHES: dict[tuple[int, int, int, int, int], str] = {}
SETTLED_NS = 2_000_000_000


def _settled_hash(path: Path, st: os.stat_result) -> str:
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    found = _HASHES.get(key)
    if found is None:
        found = content_hash(path, st.st_size)
        if time.time_ns() - st.st_ctime_ns > SETTLED_NS:
            _HASHES[key] = found
    return found


def changed(before: dict[str, tuple], after: dict[str, tuple]) -> list[Symptom]:
    diff = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    return [Symptom("changed", f"the store changed: {', '.join(diff[:5])}")] if diff else []


# -- a scratch copy reused example after example ----------------------------------------------------------------

_COPIED: dict[str, tuple[int, int]] = {}  # target path -> (inode, ctime) as sync_copy left it


def sync_copy(source: Path, target: Path, copy_file=shutil.copy2, skip: tuple[str, ...] = ("README.md",)) -> Path:
    """``target`` made a copy of ``source`` again (``skip`` names left out), redoing only what differs: a file
    is kept only while it is the very inode sync_copy wrote, with the ctime it had then (any write, truncate,
    chmod or rename since moves ctime), the source's size, mtime and mode; anything else at a path is removed
    (never opened: a FIFO or a loop is unlinked) and copied anew, and what the source lacks is removed. A
    store-damage example so copies the file it damaged, not the whole store (the timer store's 37 MB sparse
    wheel, 2,000 files of a "many" damage)."""
    target.mkdir(parents=True, exist_ok=True)
    wanted = {e.name: e for e in os.scandir(source) if e.name not in skip}
    for entry in os.scandir(target):
        if entry.name not in wanted:
            _remove(entry.path)
    for name, src in wanted.items():
        dst = os.path.join(target, name)
        sst = src.stat(follow_symlinks=False)
        try:
            dstat = os.lstat(dst)
        except FileNotFoundError:
            dstat = None
        if src.is_dir(follow_symlinks=False):
            if dstat is not None and not _is_dir(dstat):
                _remove(dst)
            sync_copy(Path(src.path), Path(dst), copy_file, skip)
            if dstat is None or dstat.st_mode != sst.st_mode:
                os.chmod(dst, sst.st_mode)
            continue
        if dstat is not None and _COPIED.get(dst) == (dstat.st_ino, dstat.st_ctime_ns) and (
                dstat.st_mode, dstat.st_size, dstat.st_mtime_ns) == (sst.st_mode, sst.st_size, sst.st_mtime_ns):
            continue
        if dstat is not None:
            _remove(dst)
        if src.is_symlink():
            os.symlink(os.readlink(src.path), dst)
            continue
        copy_file(src.path, dst)
        after = os.lstat(dst)
        _COPIED[dst] = (after.st_ino, after.st_ctime_ns)
    return target


def _is_dir(st: os.stat_result) -> bool:
    import stat

    return stat.S_ISDIR(st.st_mode)


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, onerror=lambda func, p, exc: os.unlink(p))
    else:
        os.unlink(path)


# -- the web viewer's templates, compiled once ---------------------------------------------------------------------


def _bytecode_cache():
    from jinja2 import BytecodeCache

    class InMemory(BytecodeCache):
        """Compiled templates by name and source checksum (Jinja checks it), shared by every app a fuzzer makes:
        each example opens the viewer anew on its damaged store, and compiling the overview's templates took
        ~0.4 s of a ~0.5 s page visit."""

        def __init__(self) -> None:
            self.codes: dict[str, bytes] = {}

        def load_bytecode(self, bucket) -> None:
            if bucket.key in self.codes:
                bucket.bytecode_from_string(self.codes[bucket.key])

        def dump_bytecode(self, bucket) -> None:
            self.codes[bucket.key] = bucket.bytecode_to_string()

    return InMemory()


_TEMPLATES: list = []


def web_client(store):
    """A test client of the web viewer on the open ``store``, its templates compiled once per test process (a
    forked example inherits what the parent compiled: warm it with :func:`warm_web` first)."""
    from web.app import create_app

    if not _TEMPLATES:
        _TEMPLATES.append(_bytecode_cache())
    app = create_app(store, {"TESTING": False})
    app.jinja_env.bytecode_cache = _TEMPLATES[0]
    return app.test_client()


def warm_web(root: Path, paths: tuple[str, ...]) -> None:
    """Visit ``paths`` once on the pristine store ``root`` in this process: their templates' compiled code is
    then in the cache every forked example inherits."""
    from inspector.engine import Store

    with Store(root) as store:
        client = web_client(store)
        for path in paths:
            client.get(path).close()


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


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of process ``pid`` (all its threads), from /proc; None off Linux."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


# A step that got less than its seconds of CPU (a busy machine: the long run shares two cores with other work)
# is given up to this many times its seconds of wall time before it counts as a hang; a blocked one (a FIFO's
# open uses no CPU) is found then
STARVED_WALL_FACTOR = 6


def run_isolated(work, seconds: float, what: str) -> list[Symptom]:
    """``work()`` (returning its symptoms) in a forked child: already-imported modules and compiled kernels come
    along (a fork costs milliseconds, a fresh interpreter ~2 s), while what it does cannot hurt the test
    process: a step (a command: :func:`note_step`) that used ``seconds`` of CPU, or ran ``STARVED_WALL_FACTOR``
    times that long without using them, a blocking open of a FIFO or a loop, is killed ("hang", naming the step), a read of /dev/zero stops at RLIMIT_DATA (a
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
    step_began, step_cpu = time.monotonic(), _cpu_seconds(pid) or 0.0
    open_fds = [read_end, step_read]
    try:
        while read_end in open_fds:
            left = deadline - time.monotonic()
            ready = select.select(open_fds, [], [], left)[0] if left > 0 else []
            if not ready:
                cpu, waited = _cpu_seconds(pid), time.monotonic() - step_began
                if cpu is not None and cpu - step_cpu < seconds and waited < seconds * STARVED_WALL_FACTOR:
                    deadline = time.monotonic() + min(1.0, seconds)  # starved, not stuck: look again soon
                    continue
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                used = "" if cpu is None else f", {cpu - step_cpu:.1f} s of CPU"
                return [Symptom("hang", f"{what}: still running after {waited:.0f} s{used} in {last}")]
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
                        step_began, step_cpu = time.monotonic(), _cpu_seconds(pid) or 0.0
    finally:
        os.close(read_end)
        os.close(step_read)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return [Symptom("crash", f"{what}: killed by signal {os.WTERMSIG(status)} in {last}")]
    return pickle.loads(data) if data else [Symptom("crash", f"{what}: the example's process said nothing")]
