"""The speed targets of issue 8, measured: ``python benchmarks/run.py [--quick]``.

Generates its stores once under ``benchmarks/data/`` (see datagen.py: records our own writer encodes,
replicated to full segments, with their consume queues and index files), runs each target several times and
prints a table of medians with min/max, the target beside each figure, and the machine. ``--quick`` uses
128 MiB segments instead of 1 GiB (throughputs are per byte or per message, so the figures compare; the
index file stays full-size) and finishes in about a minute once the data exists.

Memory is measured in a fresh process per row (peak resident set, VmHWM). The Spark targets are measured
by benchmarks/spark_vs_single.py; the terminal UI's first screen, hex and message-list page renders and
scrolling stalls here, when ``inspector.tui.app.create_app`` is importable.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

import datagen  # noqa: E402

from inspector.engine import Store  # noqa: E402
from inspector.engine.maintain.verify.preflight import preflight  # noqa: E402
from inspector.engine.maintain.verify.verify import verify  # noqa: E402
from inspector.engine.model.crc import CRC_BACKEND  # noqa: E402
from inspector.engine.model.records import Message, Problem  # noqa: E402
from inspector.engine.scan.batch import MessageBatch  # noqa: E402
from inspector.engine.scan.kernels import numba_enabled  # noqa: E402
from inspector.engine.scan.walk import walk_boundaries  # noqa: E402

GiB = 1 << 30
MiB = 1 << 20


@dataclass
class Row:
    name: str
    unit: str
    values: list[float] = field(default_factory=list)
    target: str = ""
    met: bool | None = None  # None: no target (for information)
    note: str = ""

    def cells(self) -> list[str]:
        if not self.values:
            return [self.name, "-", "-", "-", self.unit, self.target, "skipped", self.note]
        med = statistics.median(self.values)
        met = "" if self.met is None else ("yes" if self.met else "NO")
        return [self.name, _fmt(med), _fmt(min(self.values)), _fmt(max(self.values)), self.unit, self.target, met,
                self.note]


def _fmt(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                ram = f"{int(line.split()[1]) / (1 << 20):.1f} GiB"
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    try:
        import numba

        numba_version = numba.__version__ if numba_enabled() else f"{numba.__version__} (disabled)"
    except ImportError:
        numba_version = "no"
    import numpy

    return {
        "cpu": cpu, "cores": f"{os.cpu_count()} ({usable} usable)", "ram": ram,
        "python": platform.python_version(), "numpy": numpy.__version__, "numba": numba_version,
        "crc": CRC_BACKEND, "os": platform.platform(),
        "load average": " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?",
    }


# False in --smoke (set by main): the smoke run (the test suite's) only proves that every row runs and prints its
# figure, so the untimed warm-up runs, which would double most rows' cost, are left out there.
WARM_UP = True


def warm_up(fn, *args, **kwargs) -> None:
    """One untimed run of ``fn(*args, **kwargs)`` (kernels loaded, pages cached), except in --smoke."""
    if WARM_UP:
        fn(*args, **kwargs)


def timed(fn, repeat: int, clock=time.perf_counter) -> list[float]:
    """Seconds of ``fn()`` per run by ``clock`` (wall time by default; ``time.process_time``: CPU time of every
    thread of this process, what the work costs on a shared machine); one untimed warm-up run first (kernels
    loaded, pages cached), except in --smoke."""
    warm_up(fn)
    out = []
    for _ in range(repeat):
        t = clock()
        fn()
        out.append(clock() - t)
    return out


# --- the targets -----------------------------------------------------------------------------------------------


def bench_walk(root: Path, repeat: int) -> Row:
    with Store(root) as store:
        seg = store.segments[0]
        mf = store.commitlog.map(seg)
        count = [0]

        def walk() -> None:
            pos, n = 0, 0
            while True:
                starts, end = walk_boundaries(mf.array, pos, mf.size, segment_start=seg.start_offset,
                                              max_records=1 << 16)
                n += len(starts)
                if len(starts) < 1 << 16:
                    break
                pos = end
            count[0] = n

        secs = timed(walk, repeat)
    rates = [count[0] / s / 1e6 for s in secs]
    return Row("boundary walk, one segment, 1 core", "M msgs/s", rates, ">= 3", statistics.median(rates) >= 3,
               f"{count[0]:,} records, {seg.file_size / GiB:.3g} GiB")


def bench_decode(root: Path, repeat: int) -> list[Row]:
    with Store(root) as store:
        seg = store.segments[0]
        count = [0]

        def decode() -> None:
            n = 0
            for item in store.commitlog.segment_batches(seg, check_crc=False):
                if isinstance(item, MessageBatch):
                    n += len(item)
            count[0] = n

        secs = timed(decode, repeat)
        rates = [count[0] / s / 1e6 for s in secs]
        rows = [Row("bulk decode (all header fields, topic, raw properties), 1 core", "M msgs/s", rates, ">= 1",
                    statistics.median(rates) >= 1, "CommitLog.segment_batches; properties split on demand")]

        sample = [0]

        def with_maps() -> None:  # decode, then split the properties of every record into its map
            n = 0
            for item in store.commitlog.segment_batches(seg, check_crc=False):
                if isinstance(item, MessageBatch):
                    for i in range(len(item)):
                        item.properties(i)
                    n += len(item)
                    if n >= 200_000:
                        break
            sample[0] = n

        secs = timed(with_maps, max(1, repeat // 2))
        rows.append(Row("  ... and every properties map parsed", "M msgs/s", [sample[0] / s / 1e6 for s in secs],
                        note="first 200k records; for comparison"))

        def messages() -> None:
            n = 0
            for _ in store.commitlog.entries(seg.start_offset, check_crc=False):
                n += 1
                if n >= 200_000:
                    break
            sample[0] = n

        secs = timed(messages, max(1, repeat // 2))
        rows.append(Row("  ... as Message objects (entries())", "M msgs/s", [sample[0] / s / 1e6 for s in secs],
                        note="first 200k records; properties kept raw until read"))

        def split_messages() -> None:  # what entries() cost before the properties were kept raw
            n = 0
            for m in store.commitlog.entries(seg.start_offset, check_crc=False):
                if isinstance(m, Message):  # the segment ends in a BLANK (no properties)
                    m.properties_entries  # noqa: B018 - the split each Message used to get at decode
                n += 1
                if n >= 200_000:
                    break
            sample[0] = n

        secs = timed(split_messages, max(1, repeat // 2))
        rows.append(Row("  ... as Message objects, properties split (before: eager split)", "M msgs/s",
                        [sample[0] / s / 1e6 for s in secs], note="first 200k records; for comparison"))
    return rows


def timed_verify(root: Path, repeat: int):
    """(commitlog bytes, seconds of each ``verify(store)`` run, the last report)."""
    size = sum(p.stat().st_size for p in (root / "commitlog").iterdir())
    reports = []

    def run() -> None:
        with Store(root) as store:
            reports.append(verify(store))

    secs = timed(run, repeat)
    return size, secs, reports[-1]


def bench_verify(root: Path, repeat: int) -> list[Row]:
    size, secs, report = timed_verify(root, repeat)
    rates = [size / s / 1e9 for s in secs]
    rows = [Row("verify (walk + decode + body CRC + cross-file), 2 cores", "GB/s", rates, ">= 1",
                statistics.median(rates) >= 1,
                f"{report.messages:,} msgs, {report.cq_units:,} units, {report.index_items:,} items, "
                f"{len(report.problems)} problems")]

    def cli() -> None:
        subprocess.run([sys.executable, "-m", "inspector.cli.main", "verify", str(root)], cwd=ROOT, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    secs = timed(cli, max(1, repeat // 2))
    rows.append(Row("  `rmq-inspect verify` command, cold process", "GB/s", [size / s / 1e9 for s in secs],
                    note="includes interpreter start, imports, kernel load"))
    return rows


def bench_verify_dledger(plain: Path, dledger: Path, repeat: int) -> list[Row]:
    """verify of a DLedger data file against a plain segment of the same size and record templates (issue 19):
    the entries' 48-byte headers are stepped by the same kernels, then the index units are checked against
    them with numpy. Goal: within 10% (CPU time ratio)."""
    reports: dict[Path, list] = {plain: [], dledger: []}

    def run(root: Path):
        def once() -> None:
            with Store(root) as store:
                reports[root].append(verify(store))
        return once

    plain_secs, dl_secs = (timed(run(root), repeat, time.process_time) for root in (plain, dledger))
    ratios = [d / p for d, p in zip(dl_secs, plain_secs, strict=True)]
    dl, pl = reports[dledger][-1], reports[plain][-1]
    ok = [p.code for p in dl.problems] == [p.code for p in pl.problems]
    size = sum(p.stat().st_size for p in (dledger / "dledger-n0" / "data").iterdir())
    return [Row("verify of a DLedger data file / of a plain segment of the same size, CPU time", "x", ratios,
                "<= 1.10", statistics.median(ratios) <= 1.10 and ok,
                f"{size / MiB:,.0f} MiB each, the same record templates: {dl.messages:,} entries vs "
                f"{pl.messages:,} records (48 bytes more each); CPU s median: DLedger "
                f"{statistics.median(dl_secs):.2f}, plain {statistics.median(plain_secs):.2f}; "
                f"{len(dl.problems)} problems; {dl.dledger_recovery}"),
            *_verify_dledger_peak(plain, dledger)]


def _verify_dledger_peak(plain: Path, dledger: Path) -> list[Row]:
    """Peak RSS of `rmq-inspect verify` on the DLedger data file and on the plain segment: the index is compared
    with the walk as it goes (maintain/write/dledger_stream.py), so the DLedger store holds what the plain one does;
    before, ~64 bytes an entry (304 MB for 1 GiB). Goal: within 10% of the plain segment's."""
    argv = ["inspector.cli.main", "verify"]
    warm_up(_child_run, *argv, str(dledger), ok=(0, 4))  # warm-up: page cache, numba's kernel cache
    # exit 4 too: the smoke and quick stores have smaller index files than verify assumes (index-geometry
    # findings, the same on both stores)
    dl_peak, pl_peak = (_child_run(*argv, str(root), ok=(0, 4))[1] for root in (dledger, plain))
    return [Row("  peak RSS of `rmq-inspect verify`: DLedger data file / plain segment", "x", [dl_peak / pl_peak],
                "<= 1.10", dl_peak / pl_peak <= 1.10, f"VmHWM, the child's own: {dl_peak:.0f} MB vs {pl_peak:.0f} MB")]


