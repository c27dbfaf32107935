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
from parsers.java import tags_code
from parsers.rocksdb_cq import CqValue, cq_key, offset_key
from tests.aged_store import tree_digest
from tests.offsets_support import write_rocksdb

import_or_skip("rocksdict")


@pytest.fixture
def rocks_store(tmp_path, write_commitlog):
    specs = [dict(topic="TopicTest", queue_id=1, queue_offset=i, store_timestamp=1_700_000_000_000 + i * 1000,
                  properties={"TAGS": "TagA", "KEYS": f"k{i}"}) for i in range(5)]
    offsets = write_commitlog(tmp_path, specs)
    units = {}
    with Store(tmp_path) as plain:
        for i, off in enumerate(offsets):
            m = plain.message_at(off)
            units[cq_key("TopicTest", 1, i)] = CqValue.build(dict(physical_offset=off, size=m.total_size,
                                                                  tags_code=tags_code("TagA"),
                                                                  store_timestamp=m.store_timestamp))
    bounds = {offset_key("TopicTest", "max", 1): offsets[-1].to_bytes(8, "big") + (4).to_bytes(8, "big"),
              offset_key("TopicTest", "min", 1): offsets[0].to_bytes(8, "big") + (0).to_bytes(8, "big")}
    write_rocksdb(tmp_path / "consumequeue", units, {"offset": bounds})
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
