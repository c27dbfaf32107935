"""The one place that builds the SparkSession, and ships the project to the executors.

``build_session()`` with no master runs embedded (``local[*]``); any master URL works the same way
(``spark://host:7077``, ``yarn``, ``k8s://...``). The executors need Python 3.11 with numpy (the engine's one compiled
dependency; numba and isal make it faster when present) and nothing else of ours: the session ships
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
            settings["spark.pyspark.python"] = sys.executable
        settings["spark.executorEnv.PYTHONPATH"] = os.pathsep.join(
            p for p in (project_root(), os.environ.get("PYTHONPATH")) if p)
    settings.update(conf or {})
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(settings.get("spark.log.level", "WARN"))
    if ship if ship is not None else not is_local(master):
        ship_project(spark)
    return spark


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