# --- verify against the Java yardstick (issue 20) ----------------------------------------------------------------


def _java_yardstick(data: Path) -> Path | None:
    """Compile benchmarks/java/VerifyYardstick.java into ``data/java``; None when no JDK is on PATH."""
    if not (shutil.which("javac") and shutil.which("java")):
        return None
    source = HERE / "java" / "VerifyYardstick.java"
    out = data / "java"
    built = out / "VerifyYardstick.class"
    if not built.exists() or built.stat().st_mtime < source.stat().st_mtime:
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run(["javac", "-d", str(out), str(source)], check=True)
    return out


def _timed_count(argv: list[str], pattern: str) -> tuple[float, int]:
    """Wall seconds of one whole process and the message count it printed (``pattern`` captures it)."""
    t = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    secs = time.perf_counter() - t
    found = re.search(pattern, proc.stdout)
    if proc.returncode not in (0, 4) or not found:  # 4: verify found problems (still a figure)
        raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}: {proc.stderr[-2000:]}")
    return secs, int(found.group(1).replace(",", ""))


VERIFY_COUNT = r"checked ([\d,]+) message"
JAVA_COUNT = r"messages (\d+)"


def bench_verify_vs_java(root: Path, eight: Path, data: Path, repeat: int) -> list[Row]:
    """Whole-process ``rmq-inspect verify`` against the Java yardstick on the same segment, interleaved
    (A B A B ...) so both see the same machine; then verify's throughput on the 8-segment store."""
    size = sum(p.stat().st_size for p in (root / "commitlog").iterdir())
    ours = _command("verify", str(root))
    classes = _java_yardstick(data)
    rows = []
    if classes is None:
        rows.append(Row("Java yardstick vs `rmq-inspect verify`, whole process", "ratio", [], "<= 1.0",
                        note="skipped: no javac/java on PATH"))
    else:
        java = ["java", "-cp", str(classes), "VerifyYardstick", str(root)]
        warm_up(_timed_count, ours, VERIFY_COUNT)  # warm-up: page cache, kernel cache
        warm_up(_timed_count, java, JAVA_COUNT)
        pairs = [(_timed_count(ours, VERIFY_COUNT), _timed_count(java, JAVA_COUNT)) for _ in range(repeat)]
        (_, n_ours), (_, n_java) = pairs[-1]
        same = n_ours == n_java
        ratios = [a[0] / b[0] for a, b in pairs]
        rows += [
            Row("`rmq-inspect verify`, whole process, 1 segment", "s", [a[0] for a, _ in pairs],
                note=f"{n_ours:,} msgs, {size / GiB:.3g} GiB; interleaved with the Java row"),
            Row("  ... Java yardstick (RocketMQ-style decode + body CRC), whole process", "s",
                [b[0] for _, b in pairs], note=f"{n_java:,} msgs; benchmarks/java/VerifyYardstick.java"),
            Row("  verify / Java, per pair", "ratio", ratios, "<= 1.0",
                same and statistics.median(ratios) <= 1.0,
                "same message count" if same else f"COUNT MISMATCH: verify {n_ours:,}, Java {n_java:,}"),
        ]
    size8 = sum(p.stat().st_size for p in (eight / "commitlog").iterdir())
    argv = _command("verify", str(eight))
    warm_up(_timed_count, argv, VERIFY_COUNT)
    runs = [_timed_count(argv, VERIFY_COUNT) for _ in range(max(1, repeat // 2))]
    segments = len(list((eight / "commitlog").iterdir()))
    rates = [size8 / s / 1e9 for s, _ in runs]
    rows.append(Row(f"`rmq-inspect verify`, whole process, {segments}-segment store", "GB/s", rates, ">= 1.8",
                    statistics.median(rates) >= 1.8, f"{runs[-1][1]:,} msgs, {size8 / GiB:.3g} GiB; both cores"))
    return rows


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "inspector.cli.main", *args]


def bench_json_out(root: Path, facts: dict, repeat: int) -> list[Row]:
    """``rmq-inspect messages STORE --json`` over the whole segment as a fresh command (start-up included),
    into /dev/null and through a pipe (``| cat > /dev/null``)."""
    n = facts["records"]
    cmd = _command("messages", str(root), "--json", "--limit", str(n))
    rows = []
    for label, shell in (("> /dev/null", False), ("| cat > /dev/null", True)):
        def run(shell=shell) -> None:
            if shell:
                subprocess.run(" ".join(map(shlex.quote, cmd)) + " | cat > /dev/null", shell=True, check=True,
                               cwd=ROOT)
            else:
                subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, cwd=ROOT)

        rates = [n / s / 1e3 for s in timed(run, repeat)]
        rows.append(Row(f"`rmq-inspect messages --json` {label}, whole process", "k msgs/s", rates, ">= 300",
                        statistics.median(rates) >= 300,
                        f"{n:,} messages, {facts['segment_size'] / GiB:.3g} GiB segment; bulk JSON Lines (orjson)"))
    return rows


def bench_startup(repeat: int) -> list[Row]:
    """Whole-process wall time of the cheapest commands: what a user waits for before anything is read."""
    rows = []
    # as installed: pip compiles the bytecode; a PYTHONDONTWRITEBYTECODE in the environment (some CI images set
    # it) would have every run compile ~60 modules from source (~60 ms). The warm-up run writes the cache.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for label, args, goal in (("`rmq-inspect --help`", ["--help"], 0.15),
                              ("`rmq-inspect info sample_store`", ["info", str(ROOT / "sample_store")], 0.3)):
        def run(args=args) -> None:
            subprocess.run(_command(*args), stdout=subprocess.DEVNULL, check=True, cwd=ROOT, env=env)

        secs = timed(run, max(repeat, 3) if WARM_UP else repeat)  # smoke: one run proves the row
        rows.append(Row(f"start-up: {label}", "s", secs, f"< {goal}", statistics.median(secs) < goal,
                        "fresh process, bytecode cached; numba, textual, flask, pyspark not imported"))
    return rows


