"""The Arrow path (inspector.spark.arrow) gives the rows and segment reports of the row path, without Spark."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.spark import plan
from inspector.spark.arrow import (
    ARROW_MESSAGE,
    _properties,
    _properties_vectorized,
    message_batches,
    rows_batch,
)
from inspector.spark.schemas import MESSAGE_COLUMNS
from inspector.spark.tasks import StoreRef, message_rows


def _both(root: Path, *, with_body: bool = True) -> tuple[list[dict], list, list[dict], list]:
    tasks = plan.plan_segments([StoreRef(str(root))])
    row_reports: list = []
    rows = [dict(zip(MESSAGE_COLUMNS, r, strict=True)) for r in message_rows(tasks, row_reports.append,
                                                                               with_body=with_body)]
    arrow_reports: list = []
    batches = list(message_batches(tasks, arrow_reports.append, with_body=with_body))
    assert all(b.schema == ARROW_MESSAGE for b in batches)
    arrow = [r for b in batches for r in b.to_pylist()]
    return rows, row_reports, arrow, arrow_reports


def _normal(row: dict) -> dict:
    out = dict(row)
    if isinstance(out["properties"], list):  # Arrow gives a map as (key, value) pairs, in order
        out["properties"] = dict(out["properties"])
    out["properties"] = list(out["properties"].items())  # order matters too
    out["sys_flag_parts"] = tuple(out["sys_flag_parts"].values()) if isinstance(out["sys_flag_parts"], dict) \
        else tuple(out["sys_flag_parts"])
    return out


@pytest.mark.parametrize("with_body", [True, False])
def test_arrow_rows_equal_message_rows(multi_store, with_body: bool) -> None:
    rows, row_reports, arrow, arrow_reports = _both(multi_store, with_body=with_body)
    assert len(rows) > 4000
    assert [_normal(r) for r in arrow] == [_normal(r) for r in rows]
    assert arrow_reports == row_reports
    # the generated store has compressed bodies, an IPv6 host, transactions and repeated keys: all covered
    assert {r["compression"] for r in arrow} >= {None, "ZLIB"}
    assert any(r["born_host"].startswith("[") for r in arrow)
    assert {r["transaction"] for r in arrow} >= {"NOT_TYPE", "COMMIT"}


def test_arrow_rows_on_a_damaged_copy_equal_message_rows(sample_store, damaged_copy, patch) -> None:
    """Damaged records come one by one (message_row) between the engine's batches: same rows, same reports."""
    root = damaged_copy(sample_store, "damaged")
    seg = sorted((root / "commitlog").iterdir())[0]
    patch(seg, 300, b"\xff\xfe")  # inside the first record's body: a CRC mismatch, the walk goes on
    rows, row_reports, arrow, arrow_reports = _both(root)
    assert any(not r["body_crc_ok"] for r in rows)
    assert [_normal(r) for r in arrow] == [_normal(r) for r in rows]
    assert arrow_reports == row_reports


def test_rows_batch_of_nothing_has_the_schema() -> None:
    assert rows_batch([]).num_rows == 0 and rows_batch([]).schema == ARROW_MESSAGE


# a job's column choice (stats, keyindex) and a few awkward ones: a lone derived column, no map, only bodies
SUBSETS = [
    ("store", "topic", "queue_id", "total_size", "body_length", "born_timestamp", "store_timestamp", "tags", "keys",
     "compression"),
    ("store", "physical_offset", "queue_id", "queue_offset", "store_timestamp", "topic", "keys", "unique_key", "msg_id",
     "transaction"),
    ("msg_id",),
    ("unique_key", "sys_flag_parts", "body_crc_ok", "born_host"),
    ("body_base64", "segment", "file"),
    ("dledger", "inner_batch", "body_truncated"),
]


@pytest.mark.parametrize("columns", SUBSETS, ids=lambda c: "+".join(c[:3]))
def test_a_column_subset_equals_those_columns_of_the_full_rows(multi_store, sample_store, damaged_copy, patch,
                                                               columns: tuple[str, ...]) -> None:
    """Only the asked columns are built, in the asked order, with the values of the full batches; on damage too."""
    damaged = damaged_copy(sample_store, "damaged-subset")
    patch(sorted((damaged / "commitlog").iterdir())[0], 300, b"\xff\xfe")  # a CRC mismatch: a row built one by one
    for root in (multi_store, damaged):
        tasks = plan.plan_segments([StoreRef(str(root))])
        full = [r for b in message_batches(tasks, [].append) for r in b.to_pylist()]
        reports: list = []
        batches = list(message_batches(tasks, reports.append, columns=columns))
        assert all(b.schema.names == list(columns) for b in batches)
        assert all(b.schema == pa.schema([ARROW_MESSAGE.field(c) for c in columns]) for b in batches)
        assert [r for b in batches for r in b.to_pylist()] == [{c: r[c] for c in columns} for r in full]
        all_reports: list = []
        list(message_batches(tasks, all_reports.append))
        assert reports == all_reports


def test_unknown_columns_are_refused() -> None:
    with pytest.raises(ValueError, match="not MESSAGE columns: bodies"):
        list(message_batches([], [].append, columns=("body_base64", "bodies")))


# --- the properties split by Arrow kernels equals the Python loop ----------------------------------------------

_NAMES = st.sampled_from(["TAGS", "KEYS", "UNIQ_KEY", "WAIT", "a", "", "é名", "K EYS"])
_VALUES = st.sampled_from(["", "x", "TagA", "k1 k2", " k1  k2 ", "  ", "a\x01b", "中文", "k"])
_SEGMENT = st.one_of(st.tuples(_NAMES, _VALUES).map(lambda nv: f"{nv[0]}\x01{nv[1]}"), _NAMES,
                     st.text(alphabet="ab \x01", max_size=4))
_TEXT = st.lists(_SEGMENT, max_size=6).map("\x02".join) | st.lists(_SEGMENT, max_size=6).map(
    lambda s: "\x02".join(s) + "\x02")


def _loop(texts: list[str]) -> tuple[list, list, list, list]:
    column, tags, keys, uniq = _properties(texts)
    return column.to_pylist(), tags, keys, uniq


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT, max_size=12))
def test_vectorized_properties_equal_the_loop(texts: list[str]) -> None:
    raw = pa.array([t.encode() for t in texts], pa.binary())
    fast = _properties_vectorized(raw)
    names = [[p.partition("\x01")[0] for p in t.split("\x02") if p.partition("\x01")[1]
              and p.partition("\x01")[0] and p.partition("\x01")[2]] for t in texts]
    if any(len(set(ns)) < len(ns) for ns in names):
        assert fast is None  # a name given twice: the loop decides (later value, first place)
        return
    assert fast is not None
    column, tags, keys, uniq = fast
    assert (column.to_pylist(), tags.to_pylist(), keys.to_pylist(), uniq.to_pylist()) == _loop(texts)
    assert column.type == _properties(texts)[0].type and keys.type == pa.list_(ARROW_MESSAGE.field("keys").type.value_field)


def test_vectorized_properties_leave_invalid_utf8_to_the_loop() -> None:
    assert _properties_vectorized(pa.array([b"TAGS\x01ok\x02", b"KEYS\x01\xff\xfe\x02"], pa.binary())) is None
    empty = _properties_vectorized(pa.array([], pa.binary()))
    assert empty is not None and all(len(c) == 0 for c in empty)
