"""--format and -o on the listing commands: every format parsed back (csv module, pyarrow) to the --json rows;
bad input (an unknown format, -o into the store, an existing file) is exit 2 with one line."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path

import pytest

from inspector.cli.formats import cell

sys.path.insert(0, str(Path(__file__).parents[2]))  # tests/: timer_store, hostile_text

SAMPLE = str(Path(__file__).resolve().parents[3] / "sample_store")

# each listing command and the key of its --json document's rows (None: its --json is JSON Lines, a line a row)
ROWS_OF = {"messages": None, "grep": None, "groups": "groups", "group": "queues", "census": "kinds",
           "key": "messages", "chain": "files", "story": "records", "info": "segments"}
LISTINGS = [
    ("messages", SAMPLE, "--limit", "40"),
    ("grep", SAMPLE, "order-11", "--limit", "30"),
    ("groups", SAMPLE),
    ("group", SAMPLE, "billing-consumer"),
    ("census", SAMPLE),
    ("key", SAMPLE, "OrderEvents", "order-1108"),
    ("chain", SAMPLE, "OrderEvents", "order-1108"),
    ("story", SAMPLE, "90151"),
    ("info", SAMPLE),
    ("info", SAMPLE, "--rows", "topics"),
]


def _json_rows(cli, argv) -> list[dict]:
    code, out, _ = cli(*argv, "--json")
    assert code == 0
    key = "topics" if "--rows" in argv else ROWS_OF[argv[0]]
    if key is None:
        return [json.loads(line) for line in out.splitlines()]
    return json.loads(out)[key]


def _as_cells(rows: list[dict]) -> list[dict]:
    """The --json rows as the formats hold them: each field one cell, a nested value its JSON text."""
    return [{k: cell(v) for k, v in row.items()} for row in rows]


def _from_json_inside(text: str) -> str:
    return json.loads(f'"{text}"')


def _split_markdown(line: str) -> list[str]:
    cells = re.split(r"(?<!\\) \| ", line[2:-2])
    return [c.replace("\\|", "|") for c in cells]


@pytest.mark.parametrize("argv", LISTINGS, ids=lambda a: a[0])
@pytest.mark.parametrize("fmt", ["csv", "tsv", "markdown"])
def test_text_formats_to_a_file_parse_back_to_the_json_rows(cli, tmp_path, argv, fmt):
    expected = _as_cells(_json_rows(cli, argv))
    assert expected
    target = tmp_path / f"out.{fmt}"
    code, out, _ = cli(*argv, "--format", fmt, "-o", str(target))
    assert code == 0 and out == ""
    text = target.read_text(encoding="utf-8")
    if fmt == "csv":
        got = list(csv.DictReader(io.StringIO(text, newline="")))
    elif fmt == "tsv":
        lines = [[_from_json_inside(c) for c in line.split("\t")] for line in text.splitlines()]
        got = [dict(zip(lines[0], line, strict=True)) for line in lines[1:]]
    else:
        lines = [[_from_json_inside(c) for c in _split_markdown(line)] for line in text.splitlines()]
        assert set(lines[1]) == {"---"}
        got = [dict(zip(lines[0], line, strict=True)) for line in lines[2:]]
    assert got == expected


@pytest.mark.parametrize("argv", LISTINGS, ids=lambda a: a[0])
def test_parquet_parses_back_to_the_json_rows(cli, tmp_path, argv):
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow: pip install 'rmq-inspect[spark]'")
    rows = _json_rows(cli, argv)
    target = tmp_path / "out.parquet"
    code, _, _ = cli(*argv, "--format", "parquet", "-o", str(target))
    assert code == 0
    got = pq.read_table(target).to_pylist()
    expected = [{k: cell(v) if isinstance(v, (dict, list)) else v for k, v in row.items()} for row in rows]
    assert got == expected


@pytest.mark.parametrize("argv", LISTINGS, ids=lambda a: a[0])
def test_json_is_the_json_output_and_jsonl_its_rows(cli, tmp_path, argv):
    code, today, _ = cli(*argv, "--json")
    assert cli(*argv, "--format", "json")[1] == today  # on stdout: today's bytes
    target = tmp_path / "out.json"
    assert cli(*argv, "--format", "json", "-o", str(target))[0] == 0
    if ROWS_OF[argv[0]] is None:
        assert target.read_text() == today
    else:
        assert json.loads(target.read_text()) == json.loads(today)  # the same document (census: ASCII on stdout)
    rows = _json_rows(cli, argv)
    code, out, _ = cli(*argv, "--format", "jsonl")
    assert [json.loads(x) for x in out.splitlines()] == rows
    assert cli(*argv, "--format", "jsonl", "-o", str(tmp_path / "out.jsonl"))[0] == 0
    assert [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()] == rows


def test_an_empty_listing_is_an_empty_file_parquet_reads(cli, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow: pip install 'rmq-inspect[spark]'")
    target = tmp_path / "problems.parquet"
    assert cli("verify", SAMPLE, "--format", "parquet", "-o", str(target))[0] == 0  # the sample store verifies
    assert pq.read_table(target).num_rows == 0
    code, out, _ = cli("verify", SAMPLE, "--format", "csv")
    assert code == 0 and out == ""


def test_a_documents_findings_stay_on_stderr(cli, tmp_path):
    code, out, err = cli("census", SAMPLE, "--format", "csv")
    assert code == 0 and out.startswith("kind,what,files")
    assert "README.md @ 0" in err and "(unknown-file)" in err  # what --json's problems say, as the table says it


def test_csv_on_stdout_is_escaped_like_the_table(cli, tmp_path):
    from hostile_text import write_store_text

    from inspector.engine import terminal_text

    store = tmp_path / "store"
    assert write_store_text(tmp_path, [{"topic": "T|\u202e", "body": "evil\x1b]0;owned\x07 line\nnext",
                                        "keys": ["k\x1b[2J", "a|b\tc"]}])[0] == 0
    code, out, _ = cli("messages", str(store), "--format", "csv")
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    row = next(csv.DictReader(io.StringIO(out)))
    assert row["keys"] == terminal_text(cell(["k\x1b[2J", "a|b\tc"]))
    assert row["topic"] == "T|\\u202e"
    code, _, _ = cli("messages", str(store), "--format", "csv", "-o", str(tmp_path / "m.csv"))
    row = next(csv.DictReader(io.StringIO((tmp_path / "m.csv").read_text(encoding="utf-8"), newline="")))
    assert json.loads(row["keys"]) == ["k\x1b[2J", "a|b\tc"]  # to a file: the JSON value itself
    assert row["topic"] == "T|\u202e"
    # tsv and markdown of that hostile row parse back too (a tab, a |, a line break inside a cell)
    for fmt in ("tsv", "markdown"):
        target = tmp_path / f"m.{fmt}"
        assert cli("messages", str(store), "--format", fmt, "-o", str(target))[0] == 0
        header, *rest = target.read_text(encoding="utf-8").splitlines()
        line = rest[-1]
        cells = line.split("\t") if fmt == "tsv" else _split_markdown(line)
        names = header.split("\t") if fmt == "tsv" else _split_markdown(header)
        got = {n: _from_json_inside(c) for n, c in zip(names, cells, strict=True)}
        assert json.loads(got["keys"]) == ["k\x1b[2J", "a|b\tc"] and got["topic"] == "T|\u202e"


@pytest.mark.parametrize("extra, says", [
    (("--format", "xml"), "invalid choice: 'xml'"),
    (("--format", "csv", "-o", "INSIDE"), "never writes into a store"),
    (("--format", "csv", "-o", "EXISTS"), "exists; --force replaces it"),
    (("--json", "--format", "csv"), "does not go with --format csv"),
    (("-o", "NEW"), "-o FILE writes rows"),
    (("--force",), "--force goes with -o FILE"),
])
@pytest.mark.parametrize("command", ["messages", "grep"])
def test_bad_format_arguments_are_exit_2_with_one_line(cli, tmp_path, command, extra, says):
    exists = tmp_path / "exists.csv"
    exists.write_text("mine\n")
    spelled = {"INSIDE": str(Path(SAMPLE) / "out.csv"), "EXISTS": str(exists), "NEW": str(tmp_path / "new.csv")}
    argv = [command, SAMPLE, *(["order"] if command == "grep" else []), *(spelled.get(a, a) for a in extra)]
    code, out, err = cli(*argv)
    assert code == 2, err
    assert says in err
    assert exists.read_text() == "mine\n"  # an existing file is left as it was
    assert not (Path(SAMPLE) / "out.csv").exists()


def test_force_replaces_an_existing_file(cli, tmp_path):
    target = tmp_path / "m.csv"
    target.write_text("old\n")
    assert cli("messages", SAMPLE, "--limit", "2", "--format", "csv", "-o", str(target), "--force")[0] == 0
    assert target.read_text().startswith("file,position,physical_offset")


@pytest.mark.parametrize("shown", [(), ("--wheel",)], ids=["units", "wheel"])
def test_timer_listings_parse_back(cli, tmp_path, shown):
    from timer_store import make_timer_store

    root = str(make_timer_store(tmp_path / "store"))
    code, out, _ = cli("timer", root, *shown, "--json")
    assert code == 0
    rows = _as_cells([json.loads(line) for line in out.splitlines()])
    assert rows
    assert cli("timer", root, *shown, "--format", "csv", "-o", str(tmp_path / "t.csv"))[0] == 0
    assert list(csv.DictReader(io.StringIO((tmp_path / "t.csv").read_text(), newline=""))) == rows


def test_timer_slot_and_summary_take_no_row_format(cli, tmp_path):
    from timer_store import make_timer_store

    root = str(make_timer_store(tmp_path / "store"))
    code, _, err = cli("timer", root, "--summary", "--format", "csv")
    assert code == 2 and "--slot and --summary print a table or --json" in err


def test_parquet_without_pyarrow_is_exit_2_naming_the_extra(cli, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # an import of it raises ImportError
    target = tmp_path / "m.parquet"
    code, out, err = cli("messages", SAMPLE, "--format", "parquet", "-o", str(target))
    assert code == 2 and out == ""
    assert "needs pyarrow" in err and "rmq-inspect[spark]" in err
    assert not target.exists()


def test_a_failing_command_leaves_no_file(cli, tmp_path):
    target, empty = tmp_path / "m.csv", tmp_path / "empty"
    empty.mkdir()
    code, _, err = cli("messages", str(empty), "--format", "csv", "-o", str(target))  # no store there
    assert code == 2 and "inside the store" not in err and list(tmp_path.iterdir()) == [empty]
    target.write_text("mine\n")  # --force: an existing file is replaced only by a complete answer
    assert cli("messages", str(empty), "--format", "csv", "-o", str(target), "--force")[0] == 2
    assert target.read_text() == "mine\n" and sorted(tmp_path.iterdir()) == [empty, target]


def _csv_matches_json(cli, tmp_path, argv, key, code=0):
    """``argv --format csv -o`` parses back to ``argv --json``'s ``key`` rows, and parquet to the same rows."""
    got_code, out, _ = cli(*argv, "--json")
    assert got_code == code
    rows = json.loads(out)[key]
    assert rows
    target = tmp_path / "rows.csv"
    assert cli(*argv, "--format", "csv", "-o", str(target))[0] == code
    assert list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"), newline=""))) == _as_cells(rows)
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow: pip install 'rmq-inspect[spark]'")
    assert cli(*argv, "--format", "parquet", "-o", str(tmp_path / "rows.parquet"))[0] == code
    expected = [{k: cell(v) if isinstance(v, (dict, list)) else v for k, v in row.items()} for row in rows]
    assert pq.read_table(tmp_path / "rows.parquet").to_pylist() == expected


def test_verify_findings_parse_back(cli, tmp_path):
    aged = str(Path(SAMPLE).with_name("sample_store_aged"))
    code = cli("verify", aged)[0]  # whatever verify says of the aged store, --format keeps its exit code
    _csv_matches_json(cli, tmp_path, ("verify", aged), "problems", code)


def test_trace_records_parse_back(cli, tmp_path):
    from trace_store import UK, write_trace_store

    root = tmp_path / "store"
    write_trace_store(root)
    _csv_matches_json(cli, tmp_path, ("trace", str(root), UK), "records")
