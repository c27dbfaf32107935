"""``key --keyindex DIR``, fuzzed: whatever the folder holds (nothing, a store, files of random bytes named like
Parquet parts, sub-folders in their place, partition folders with odd names, a real key table with a bad part)
the answer is a documented exit code and a clean message, never a traceback; the folder is unchanged (issue 22,
item 4: every command's arguments)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from external_tools import import_or_skip
from fuzz_support import changed, fingerprint, run_cli
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_store import LONG_RUN, SAMPLE, fuzz_settings, watchdog

pyarrow = import_or_skip("pyarrow")
pq = import_or_skip("pyarrow.parquet")

pytestmark = pytest.mark.timeout(0 if LONG_RUN else 300)

NAMES = ("part-0.parquet", "part-00000-x.snappy.parquet", "_SUCCESS", ".hidden", "topic=OrderEvents", "x.parquet",
         "README.md", "topic=%zz", "key_hash=1")


def _real_table(where: Path) -> None:
    """A small table of the key index's shape (what `spark keyindex` writes): the columns lookup() reads."""
    table = pyarrow.table({"store": [str(SAMPLE)], "topic": ["OrderEvents"], "key": ["order-1108"],
                           "kind": ["key"], "physical_offset": [0], "store_timestamp": [1], "queue_id": [0],
                           "queue_offset": [0], "msg_id": ["00"]})
    pq.write_table(table, where / "part-0.parquet")


ENTRIES = st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(("file", "dir", "real")),
                             st.binary(max_size=64)), max_size=4)


@fuzz_settings(30, long_share=0.02)
@given(entries=ENTRIES, topic=st.sampled_from(("OrderEvents", "", "x" * 300, "T\x00")))
def test_any_folder_as_a_key_index_gets_a_documented_answer(tmp_path_factory, entries, topic) -> None:
    base = tmp_path_factory.mktemp("keyindex")
    for name, kind, data in entries:
        path = base / name
        if path.exists():
            continue
        if kind == "dir":
            path.mkdir()
            (path / "part-0.parquet").write_bytes(data)
        elif kind == "real":
            path.mkdir()
            _real_table(path)
        else:
            path.write_bytes(data)
    before = fingerprint(base)
    with watchdog():
        run = run_cli(["key", "--keyindex", str(base), topic, "order-1108"])
    assert not run.symptoms(), run.err
    assert run.code in (0, 1, 2), (run.code, run.err)
    if run.code == 2:
        assert run.err.count("\n") == 1 and "Traceback" not in run.err, run.err
    assert not changed(before, fingerprint(base))
    shutil.rmtree(base)
