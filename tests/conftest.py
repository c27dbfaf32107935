"""Shared test helpers: commitlog records and segments built with the construct schemas, real-data paths.

Nothing here uses the engine: the bytes come from ``parsers.commitlog.MessageRecord.build`` so the
engine is checked against an independent encoder.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import warnings
from pathlib import Path

import pytest

# hypothesis keeps its example database under ./.hypothesis unless told otherwise; keep the repo clean.
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "rmq-inspect-hypothesis"))

# Every Spark JVM the tests start through spark-submit (the local session, the `spark export` subprocesses, the
# Spark benchmark's smoke run) compiles with C1 only: they live seconds to minutes on stores of kilobytes, where
# C2's compiler threads cost CPU the 2-core runner needs and never pay back (measured: one session + export + stats
# of the sample and multi-segment stores, 44-46 s -> 23-36 s CPU of the process tree). The code run is the same;
# a SPARK_SUBMIT_OPTS already set is kept. (The standalone master and worker: tests/inspector/spark/test_cluster.py.)
# The TUI remembers the theme a user chose (inspector/tui/prefs.py): tests read and write their own folder, never
# the developer's, so a saved light theme cannot change a snapshot and no test leaves a preference behind
if "RMQ_INSPECT_CONFIG_DIR" not in os.environ:
    os.environ["RMQ_INSPECT_CONFIG_DIR"] = tempfile.mkdtemp(prefix="rmq-inspect-prefs-")
    atexit.register(shutil.rmtree, os.environ["RMQ_INSPECT_CONFIG_DIR"], True)

TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1"
os.environ.setdefault("SPARK_SUBMIT_OPTS", TEST_JVM_OPTIONS)

# When a hypothesis test fails, its pytest plugin imports libcst to suggest a patch; that import emits a
# DeprecationWarning which filterwarnings=error turns into an INTERNALERROR hiding the real failure.
# Import it once here, warnings silenced, so the later import is a cache hit.
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.simplefilter("ignore", DeprecationWarning)
    import hypothesis.extra._patching  # noqa: E402, F401

import external_tools  # noqa: E402
from external_tools import pytest_terminal_summary  # noqa: E402, F401 - the missing-tool lines, once per tool

from parsers import commitlog as cl  # noqa: E402
from parsers.java import rocketmq_crc32  # noqa: E402

REALDATA = external_tools.realdata_dir()  # ../shared/realdata, or $RMQ_INSPECT_REALDATA
REAL_COMMITLOG_STORES = {
    "apache": REALDATA / "apache_rocketmq/4e25b97910b143ad43d56a8392116183eba3244d/store",
    "shaoxubao": REALDATA / "Shaoxubao_rocketmq-study/c4dcaab0cdafbf7a2e984e1997730955f21da476/store/unit_test_store",
}
REAL_STORE_HOSTS = {"apache": "192.168.71.1:8123", "shaoxubao": "10.1.30.38:8123"}

SPEC_BORN_TS = 1_700_000_000_000
SPEC_STORE_TS = 1_700_000_000_123


def _build_record(
    physical_offset: int,
    *,
    topic: str = "TopicTest",
    body: bytes = b"Hello world",
    properties: dict[str, str] | cl.Properties | str | None = None,
    queue_id: int = 0,
    queue_offset: int = 0,
    flag: int = 0,
    sys_flag: int = 0,
    magic_code: int = cl.MAGIC_V1,
    born_timestamp: int = SPEC_BORN_TS,
    born_host: tuple[str, int] = ("192.168.1.10", 52314),
    store_timestamp: int = SPEC_STORE_TS,
    store_host: tuple[str, int] = ("10.108.115.217", 10911),
    reconsume_times: int = 0,
    prepared_transaction_offset: int = 0,
    body_crc: int | None = None,
    total_size: int | None = None,
) -> bytes:
    """One message record with the right TOTALSIZE and body CRC (unless overridden) for ``physical_offset``."""
    if properties is None:
        properties = {}
    if isinstance(properties, str):
        properties = cl.Properties.from_text(properties)
    elif isinstance(properties, dict):
        properties = cl.Properties.from_map(properties)
    topic_bytes = topic.encode("utf-8", "surrogateescape")
    props_bytes = properties.to_text().encode("utf-8", "surrogateescape")
    size = cl.record_length(len(body), len(topic_bytes), len(props_bytes), sys_flag, magic_code)
    value = dict(
        total_size=size if total_size is None else total_size,
        magic_code=magic_code,
        body_crc=rocketmq_crc32(body) if body_crc is None else body_crc,
        queue_id=queue_id,
        flag=flag,
        queue_offset=queue_offset,
        physical_offset=physical_offset,
        sys_flag=sys_flag,
        born_timestamp=born_timestamp,
        born_host=dict(ip=born_host[0], port=born_host[1]),
        store_timestamp=store_timestamp,
        store_host=dict(ip=store_host[0], port=store_host[1]),
        reconsume_times=reconsume_times,
        prepared_transaction_offset=prepared_transaction_offset,
        body=body,
        topic=topic,
        properties=properties,
    )
    data = cl.MessageRecord.build(value)
    assert len(data) == size, "record_length disagrees with the schema"
    return data


def _blank_record(size: int) -> bytes:
    return cl.BlankRecord.build(dict(total_size=size))


def _write_commitlog(
    root: Path,
    specs: list[dict],
    segment_size: int = 4096,
    *,
    extra_zero_segments: int = 0,
) -> list[int]:
    """Lay out ``specs`` (``build_record`` keyword arguments) as a broker would: a record goes into the
    current segment only if it leaves 8 spare bytes, else an 8-byte BLANK closes the segment. Every
    segment file is exactly ``segment_size`` bytes (zero tail). Returns each record's physical offset."""
    directory = root / "commitlog"
    directory.mkdir(parents=True, exist_ok=True)
    segments: list[bytearray] = [bytearray()]
    offsets = []
    for spec in specs:
        start = (len(segments) - 1) * segment_size
        probe = _build_record(0, **spec)
        if len(probe) + cl.END_FILE_MIN_BLANK_LENGTH > segment_size - len(segments[-1]):
            segments[-1] += _blank_record(segment_size - len(segments[-1]))
            segments.append(bytearray())
            start += segment_size
        offset = start + len(segments[-1])
        segments[-1] += _build_record(offset, **spec)
        offsets.append(offset)
    segments.extend(bytearray() for _ in range(extra_zero_segments))
    for i, seg in enumerate(segments):
        (directory / f"{i * segment_size:020d}").write_bytes(bytes(seg.ljust(segment_size, b"\0")))
    return offsets