def bench_consume_queues(root: Path, repeat: int) -> list[Row]:
    with Store(root) as store:
        queues = [store.queue(t, q) for t, q in store.queue_ids()]
        count = [0]

        def arrays() -> None:
            n = 0
            for cq in queues:
                for run in cq.unit_runs(0):
                    if not isinstance(run, Problem):
                        n += int(run.column("physical_offset").size)
            count[0] = n

        secs = timed(arrays, repeat)
        rates = [count[0] / s / 1e6 for s in secs]
        rows = [Row("consume-queue reads (numpy arrays over the mmap)", "M units/s", rates, ">= 10",
                    statistics.median(rates) >= 10, f"{count[0]:,} units in {len(queues)} queues; "
                                                     "ConsumeQueue.unit_runs")]

        def objects() -> None:
            n = 0
            for _ in queues[0].units(0):
                n += 1
            count[0] = n

        secs = timed(objects, max(1, repeat // 2))
        rows.append(Row("  ... as CqUnit objects (units())", "M units/s", [count[0] / s / 1e6 for s in secs],
                        note="for comparison"))
    return rows


def bench_unindexed_scan(root: Path, repeat: int) -> list[Row]:
    """A key lookup's fallback over log no index file covers (issue 29 item 2): ``scan_range`` over the whole
    segment, as a lookup does when the newest index file is gone (apache/rocketmq#8007), beside the bulk decode of
    the same bytes (its MB/s is the goal: the scan runs at the kernels' speed). A key no record holds: every byte
    is searched, nothing is decoded past the batches."""
    from inspector.engine.read.index.coverage import scan_range

    with Store(root) as store:
        seg = store.segments[0]
        log = store.commitlog
        end = seg.start_offset + seg.file_size
        mb = seg.file_size / MiB

        def decode() -> None:
            for _ in log.batches(seg.start_offset, check_crc=False):
                pass

        def scan() -> None:
            assert not list(scan_range(log, None, "no-such-key-in-this-store", 0, 1 << 62, seg.start_offset, end))

        base = [mb / s for s in timed(decode, repeat)]
        rates = [mb / s for s in timed(scan, repeat)]
    goal = statistics.median(base)
    return [Row("fallback key scan of an unindexed range, 1 core", "MB/s", rates, f">= {0.8 * goal:,.0f}",
                statistics.median(rates) >= 0.8 * goal,
                f"{mb:,.0f} MiB; goal: 0.8 x bulk decode of the same bytes ({goal:,.0f} MB/s, CommitLog.batches)")]


def bench_index(root: Path, facts: dict, repeat: int) -> list[Row]:
    def open_index() -> None:
        with Store(root) as store:
            store.index_files()

    opens = [s * 1000 for s in timed(open_index, repeat)]
    rows = [Row("open store + full-size index file", "ms", opens, "< 50", statistics.median(opens) < 50,
                f"{facts['index_slots']:,} slots, {facts['index_items']:,} items")]
    keys = [tuple(k) for k in facts["sample_keys"]]
    random.Random(8).shuffle(keys)
    keys = keys[:200]
    with Store(root) as store:
        store.index_files()
        hits = [0]

        def lookups() -> None:
            n = 0
            for topic, key in keys:
                n += len(store.lookup_key(topic, key))
            hits[0] = n

        per = [s / len(keys) * 1000 for s in timed(lookups, repeat)]
        rows.append(Row("key lookup (chain walk + message read)", "ms/lookup", per, "< 1", statistics.median(per) < 1,
                        f"{len(keys)} keys, {hits[0]} hits"))
        offsets = facts["sample_offsets"][:300]
        ids = [store.message_at(o).msg_id for o in offsets[:100]]

        def message_at() -> None:
            for o in offsets:
                store.message_at(o)

        per = [s / len(offsets) * 1000 for s in timed(message_at, repeat)]
        rows.append(Row("message at offset", "ms", per, "< 1", statistics.median(per) < 1,
                        f"{len(offsets)} offsets across the segment"))

        def resolve() -> None:
            for text in ids:
                readings = store.resolve_id(text)
                assert readings[0].found

        per = [s / len(ids) * 1000 for s in timed(resolve, repeat)]
        rows.append(Row("msgId resolve (both readings, every topic)", "ms", per, "< 1", statistics.median(per) < 1,
                        f"{len(ids)} offset msgIds"))
    return rows


def bench_story(root: Path, facts: dict, repeat: int, count: int = 50) -> list[Row]:
    """``story_of`` by UNIQ_KEY on the lookup store (a full-size index file): every topic's chain for the key,
    the trace topics (none here), the consumer offsets and each group's progress (issue 30)."""
    from inspector.engine import story_of

    with Store(root) as store:
        keys = [store.message_at(o).unique_key for o in facts["sample_offsets"][:count]]
        found = [0]

        def stories() -> None:
            found[0] = sum(len(story_of(store, key).records) for key in keys)

        per = [s / len(keys) * 1000 for s in timed(stories, repeat)]
        note = f"{len(keys)} UNIQ_KEYs, {found[0]} records; {store.index_coverage_note() or 'the index covers the log'}"
    return [Row("story by UNIQ_KEY (through the index)", "ms", per, "< 50", statistics.median(per) < 50, note)]


def bench_trace(data: Path, mode: str, lookup: Path, repeat: int) -> list[Row]:
    """``trace`` of one message (issue 30 item 3) on the lookup store (one segment with a full-size index file)
    plus a segment of trace messages: by UNIQ_KEY and by offset msgId, each answer through the index (its
    ``source`` checked: a fallback scan would not be the figure asked for)."""
    from inspector.engine import open_store, trace_of

    root = data / mode / "trace"
    t = time.perf_counter()
    facts = datagen.cached_trace_store(root, lookup)
    if time.perf_counter() - t > 1:
        print(f"generated {root} ({facts['trace_messages']:,} trace messages) in {time.perf_counter() - t:.0f} s",
              file=sys.stderr)
    traced = facts["traced"][:50]
    rows = []
    # the index geometry given: a smoke store's small index files fit no geometry the engine infers from a size
    with open_store(root, index_slots=facts["index_slots"], index_items=facts["index_items"]) as store:
        for which, label in ((0, "UNIQ_KEY"), (1, "offset msgId")):
            answers: list = []

            def traces(which: int = which, answers: list = answers) -> None:
                answers[:] = [trace_of(store, ids[which]) for ids in traced]

            per = [s / len(traced) * 1000 for s in timed(traces, repeat)]
            ok = all(a.source == "index" and [e.record.type for e in a.entries] == ["Pub", "SubBefore", "SubAfter"]
                     for a in answers)
            rows.append(Row(f"trace of one message by {label} (through the index)", "ms", per, "< 50",
                            ok and statistics.median(per) < 50,
                            f"{len(traced)} messages, {facts['trace_messages']:,} trace messages"
                            + ("" if ok else "; NOT every answer was the 3 records through the index")))
    return rows


_MEMORY_CHILD = r"""
import sys, time
sys.path[:0] = [sys.argv[1]]
from inspector.engine import Store
from inspector.engine.scan.batch import MessageBatch
from inspector.engine.model.crc import CRC_BACKEND
from inspector.engine.scan.kernels import numba_enabled
from inspector.engine.scan.walk import walk_boundaries
from inspector.engine.maintain.verify.verify import verify
root, what = sys.argv[2], sys.argv[3]
def rss(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
    return 0
t = time.perf_counter()
n = 0
with Store(root) as store:
    if what == "scan":
        n = sum(store.scan_segment(i).messages for i in range(len(store.segments)))
    elif what == "batches":
        for seg in store.segments:
            for item in store.commitlog.segment_batches(seg, check_crc=False):
                n += len(item) if isinstance(item, MessageBatch) else 0
    elif what == "entries":
        for e in store.entries(check_crc=False):
            n += 1
    elif what == "verify":
        n = verify(store).messages
print(rss("VmHWM"), n, time.perf_counter() - t)
"""


def bench_memory(root: Path, facts: dict, include_entries: bool) -> list[Row]:
    size = facts["segments"] * facts["segment_size"]
    rows = []
    kinds = [("scan", "scan every segment (info)"), ("batches", "bulk decode every segment"),
             ("verify", "verify")]
    if include_entries:
        kinds.insert(2, ("entries", "entries() over the store (Message objects)"))
    for what, label in kinds:
        out = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, str(ROOT), str(root), what], capture_output=True,
                             text=True, check=True).stdout.split()
        peak, n, secs = int(out[0]) / MiB, int(out[1]), float(out[2])
        rows.append(Row(f"peak RSS: {label}, {size / GiB:.3g} GiB store", "MB", [peak * MiB / 1e6], "< 250",
                        peak * MiB / 1e6 < 250, f"{n:,} msgs in {secs:.1f} s"))
    # the whole command, as a script piping every message into jq runs it (issue 20: under 300 MB)
    secs, peak = _child_run("inspector.cli.main", "messages", str(root), "--json", "--limit", str(10**12))
    rows.append(Row(f"peak RSS: `rmq-inspect messages --json` of every message, {size / GiB:.3g} GiB store", "MB",
                    [peak], "< 300", peak < 300, f"whole process, {secs:.1f} s"))
    return rows


