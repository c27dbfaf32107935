"""Fuzzing the engine over damaged copies of ``sample_store/`` (issue 7, "Damage and hostile input", bullet 3).

Hypothesis draws a list of damages (byte flips, zeroed ranges, garbage runs, planted int32 values and record
magics, truncations, extensions, deleted files and directories) over the commitlog segments, consume queues,
index files, checkpoint and config JSON of a fresh copy of the sample store. The engine then opens the copy,
iterates every message and every queue, looks up by key, msgId, unique key and offset, walks index chains and
runs verify. Each example must raise nothing but the engine's own StoreError family, finish under a watchdog
(SIGALRM, faulthandler as the backstop for code that never returns to the interpreter) and stay under a
tracemalloc peak. Separate tests check the bounds explicitly: looping and overlong index chains stop, and a
resync scan over a garbage segment takes time linear in its size. The CLI runs on damaged stores too.

CI is deterministic (derandomize=True). A longer run: ``RMQ_FUZZ_EXAMPLES=5000 pytest tests/hardening/test_fuzz_store.py``.
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import os
import random
import resource
import shutil
import signal
import struct
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.cli.main import main as cli_main
from inspector.engine.maintain.verify.verify import verify
from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Blank, Message, Problem
from inspector.engine.read.index.slots import busiest_slots, slot_occupancy, walk_slot
from inspector.engine.read.store.store import Store
from parsers import commitlog as cl
from parsers import fastjson
from parsers.indexfile import INDEX_HEADER_SIZE, INDEX_ITEM_SIZE, INDEX_SLOT_SIZE, index_file_size
from parsers.java import index_key, index_key_hash, index_slot

SAMPLE = Path(__file__).resolve().parents[2] / "sample_store"
LONG_RUN = int(os.environ.get("RMQ_FUZZ_EXAMPLES", "0"))
EXAMPLE_SECONDS = 20.0  # per example; the sample store's whole workload takes ~0.2 s
STARVED_FACTOR = 5  # an example that used under half its CPU budget may take this many budgets of wall time
BACKSTOP_SECONDS = 120.0  # faulthandler kills the process (with tracebacks) if even SIGALRM cannot get through
PEAK_BYTES = 96 << 20  # tracemalloc peak (targeted tests): the store is 448 KiB, anything near this is runaway
RSS_GROWTH_KIB = 256 << 10  # max RSS (fuzz examples) may not grow past the first example's by more than this
EXIT_CODES = {0, 1, 2, 3, 4}


def fuzz_settings(examples: int, long_share: float = 1.0) -> settings:
    return settings(max_examples=int(LONG_RUN * long_share) or examples, deadline=None, derandomize=not LONG_RUN, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- watchdog and memory guard ----------------------------------------------------------------------------------


class Hang(BaseException):  # noqa: N818 - BaseException so the engine's `except Exception` cannot swallow it
    """An example ran past its time budget."""


@contextlib.contextmanager
def watchdog(seconds: float = EXAMPLE_SECONDS) -> Iterator[None]:
    """Raise Hang after ``seconds``; restores pytest-timeout's own SIGALRM timer afterwards."""

    def fire(signum, frame):
        waited, cpu = time.monotonic() - started, time.process_time() - cpu_began
        left = pending - waited if pending else None  # pytest-timeout's own time for the whole test
        if cpu < seconds / 2 and waited < seconds * STARVED_FACTOR and (left is None or left > 0.05):
            # starved (or waiting on a child that is): a long fuzz run shares its cores with other work, and an
            # example that got little CPU in its time is given another slice; a stuck one still ends at the factor
            # (and never later than the test's own timeout)
            signal.setitimer(signal.ITIMER_REAL, seconds if left is None else min(seconds, left))
            return
        raise Hang(f"example still running after {waited:.1f} s ({cpu:.1f} s of CPU)")

    started, cpu_began = time.monotonic(), time.process_time()
    pending = signal.getitimer(signal.ITIMER_REAL)[0]  # pytest-timeout's alarm, if it set one
    old_handler = signal.signal(signal.SIGALRM, fire)
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, min(seconds, pending) if pending else seconds)
    faulthandler.dump_traceback_later(max(BACKSTOP_SECONDS, seconds * (STARVED_FACTOR + 1)), exit=True)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, old_handler)
        left = old_delay - (time.monotonic() - started)
        if old_delay and left > 0:  # (past it, this example raised Hang: the test fails here, not in pytest's code)
            signal.setitimer(signal.ITIMER_REAL, left, old_interval)


