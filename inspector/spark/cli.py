"""``rmq-inspect spark <job> STORE... [--master URL] [--out DIR]``: dispatch to the job modules."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

USAGE = """usage: rmq-inspect spark <job> STORE... [--master URL] [--out DIR] [--conf KEY=VALUE]... [options]

Bulk jobs over one or more RocketMQ stores on Apache Spark (local[*] unless --master is given):

  export      every message into Parquet partitioned by topic and store date (--format jsonl|both: JSON Lines)
  stats       per topic and queue: counts, bytes, store times, latency percentiles, tags and keys, hourly
              rates, compressed share; per segment: records, BLANK tail, damage found
  verify      the checks of `rmq-inspect verify`, in parallel, with the same findings (exit 4 on errors)
  keyindex    a Parquet table (topic, key, kind, physical_offset, store_timestamp, store, ...) for
              `rmq-inspect key --keyindex DIR` and any Spark / DuckDB / pandas query
  rebuild-cq  consume queues rebuilt from the commitlog in parallel, byte-identical to `rmq-inspect rebuild`

`rmq-inspect spark <job> --help` lists a job's options.
"""

MODULES = {"export": "export", "stats": "stats", "verify": "verify", "keyindex": "keyindex",
           "rebuild-cq": "rebuild_cq"}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0 if argv else 2
    job, rest = argv[0], argv[1:]
    if job not in MODULES:
        sys.stderr.write(f"rmq-inspect spark: unknown job {job!r} (one of {', '.join(MODULES)})\n")
        return 2
    module = importlib.import_module(f"inspector.spark.jobs.{MODULES[job]}")
    return module.main(rest)


if __name__ == "__main__":
    raise SystemExit(main())
