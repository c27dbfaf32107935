"""What every job shares: the command line, the segment stage, the report channel, output paths."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from pyspark.accumulators import AccumulatorParam
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from inspector.commandline import (  # noqa: F401 - the exit codes are the jobs' API too
    EXIT_BAD_INPUT,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_STORE_ERROR,
    geometry_options,
)
from inspector.commandline import OneLineParser as _Parser
from inspector.engine import BadInput, Geometry, StoreError, exit_code, read_broker_config, store_geometry
from inspector.spark import plan
from inspector.spark.schemas import MESSAGE, MESSAGE_COLUMNS, PART_FILE, SEGMENT
from inspector.spark.session import build_session
from inspector.spark.tasks import SegmentReport, SegmentTask, StoreRef, message_rows
from inspector.terminal import SafeConsole, esc, plain

if TYPE_CHECKING:
    from inspector.spark.parts import Staging

# tables are wide: outside a terminal (logs, pipes) print them 160 columns wide instead of rich's 80; lines on a
# piped stderr are not wrapped at all. Markup is off (SafeConsole): store text goes through plain, or esc inside
# a line of ours that says markup=True.
console = SafeConsole(width=None if sys.stdout.isatty() else 160)
err = SafeConsole(stderr=True, width=None if sys.stderr.isatty() else 160, soft_wrap=not sys.stderr.isatty())


# --- command line -----------------------------------------------------------------------------------------------


def _conf(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, not {text!r}")
    return key.strip(), value


def job_parser(job: str, description: str, *, out_required: bool) -> argparse.ArgumentParser:
    p = _Parser(prog=f"rmq-inspect spark {job}", description=description)
    p.add_argument("stores", nargs="+", metavar="STORE",
                   help="store root directories; every executor must see them at the same (absolute) path")
    p.add_argument("--master", help="Spark master URL (default local[*]; spark://HOST:7077, yarn, k8s://...)")
    p.add_argument("--out", required=out_required, help="output directory (local path or any Hadoop URL)")
    p.add_argument("--conf", action="append", type=_conf, default=[], metavar="KEY=VALUE",
                   help="a Spark setting (repeatable), e.g. --conf spark.executor.memory=4g")
    p.add_argument("--overwrite", action="store_true", help="replace existing output tables")
    p.add_argument("--no-progress", action="store_true", help="no console progress bar")
    g = p.add_argument_group("geometry (broker configuration; inferred from the files when omitted)")
    geometry_options(g)
    g.add_argument("--broker-config", metavar="FILE",
                   help="the broker's broker.conf: sizes, index slots/items, messageDelayLevel, commitlog folders "
                        "(read on the driver; the commitlog folders must be at the same paths on every executor)")
    g.add_argument("--dledger-member", metavar="ID",
                   help="with several dledger-<id>/ folders under a root: the member to read, e.g. n1 (default: "
                        "the broker config's dLegerSelfId, else the first by name, with a warning)")
    return p


def parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace | int:
    """Parsed arguments, or the exit code of --help (0) / a usage error (2)."""
    try:
        return parser.parse_args(list(argv))
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else EXIT_BAD_INPUT


def geometry_for(store, args: argparse.Namespace) -> Geometry:
    """The store's geometry (its files first, then the broker defaults) with the command line's overrides,
    as ``rmq-inspect rebuild`` / ``verify`` compute it."""
    base = store_geometry(store)
    values = {k: getattr(args, k, None) for k in ("segment_size", "cq_file_size", "index_slots", "index_items",
                                                   "delay_levels")}
    return Geometry(**{**base.__dict__, **{k: v for k, v in values.items() if v is not None}})


def refs_from_args(args: argparse.Namespace) -> list[StoreRef]:
    config = read_broker_config(getattr(args, "broker_config", None))
    return plan.store_refs(args.stores, segment_size=args.segment_size, cq_file_size=args.cq_file_size,
                           index_slots=args.index_slots, index_items=args.index_items, broker_config=config,
                           dledger_member=getattr(args, "dledger_member", None))


@contextmanager
def session_for(args: argparse.Namespace, spark: SparkSession | None, app: str) -> Iterator[SparkSession]:
    """The given session, else the active one (a job run inside a Spark application), else one built from the
    arguments and stopped at the end."""
    spark = spark or SparkSession.getActiveSession()
    if spark is not None:
        yield spark
        return
    session = build_session(args.master, app_name=f"rmq-inspect {app}", conf=dict(args.conf),
                            progress=not args.no_progress)
    try:
        yield session
    finally:
        session.stop()


def run_job(body: Callable[[], int]) -> int:
    """Run a job body, turning the engine's exceptions into the CLI's exit codes and one-line messages."""
    try:
        return body()
    except StoreError as e:
        err.print(f"rmq-inspect spark: {plain(e)}")
        return exit_code(e)


# --- output ----------------------------------------------------------------------------------------------------


def is_local_path(path: str) -> bool:
    return urlparse(path).scheme in ("", "file")


def check_out(out: str | None, tables: Iterable[str], overwrite: bool) -> None:
    """Refuse to run for an hour and then fail on an existing table (local paths; Spark checks the others)."""
    if out is None or overwrite or not is_local_path(out):
        return
    base = Path(urlparse(out).path if out.startswith("file:") else out)
    existing = [t for t in tables if (base / t).exists()]
    if existing:
        raise BadInput(f"output table(s) {', '.join(existing)} exist under {out} (use --overwrite)")


def table_path(out: str, name: str) -> str:
    return out.rstrip("/") + "/" + name


def local_table(spark: SparkSession, path: str) -> Path | None:
    """Where ``path`` is on the driver's local filesystem as Spark's writer resolves it (a relative path
    against the working directory, a path without scheme against ``fs.defaultFS``); None if elsewhere
    (``hdfs://``, ``s3a://``, a cluster whose default filesystem is HDFS)."""
    jvm = spark.sparkContext._jvm
    hadoop_path = jvm.org.apache.hadoop.fs.Path(path)
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    try:
        uri = hadoop_path.getFileSystem(conf).makeQualified(hadoop_path).toUri()
    except Exception:  # noqa: BLE001 - a filesystem Hadoop cannot open here: leave it to Spark's writer
        return None
    return Path(uri.getPath()) if uri.getScheme() == "file" else None


def write_mode(args: argparse.Namespace) -> str:
    return "overwrite" if args.overwrite else "errorifexists"


# --- the report channel ----------------------------------------------------------------------------------------


class _ListParam(AccumulatorParam):
    def zero(self, value):
        return []

    def addInPlace(self, value1, value2):
        value1.extend(value2)
        return value1


class Collector:
    """Small side results of the tasks (segment reports, counters), sent to the driver with the task results.

    An accumulator updated in a transformation may see a task's update twice if the task is re-run, so
    every item carries a key and :meth:`latest` keeps one item per key.
    """

    def __init__(self, spark: SparkSession):
        self._acc = spark.sparkContext.accumulator([], _ListParam())

    @property
    def sink(self) -> Callable[[object], None]:
        acc = self._acc

        def add(item: object) -> None:
            acc.add([item])

        return add

    def items(self) -> list:
        return list(self._acc.value)

    def reports(self) -> dict[str, list[SegmentReport]]:
        return plan.latest_reports(i for i in self.items() if isinstance(i, SegmentReport))

    def counters(self, name: str) -> dict[str, int]:
        """Per store, the sum of counter ``name`` over tasks (one value per task key)."""
        per_task: dict[tuple[str, int], int] = {}
        for item in self.items():
            if isinstance(item, tuple) and item[0] == name:
                per_task[(item[1], item[2])] = item[3]
        totals: dict[str, int] = {}
        for (store, _), n in per_task.items():
            totals[store] = totals.get(store, 0) + n
        return totals


# --- the segment stage -----------------------------------------------------------------------------------------


@dataclass
class SegmentStage:
    """One task per commitlog segment: ``fn(tasks, sink)`` yields rows of ``schema``."""

    spark: SparkSession
    tasks: list[SegmentTask]
    collector: Collector = field(init=False)

    def __post_init__(self) -> None:
        self.collector = Collector(self.spark)

    def frame(self, fn: Callable, schema: StructType, **kwargs) -> DataFrame:
        sink = self.collector.sink
        rdd = self.spark.sparkContext.parallelize(self.tasks, max(1, len(self.tasks)))
        rows = rdd.mapPartitions(lambda part: fn(part, sink, **kwargs))
        return self.spark.createDataFrame(rows, schema, verifySchema=False)

    def messages(self, *, with_body: bool = True, columns: Sequence[str] | None = None) -> DataFrame:
        """MESSAGE rows of every segment (one task each), handed to Spark as Arrow record batches built from
        the engine's columnar decode (``inspector.spark.arrow``); pickled rows if pyarrow is missing.

        ``columns``: only these MESSAGE columns (kept in MESSAGE order), built on the executors. Spark cannot
        prune what a Python function returns, and turning Arrow batches into rows is most of the JVM's share
        of a stage, so a job that reads a few columns asks for just those.
        """
        asked = set(MESSAGE_COLUMNS if columns is None else columns)
        unknown = sorted(asked - set(MESSAGE_COLUMNS))
        if unknown:
            raise ValueError(f"not MESSAGE columns: {', '.join(unknown)}")
        wanted = tuple(c for c in MESSAGE_COLUMNS if c in asked)
        try:
            from inspector.spark.arrow import message_batches
        except ImportError:  # pragma: no cover - pyspark's Arrow support needs pyarrow
            return self.frame(message_rows, MESSAGE, with_body=with_body).select(*wanted)
        sink, tasks = self.collector.sink, self.tasks

        def run(ids):  # one id per partition: the task's position in the plan
            for batch in ids:
                yield from message_batches([tasks[i] for i in batch.column(0).to_pylist()], sink,
                                           with_body=with_body, columns=wanted)

        return map_in_arrow(self.spark.range(0, len(tasks), 1, max(1, len(tasks))), run,
                            StructType([MESSAGE[c] for c in wanted]))

    def export_parts(self, staging: Staging) -> DataFrame:
        """Each segment task writes export's Parquet files itself (``parts.export_segment``) into an attempt
        directory of ``staging``; one PART_FILE row per file. Nothing of the messages reaches the JVM."""
        from inspector.spark import parts

        sink, tasks, job = self.collector.sink, self.tasks, staging.job

        def run(ids):
            for batch in ids:
                for i in batch.column(0).to_pylist():
                    yield parts.export_segment(tasks[i], i, staging.attempt_dir(i), job, sink)

        return map_in_arrow(self.spark.range(0, len(tasks), 1, max(1, len(tasks))), run, PART_FILE)

    def reports(self) -> dict[str, list[SegmentReport]]:
        return self.collector.reports()

    def segments_frame(self) -> DataFrame:
        rows = [r.row() for reports in self.reports().values() for r in reports]
        return self.spark.createDataFrame(rows, SEGMENT)


def map_in_arrow(df: DataFrame, fn: Callable, schema: StructType) -> DataFrame:
    """``df.mapInArrow(fn, schema)`` without pandas.

    PySpark 4's ``mapInArrow`` builds its UDF through ``pandas_udf``, which insists on pandas although
    nothing on either side uses it (the worker reads and writes Arrow batches); the same UDF built as an
    Arrow UDF needs pyarrow only.
    """
    try:
        import pandas  # noqa: F401
    except ImportError:
        pass
    else:
        return df.mapInArrow(fn, schema)
    from pyspark.sql.udf import UserDefinedFunction
    from pyspark.util import PythonEvalType

    udf = UserDefinedFunction(fn, returnType=schema, name=getattr(fn, "__name__", "map_in_arrow"),
                              evalType=PythonEvalType.SQL_MAP_ARROW_ITER_UDF)
    column = udf(*[df[c] for c in df.columns])
    return DataFrame(df._jdf.mapInArrow(column._jc, False, None), df.sparkSession)


def report_damage(reports: dict[str, list[SegmentReport]], *, quiet: bool = False) -> int:
    """Print segment failures and a damage summary on stderr; EXIT_STORE_ERROR if a segment task failed."""
    failed = [(store, r) for store, rs in reports.items() for r in rs if r.error]
    damaged = sum(len(r.problems) for rs in reports.values() for r in rs)
    for store, r in failed:
        err.print(f"[red]segment failed[/] {esc(store)}/{esc(r.file)}: {esc(r.error or '')}", markup=True)
    if damaged and not quiet:
        err.print(f"[yellow]{damaged} problem(s) found in the commitlog[/] (the segments table lists them; "
                  "`rmq-inspect spark verify` explains them)", markup=True)
    return EXIT_STORE_ERROR if failed else EXIT_OK


def job_main(
    parser: argparse.ArgumentParser,
    argv: Sequence[str],
    spark: SparkSession | None,
    app: str,
    run: Callable[[SparkSession, argparse.Namespace, list[StoreRef]], int],
    check: Callable[[argparse.Namespace, list[StoreRef]], None],
) -> int:
    """Every job's ``main``: parse, check the output before Spark starts, run in a session, map errors to exit codes."""
    args = parse(parser, argv)
    if isinstance(args, int):
        return args

    def body() -> int:
        refs = refs_from_args(args)
        check(args, refs)
        with session_for(args, spark, app) as session:
            return run(session, args, refs)

    return run_job(body)
