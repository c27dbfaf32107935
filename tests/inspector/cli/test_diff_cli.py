"""``rmq-inspect diff A B``: exit codes as cmp/diff (0 identical, 1 differences, 2 usage, 3 not a store), the
table and --json, nothing written to either store, config text escaped on the terminal."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hostile_text import run
from store_digest import tree_digest as digest

SAMPLE = Path(__file__).parents[3] / "sample_store"


def test_identical_is_exit_0(tmp_path):
    b = shutil.copytree(SAMPLE, tmp_path / "b")
    code, out, err = run("diff", str(SAMPLE), str(b))
    assert (code, err) == (0, "") and "identical" in out


def test_a_flipped_byte_is_exit_1_and_named(tmp_path):
    b = Path(shutil.copytree(SAMPLE, tmp_path / "b"))
    seg = sorted((b / "commitlog").iterdir())[0]
    data = bytearray(seg.read_bytes())
    data[300] ^= 0x55
    seg.write_bytes(bytes(data))
    before = digest(SAMPLE), digest(b)
    code, out, err = run("diff", str(SAMPLE), str(b), "--json")
    view = json.loads(out)
    assert code == 1 and view["first_divergence"] == int(seg.name) + 300
    assert view["differing"] == [{"start": view["first_divergence"], "end": view["first_divergence"] + 1}]
    assert (digest(SAMPLE), digest(b)) == before  # nothing written
    code, out, _ = run("diff", str(SAMPLE), str(b))
    assert code == 1 and "first diverge" in out


def test_not_a_store_is_exit_3(tmp_path):
    code, out, err = run("diff", str(SAMPLE), str(tmp_path))
    assert code == 3 and out == "" and str(tmp_path) in err and "no RocketMQ store" in err
    code, _, err = run("diff", str(SAMPLE), str(tmp_path / "missing"))
    assert code == 3 and "no such directory" in err
    assert list(tmp_path.iterdir()) == []


def test_usage_is_exit_2():
    code, _, err = run("diff", str(SAMPLE))
    assert code == 2 and "B" in err


def test_config_text_is_escaped(tmp_path):
    b = Path(shutil.copytree(SAMPLE, tmp_path / "b"))
    (b / "config").mkdir(exist_ok=True)
    (b / "config" / "x.json").write_text('{"[bold]k\\u001b[31m": "v"}')
    code, out, _ = run("diff", str(SAMPLE), str(b))
    assert code == 1 and "\x1b" not in out and "[bold]k" in out


def test_index_items_and_dledger_terms_are_tables_and_json(tmp_path):
    b = Path(shutil.copytree(SAMPLE, tmp_path / "b"))
    shutil.rmtree(b / "index")
    code, out, err = run("diff", str(SAMPLE), str(b), "--limit", "2")
    assert code == 1 and "Index items in one store only" in out and "more index item(s)" in err
    view = json.loads(run("diff", str(SAMPLE), str(b), "--json")[1])
    assert view["index_only_in_a"] > 0 and view["index_only_in_b"] == 0 and view["dledger_terms"] is None
    dledger = SAMPLE.with_name("sample_store_dledger")
    a, c = shutil.copytree(dledger, tmp_path / "da"), Path(shutil.copytree(dledger, tmp_path / "dc"))
    index = c / "dledger-n0" / "index" / ("0" * 20)
    data = bytearray(index.read_bytes())
    data[3 * 32 + 24 : 3 * 32 + 32] = (7).to_bytes(8, "big")  # entry 3's term
    index.write_bytes(bytes(data))
    code, out, _ = run("diff", str(a), str(c))
    assert code == 1 and "the logs diverge at Raft index 3 (term 1 in A, 7 in B)" in out
    assert run("diff", str(a), str(a))[0] == 0