# Helpers are handed out as session fixtures (usable from hypothesis tests) rather than imported from
# this module, because "conftest" in sys.modules is whichever conftest pytest loaded last.


@pytest.fixture(autouse=True)
def _output_zone_local_after_each_test():
    """The output zone is a process-wide switch (``--utc`` sets it for the process): a test running the CLI in
    process with ``--utc`` left it on for whatever ran next in that worker (a TUI snapshot then read 'UTC' where
    it shows the local zone, depending on which tests shared its worker). Each test starts from the default."""
    yield
    from inspector.engine import set_utc

    set_utc(False)


@pytest.fixture(scope="session")
def build_record():
    return _build_record


@pytest.fixture(scope="session")
def blank_record():
    return _blank_record


@pytest.fixture(scope="session")
def write_commitlog():
    return _write_commitlog


@pytest.fixture(scope="session")
def realdata() -> Path:
    """Root of ../shared/realdata (files real brokers wrote); when absent, a skip naming it (a failure under
    RMQ_INSPECT_REQUIRE_TOOLS=1), like a missing tool's."""
    return Path(external_tools.need(external_tools.REALDATA))


@pytest.fixture(scope="session")
def real_commitlog_stores(realdata) -> dict[str, Path]:
    """The two real store roots that hold a commitlog, by short name."""
    return dict(REAL_COMMITLOG_STORES)


@pytest.fixture(scope="session")
def real_store_hosts() -> dict[str, str]:
    return dict(REAL_STORE_HOSTS)


# -- markers (registered in pyproject.toml): by the fixture a test uses, or by where it lives ------------------------

TESTS = Path(__file__).resolve().parent
MARK_BY_FIXTURE = {"browser": "browser", "spark": "spark", "kaitai_compiler": "kaitai"}
MARK_BY_DIRECTORY = {TESTS / "inspector" / "spark": "spark"}
# The modules that dominate a full run (besides the browser and Spark-cluster tests): `-m "not slow"` leaves them out.
SLOW_MODULES = {TESTS / "hardening" / name for name in ("test_corruption_commands.py", "test_corruption_findings.py",
                                                         "test_fuzz_store.py", "test_interrupted_writes.py",
                                                         "test_live_broker.py")} | {
    TESTS / "web" / "test_web_budget.py", TESTS / "inspector" / "tui" / "test_snapshots.py"}


