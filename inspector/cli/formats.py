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
from contextvars import ContextVar
from typing import IO, Any

import orjson

from inspector.engine import BadInput, terminal_text

FORMATS = ("table", "json", "jsonl", "csv", "tsv", "markdown", "parquet")
PARQUET_BATCH = 4096  # rows a parquet record batch holds: the memory bound of a parquet export
PARQUET_EXTRA = "rmq-inspect[spark]"  # the extra that installs pyarrow (also in [all])


def add_format_args(p: Any, *, rows: str, document: bool = False) -> None:
    """``--format``, ``-o FILE`` and ``--force`` on a listing command's parser; ``rows`` says what a row is,
    ``document``: --json prints one document (then jsonl is its listing's rows, one a line)."""
    json_is = "the --json document" if document else "JSON Lines, as --json"
    p.add_argument("--format", choices=FORMATS, metavar="FORMAT",
                   help=f"table (default), json ({json_is}), jsonl, csv, tsv, markdown or parquet (needs pyarrow: "
                        f"pip install '{PARQUET_EXTRA}'); rows: {rows}; the columns are the rows' --json fields, "
                        "a nested one as its JSON text")
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


def check_output(path: str, store_root: str | os.PathLike, force: bool, flag: str = "-o") -> None:
    """Refuse (exit 2) a FILE inside the store (rmq-inspect never writes there), a folder, or one that exists
    without ``force``. Checked before the store is read."""
    real = os.path.realpath(path)
    root = os.path.realpath(store_root)
    if os.path.commonpath([real, root]) == root:
        raise BadInput(f"{path}: inside the store {store_root}: rmq-inspect never writes into a store; "
                       f"give {flag} a path outside it")
    if os.path.isdir(real):
        raise BadInput(f"{path}: a directory; {flag} takes a file name")
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

    def document(self, value: Any, key: str | None) -> None:
        """What a command's ``print_json`` would print: with --format json the document itself (to a file: the
        --json bytes), else each row of its listing ``value[key]`` (``key`` None: the document is one row)."""
        if self.fmt == "json":
            self.stream.write(_indented(value) + "\n")
            return
        for row in ([value] if key is None else value.get(key) or ()):
            self.write(row)
        if key is not None:
            _say_the_rest(value, key)

    def write(self, row: dict) -> None:
        if self.columns is None:
            self.columns = list(row)
            self._header()
        self.rows += 1
        if self.fmt not in ("json", "jsonl"):
            for name in row:
                if name not in self.columns:
                    self.left_out[name] = self.left_out.get(name, 0) + 1
        if self.fmt in ("json", "jsonl"):  # every field, as --json has it: JSON needs no fixed columns
            line = cell(row) + "\n"
            if not self.to_file:  # DEL, C1 and bidi controls as \uXXXX on a terminal, as print_json_line does
                from inspector.cli.output import json_safe_bytes

                line = bytes(json_safe_bytes(line.encode("utf-8", "surrogatepass"))).decode("utf-8", "surrogatepass")
            self.stream.write(line)
            return
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
            else:  # no row: a valid parquet file of no column and no row (pyarrow reads it back as empty)
                import pyarrow as pa
                import pyarrow.parquet as pq

                pq.write_table(pa.table({}), self.stream)
        if self.left_out:
            names = ", ".join(f"{n} ({k:,} row(s))" for n, k in self.left_out.items())
            sys.stderr.write(terminal_text(f"note: a partial answer: field(s) not among the columns (those of the "
                                           f"first row) were left out: {names}; --json has them") + "\n")


def _say_the_rest(doc: dict, key: str) -> None:
    """What of a --json document the rows leave out and a reader must not miss, on stderr as the table says it:
    its findings, its notes and what cut it short."""
    if key != "problems":
        for p in doc.get("problems") or ():
            sys.stderr.write(terminal_text(f"{p.get('severity')}: {p.get('file')} @ {p.get('offset')}: "
                                           f"{p.get('reason')} ({p.get('code')})") + "\n")
    for note in doc.get("notes") or ():
        sys.stderr.write(terminal_text(f"note: {note if isinstance(note, str) else cell(note)}") + "\n")
    for name in ("truncated", "more_pending", "unlisted"):
        if doc.get(name):
            sys.stderr.write(terminal_text(f"note: a partial answer: {name} {cell(doc[name])}; --json has the "
                                           "whole document") + "\n")


def _indented(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, ensure_ascii=False, indent=2)


def _parquet_value(value: Any) -> Any:
    """Parquet's cell: numbers, booleans and strings as they are, a nested value as its JSON text."""
    if isinstance(value, (dict, list)):
        return cell(value)
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
        return str(value)
    return value


_ROUTE: ContextVar[tuple[RowWriter, str | None] | None] = ContextVar("rows_route", default=None)


def routed() -> tuple[RowWriter, str | None] | None:
    """The RowWriter the command's JSON goes to (and the key of its document's listing), or None: stdout."""
    return _ROUTE.get()


@contextmanager
def route(writer: RowWriter, key: str | None) -> Iterator[RowWriter]:
    """While inside, ``print_json`` / ``print_json_line`` (and messages' bulk JSON Lines) go to ``writer``: the
    commands keep printing their --json, the format is decided here, once."""
    token = _ROUTE.set((writer, key))
    try:
        yield writer
    finally:
        _ROUTE.reset(token)


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
    # written beside FILE under a hidden name and renamed to it when complete: a command that fails (a path
    # that is no store, exit 2/3) leaves no half file, and an existing FILE (--force) is kept until then
    head, name = os.path.split(output)
    part = os.path.join(head, f".{name}.{os.getpid()}.part")
    try:
        with open(part, mode, **kw) as f:
            writer = RowWriter(fmt, f, to_file=True)
            yield writer
            writer.close()
        os.replace(part, output)
    finally:
        if os.path.lexists(part):
            os.unlink(part)


def json_line_rows(chunk: bytes | memoryview) -> Iterator[dict]:
    """The rows of a JSON Lines chunk (what a command's --json writes), for a RowWriter."""
    for line in bytes(chunk).splitlines():
        if line.strip():
            try:
                yield orjson.loads(line)
            except orjson.JSONDecodeError:  # a lone surrogate's \udcXX escape, which orjson refuses
                yield json.loads(line)