_RSS_BASE: list[int] = []


def max_rss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


@contextlib.contextmanager
def rss_cap() -> Iterator[None]:
    """Per-example memory guard. tracemalloc would see every allocation but slows the engine ~8x, so the fuzz
    examples check the process's high-water RSS (which also counts touched mmap pages) against the first's."""
    if not _RSS_BASE:
        _RSS_BASE.append(max_rss_kib())
    yield
    grown = max_rss_kib() - _RSS_BASE[0]
    assert grown < RSS_GROWTH_KIB, f"max RSS grew by {grown:,} KiB during the fuzz run"


@contextlib.contextmanager
def memory_cap(limit: int = PEAK_BYTES) -> Iterator[None]:
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        yield
        peak = tracemalloc.get_traced_memory()[1]
        assert peak < limit, f"tracemalloc peak {peak:,} bytes (cap {limit:,})"
    finally:
        if started:
            tracemalloc.stop()


# --- the pristine store and what to look up in it -----------------------------------------------------------------


@dataclass(repr=False)
class Facts:
    root: Path
    files: dict[str, list[str]]  # category -> relative paths
    dirs: list[str]
    sizes: dict[str, int]
    keys: list[tuple[str, str]] = field(default_factory=list)
    msg_ids: list[str] = field(default_factory=list)
    unique_keys: list[str] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)

    def __repr__(self) -> str:  # hypothesis prints the arguments of a failing example: keep it short
        return f"Facts({self.root})"


def _category(rel: str) -> str | None:
    top = rel.split("/", 1)[0]
    if top in ("commitlog", "consumequeue", "index", "config"):
        return top
    return "checkpoint" if rel == "checkpoint" else None


@pytest.fixture(scope="module")
def facts(tmp_path_factory) -> Facts:
    root = tmp_path_factory.mktemp("fuzz-pristine") / "store"
    shutil.copytree(SAMPLE, root)
    files: dict[str, list[str]] = {}
    sizes = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and _category(rel):
            files.setdefault(_category(rel), []).append(rel)
            sizes[rel] = path.stat().st_size
    dirs = sorted({rel.rsplit("/", 1)[0] for group in files.values() for rel in group if "/" in rel})
    f = Facts(root, files, dirs, sizes)
    rnd = random.Random(7)
    with Store(root) as store:  # also warms the compiled fast path so the first example is not slow
        messages = [e for e in store.entries() if isinstance(e, Message)]
        verify(store)
    for m in rnd.sample(messages, 6):
        f.offsets.append(m.physical_offset)
        f.msg_ids.append(m.msg_id)
        if m.unique_key:
            f.unique_keys.append(m.unique_key)
        f.keys.extend((m.topic, k) for k in m.keys[:1])
    f.keys.append(("OrderEvents", "no-such-key"))
    f.offsets += [1, 65_518, 131_049, 10**12, -1]
    return f


# --- damage ------------------------------------------------------------------------------------------------------

KINDS = ("flip", "zero", "garbage", "int32", "magic", "truncate", "extend", "delete", "json", "dirswap", "symlink", "fifo")
INTERESTING = (0, 1, -1, 20, 46, 91, 0x7FFFFFFF, -(1 << 31), 65_536, 511, 512, 128)
MAGICS = tuple(m.to_bytes(4, "big", signed=True) for m in (cl.MAGIC_V1, cl.MAGIC_V2, cl.MAGIC_BLANK))