def bench_tui(root: Path, repeat: int) -> list[Row]:
    try:
        from inspector.tui.app import create_app
    except ImportError:
        return [Row("TUI first screen", "s", [], "< 1", None, "inspector.tui.app.create_app not importable")]

    async def first_screen() -> None:
        with Store(root) as store:
            app = create_app(store)
            async with app.run_test(size=(160, 48)) as pilot:
                await pilot.pause()

    secs = timed(lambda: asyncio.run(first_screen()), repeat)
    return [Row("TUI first screen (store with one segment)", "s", secs, "< 1", statistics.median(secs) < 1,
                "create_app + headless run_test until idle; hex/list/scroll: TUI benchmarks")]


_TUI_MEMORY_CHILD = r"""
import asyncio, sys, time
sys.path[:0] = [sys.argv[1]]
from inspector.engine import Store
from inspector.tui.app import create_app
root, settle, pace = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
async def tour():
    with Store(root) as store:
        app = create_app(store)
        async with app.run_test(size=(160, 48)) as pilot:
            t = time.monotonic()
            while not getattr(app, "scan_complete", False) and time.monotonic() - t < 300:
                await pilot.pause(0.2)
            for key, wait in (("2", pace), ("pagedown", pace / 2), ("3", settle), ("pagedown", pace / 2), ("6", pace)):
                await pilot.press(key)
                await pilot.pause(wait)
asyncio.run(tour())
for line in open("/proc/self/status"):
    if line.startswith("VmHWM"):
        print(int(line.split()[1]) * 1024)
"""


def bench_tui_memory(root: Path, facts: dict, settle: float, pace: float = 1.0) -> list[Row]:
    """The TUI's peak memory on a multi-segment store (issue 20: under 300 MB): the overview's walk, the hex view
    (it asks for each segment's end), the message list given ``settle`` seconds to list every message, the
    problems screen, ``pace`` seconds on each other screen (half after a page down); a fresh process."""
    out = subprocess.run([sys.executable, "-c", _TUI_MEMORY_CHILD, str(ROOT), str(root), str(settle), str(pace)],
                         capture_output=True, text=True, check=True).stdout.split()
    peak = int(out[-1]) / 1e6
    size = facts["segments"] * facts["segment_size"]
    return [Row(f"peak RSS: TUI overview, hex, message list and problems, {size / GiB:.3g} GiB store", "MB", [peak],
                "< 300", peak < 300, f"{facts['records']:,} records; the list given {settle:g} s to list them all")]


