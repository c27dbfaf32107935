"""The one place that builds the SparkSession, and ships the project to the executors.

``build_session()`` with no master runs embedded (``local[*]``); any master URL works the same way
(``spark://host:7077``, ``yarn``, ``k8s://...``). The executors need Python 3.11 with numpy (the engine's one
compiled dependency; numba and isal make it faster when present) and pyarrow (the Arrow batches of the message
jobs), and nothing else of ours: the session ships
``parsers``, ``inspector`` and the pure-Python ``construct`` as one zip (``SparkContext.addPyFile``).
Optional engine extras (lz4, zstandard for compressed bodies, rocksdict for RocksDB consume queues) must
be installed on the workers if a job needs them.

Every store path must be readable at the same path on every worker (a shared or replicated filesystem),
and ``rebuild-cq`` writes its files on the workers, so its ``--out`` must be shared too.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
import zipfile
from collections.abc import Mapping
from pathlib import Path

from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"
APP_NAME = "rmq-inspect"
# packages the executors import: ours, and construct (pure Python, the parsers' only dependency)
SHIPPED_PACKAGES = ("parsers", "inspector", "construct")

_shipped: dict[int, str] = {}  # id(SparkContext) -> zip path already added


def is_local(master: str) -> bool:
    return master == "local" or master.startswith("local[") or master.startswith("local-cluster[")


def build_session(master: str | None = None, *, app_name: str = APP_NAME, conf: Mapping[str, str] | None = None,
                  progress: bool = True, ship: bool | None = None) -> SparkSession:
    """A SparkSession for the jobs (the active one if there is one).

    * ``master``: Spark master URL; default ``local[*]``.
    * ``conf``: extra Spark settings (the CLI's ``--conf KEY=VALUE``); they win over the defaults below.
    * ``progress``: Spark's console progress bar (one line per stage: tasks done / total).
    * ``ship``: add the project zip to the session so executors import our code from it; default: for
      any master but a local one. Local Python workers run this interpreter with this checkout on their
      ``PYTHONPATH`` instead, so they import the same files as the driver (and the engine's compiled
      kernels come from numba's on-disk cache instead of being compiled again from a zip).

    Defaults: UTC session time zone (dates and hours of store times are UTC); for a local master the
    driver binds 127.0.0.1.
    """
    master = master or DEFAULT_MASTER
    settings: dict[str, str] = {
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.showConsoleProgress": "true" if progress else "false",
        "spark.sql.sources.partitionColumnTypeInference.enabled": "false",  # a topic named "42" stays a string
        "spark.sql.debug.maxToStringFields": "100",  # the message schema has 31 columns: no truncation warning
    }
    if is_local(master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        settings["spark.driver.host"] = "127.0.0.1"
        settings["spark.driver.bindAddress"] = "127.0.0.1"
        if "PYSPARK_PYTHON" not in os.environ:
            # PySpark 4 starts local Python workers with $PYSPARK_PYTHON (else whatever ``python3`` is first on
            # PATH), not with spark.pyspark.python: run from a virtual environment's own rmq-inspect, PATH's
            # python3 may lack pyarrow or the project. The workers must be the interpreter running us.
            os.environ["PYSPARK_PYTHON"] = sys.executable
            settings["spark.pyspark.python"] = sys.executable
        settings["spark.executorEnv.PYTHONPATH"] = os.pathsep.join(
            p for p in (project_root(), os.environ.get("PYTHONPATH")) if p)
    settings.update(conf or {})
    if SparkSession.getActiveSession() is None:  # JVM options only count for a JVM not started yet
        if "spark.driver.extraJavaOptions" not in settings:
            settings["spark.driver.extraJavaOptions"] = " ".join(filter(None, (class_data_options(),
                                                                               ARROW_JAVA_OPTIONS)))
        settings.setdefault("spark.executor.extraJavaOptions", ARROW_JAVA_OPTIONS)
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(settings.get("spark.log.level", "WARN"))
    if ship if ship is not None else not is_local(master):
        ship_project(spark)
    return spark


# Spark reads the Python workers' Arrow batches with Arrow Java, which by default bounds-checks every byte it
# reads and null-checks every value it gets, even in columns declared non-null: a fifth of the JVM's time in a
# message stage (profiled with JFR; JVM CPU over 8 x 256 MiB segments 7.1 -> 5.8 s). The batches are pyarrow's,
# written to our own schema, so those checks buy nothing here. A --conf of either option replaces this.
ARROW_JAVA_OPTIONS = "-Darrow.enable_unsafe_memory_access=true -Darrow.enable_null_check_for_get=false"


# --- JVM start-up: a class-data-sharing archive of Spark's classes ---------------------------------------------
#
# Most of a session's start is the driver JVM loading and verifying ~10k classes from 280 jars. A dynamic CDS
# archive (JDK 13+) holds them pre-parsed: the first session dumps one when its JVM exits (after this process
# has gone: the user does not wait for it), every later one maps it (measured: session start 9.5 s -> ~4 s).
# The archive is tied to the JDK and the jars, so its name hashes both; a stale or broken one is ignored by the
# JVM (-Xshare:auto). RMQ_INSPECT_SPARK_CDS=0 turns this off; a --conf spark.driver.extraJavaOptions replaces it.

CDS_ENV = "RMQ_INSPECT_SPARK_CDS"
_QUIET_CDS = "-Xshare:auto -Xlog:cds=off -Xlog:cds+dynamic=off"
_PART_AGE_S = 60  # a dump is written in seconds: a part this old is complete (or abandoned)


def cds_archive() -> Path | None:
    """Where the class-data archive for this JDK and these Spark jars lives (None: off or no java found)."""
    if os.environ.get(CDS_ENV, "1").strip().lower() in ("0", "no", "false", "off"):
        return None
    import shutil

    import pyspark

    java_home = os.environ.get("JAVA_HOME")
    java = Path(java_home) / "bin" / "java" if java_home else None
    if java is None or not java.exists():
        found = shutil.which("java")
        java = Path(found) if found else None
    if java is None:
        return None
    jars = _jars_folder()
    try:
        java = java.resolve()
        if _java_major(java) < 13:  # dynamic archives (ArchiveClassesAtExit) came in JDK 13; older JVMs reject the flag
            return None
        stamp = f"{java}:{java.stat().st_mtime_ns}:{pyspark.__version__}:{jars.stat().st_mtime_ns}:" + \
            ",".join(sorted(p.name for p in jars.iterdir()))
    except OSError:
        return None
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rmq-inspect"
    return cache / f"spark-cds-{hashlib.sha256(stamp.encode()).hexdigest()[:16]}.jsa"


def _java_major(java: Path) -> int:
    """The JDK's major version from its ``release`` file (0 when unknown: then no archive is used)."""
    try:
        text = (java.parent.parent / "release").read_text(errors="replace")
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith("JAVA_VERSION="):
            version = line.split("=", 1)[1].strip().strip('"')
            head = version.split(".")[0]
            if head == "1":  # 1.8.0_x
                head = version.split(".")[1]
            return int(head) if head.isdigit() else 0
    return 0


def class_data_options() -> str:
    """JVM options for the driver: use the archive, or dump one at exit if there is none yet."""
    archive = cds_archive()
    if archive is None:
        return ""
    _drop_orphans(archive)
    if archive.exists():
        _drop_old_parts(archive)
        return f"-XX:SharedArchiveFile={archive} {_QUIET_CDS}"
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
        parts = sorted(archive.parent.glob(archive.name + ".*.part"))
        now = time.time()
        done = [p for p in parts if now - p.stat().st_mtime > _PART_AGE_S and p.stat().st_size > (1 << 20)]
        if done:  # a dump finished by an earlier JVM: publish it (one rename wins), drop the other old ones
            os.replace(done[-1], archive)
            for extra in done[:-1]:
                extra.unlink(missing_ok=True)
            archive.with_name(archive.name + ".dumping").unlink(missing_ok=True)
            return f"-XX:SharedArchiveFile={archive} {_QUIET_CDS}"
        # one dump at a time: it costs a JVM about a minute of CPU at exit (once per JDK and Spark install)
        claim = archive.with_name(archive.name + ".dumping")
        if claim.exists() and now - claim.stat().st_mtime < 20 * _PART_AGE_S:
            return ""
        fd = os.open(claim, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
        os.close(fd)
        _jars_note(archive).write_text(str(_jars_folder()))  # whose archive this is: see _drop_orphans
    except OSError:
        return ""
    return f"-XX:ArchiveClassesAtExit={archive}.{os.getpid()}.part {_QUIET_CDS}"


_LEGACY_AGE_S = 7 * 86_400  # an archive from before the .jars notes: kept a week


def _jars_folder() -> Path:
    import pyspark

    return Path(os.environ.get("SPARK_HOME") or Path(pyspark.__file__).parent) / "jars"


def _jars_note(archive: Path) -> Path:
    return archive.with_name(archive.name.removesuffix(".jsa") + ".jars")


def _drop_orphans(archive: Path) -> None:
    """Archives (and unfinished dumps) of Spark installs that are gone: each venv or pipx install has its own
    (its jars' path is in the archive, which the JVM checks), ~190 MB each, and a removed venv's stayed forever
    (2.2 GB from 15 test venvs). Each family's ``.jars`` note names its install; a family whose install is gone is
    removed, one without a note (written before the notes) once a week old."""
    try:
        families: dict[str, list[Path]] = {}
        for path in archive.parent.glob("spark-cds-*"):
            families.setdefault(path.name.split(".", 1)[0], []).append(path)
        mine = archive.name.split(".", 1)[0]
        now = time.time()
        for family, paths in families.items():
            if family == mine:
                continue
            note = archive.with_name(family + ".jars")
            if note.exists():
                gone = not Path(note.read_text(errors="replace").strip()).is_dir()
            else:
                gone = all(now - p.stat().st_mtime > _LEGACY_AGE_S for p in paths)
            if gone:
                for p in paths:
                    p.unlink(missing_ok=True)
    except OSError:
        pass  # a cache that cannot be tidied is no reason not to start


def _drop_old_parts(archive: Path) -> None:
    """Dumps that lost the race to publish (a few 100 MB each)."""
    try:
        for part in archive.parent.glob(archive.name + ".*.part"):
            if time.time() - part.stat().st_mtime > _PART_AGE_S:
                part.unlink(missing_ok=True)
    except OSError:
        pass


def project_root() -> str:
    """The directory holding the ``inspector`` and ``parsers`` packages of this process."""
    import inspector

    return str(Path(inspector.__file__).resolve().parent.parent)


def ship_project(spark: SparkSession) -> str:
    """Add the project zip to the session (once per SparkContext); returns its path."""
    sc = spark.sparkContext
    path = _shipped.get(id(sc))
    if path is None:
        path = str(project_zip())
        sc.addPyFile(path)
        _shipped[id(sc)] = path
    return path


def project_zip(directory: str | Path | None = None) -> Path:
    """A zip of :data:`SHIPPED_PACKAGES` (sources only), named by its content hash so it is built once."""
    import importlib

    files: list[tuple[Path, str]] = []
    for name in SHIPPED_PACKAGES:
        package_dir = Path(importlib.import_module(name).__file__).parent
        for path in sorted(package_dir.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            files.append((path, f"{name}/{path.relative_to(package_dir).as_posix()}"))
    digest = hashlib.sha256()
    for path, arc in files:
        digest.update(arc.encode())
        digest.update(path.read_bytes())
    out_dir = Path(directory or Path(tempfile.gettempdir()) / "rmq-inspect-spark")
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"rmq_inspect-{digest.hexdigest()[:16]}.zip"
    if not target.exists():
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
            for path, arc in files:
                zf.write(path, arc)
        os.replace(tmp, target)
    return target
