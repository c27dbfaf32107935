"""``--format table|json|jsonl|csv|tsv|markdown|parquet`` and ``-o FILE``: one writer of rows for every listing.

The rows are the ``--json`` rows, the columns their top-level fields (the first row's, in its order). One rule
flattens: a nested value (an object or an array: ``properties``, ``keys``, ``inner``) is one cell holding its
compact JSON text, so ``json.loads(cell)`` gives the ``--json`` value back and every row has the same columns.
Cells: a string as it is, a number as JSON spells it, ``true``/``false``, a null as an empty cell.

Where the rows go decides how a string is written:

* stdout (no ``-o``): csv, tsv and markdown are store text on a terminal, escaped as the table escapes it
  (``terminal_text``: ``\\x1b``, ``\\n``, ``\\u202e``), whatever stdout is (``> file`` and ``-o file`` differ:
  ``-o`` is the lossless one).
* ``-o FILE``: the JSON values. csv holds them exactly (the csv module quotes commas, quotes and line breaks);
  tsv and markdown cannot hold a tab, a line break or (markdown) a ``|`` in a cell, so there every cell is
  written as the inside of its JSON string (``json.dumps(cell)[1:-1]``: ``\\t``, ``\\n``, ``\\"``, ``\\\\``) and
  markdown's ``|`` as ``\\|``; ``json.loads('"' + cell + '"')`` gives the value back. A lone surrogate (a store
  byte that was no UTF-8) is written as its ``\\udcXX`` escape.

Streaming, constant memory: each row is written as it comes; parquet through pyarrow's ``ParquetWriter`` in
record batches of ``PARQUET_BATCH`` rows. The columns are fixed by the first row: a later row's field outside
them is left out and said on stderr at the end (``--json`` has it).
"""

from __future__ import annotations

import csv
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

import orjson

from inspector.engine import BadInput, terminal_text

FORMATS = ("table", "json", "jsonl", "csv", "tsv", "markdown", "parquet")
PARQUET_BATCH = 4096  # rows a parquet record batch holds: the memory bound of a parquet export
PARQUET_EXTRA = "rmq-inspect[spark]"  # the extra that installs pyarrow (also in [all])


def add_format_args(p: Any, *, json_is: str = "JSON Lines") -> None:
    """``--format``, ``-o FILE`` and ``--force`` on a listing command's parser."""
    p.add_argument("--format", choices=FORMATS, metavar="FORMAT",
                   help=f"table (default), json ({json_is}: what --json prints), jsonl (one row a line), csv, tsv, "
                        "markdown or parquet (needs pyarrow: pip install 'rmq-inspect[spark]'); the columns are "
                        "the --json fields, a nested one as its JSON text")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the rows to FILE (a new file, never inside the store) instead of stdout; "
                        "csv/tsv/markdown then hold the exact values, not the terminal's escaped text")
    p.add_argument("--force", action="store_true", help="with -o: replace FILE when it exists")


def chosen_format(args: Any) -> str:
    """The format asked for: ``--json`` is ``--format json``; the two disagreeing is a usage error (exit 2)."""
    fmt = getattr(args, "format", None)
    if getattr(args, "json", False):
        if fmt not in (None, "json"):
            raise BadInput(f"--json is --format json; it does not go with --format {fmt}")
        fmt = "json"
    fmt = fmt or "table"
    if getattr(args, "output", None) and fmt == "table":
        raise BadInput("-o FILE writes rows: give --format json, jsonl, csv, tsv, markdown or parquet")
    if getattr(args, "force", False) and not getattr(args, "output", None):
        raise BadInput("--force goes with -o FILE")
    return fmt


def check_output(path: str, store_root: str | os.PathLike, force: bool) -> None:
    """Refuse (exit 2) a FILE inside the store (rmq-inspect never writes there), a folder, or one that exists
    without ``force``. Checked before the store is read."""
    real = os.path.realpath(path)
    root = os.path.realpath(store_root)
    if os.path.commonpath([real, root]) == root:
        raise BadInput(f"{path}: inside the store {store_root}: rmq-inspect never writes into a store; "
                       "give -o a path outside it")
    if os.path.isdir(real):
        raise BadInput(f"{path}: a directory; -o takes a file name")
    if os.path.lexists(path) and not force:
        raise BadInput(f"{path}: exists; --force replaces it")
    if not os.path.isdir(os.path.dirname(real) or "."):
        raise BadInput(f"{path}: no such directory {os.path.dirname(path) or '.'}")