@dataclass(frozen=True)
class Damage:
    category: str
    pick: int  # which file of the category (mod its count)
    kind: str
    where: int  # position (mod the file's size)
    length: int
    seed: int

    def apply(self, root: Path, f: Facts) -> None:
        if self.category == "dir":
            shutil.rmtree(root / f.dirs[self.pick % len(f.dirs)], ignore_errors=True)
            return
        group = f.files[self.category]
        path = root / group[self.pick % len(group)]
        if not path.is_file():
            return
        if self.kind in ("delete", "dirswap", "symlink", "fifo"):
            path.unlink()
            if self.kind == "dirswap":  # a directory where a file should be
                path.mkdir()
            elif self.kind == "fifo":  # a named pipe: a blocking open() would wait for a writer forever
                os.mkfifo(path)
            elif self.kind == "symlink":  # a link to itself: every open fails with ELOOP
                path.symlink_to(path.name)
            return
        if self.kind == "json" and self.category == "config":
            path.write_text(hostile_json(path.read_text(errors="replace"), random.Random(self.seed)))
            return
        data = bytearray(path.read_bytes())
        pos = self.where % (len(data) + 1)
        rnd = random.Random(self.seed)
        if self.kind == "flip" and data:
            pos = min(pos, len(data) - 1)
            data[pos] ^= 1 << (self.seed % 8)
        elif self.kind == "zero":
            data[pos : pos + self.length] = bytes(len(data[pos : pos + self.length]))
        elif self.kind == "garbage":
            data[pos : pos + self.length] = rnd.randbytes(len(data[pos : pos + self.length]))
        elif self.kind == "int32":
            value = INTERESTING[self.seed % len(INTERESTING)] if self.seed % 3 else rnd.randrange(-(1 << 31), 1 << 31)
            pos -= pos % 4
            data[pos : pos + 4] = struct.pack(">i", value)[: len(data[pos : pos + 4])]
        elif self.kind == "magic":
            data[pos : pos + 4] = MAGICS[self.seed % 3][: len(data[pos : pos + 4])]
        elif self.kind == "truncate":
            del data[pos:]
        elif self.kind == "extend":
            data += bytes(self.length) if self.seed % 2 else rnd.randbytes(self.length)
        path.write_bytes(bytes(data))


HOSTILE_VALUES = (None, True, -1, 10**30, -(10**30), 1.5, "", "x@y", "../../..", [], [1, "a"], {}, {"0": "x"},
                  {7: {7: 7}})


def hostile_json(text: str, rnd: random.Random) -> str:
    """Valid fastjson whose shape is wrong: one value somewhere replaced by a value of another type."""
    try:
        doc = fastjson.loads(text)
    except fastjson.FastjsonError:
        return text
    holders: list[tuple[dict | list, object]] = []

    def collect(node) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                holders.append((node, k))
                collect(v)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                holders.append((node, i))
                collect(v)

    collect(doc)
    if not holders:
        return fastjson.dumps(rnd.choice(HOSTILE_VALUES))
    holder, key = rnd.choice(holders)
    holder[key] = rnd.choice(HOSTILE_VALUES)  # type: ignore[index]
    return fastjson.dumps(doc)


def damages(categories: tuple[str, ...] = ("commitlog", "consumequeue", "index", "checkpoint", "config", "dir")
            ) -> st.SearchStrategy[list[Damage]]:
    one = st.builds(
        Damage,
        category=st.sampled_from(categories),
        pick=st.integers(0, 63),
        kind=st.sampled_from(KINDS),
        where=st.integers(0, 1 << 17),
        length=st.integers(1, 1 << 14),
        seed=st.integers(0, 2**32 - 1),
    )
    return st.lists(one, min_size=1, max_size=6)


def damaged_copy(f: Facts, target: Path, plan: list[Damage]) -> Path:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(f.root, target)
    for d in plan:
        d.apply(target, f)
    return target


# --- the workload -------------------------------------------------------------------------------------------------


def engine_call(fn: Callable, *args, **kwargs):
    """fn's value, or None when it raised the engine's own error (which must say what went wrong)."""
    try:
        return fn(*args, **kwargs)
    except StoreError as e:
        assert str(e), "a StoreError without a message"
        return None


def check_problem(p: Problem) -> None:
    assert isinstance(p.file, str) and p.file and isinstance(p.offset, int) and p.reason, p


