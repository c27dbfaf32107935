"""Spark's message rows are the engine's one declared shape (MESSAGE_FIELDS): the same names in the same order
as message_view, and message_row's values are what the declaration derives (the Arrow path is held equal to
message_row in test_arrow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.engine import MESSAGE_FIELDS, Message, Store
from inspector.engine.present.message_shape import message_fields
from inspector.spark.schemas import MESSAGE_COLUMNS
from inspector.spark.tasks import message_row

ROOT = Path(__file__).resolve().parents[3]


def test_the_message_columns_are_the_declared_fields_between_the_source_and_the_body() -> None:
    assert MESSAGE_COLUMNS == ("store", "segment", *(f.name for f in MESSAGE_FIELDS), "raft_index", "raft_term",
                               "body")


@pytest.mark.parametrize("store", ["sample_store", "sample_store_dledger"])
def test_message_rows_carry_the_declared_values(store: str) -> None:
    with Store(ROOT / store) as st:
        msgs = [e for e in st.commitlog.entries() if isinstance(e, Message)]
    assert msgs
    for msg in msgs:
        row = dict(zip(MESSAGE_COLUMNS, message_row(msg, "s", "g"), strict=True))
        declared = message_fields(msg)
        declared["sys_flag_parts"] = tuple(declared["sys_flag_parts"].values())  # the schema's struct
        assert {k: row[k] for k in declared} == declared
        assert (row["raft_index"], row["raft_term"], row["body"]) == (msg.raft_index, msg.raft_term, msg.body)
    if store == "sample_store_dledger":
        assert all(m.raft_index is not None for m in msgs[-3:])