def bench_tui_pages(root: Path, facts: dict, repeat: int) -> list[Row]:
    """A full screen of the hex view and of the message list, rendered by the widgets' own ``render_lines``
    at the start, middle and end of the segment: cold (first render there: nothing cached, the hex layout not
    computed yet) and warm (again once the layout worker has answered, line cache emptied: the whole render).
    Then the longest stall of the UI thread (event-loop lag, sampled every 5 ms) while paging through a region
    of the hex view nobody has seen yet, and through the message list."""
    try:
        from textual.geometry import Region

        from inspector.tui.app import create_app
        from inspector.tui.widgets.hexview import HexView
        from inspector.tui.widgets.messagelist import MessageList, OffsetRows
    except ImportError:
        return [Row("TUI hex page render", "ms", [], "< 50", None, "the TUI is not importable")]
    from itertools import islice

    from inspector.engine.model.records import Message

    size = (160, 48)
    samples = facts["sample_offsets"]
    places = {"start": samples[0], "middle": samples[len(samples) // 2], "end": samples[-1]}
    times: dict[tuple[str, str, str], list[float]] = {}
    stalls: dict[str, list[float]] = {"hex": [], "list": []}
    stall_cpu: dict[str, list[float]] = {"hex": [], "list": []}

    async def lag_probe(stop: asyncio.Event, out: list[tuple[float, float]]) -> None:
        # (lag, UI-thread CPU seconds in that interval): on a shared machine part of a lag can be other
        # processes holding the cores; the CPU time says how much of it was this app's own work
        while not stop.is_set():
            t, c = time.perf_counter(), time.thread_time()
            await asyncio.sleep(0.005)
            out.append((time.perf_counter() - t - 0.005, time.thread_time() - c))

    async def page_through(pilot, widget, key: str, pages: int, what: str) -> float:
        lags: list[tuple[float, float]] = []
        stop = asyncio.Event()
        probe = asyncio.create_task(lag_probe(stop, lags))
        for _ in range(pages):
            await pilot.press(key)
        await pilot.pause()
        stop.set()
        await probe
        worst = max(lags, default=(0.0, 0.0))
        stall_cpu[what].append(worst[1] * 1000)
        return worst[0] * 1000

    def render(widget) -> float:
        widget._styles_cache.clear()  # noqa: SLF001 - Textual's own line cache: measure the widget's render
        t = time.perf_counter()
        widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
        return (time.perf_counter() - t) * 1000

    async def once(run: int) -> None:
        with Store(root) as store:
            app = create_app(store)
            async with app.run_test(size=size) as pilot:
                app.action_go("hex")
                await pilot.pause()
                hv = app.screen.query_one(HexView)
                for where, offset in places.items():
                    hv.goto(store.segments[0].start_offset + offset + 7)
                    times.setdefault(("hex", where, "cold"), []).append(render(hv))
                    await app.workers.wait_for_complete()
                    await pilot.pause()
                    hv._strips.clear()  # noqa: SLF001 - measure the whole render, not the line cache
                    times.setdefault(("hex", where, "warm"), []).append(render(hv))
                hv.focus()
                hv.goto(store.segments[0].start_offset + samples[len(samples) // 4 + run] + 3)
                stalls["hex"].append(await page_through(pilot, hv, "pagedown", 20, "hex"))
                app.action_go("messages")
                await pilot.pause()
                ml = app.screen.query_one(MessageList)
                for where, offset in places.items():
                    rows = OffsetRows()
                    rows.extend([e.physical_offset for e in islice(store.commitlog.entries(offset, check_crc=False),
                                                                    400) if isinstance(e, Message)])
                    ml.set_source(rows)
                    times.setdefault(("list", where, "cold"), []).append(render(ml))
                    ml._strips.clear()  # noqa: SLF001 - messages decoded and cached now: the warm render
                    times.setdefault(("list", where, "warm"), []).append(render(ml))
                ml.focus()
                stalls["list"].append(await page_through(pilot, ml, "pagedown", 8, "list"))

    for run in range(repeat):
        asyncio.run(once(run))
    rows = []
    names = {"hex": "TUI hex page render", "list": "TUI message-list page render"}
    widgets = {"hex": "HexView", "list": "MessageList"}
    for (what, where, state), values in times.items():
        rows.append(Row(f"{names[what]}, {where} of segment, {state}", "ms", values, "< 50",
                        statistics.median(values) < 50, f"{size[0]}x{size[1]}, {widgets[what]}.render_lines"))
    for what, values in stalls.items():
        label = "hex view, 20 pages" if what == "hex" else "message list, 8 pages"
        cpu = statistics.median(stall_cpu[what])
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        rows.append(Row(f"TUI longest UI-thread stall paging an unseen region ({label})", "ms", values, "< 50",
                        statistics.median(values) < 50,
                        f"event-loop lag sampled every 5 ms; UI-thread CPU in it {cpu:.0f} ms (median), "
                        f"load average {load:.1f}"))
    return rows


# --- the many-queue store (issue 20): thousands of broker-sized, sparse consume-queue files ----------------


def many_queue_store(data: Path, mode: str) -> tuple[Path, dict]:
    """2,000 topics x 8 queues, 2 messages each, 6,000,000-byte sparse queue files, a sparse 1 GiB segment
    (the same at --quick: it is small on disk and quick to make; --smoke: 40 topics)."""
    root = data / "smoke" / "many_queues" if mode == "smoke" else data / "many_queues"
    t = time.perf_counter()
    facts = datagen.cached_many_queue_store(root, topics=40 if mode == "smoke" else 2000)
    if time.perf_counter() - t > 1:
        print(f"generated {root} ({facts['messages']:,} messages) in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    return root, facts


_OWN_PEAK = r"""
import atexit, os, runpy, sys
out = os.environ.pop("RMQ_BENCH_PEAK_FILE")
def report():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            with open(out, "w") as f:
                f.write(line.split()[1])
atexit.register(report)
sys.argv = sys.argv[1:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def _child_run(module: str, *args: str, ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Wall seconds and peak resident MB of ``python -m module args``, output discarded (an exit code outside
    ``ok`` is an error).

    The peak is the child's own VmHWM, read by the child at exit: wait4's ru_maxrss also counts the
    address space the child had before exec, which subprocess's vfork shares with this (large) process,
    so it reported this benchmark's own peak (2.7 GB) for a 190 MB command."""
    with tempfile.NamedTemporaryFile(prefix="rmq-bench-peak-") as peak_file:
        env = {**os.environ, "RMQ_BENCH_PEAK_FILE": peak_file.name}
        t = time.perf_counter()
        child = subprocess.run([sys.executable, "-c", _OWN_PEAK, module, *args], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        secs = time.perf_counter() - t
        if child.returncode not in ok:
            raise RuntimeError(f"{module} {' '.join(args)} exited with {child.returncode}")
        return secs, int(Path(peak_file.name).read_text() or 0) * 1024 / 1e6


def bench_many_queues_info(root: Path, facts: dict, repeat: int) -> list[Row]:
    argv = ["inspector.cli.main", "info", str(root), "--json"]
    warm_up(_child_run, *argv)  # warm-up: page cache, numba's kernel cache
    runs = [_child_run(*argv) for _ in range(repeat)]
    secs, peaks = [r[0] for r in runs], [r[1] for r in runs]
    queues = facts["topics"] * facts["queues"]
    note = f"{queues:,} queues of 6,000,000-byte sparse files, {facts['messages']:,} msgs, sparse 1 GiB segment"
    return [Row("`info --json`, many-queue store, whole process", "s", secs, "< 1.5", statistics.median(secs) < 1.5,
                note + "; includes interpreter start, imports, kernel load"),
            Row("  peak RSS of that `info`", "MB", peaks, "< 300", statistics.median(peaks) < 300, "VmHWM, the child's own")]


def bench_many_queues_census(root: Path, facts: dict, repeat: int) -> list[Row]:
    """``census`` lists and stats every entry of the root (issue 18): 2,000 topics x 8 queues = 16,000 queue
    folders, one sparse 6,000,000-byte file in each; the whole process, as a user runs it."""
    argv = ["inspector.cli.main", "census", str(root), "--json"]
    warm_up(_child_run, *argv)  # warm-up: the page cache and the kernel's dentry cache
    secs = [_child_run(*argv)[0] for _ in range(repeat)]
    queues = facts["topics"] * facts["queues"]
    return [Row("`census --json`, many-queue store, whole process", "s", secs, "< 1", statistics.median(secs) < 1,
                f"{queues:,} queue folders (scandir + stat, no file opened); includes interpreter start, imports")]


def bench_many_queues_verify(root: Path, facts: dict, repeat: int) -> list[Row]:
    """``verify`` of the many-queue store, whole process: every queue's units, the walk's unit marks over
    16,000 preallocated sparse files (41.5 s and 5.3 GB before they stopped at each file's allocated end)."""
    argv = ["inspector.cli.main", "verify", str(root)]
    warm_up(_child_run, *argv, ok=(0, 4))  # warm-up: page cache, numba's kernel cache
    runs = [_child_run(*argv, ok=(0, 4)) for _ in range(repeat)]
    secs, peaks = [r[0] for r in runs], [r[1] for r in runs]
    queues = facts["topics"] * facts["queues"]
    return [Row("`verify`, many-queue store, whole process", "s", secs, "< 5", statistics.median(secs) < 5,
                f"{queues:,} queues of 6,000,000-byte sparse files, {facts['messages']:,} msgs; includes interpreter "
                "start, imports, kernel load"),
            Row("  peak RSS of that `verify`", "MB", peaks, "< 400", statistics.median(peaks) < 400,
                "VmHWM, the child's own")]


def bench_many_queues_tui(root: Path, facts: dict, repeat: int) -> list[Row]:
    try:
        from textual.widgets import Tree

        from inspector.tui.app import create_app
    except ImportError:
        return [Row("TUI first screen, many-queue store", "s", [], "< 1", None, "the TUI is not importable")]
    topics = facts["topics"]

    def topics_node(app):
        trees = app.screen.query(Tree)
        if not trees:
            return None
        return next((n for n in trees.first().root.children if n.data is not None and n.data.kind == "topics"), None)

    async def once() -> tuple[float, float]:
        t = time.perf_counter()
        first = None
        with Store(root) as store:
            app = create_app(store)
            async with app.run_test(size=(160, 48)) as pilot:
                while time.perf_counter() - t < 120:
                    await pilot.pause(0.005)
                    node = topics_node(app)
                    if node is None or len(node.children) < topics:
                        continue
                    if first is None:
                        first = time.perf_counter() - t
                    if "reading queue ends" not in str(node.label):
                        return first, time.perf_counter() - t
        raise RuntimeError("the overview never listed the queues")

    warm_up(lambda: asyncio.run(once()))
    runs = [asyncio.run(once()) for _ in range(repeat)]
    first, full = [r[0] for r in runs], [r[1] for r in runs]
    return [Row("TUI first screen with the topic tree, many-queue store", "s", first, "< 1",
                statistics.median(first) < 1, f"{topics:,} topic nodes shown, queue ends still being read"),
            Row("  ... every queue's ends listed (counter gone)", "s", full, note="for information; in the "
                "background while the screen is usable")]


def bench_many_queues_web(root: Path, facts: dict, repeat: int) -> list[Row]:
    try:
        from web.app import create_app
    except ImportError:
        return [Row("web `/`, many-queue store", "s", [], "< 0.5", None, "the web viewer is not importable")]
    first, warm = [], []
    for _ in range(repeat):
        app = create_app(root)  # a fresh viewer: its first `/` lists the queues and walks the log
        client = app.test_client()
        t = time.perf_counter()
        assert client.get("/").status_code == 200
        first.append(time.perf_counter() - t)
        t = time.perf_counter()
        assert client.get("/").status_code == 200
        warm.append(time.perf_counter() - t)
        app.extensions["rmq_store"].close()
    return [Row("web `/`, many-queue store, first request of a fresh viewer", "s", first, "< 0.5",
                statistics.median(first) < 0.5,
                f"Flask test client; lists {facts['topics'] * facts['queues']:,} queues, walks the segment"),
            Row("web `/`, many-queue store, next request", "s", warm, "< 0.5", statistics.median(warm) < 0.5,
                "the page shows the first 1,000 topics (Limits.max_rows)")]


def bench_group(data: Path, mode: str, repeat: int) -> list[Row]:
    """``group`` of the many-queue store with one group committed on every queue (issue 30: < 1 s for 16,000
    queues): the engine's answer and its JSON (``group_of`` + ``group_view`` + the CLI's orjson) in this process,
    warm, on a freshly opened store each run (queue infos are cached per store); then ``group --json`` and
    ``groups --json`` as whole processes."""
    import orjson

    from inspector.engine import group_of, group_view

    base, facts = many_queue_store(data, mode)
    root = (data / "smoke" if mode == "smoke" else data) / "many_queues_group"
    group = datagen.cached_group_store(base, root)
    queues = group["queues"]

    def once() -> None:
        with Store(root) as store:
            view = group_of(store, group["group"])
            assert len(view.queues) == queues and view.lag == queues  # 2 messages a queue, committed 1
            orjson.dumps(group_view(view))

    secs = timed(once, repeat)  # its own warm-up run first: page cache
    cpu = timed(once, repeat, time.process_time)  # what it costs on a shared machine, whatever the load
    cli = [sys.executable, "-m", "inspector.cli.main"]
    argv = [*cli, "group", str(root), group["group"], "--json"]
    info = [*cli, "info", str(root), "--json"]
    warm_up(_child_cpu, argv)
    whole, whole_info = [], []
    for _ in range(repeat):  # interleaved: a drift of the machine's speed falls on both
        whole.append(_child_cpu(argv))
        whole_info.append(_child_cpu(info))
    many = [_child_run("inspector.cli.main", "groups", str(root), "--json")[0] for _ in range(repeat)]
    note = (f"{queues:,} queues committed at 1 of 2 messages: per queue the effective min/max, lag, the last "
            f"consumed and first unconsumed message (2 reads); 20 pending listed")
    walls = [w for w, _ in whole]
    return [Row(f"`group`, {queues:,}-queue store: group_of + JSON, opened store", "s", secs, "< 1",
                statistics.median(secs) < 1, note),
            Row("  the same, CPU time of this process", "s", cpu, "", None,
                "user + sys of every thread; the wall figure above on a loaded machine waits for the cores"),
            Row("  `group --json` of it, whole process (issue 30's goal)", "s", walls, "< 1",
                statistics.median(walls) < 1, "interpreter start, imports, the store's open, the answer, its JSON"),
            Row("  the same, CPU time (user + sys)", "s", [c for _, c in whole], "", None,
                "~0.35 s of it imports; ~11 system calls a queue (list its folder, open, stat, find its written "
                "part, read it, close)"),
            Row("  `info --json` of it, whole process / CPU time", "s", [w for w, _ in whole_info], "", None,
                "CPU " + ", ".join(f"{c:.2f}" for _, c in whole_info) + " s: the same queue ends, every queue"),
            Row("  `groups --json` of it, whole process", "s", many, "", None, "one group, lag summed over its queues")]


def bench_copied_store(data: Path, mode: str, repeat: int) -> list[Row]:
    """A store copied without its holes (issue 35): one message in a segment whose preallocated tail, and its
    index file's, are written out as zeros. ``info`` and ``hex`` inside the zero tail, whole processes, on the copy
    and on the sparse original, interleaved (A B A B ...): the ratio per pair, and the copy's peak RSS."""
    seg = SIZES[mode]
    root = data / ("smoke" if mode == "smoke" else "") / "copied"
    index = dict(index_slots=4096, index_items=32_768) if mode == "smoke" else {}
    datagen.cached_copied_store(root, segment_size=seg, **index)
    rows = []
    for label, args in (("info --json", ["info", "--json"]),
                        ("hex OFFSET --length 64 --json", ["hex", str(seg // 2), "--length", "64", "--json"])):
        command = args[0]
        argv = {name: ["inspector.cli.main", command, str(root / name), *args[1:]] for name in ("copy", "sparse")}
        for name in argv:
            warm_up(_child_run, *argv[name])  # warm-up: the page cache, numba's kernel cache
        ratios, peaks = [], []
        for _ in range(repeat):
            copy_s, copy_mb = _child_run(*argv["copy"])
            sparse_s, _ = _child_run(*argv["sparse"])
            ratios.append(copy_s / sparse_s)
            peaks.append(copy_mb)
        rows += [Row(f"`{label}`, copy with zero tails written out / sparse original", "x", ratios, "<= 1.1",
                     statistics.median(ratios) <= 1.1,
                     f"one message in a {seg // MiB:,} MiB segment; whole processes, the ratio per pair"),
                 Row(f"  peak RSS of that `{command}` on the copy", "MB", peaks, "< 300", statistics.median(peaks) < 300,
                     "VmHWM, the child's own")]
    return rows


def bench_empty_segments(data: Path, mode: str, repeat: int) -> list[Row]:
    """``verify`` of a commitlog of 20,000 empty files named as segments (issue 35: 47-61 s, quadratic in the
    number of files; smoke: 500), whole process; the same count after the sample store's segments, with gaps (a
    segment size known: another quadratic path); ``census`` of the first store for comparison."""
    count = 500 if mode == "smoke" else 20_000
    root = data / ("smoke" if mode == "smoke" else "") / "empty_segments"
    datagen.cached_empty_segments_store(root, count=count)
    gapped = data / ("smoke" if mode == "smoke" else "") / "empty_segments_gapped"
    datagen.cached_empty_segments_store(gapped, count=count, sample=str(ROOT / "sample_store"))
    argv = ["inspector.cli.main", "verify", str(gapped), "--json"]
    warm_up(_child_run, *argv, ok=(4,))
    runs = [_child_run(*argv, ok=(4,)) for _ in range(repeat)]
    rows = [Row(f"`verify --json`, the sample store and {count:,} empty files after it, with gaps", "s",
                [r[0] for r in runs], "< 5", statistics.median(r[0] for r in runs) < 5,
                "whole process; a segment size known: two findings per file (empty, the gap before it)")]
    for command, goal in (("verify", 5.0), ("census", None)):
        argv = ["inspector.cli.main", command, str(root), "--json"]
        warm_up(_child_run, *argv, ok=(0, 4))
        runs = [_child_run(*argv, ok=(0, 4)) for _ in range(repeat)]
        secs = [r[0] for r in runs]
        if goal is None:
            rows.append(Row(f"  ... `{command} --json` of the same store", "s", secs, note="for comparison"))
        else:
            rows += [Row(f"`{command} --json`, {count:,} empty files named as segments", "s", secs, f"< {goal:g}",
                         statistics.median(secs) < goal, "whole process; one finding per file"),
                     Row(f"  peak RSS of that `{command}`", "MB", [r[1] for r in runs], "< 300",
                         statistics.median([r[1] for r in runs]) < 300, "VmHWM, the child's own")]
    return rows


def bench_many_queues(data: Path, mode: str, repeat: int) -> list[Row]:
    root, facts = many_queue_store(data, mode)
    return [*bench_many_queues_info(root, facts, repeat), *bench_many_queues_census(root, facts, repeat),
            *bench_many_queues_verify(root, facts, repeat), *bench_many_queues_tui(root, facts, repeat),
            *bench_many_queues_web(root, facts, repeat)]
# --- preflight and an aged store (issue 29) -----------------------------------------------------------------


def abnormal_copy(root: Path) -> Path:
    """``root`` with an ``abort`` file, as hard links beside it (no store byte copied, the original untouched):
    the next start is an abnormal recovery. Made again when ``root`` was regenerated."""
    copy = root.with_name(root.name + "-abort")
    if not (copy / "bench.json").is_file() or (copy / "bench.json").read_bytes() != (root / "bench.json").read_bytes():
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(root, copy, copy_function=os.link)
        (copy / "abort").touch()
    return copy


def bench_preflight(root: Path, facts: dict, repeat: int) -> list[Row]:
    """``preflight`` of the 1 GiB segment store, clean shutdown and crash (abort file): the recovery walk (CRC
    and lengths of every record, the bulk kernel on both cores), every queue, the index files an abnormal start
    destroys; in the process (warm) and as a whole command."""
    rows = []
    size = facts["segment_size"] / GiB
    for mode, store_root in (("normal", root), ("abnormal", abnormal_copy(root))):
        plans: list = []

        def run(store_root: Path = store_root, plans: list = plans) -> None:
            with Store(store_root) as store:
                plans.append(preflight(store))

        secs = timed(run, repeat)
        assert plans[-1].mode == mode, plans[-1].why  # the abort file decides
        rows.append(Row(f"`preflight`, {size:.3g} GiB segment, {mode} start", "s", secs, "< 2",
                        statistics.median(secs) < 2,
                        f"{facts['records']:,} records; preflight(store), warm; {plans[-1].verdict}"))
        argv = ["inspector.cli.main", "preflight", str(store_root), "--json"]
        runs = [_child_run(*argv, ok=(0, 4)) for _ in range(max(1, repeat // 2))]
        rows.append(Row(f"  `rmq-inspect preflight --json` command, {mode}", "s", [r[0] for r in runs],
                        note=f"whole process: interpreter start, imports, kernel load; peak RSS "
                             f"{statistics.median([r[1] for r in runs]):.0f} MB"))
    return rows


def bench_salvage(root: Path, facts: dict, repeat: int) -> list[Row]:
    """``salvage`` of the 1 GiB segment store (issue 32): the plan (verify, the record walk, every queue's units
    against the damage), warm in the process; then ``salvage --out`` and ``rebuild --out`` as whole processes,
    interleaved (salvage's writing is the copy plus a rebuild of the new log: the rebuild is most of it)."""
    from inspector.engine import salvage_plan

    size = facts["segment_size"] / GiB
    plans: list = []

    def plan() -> None:
        with Store(root) as store:
            plans.append(salvage_plan(store))

    secs = timed(plan, repeat)
    assert plans[-1].clean, plans[-1].verdict  # the generated store is sound: every span intact
    rows = [Row(f"`salvage --plan`, {size:.3g} GiB segment", "s", secs, "< 3", statistics.median(secs) < 3,
                f"{facts['records']:,} records; salvage_plan(store), warm: {plans[-1].verdict}")]
    outs, rebuilds = [], []
    with tempfile.TemporaryDirectory(prefix="rmq-bench-salvage-", dir=root.parent) as work:
        for i in range(max(1, repeat // 3)):
            outs.append(_child_run("inspector.cli.main", "salvage", str(root), "--out", f"{work}/s{i}", "--json"))
            shutil.rmtree(f"{work}/s{i}")
            rebuilds.append(_child_run("inspector.cli.main", "rebuild", str(root), "--out", f"{work}/r{i}", "--json"))
            shutil.rmtree(f"{work}/r{i}")
    rows.append(Row("  `rmq-inspect salvage --out` command", "s", [r[0] for r in outs],
                    note=f"whole process: verify, the copy, the rebuild of the new log; peak RSS "
                         f"{statistics.median([r[1] for r in outs]):.0f} MB; `rebuild --out` of the same store "
                         f"{statistics.median([r[0] for r in rebuilds]):.1f} s"))
    return rows


def aged_store(data: Path, mode: str) -> tuple[Path, dict]:
    """Two segments of the mode's size, the older one deleted as retention deletes it (CommitLog.deleteExpiredFile
    -> MappedFileQueue.deleteExpiredFileByTime: oldest first, never the last): one segment of data left, and
    queue files and an index file whose first units and items point below the log. The broker's cleanup of
    queue and index files below the new first offset (CleanConsumeQueueService, IndexService.deleteExpiredFile;
    tests/aged_store.py models it) never deletes a queue's or the index's last file, and here each queue has one
    file and there is one index file: nothing more goes (checked)."""
    root = data / mode / "aged"
    index = {"full": {}, "quick": dict(index_slots=625_000, index_items=2_500_000),
             "smoke": dict(index_slots=4096, index_items=32_768)}[mode]
    facts = datagen.cached_store(root, workdir=data, segments=2, segment_size=SIZES[mode], **index)
    first = root / "commitlog" / f"{0:020d}"
    if first.exists():
        lasts = [len(list(q.iterdir())) == 1 for q in (root / "consumequeue").glob("*/*")]
        lasts.append(len(list((root / "index").iterdir())) == 1)
        if not all(lasts):
            raise RuntimeError(f"{root}: a queue or the index has several files; the cleanup model would apply")
        first.unlink()
        print(f"aged {root}: the first segment deleted", file=sys.stderr)
    return root, facts


def bench_verify_aged(data: Path, mode: str, repeat: int) -> list[Row]:
    root, _ = aged_store(data, mode)
    size, secs, report = timed_verify(root, repeat)
    return [Row(f"verify, aged store ({size / GiB:.3g} GiB left, the head segment gone), 2 cores", "s", secs, "< 2",
                statistics.median(secs) < 2,
                f"{report.messages:,} msgs, {report.cq_units:,} units, {report.index_items:,} items, "
                f"{len(report.problems)} problems; verify(store), warm")]


# --- web viewer on big stores (issue 20) ----------------------------------------------------------------------


def _web_get(url: str) -> tuple[float, bytes]:
    import urllib.request

    t = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as r:
        body = r.read()
    return time.perf_counter() - t, body


def _web_run(root: Path) -> dict:
    """One ``rmq-inspect web`` process on ``root``: the overview cold (its walk running) and warm, how long the
    background walk took and whether its overview is complete, small requests during the walk, peak RSS."""
    import re

    proc = subprocess.Popen(_command("web", str(root), "--port", "0"), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    try:
        line = proc.stdout.readline()
        base = re.search(r"(http://\S+?)/? ", line).group(1)
        out = {"during": [_web_get(base + "/api/teach")[0]]}  # first thing: the walk has just started
        out["message0"] = _web_get(base + "/message/0")[0]  # issue 34: a record's page while the walk runs
        out["message0_in_walk"] = not json.loads(_web_get(base + "/api/")[1])["walk"]["done"]
        out["cold_page"] = _web_get(base + "/")[0]
        out["cold_api"] = _web_get(base + "/api/")[0]
        while True:
            d = json.loads(_web_get(base + "/api/")[1])
            if d["walk"]["done"]:
                break
            out["during"].append(_web_get(base + "/api/teach")[0])
            time.sleep(0.1)
        out["walk"] = d["walk"]["seconds"]
        out["complete"] = d["walk"]["stage"] == "done" and d["truncated"] is None and d["recovery"] is not None
        out["warm_page"] = statistics.median(_web_get(base + "/")[0] for _ in range(3))
        out["warm_api"] = statistics.median(_web_get(base + "/api/")[0] for _ in range(3))
        status = Path(f"/proc/{proc.pid}/status").read_text()
        out["rss"] = int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M).group(1)) * 1024
        return out
    finally:
        proc.terminate()
        proc.wait(30)
        proc.stdout.close()


def bench_web(stores: list[tuple[str, Path]], repeat: int) -> list[Row]:
    """``rmq-inspect web`` as a fresh process per run: time of ``/`` and ``/api/`` right after start (cold: the
    store's one walk runs in the background) and once it is done (warm), the walk itself, the longest small
    request (``/api/teach``) made while it runs, and the server's peak RSS."""
    rows = []
    for label, root in stores:
        runs = [_web_run(root) for _ in range(repeat)]

        def col(key: str, scale: float = 1.0, runs: list[dict] = runs) -> list[float]:
            return [r[key] * scale for r in runs]

        complete = all(r["complete"] for r in runs)
        during = [max(r["during"]) * 1e3 for r in runs if r["during"]]
        rows += [
            Row(f"web `/` cold (walk running), {label}", "s", col("cold_page"), "< 0.5",
                statistics.median(col("cold_page")) < 0.5, "fresh server; the page shows the walk's progress"),
            Row(f"web `/api/` cold (walk running), {label}", "s", col("cold_api"), "< 0.5",
                statistics.median(col("cold_api")) < 0.5),
            Row(f"web `/message/0` cold (walk running), {label}", "s", col("message0"), "< 1",
                statistics.median(col("message0")) < 1,
                "the first record's page right after start" + ("" if all(r["message0_in_walk"] for r in runs)
                                                                else "; the walk had ended in some runs")),
            Row(f"web `/` warm (walk done), {label}", "s", col("warm_page"), "< 0.5",
                statistics.median(col("warm_page")) < 0.5),
            Row(f"web `/api/` warm (walk done), {label}", "s", col("warm_api"), "< 0.5",
                statistics.median(col("warm_api")) < 0.5),
            Row(f"web overview walk (background, once per store), {label}", "s", col("walk"), "complete",
                complete, "complete, never truncated" if complete else "INCOMPLETE or truncated"),
            Row(f"web: slowest small request during the walk, {label}", "ms", during, "< 100",
                bool(during) and statistics.median(during) < 100 if during else None,
                "/api/teach while the walk runs" if during else "the walk ended before any"),
            Row(f"web server peak RSS, {label}", "MB", col("rss", 1e-6), "< 300",
                statistics.median(col("rss", 1e-6)) < 300),
        ]
    return rows


# --- data and output -----------------------------------------------------------------------------------------


SIZES = {"full": GiB, "quick": 128 * MiB, "smoke": 4 * MiB}


def stores(data: Path, mode: str) -> dict[str, tuple[Path, dict]]:
    seg = SIZES[mode]
    # quick: the index geometry of the segment and memory stores shrinks with the data (a full-size slot table
    # is a fixed cost verify would pay for 1/8 of the records); the lookup store keeps the full-size file.
    # smoke (the test suite's run: does every row still run?): tiny index files everywhere
    index = {"full": {}, "quick": dict(index_slots=625_000, index_items=2_500_000),
             "smoke": dict(index_slots=4096, index_items=32_768)}[mode]
    spec = {
        "segment": dict(segments=1, segment_size=seg, **index),
        "memory": dict(segments=4 if mode != "smoke" else 2, segment_size=seg, **index),
        "lookup": dict(segments=1, segment_size=seg, fill_index=True, **(index if mode == "smoke" else {})),
        "eight": dict(segments=8, segment_size=seg, **index),
        "dledger": dict(segments=1, segment_size=seg, dledger=True, **index),  # "segment"'s records as entries
    }
    out = {}
    for name, kwargs in spec.items():
        root = data / mode / name
        t = time.perf_counter()
        facts = datagen.cached_store(root, workdir=data, **kwargs)
        took = time.perf_counter() - t
        if took > 1:
            print(f"generated {root} ({facts['records']:,} records) in {took:.0f} s", file=sys.stderr)
        out[name] = (root, facts)
    return out


def table(rows: list[Row]) -> str:
    head = ["target", "median", "min", "max", "unit", "goal", "met", "notes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(r.cells()) + " |" for r in rows]
    return "\n".join(lines)


def _child_cpu(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + sys, from wait4) seconds of one command, output discarded."""
    t = time.perf_counter()
    child = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {os.waitstatus_to_exitcode(status)}")
    return time.perf_counter() - t, usage.ru_utime + usage.ru_stime


def bench_timer(data: Path, mode: str, repeat: int) -> list[Row]:
    """``timer STORE --json`` over a timer log of 1,000,000 units made with numpy (issue 18; --smoke: 1,000):
    the whole process, every unit a JSON line."""
    units = 1000 if mode == "smoke" else 1_000_000
    root = data / "smoke" / "timer" if mode == "smoke" else data / "timer"
    datagen.cached_timer_store(root, units=units)
    argv = [sys.executable, "-m", "inspector.cli.main", "timer", str(root), "--json", "--limit", str(units)]
    warm_up(_child_cpu, argv)  # warm-up: the page cache
    runs = [_child_cpu(argv) for _ in range(repeat)]
    cpu = [r[1] for r in runs]
    note = f"{units:,} units in 100 MiB timerlog files, {min(units, 86_400):,} wheel slots; pointing at no record"
    return [Row(f"`timer --json`, {units:,} timer-log units, whole process (CPU)", "s", cpu, "< 2",
                statistics.median(cpu) < 2, note + "; user+sys, includes interpreter start and imports"),
            Row("  wall time of that run", "s", [r[0] for r in runs], "", None, "")]


def misplaced_wheel_store(root: Path) -> Path:
    """A small timer store whose 1,209,600 wheel slots each hold the time of the next slot (issue 35)."""
    import numpy as np

    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter
    from inspector.engine.model.geometry import Geometry
    from inspector.engine.read.timer.timerstore import SLOT_DTYPE
    from parsers.timer import TIMER_WHEEL_SLOTS

    if (root / "timerwheel").is_file():
        return root
    shutil.rmtree(root, ignore_errors=True)
    t0 = 1_700_000_000_500
    # small files: the figures are the wheel's, not those of a default-sized (sparse) index file or timer log
    small = Geometry(segment_size=64 << 10, cq_file_size=20 * 64, index_slots=64, index_items=256)
    with StoreWriter(root, small, timer_file_size=52 * 20 + 16) as w:
        w.append(MessageSpec("Orders", b"due", deliver_ms=t0 + 3000, store_timestamp=t0))
    slots = np.zeros(TIMER_WHEEL_SLOTS, dtype=SLOT_DTYPE)
    slots["time"] = np.arange(TIMER_WHEEL_SLOTS) + 1
    slots["first_pos"] = slots["last_pos"] = -1
    slots.tofile(root / "timerwheel")
    return root


def bench_misplaced_wheel(data: Path, repeat: int) -> list[Row]:
    """``verify --json`` of a wheel whose 1,209,600 slots are all misplaced (issue 35: 14 s of CPU when every
    slot's empty chain was walked in Python; the findings past 1,000 are counted in one)."""
    root = misplaced_wheel_store(data / "misplaced-wheel")
    argv = [sys.executable, "-m", "inspector.cli.main", "verify", str(root), "--json"]
    warm_up(_child_cpu, argv)  # warm-up: the page cache
    runs = [_child_cpu(argv) for _ in range(repeat)]
    peaks = [_child_run("inspector.cli.main", "verify", str(root), "--json")[1] for _ in range(repeat)]
    cpu = [r[1] for r in runs]
    return [Row("`verify --json`, a wheel of 1,209,600 misplaced slots, whole process (CPU)", "s", cpu, "< 5",
                statistics.median(cpu) < 5, "1,000 findings listed, one counts the rest; user+sys"),
            Row("  peak RSS of that `verify`", "MB", peaks, "< 300", statistics.median(peaks) < 300,
                "VmHWM, the child's own")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="128 MiB segments, fewer runs (about a minute)")
    size.add_argument("--smoke", action="store_true",
                      help="4 MiB segments, one run per target: does every row still run (exit 0 whatever the "
                           "figures; the test suite runs this)")
    parser.add_argument("--data", type=Path, default=HERE / "data", help="where generated stores are kept")
    parser.add_argument("--repeat", type=int, help="timed runs per target (default 5, quick 3, smoke 1)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    mode = "smoke" if args.smoke else "quick" if args.quick else "full"
    global WARM_UP
    WARM_UP = mode != "smoke"
    repeat = args.repeat or {"full": 5, "quick": 3, "smoke": 1}[mode]
    t0 = time.perf_counter()
    info = machine()
    data = stores(args.data, mode)
    seg_root, seg_facts = data["segment"]
    rows: list[Row] = []
    rows.append(bench_walk(seg_root, repeat))
    rows += bench_decode(seg_root, repeat)
    rows += bench_verify(seg_root, repeat)
    rows += bench_verify_dledger(seg_root, data["dledger"][0], repeat)
    rows += bench_verify_vs_java(seg_root, data["eight"][0], args.data, repeat)
    rows += bench_preflight(seg_root, seg_facts, repeat)
    rows += bench_salvage(seg_root, seg_facts, repeat)
    rows += bench_verify_aged(args.data, mode, repeat)
    rows += bench_json_out(seg_root, seg_facts, repeat)
    rows += bench_startup(repeat)
    rows += bench_consume_queues(data["memory"][0], repeat)
    rows += bench_index(data["lookup"][0], data["lookup"][1], repeat)
    # smoke: a few keys (its tiny index leaves most of the log to scan: the row only has to run)
    rows += bench_story(data["lookup"][0], data["lookup"][1], repeat, 5 if mode == "smoke" else 50)
    rows += bench_trace(args.data, mode, data["lookup"][0], repeat)
    rows += bench_unindexed_scan(seg_root, repeat)
    rows += bench_memory(data["memory"][0], data["memory"][1], include_entries=True)
    rows += bench_tui(seg_root, repeat)
    rows += bench_tui_pages(seg_root, seg_facts, repeat)
    # smoke: the screens only have to open (the suite's run: 0.8 s of waiting instead of 4 s)
    rows += bench_tui_memory(data["eight"][0], data["eight"][1], {"full": 30, "quick": 5}.get(mode, 0.2),
                             0.2 if mode == "smoke" else 1.0)
    rows += bench_many_queues(args.data, mode, repeat)
    rows += bench_group(args.data, mode, repeat)
    rows += bench_timer(args.data, mode, repeat)
    rows += bench_copied_store(args.data, mode, repeat)
    rows += bench_empty_segments(args.data, mode, repeat)
    rows += bench_misplaced_wheel(args.data, repeat)
    rows += bench_web([(f"{SIZES[mode] / GiB:.3g} GiB segment", seg_root),
                       (f"8 x {SIZES[mode] / GiB:.3g} GiB segments", data["eight"][0])], repeat)
    print(f"rmq-inspect benchmarks ({mode}: {SIZES[mode] // MiB:,} MiB segments, {repeat} runs each, medians)")
    for key, value in info.items():
        print(f"  {key}: {value}")
    print()
    print(table(rows))
    print(f"\n{time.perf_counter() - t0:.0f} s in all")
    if args.json:
        args.json.write_text(json.dumps(dict(machine=info, mode=mode, quick=args.quick,
                                             rows=[r.__dict__ for r in rows]), indent=1))
    if mode == "smoke":  # figures of a 4 MiB store say nothing: the smoke run only fails by crashing
        return 0
    return 0 if all(r.met is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