def exercise(root: Path, f: Facts) -> None:
    """Everything a front end does with a store; only StoreError may come out of it."""
    store = engine_call(Store, root)
    if store is None:
        return
    with store:
        for p in engine_call(store.problems) or []:
            check_problem(p)
        engine_call(store.checkpoint)
        engine_call(lambda: store.topics())
        engine_call(store.max_offset)
        seen = 0
        starts = {seg.start_offset for seg in store.segments}
        for entry in store.entries():  # every message, the walk resyncs over damage
            if isinstance(entry, Problem):
                check_problem(entry)
            elif isinstance(entry, Message):
                seen += 1
                assert entry.physical_offset - entry.position in starts
                if seen % 50 == 1:  # what the walk decoded, a direct read decodes the same way
                    again = store.message_at(entry.physical_offset)
                    assert (again.body, again.topic) == (entry.body, entry.topic)
            else:
                assert isinstance(entry, Blank)
        for topic, qid in store.queue_ids():
            info = engine_call(lambda t=topic, q=qid: store.queue(t, q).info())
            for _unit, msg in engine_call(lambda t=topic, q=qid: list(store.queue_messages(t, q))) or []:
                if isinstance(msg, Problem):
                    check_problem(msg)
            if info is not None and info.max_offset > info.min_offset:
                engine_call(store.message_by_queue_offset, topic, qid, info.min_offset)
                engine_call(store.message_by_queue_offset, topic, qid, info.max_offset - 1)
                engine_call(store.queue_offset_by_time, topic, qid, 1_758_290_000_000)
        engine_call(store.consumer_lag)
        for topic, key in f.keys:
            engine_call(store.lookup_key, topic, key)
            engine_call(store.chain, topic, key, 0, (1 << 63) - 1, 1000)
        # a msgId lookup also tries the unique-key reading (every topic x every index file): one of each
        for ref in f.msg_ids[:1] + [str(o) for o in f.offsets[:2]] + ["not-an-id"]:
            engine_call(store.find, ref)
        engine_call(store.lookup_unique_key, f.unique_keys[0], [f.keys[0][0]])
        for off in f.offsets:
            engine_call(store.message_at, off)
            engine_call(store.commitlog.boundary_before, off)
        for reader in engine_call(store.index_files) or []:
            for slot in range(0, reader.slot_count, 7):
                walk_slot(reader, slot)
            reader.items()
            busiest_slots(reader)
            slot_occupancy(reader)
        report = engine_call(verify, store)
        for p in report.problems if report else ():
            check_problem(p)


def test_pristine_workload_finds_everything(facts: Facts, scratch: Path) -> None:
    """Sanity: on the undamaged copy every lookup finds its message and verify is clean."""
    root = damaged_copy(facts, scratch / "clean", [])
    with watchdog(), memory_cap():
        exercise(root, facts)
    with Store(root) as store:
        assert not verify(store).errors
        for ref, off in zip(facts.msg_ids, facts.offsets, strict=False):
            assert store.find(ref).physical_offset == off
        for topic, key in facts.keys[:-1]:
            assert store.lookup_key(topic, key)


@fuzz_settings(80)
@given(plan=damages())
def test_damaged_store_raises_only_engine_errors(facts: Facts, scratch: Path, plan: list[Damage]) -> None:
    root = damaged_copy(facts, scratch / "store", plan)
    with watchdog(), rss_cap():
        exercise(root, facts)


@fuzz_settings(20, long_share=0.2)  # a CLI run costs ~5 engine examples
@given(plan=damages(("commitlog", "index", "consumequeue", "config", "checkpoint")),
       command=st.sampled_from(["info", "messages", "verify", "key", "chain", "show-offset", "show-id", "decode",
                                "story-offset", "story-id", "story-key", "story-junk", "trace-uniq", "preflight",
                                "groups", "group", "grep", "grep-fixed"]))
