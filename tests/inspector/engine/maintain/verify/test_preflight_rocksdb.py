"""Preflight on a 5.x store whose consume queue is a RocksDB database (storeType=defaultRocksDB): the start's
truncation of that queue is not modelled, and the answer says so (a partial answer), in the verdict, the banner,
a note, the table and --json; the store is never changed."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from external_tools import import_or_skip

from inspector.cli.main import main as cli_main
from inspector.engine import Store, preflight
from tests.offsets_support import rocksdb_queue_store
from tests.store_digest import tree_digest

import_or_skip("rocksdict")


@pytest.fixture
def rocks_store(tmp_path, write_commitlog):
    rocksdb_queue_store(tmp_path, write_commitlog)
    return tmp_path


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli_main(list(argv))
    assert "Traceback" not in out.getvalue()
    return code, out.getvalue()


def test_the_rocksdb_consume_queue_is_said_to_be_unchecked(rocks_store) -> None:
    before = tree_digest(rocks_store)
    with Store(rocks_store) as store:
        assert store.rocksdb_cq is not None
        plan = preflight(store)
    assert plan.verdict == "normal start, nothing lost (the RocksDB consume queue not checked)"
    assert plan.banner.endswith("nothing lost (the RocksDB consume queue not checked)")
    assert plan.queue_cuts == [] and plan.exit_code == 0  # the files it models lose nothing
    assert any(n.startswith("the RocksDB consume queue (consumequeue/ is a RocksDB database") for n in plan.notes)
    code, text = _run("preflight", str(rocks_store))
    assert code == 0 and text.startswith("preflight: normal start, nothing lost (the RocksDB consume queue not checked)")
    code, out = _run("preflight", str(rocks_store), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["verdict"].endswith("(the RocksDB consume queue not checked)")
    assert any("is not checked" in n for n in doc["notes"])
    assert tree_digest(rocks_store) == before


def test_a_file_queue_store_says_nothing_of_rocksdb(tmp_path, write_commitlog) -> None:
    write_commitlog(tmp_path, [dict(topic="T", queue_id=0, queue_offset=0)])
    with Store(tmp_path) as store:
        plan = preflight(store)
    assert "not checked" not in plan.verdict and not any("RocksDB" in n for n in plan.notes)