def cell(value: Any) -> str:
    """A ``--json`` value as one cell: strings as they are, nested values as compact JSON, null as ''."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, TypeError):  # lone surrogates, integers past 64 bits
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _json_inside(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


class RowWriter:
    """Rows (``--json`` dicts) to stdout or a file in one format; ``close`` ends the file and says what was left
    out. Use ``rows()``."""

    def __init__(self, fmt: str, stream: IO[str], *, to_file: bool) -> None:
        self.fmt = fmt
        self.stream = stream
        self.to_file = to_file
        self.columns: list[str] | None = None
        self.rows = 0
        self.left_out: dict[str, int] = {}  # a field outside the columns: how many rows had it
        self._csv = csv.writer(stream, lineterminator="\n") if fmt == "csv" else None
        self._batch: list[dict] = []
        self._parquet: Any = None
        self._schema: Any = None

    def write(self, row: dict) -> None:
        if self.columns is None:
            self.columns = list(row)
            self._header()
        for name in row:
            if name not in self.columns:
                self.left_out[name] = self.left_out.get(name, 0) + 1
        self.rows += 1
        if self.fmt in ("json", "jsonl"):
            self.stream.write(cell({c: row.get(c) for c in self.columns} if self.left_out else row) + "\n")
        elif self.fmt == "parquet":
            self._batch.append({c: _parquet_value(row.get(c)) for c in self.columns})
            if len(self._batch) >= PARQUET_BATCH:
                self._flush_parquet()
        else:
            self._line([self._text(row.get(c)) for c in self.columns])

    def _text(self, value: Any) -> str:
        text = cell(value)
        if not self.to_file:
            return terminal_text(text)
        if self.fmt == "csv":
            return text
        text = _json_inside(text)
        return text.replace("|", "\\|") if self.fmt == "markdown" else text

    def _header(self) -> None:
        if self.fmt in ("csv", "tsv", "markdown"):
            self._line([self._text(c) for c in self.columns or ()])
            if self.fmt == "markdown":
                self._line(["---"] * len(self.columns or ()))

    def _line(self, cells: list[str]) -> None:
        if self._csv is not None:
            self._csv.writerow(cells)
        elif self.fmt == "tsv":
            self.stream.write("\t".join(cells) + "\n")
        else:  # markdown
            self.stream.write("| " + " | ".join(cells) + " |\n")

    def _flush_parquet(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._schema is None:
            first = pa.Table.from_pylist(self._batch)
            # a column null in the whole first batch: string (what a nested or text value becomes)
            self._schema = pa.schema([pa.field(f.name, pa.string() if pa.types.is_null(f.type) else f.type)
                                      for f in first.schema])
            self._parquet = pq.ParquetWriter(self.stream, self._schema)
        if self._batch:
            self._parquet.write_batch(pa.RecordBatch.from_pylist(self._batch, schema=self._schema))
        self._batch = []

    def close(self) -> None:
        if self.fmt == "parquet":
            if self.columns is not None:
                self._flush_parquet()
                self._parquet.close()
        if self.left_out:
            names = ", ".join(f"{n} ({k:,} row(s))" for n, k in self.left_out.items())
            sys.stderr.write(terminal_text(f"note: a partial answer: field(s) not among the columns (those of the "
                                           f"first row) were left out: {names}; --json has them") + "\n")


def _parquet_value(value: Any) -> Any:
    """Parquet's cell: numbers, booleans and strings as they are, a nested value as its JSON text."""
    if isinstance(value, (dict, list)):
        return cell(value)
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
        return str(value)
    return value


@contextmanager
def rows(fmt: str, output: str | None, store_root: str | os.PathLike | None, force: bool) -> Iterator[RowWriter]:
    """A RowWriter for ``fmt`` writing to ``output`` (checked: ``check_output``) or stdout."""
    if fmt == "parquet":
        try:
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            raise BadInput(f"--format parquet needs pyarrow, which is not installed: pip install "
                           f"'{PARQUET_EXTRA}' (or '.[all]')") from None
        if output is None and sys.stdout.isatty():
            raise BadInput("--format parquet writes binary: give -o FILE (or redirect stdout)")
    if output is not None and store_root is not None:
        check_output(output, store_root, force)
    if output is None:
        stream: Any = sys.stdout.buffer if fmt == "parquet" else sys.stdout
        writer = RowWriter(fmt, stream, to_file=False)
        try:
            yield writer
        finally:
            writer.close()
            stream.flush()
        return
    mode = "wb" if fmt == "parquet" else "w"
    kw = {} if fmt == "parquet" else {"encoding": "utf-8", "errors": "backslashreplace", "newline": ""}
    with open(output, mode, **kw) as f:
        writer = RowWriter(fmt, f, to_file=True)
        try:
            yield writer
        finally:
            writer.close()


def json_line_rows(chunk: bytes | memoryview) -> Iterator[dict]:
    """The rows of a JSON Lines chunk (what a command's --json writes), for a RowWriter."""
    for line in bytes(chunk).splitlines():
        if line.strip():
            try:
                yield orjson.loads(line)
            except orjson.JSONDecodeError:  # a lone surrogate's \udcXX escape, which orjson refuses
                yield json.loads(line)