def test_cli_on_damaged_store_exits_with_a_documented_code(facts: Facts, scratch: Path, plan: list[Damage],
                                                           command: str) -> None:
    root = str(damaged_copy(facts, scratch / "cli", plan))
    argv = {
        "info": ["info", root],
        "messages": ["messages", root, "--limit", "500", "--json"],
        "verify": ["verify", root],
        "key": ["key", root, *facts.keys[0]],
        "chain": ["chain", root, *facts.keys[0]],
        "show-offset": ["show", root, str(facts.offsets[0])],
        "show-id": ["show", root, facts.msg_ids[0]],
        "decode": ["decode-id", "--store", root, facts.unique_keys[0]],
        # the newer commands (issue 35): a REF of each form, and junk no message has
        "story-offset": ["story", root, str(facts.offsets[0]), "--json"],
        "story-id": ["story", root, facts.msg_ids[0], "--no-scan"],
        "story-key": ["story", root, *facts.keys[0]],
        "story-junk": ["story", root, "7F00000100002A9F00000000000000FF"],
        "trace-uniq": ["trace", root, facts.unique_keys[0], "--json"],
        "preflight": ["preflight", root],
        "groups": ["groups", root, "--json"],
        "group": ["group", root, "billing-consumer"],
        "grep": ["grep", root, f"{facts.keys[0][1][:4]}.*", "--json"],
        "grep-fixed": ["grep", root, "-F", "-i", facts.keys[0][1]],
    }[command]
    out, err = io.StringIO(), io.StringIO()
    with watchdog(), rss_cap(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    assert code in EXIT_CODES, (code, err.getvalue())
    assert "Traceback" not in err.getvalue() + out.getvalue()
    if code == 3:
        assert err.getvalue().startswith("rmq-inspect: ")


# --- explicit bounds ------------------------------------------------------------------------------------------------


def _index_store(root: Path, slots: int, items: int, links: Callable[[int], int], index_count: int,
                 key: tuple[str, str] = ("T", "k")) -> int:
    """A store holding one index file whose items 1..n all hash to ``key``'s slot, item i linking to links(i)."""
    (root / "index").mkdir(parents=True)
    (root / "commitlog").mkdir()
    key_hash = index_key_hash(index_key(*key))
    slot = index_slot(key_hash, slots)
    buf = bytearray(index_file_size(slots, items))
    struct.pack_into(">qqqqii", buf, 0, 1_000, 2_000, 0, 0, 1, index_count)
    struct.pack_into(">i", buf, INDEX_HEADER_SIZE + slot * INDEX_SLOT_SIZE, items - 1)
    base = INDEX_HEADER_SIZE + slots * INDEX_SLOT_SIZE
    for n in range(1, items):
        struct.pack_into(">iqii", buf, base + n * INDEX_ITEM_SIZE, key_hash, 0, 0, links(n))
    (root / "index" / "20250919090000000").write_bytes(bytes(buf))
    return slot


@pytest.mark.parametrize("shape", ["loop", "self-loop", "long", "past-count"])
def test_chain_walks_are_bounded(tmp_path: Path, shape: str) -> None:
    slots, items = 16, 256 * 16  # 1:256 geometry: given explicitly
    links = {
        "loop": lambda n: items - 1 if n == 1 else n - 1,  # 1 links back to the newest: a cycle through every item
        "self-loop": lambda n: n,
        "long": lambda n: n - 1,  # one chain through every item of the file, ends at 0
        "past-count": lambda n: n + items * 4,  # links far past the table
    }[shape]
    count = (1 << 31) - 1 if shape == "past-count" else items
    slot = _index_store(tmp_path, slots, items, links, count)
    started = time.monotonic()
    with watchdog(30), memory_cap(), Store(tmp_path, index_slots=slots, index_items=items) as store:
        (walk,) = store.chain("T", "k")
        (reader,) = store.index_files()
        slot_walk = walk_slot(reader, slot)
        report = verify(store)
    elapsed = time.monotonic() - started
    assert len(walk.steps) <= items - 1 and len(slot_walk.items) <= items - 1
    if shape == "loop":
        assert "loop" in walk.stop_reason and len(walk.steps) == items - 1
    elif shape == "self-loop":
        assert "itself" in walk.stop_reason and len(walk.steps) == 1
    elif shape == "long":
        assert walk.stop_reason == "end of chain" and len(walk.steps) == items - 1
    else:
        assert len(walk.steps) == 1 and ("past" in walk.stop_reason or "outside" in walk.stop_reason)
    assert any(p.file.startswith("index/") for p in report.problems) or shape == "long"
    assert elapsed < 20, f"{shape}: {elapsed:.1f} s"


def _garbage_segment(root: Path, size: int, seed: int, hostile: bool) -> None:
    """A one-segment commitlog of garbage. ``hostile``: every 64 bytes a fake record head whose magic and
    PHYSICALOFFSET are right and whose sizes run to the end of the segment, so every resync candidate is
    decoded as far as it goes."""
    (root / "commitlog").mkdir(parents=True)
    rnd = random.Random(seed)
    data = bytearray(rnd.randbytes(size))
    if hostile:
        for pos in range(64, size - 64, 64):
            struct.pack_into(">ii", data, pos, size - pos, cl.MAGIC_V1)
            struct.pack_into(">q", data, pos + 28, pos)
            struct.pack_into(">i", data, pos + 36, 0)  # IPv4 hosts
            struct.pack_into(">i", data, pos + 60, size - pos - 100)  # body length: most of the rest
    (root / "commitlog" / f"{0:020d}").write_bytes(bytes(data))


def _scan_seconds(root: Path) -> tuple[float, int]:
    """CPU seconds (not wall: the test machine is shared) of a full walk and scan, and the Problems found."""
    started = time.process_time()
    with Store(root) as store:
        problems = sum(isinstance(e, Problem) for e in store.entries())
        store.scans()
    return time.process_time() - started, problems


@pytest.mark.parametrize("hostile", [False, True], ids=["random", "hostile-heads"])
def test_resync_scan_is_linear_in_segment_size(tmp_path: Path, hostile: bool) -> None:
    """8x the bytes costs 8-14x the CPU time (measured); the quadratic resync this test found (every candidate
    head copied its declared body before failing, decode.py) cost 25x or more at these sizes."""
    small, big = 1 << 17, 1 << 20
    _garbage_segment(tmp_path / "small", small, 1, hostile)
    _garbage_segment(tmp_path / "big", big, 2, hostile)
    with watchdog(120), rss_cap():  # (tracemalloc's per-allocation cost would swamp the timing)
        t_small = min(_scan_seconds(tmp_path / "small")[0] for _ in range(5))  # the first one warms up
        t_big, problems = min(_scan_seconds(tmp_path / "big") for _ in range(2))
        for _ in range(2):  # CPU time too drifts on a loaded machine (caches, frequency): measure again, keep the best
            if t_big < 18 * max(t_small, 0.005):
                break
            t_small = min(t_small, *(_scan_seconds(tmp_path / "small")[0] for _ in range(3)))
            t_big = min(t_big, *(_scan_seconds(tmp_path / "big")[0] for _ in range(2)))
    assert problems >= 1
    assert t_big < 18 * max(t_small, 0.005), f"{small} bytes: {t_small:.3f} s, {big} bytes: {t_big:.3f} s"
    assert t_big < 10, f"{big} bytes of garbage took {t_big:.1f} s of CPU"


def test_watchdog_interrupts_a_hang() -> None:
    """The guard itself works: a Python loop that never ends is stopped and reported."""
    with pytest.raises(Hang), watchdog(0.2):
        while True:
            pass


def test_watchdog_waits_for_a_starved_example_and_still_stops_a_stuck_one() -> None:
    """An example that used little CPU (a busy machine; here: asleep) gets more slices, up to STARVED_FACTOR."""
    began = time.monotonic()
    with watchdog(0.2):
        time.sleep(0.5)  # 2.5 budgets of wall time, no CPU: starved, not stuck
    with pytest.raises(Hang, match="CPU"), watchdog(0.1):
        time.sleep(5)
    assert time.monotonic() - began < 2


def test_memory_cap_catches_growth() -> None:
    with pytest.raises(AssertionError, match="tracemalloc peak"), memory_cap(1 << 20):
        blob = [bytes(1024) for _ in range(4096)]
        del blob


def test_all_garbage_store_stays_small(facts: Facts, scratch: Path) -> None:
    """Every data file overwritten with random bytes (sizes kept): the whole workload's Python heap peak
    (tracemalloc, which sees numpy buffers too) stays a few MiB, well under the cap."""
    plan = [Damage(category, pick, "garbage", 0, 1 << 17, pick)
            for category, group in facts.files.items() for pick in range(len(group))]
    root = damaged_copy(facts, scratch / "garbage", plan)
    with watchdog(), memory_cap(32 << 20):
        exercise(root, facts)


def test_named_pipes_in_place_of_store_files_do_not_hang(facts: Facts, scratch: Path) -> None:
    """A FIFO where the checkpoint, a config file, an index file or a consume-queue file should be: a blocking
    open would wait for a writer forever (it did, before mapped.MappedFile and config._read checked)."""
    plan = [Damage("checkpoint", 0, "fifo", 0, 1, 0), Damage("config", 0, "fifo", 0, 1, 0),
            Damage("index", 0, "fifo", 0, 1, 0), Damage("consumequeue", 0, "fifo", 0, 1, 0)]
    root = damaged_copy(facts, scratch / "fifo", plan)
    out, err = io.StringIO(), io.StringIO()
    with watchdog(30):
        exercise(root, facts)
        with Store(root) as store:
            reasons = [p.reason for p in store.problems()]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli_main(["info", str(root)])
    assert sum("not a regular file" in r for r in reasons) >= 3, reasons
    assert code in EXIT_CODES and "Traceback" not in err.getvalue()