def xdist_group(path: Path, names: set[str]) -> str:
    """The pytest-xdist worker group of a test (addopts: ``-n 2 --dist loadgroup``): every Spark test in one worker
    (the session and its stores built once), the Kaitai tests in one (the compiler's first-use npm install into
    .cache/ksc is not safe twice at once), else one group per file (its module and session fixtures built in one
    worker, as in a serial run). The standalone-cluster test is in the Spark group too: it reads its export back
    with the local session (as a group of its own it started a second one in the other worker, ~15 s), and with the
    Spark group scheduled first (COSTLIEST_GROUPS) its ~90 s of master, worker and driver JVMs no longer decide when
    the whole run ends."""
    for shared in ("spark", "kaitai"):
        if shared in names:
            return shared
    return path.relative_to(TESTS).as_posix()


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    # a wrapper: the marks before every other implementation of this hook, the order after them. pytest-xdist's
    # worker appends each item's xdist_group to its node id in its own hook of this name, which ran first when this
    # was a plain implementation (this conftest is registered before xdist's worker plugin, and hooks run last
    # registered first): no item had a group yet, every test was its own unit (one file's tests in both workers,
    # its module fixtures built twice, a local Spark session in each worker). The order is set after pytest's own
    # (which groups the tests of a module-scoped parametrized fixture by parameter).
    for item in items:
        path = Path(str(item.path))
        names = {mark for fixture, mark in MARK_BY_FIXTURE.items() if fixture in getattr(item, "fixturenames", ())}
        names |= {mark for directory, mark in MARK_BY_DIRECTORY.items() if directory in path.parents}
        if item.get_closest_marker("spark_cluster") or "browser" in names or path in SLOW_MODULES:
            names.add("slow")
        for name in sorted(names):
            item.add_marker(name)
        group = xdist_group(path, names)
        if group == path.relative_to(TESTS).as_posix() and any(m.name == "spark" for m in item.own_markers):
            # marked spark by hand, no session: a child process with its own JVM and its own data (the
            # benchmark's spark_vs_single, ~50 s); a group of its own, so its file's group is not ~140 s in one
            group += "::own-jvm"
        elif path in SPLIT_BY_TEST:
            group += "::" + item.originalname
        item.add_marker(pytest.mark.xdist_group(group))
        item.stash[GROUP] = group
    yield
    # the costliest groups first (addopts: --no-loadscope-reorder; xdist would order the groups by their number of
    # tests), so that the last minutes of a run are the small groups in both workers, not one long group in one
    # worker while the other waits; a stable sort: each file's tests stay in their order, and together
    rank = {group: i for i, group in enumerate(COSTLIEST_GROUPS)}
    items.sort(key=lambda item: rank.get(item.stash[GROUP], len(rank)))


GROUP = pytest.StashKey[str]()
# The modules whose test functions are groups of their own: one group of the whole file would be ~450 s in one
# worker (the corruption suite: each function runs over all 35 damaged stores, its module fixture builds each store
# in a fraction of a second, so each worker building those it meets costs little).
SPLIT_BY_TEST = {TESTS / "hardening" / "test_corruption_commands.py"}
# The groups that cost most in a full run (worker seconds, --durations on the 2-core runner, costliest first):
# scheduled first. A group not named here runs after these, in collection order.
COSTLIEST_GROUPS = (
    "spark",  # ~400 s: every Spark test on one local session, the standalone cluster's too
    "hardening/test_corruption_commands.py::test_every_tui_screen_opens_and_the_problems_screen_shows_the_findings",
    "web/test_browser_axe.py",  # ~180 s
    "web/test_web_link_crawl.py",  # ~140 s
    "hardening/test_corruption_commands.py::test_every_cli_command_completes",  # ~125 s
    "test_benchmarks.py",  # ~100 s
    "inspector/tui/test_app.py",  # ~100 s
    "inspector/tui/test_footer_truth.py",  # ~80 s
    "web/test_browser_viewports.py",  # ~80 s
    "test_benchmarks.py::own-jvm",  # ~40 s: spark_vs_single's own JVM
    "hardening/test_fuzz_arguments.py",  # ~50 s
    "hardening/test_fuzz_third_round.py",  # ~55 s
    "inspector/tui/test_copy_command.py",  # ~55 s
    "hardening/test_corruption_commands.py::test_every_web_page_answers",  # ~45 s
)


@pytest.fixture(scope="session")
def numba_in_use() -> str:
    """numba, when the engine's compiled kernels are in use; else a skip naming it (see external_tools.NUMBA).
    (tests/hardening has a compiled_kernels fixture of its own: it compiles them all before a watchdog counts.)"""
    return external_tools.need(external_tools.NUMBA)


@pytest.fixture(scope="session")
def kaitai_compiler() -> Path:
    """The Kaitai Struct compiler's directory (installed into .cache/ksc by npm on first use; see external_tools)."""
    return external_tools.kaitai_compiler()
