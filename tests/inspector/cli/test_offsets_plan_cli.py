"""``rmq-inspect offsets plan`` (issue 32 item 3) as a user types it: the table and --json with hand-computed
offsets, --out writing a new consumerOffset.json, and the bad inputs (a time before the first message, --out
existing or inside the store, --force without --out, an unknown group): one line, documented exit code, nothing
written."""

from __future__ import annotations

import json

import pytest

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from parsers.fastjson import loads
from tests.offsets_support import T0


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """g on T: queue 0 stored at T0+0, 10, 20, 30 (committed 3); queue 1 at T0+5, 25 (committed 0)."""
    root = tmp_path_factory.mktemp("offsets-cli") / "store"
    with StoreWriter(root, clock=lambda: T0, consumer_offsets={("T", "g"): {0: 3, 1: 0}}) as w:
        for t, q in sorted([(0, 0), (10, 0), (20, 0), (30, 0), (5, 1), (25, 1)]):
            w.append(MessageSpec(topic="T", queue_id=q, body=b"m", store_timestamp=T0 + t))
    return root


def test_table_and_json(store, cli):
    code, out, err = cli("offsets", "plan", str(store), "--group", "g", "--at", str(T0 + 10))
    assert code == 0, err
    rows = [[c.strip() for c in ln.split("│")[1:-1]] for ln in out.splitlines() if ln.startswith("│ T ")]
    assert [(r[1], r[2], r[5], r[7], r[8], r[9]) for r in rows] == [("0", "3", "1", "1", "2", "0"),
                                                                    ("1", "0", "1", "1", "0", "1")]
    assert "total: 2 message(s) replayed, 1 skipped" in out and "nothing written" in out
    code, out, _ = cli("offsets", "plan", str(store), "--group", "g", "--to-end", "--json")
    data = json.loads(out)
    assert code == 0 and (data["mode"], data["skip"], data["out"]) == ("to-end", 3, None)
    assert [q["new_offset"] for q in data["queues"]] == [4, 2]


def test_out_writes_a_new_file_and_never_twice(store, cli, tmp_path):
    out_file = tmp_path / "consumerOffset.json"
    code, out, err = cli("offsets", "plan", str(store), "--group", "g", "--at", str(T0 + 21), "--out", str(out_file))
    assert code == 0, err
    assert f"wrote {out_file}" in out
    assert loads(out_file.read_text())["offsetTable"]["T@g"] == {0: 3, 1: 1}
    before = out_file.read_bytes()
    code, _, err = cli("offsets", "plan", str(store), "--group", "g", "--to-end", "--out", str(out_file))
    assert code == 2 and "exists; --force replaces it" in err and out_file.read_bytes() == before
    code, _, _ = cli("offsets", "plan", str(store), "--group", "g", "--to-end", "--out", str(out_file), "--force")
    assert code == 0 and loads(out_file.read_text())["offsetTable"]["T@g"] == {0: 4, 1: 2}


@pytest.mark.parametrize(("args", "code", "words"), [
    (["--at", str(T0 - 1)], 2, "before the first message of every queue"),
    (["--to-offset", "9", "--topic", "T", "--queue", "0"], 2, "not in T queue 0's range"),
    (["--to-end", "--force"], 2, "--force goes with --out"),
    (["--to-end", "--queue", "0"], 2, "--queue goes with --topic"),
    (["--to-end", "--out", "{store}/config/new.json"], 2, "inside the store"),
    (["--at", str(T0), "--to-end"], 2, "not allowed with"),
])
def test_bad_input_writes_nothing(store, cli, tmp_path, args, code, words):
    out_file = tmp_path / "new.json"
    args = [a.format(store=store) for a in args]
    if "--out" not in args:
        args += ["--out", str(out_file)] if "--force" not in args else []
    got, _, err = cli("offsets", "plan", str(store), "--group", "g", *args)
    assert got == code and words in err
    assert not out_file.exists() and not (store / "config" / "new.json").exists()


def test_unknown_group_exit_1(store, cli):
    code, _, err = cli("offsets", "plan", str(store), "--group", "nobody", "--to-end")
    assert code == 1 and "no consumer group 'nobody'" in err
