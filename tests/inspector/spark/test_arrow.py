"""The Arrow path (inspector.spark.arrow) gives the rows and segment reports of the row path, without Spark."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from inspector.spark import plan
from inspector.spark.arrow import ARROW_MESSAGE, message_batches, rows_batch
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
    ("body", "segment", "file"),
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
        list(message_batches([], [].append, columns=("body", "bodies")))
