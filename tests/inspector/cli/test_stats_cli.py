"""``rmq-inspect stats``: the tables and JSON on the sample store, the exit codes (0, 2 an unknown --by, 3 part of
the log unreadable, figures still printed), and store text escaped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hostile_text import run, unsafe_in, write_store_text

from inspector.engine import Message, Store

SAMPLE = Path(__file__).parents[3] / "sample_store"


def _messages(root: Path) -> list[Message]:
    with Store(root) as s:
        return [m for m in s.entries() if isinstance(m, Message)]


def test_json_totals_equal_the_records():
    messages = _messages(SAMPLE)
    code, out, err = run("stats", str(SAMPLE), "--json", "--by", "host")
    view = json.loads(out)
    assert (code, err) == (0, "")
    assert view["total"]["messages"] == len(messages) and view["total"]["bytes"] == sum(m.total_size for m in messages)
    hosts = {r["key"]: r["messages"] for r in view["rows"]}
    assert hosts == {ip: sum(m.born_host.ip == ip for m in messages) for ip in {m.born_host.ip for m in messages}}
    assert view["partial"] is False and view["retention"]


def test_the_tables():
    code, out, err = run("stats", str(SAMPLE))
    assert code == 0 and err == ""
    for says in ("Records by topic", "OrderEvents", "total", "402", "shares of records", "Size (TOTALSIZE)",
                 "Rate per hour", "Bytes per topic per segment", "Deleting the oldest segments", "stock-consumer"):
        assert says in out, says


def test_an_unknown_key_is_exit_2():
    code, out, err = run("stats", str(SAMPLE), "--by", "colour")
    assert code == 2 and out == "" and "invalid choice" in err


def test_part_of_the_log_unreadable_is_exit_3_with_the_rest_counted(tmp_path):
    copy = tmp_path / "s"
    shutil.copytree(SAMPLE, copy)
    first = copy / "commitlog" / "00000000000000000000"
    first.unlink()
    first.mkdir()  # no regular file where a segment should be
    code, out, err = run("stats", str(copy), "--json")
    assert code == 3 and "not-a-segment-file" in err and "partial answer" in err
    view = json.loads(out)
    rest = [m for m in _messages(SAMPLE) if m.physical_offset >= 65536]
    assert view["partial"] is True and view["total"]["messages"] == len(rest)


def test_store_text_is_escaped_on_the_terminal(tmp_path):
    evil = "\x1b]0;PWNED\x07 NEEDLE \u202e[bold]x[/bold]\x9b"
    code, _, err = write_store_text(tmp_path, [{"topic": "T", "body": evil, "tags": evil, "keys": [evil],
                                                "producer_group": evil}])
    assert code == 0, err
    for by in ("tag", "producer-group"):
        code, out, err = run("stats", str(tmp_path / "store"), "--by", by)
        assert code == 0 and "NEEDLE" in out
        assert unsafe_in(out) == [] and unsafe_in(err) == []


def test_stats_rows_in_csv_are_the_json_rows(cli, tmp_path):
    import csv

    code, out, _ = cli("stats", str(SAMPLE), "--by", "queue", "--json")
    rows = json.loads(out)["rows"]
    target = tmp_path / "stats.csv"
    code, _, _ = cli("stats", str(SAMPLE), "--by", "queue", "--format", "csv", "-o", str(target))
    with target.open(newline="") as f:
        got = list(csv.DictReader(f))
    assert code == 0 and len(got) == len(rows) > 1
    assert [(r["key"], int(r["messages"]), int(r["bytes"])) for r in got] == [
        (r["key"], r["messages"], r["bytes"]) for r in rows]
