"""Spark's message rows are the engine's one declared shape (MESSAGE_FIELDS): the same names in the same order
as message_view, and message_row's values are what the declaration derives (the Arrow path is held equal to
message_row in test_arrow)."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest

from inspector.engine import MESSAGE_FIELDS, Message, Store
from inspector.engine.present.message_shape import message_fields
from inspector.spark import plan
from inspector.spark.schemas import MESSAGE, MESSAGE_COLUMNS
from inspector.spark.tasks import StoreRef, message_row, message_rows

sys.path.insert(0, str(Path(__file__).parents[2]))
from batch_store import BATCH_TOPIC, write_batch_store  # noqa: E402

from tests.trace_store import write_trace_store  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def test_the_message_columns_are_the_declared_fields_between_the_source_and_the_body() -> None:
    assert MESSAGE_COLUMNS == ("store", "segment", *(f.name for f in MESSAGE_FIELDS), "body_base64",
                               "body_truncated", "dledger", "inner_batch", "trace")


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
        dledger = None if msg.raft_index is None else (msg.raft_index, msg.raft_term, msg.position - 48,
                                                       msg.total_size + 48)
        assert (row["dledger"], base64.b64decode(row["body_base64"])) == (dledger, msg.body)
    if store == "sample_store_dledger":
        assert all(m.raft_index is not None for m in msgs[-3:])


# --- a Spark row is its --json object, field for field ------------------------------------------------------------


def _json_objects(argv: list[str], capsys) -> list[dict]:
    from inspector.cli.main import main

    capsys.readouterr()
    assert main(["messages", *argv, "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def _as_json_object(row: dict) -> dict:
    """A row as a dict, less where it comes from (store, segment) and the null objects JSON leaves out."""
    d = {k: v for k, v in row.items() if k not in ("store", "segment")}
    for name in ("dledger", "inner_batch", "trace"):
        if d[name] is None:
            del d[name]
    return _trace_fields_set(d)


def _trace_fields_set(d: dict) -> dict:
    """A row's trace record has every field (null where its kind has none), a JSON record only its kind's keys
    (a known type's with null values): compared on the fields that hold a value."""
    if "trace" in d:
        d["trace"]["records"] = [{k: v for k, v in r.items() if v is not None} for r in d["trace"]["records"]]
    return d


def _spark_rows(spark, root: Path) -> dict[tuple[int, int], dict]:
    """Every MESSAGE row of the store, by (physical offset, queue offset), through Spark (pickled rows) and
    through the Arrow batches; both must agree."""
    from inspector.spark.arrow import message_batches

    tasks = plan.plan_segments([StoreRef(str(root))])
    rows = spark.createDataFrame(list(message_rows(tasks, lambda _: None)), MESSAGE).collect()
    by_spark = {(r["physical_offset"], r["queue_offset"]): _as_json_object(r.asDict(recursive=True)) for r in rows}
    by_arrow = {}
    for batch in message_batches(tasks, lambda _: None):
        for r in batch.to_pylist():
            r["properties"] = dict(r["properties"])  # Arrow gives a map as (key, value) pairs
            by_arrow[(r["physical_offset"], r["queue_offset"])] = _as_json_object(r)
    assert by_arrow == by_spark
    return by_spark


def _first(root: Path, which) -> int:
    with Store(root) as st:
        return next(m.physical_offset for m in st.entries() if isinstance(m, Message) and which(m))


@pytest.mark.parametrize("kind", ["plain", "compressed", "dledger", "batch", "trace"])
def test_a_spark_row_is_its_json_object_field_for_field(spark, tmp_path, capsys, kind: str) -> None:
    """Issue 28: one outward shape. A record's Spark row, as a dict, equals what ``messages --json`` prints for
    it: the same names, nesting and values (body_base64, the dledger, inner_batch and trace objects included)."""
    if kind == "batch":
        root = tmp_path / "s"
        write_batch_store(root)
        argv = [str(root), "--topic", BATCH_TOPIC, "--queue", "0"]  # each inner message its own object
    elif kind == "trace":
        root = tmp_path / "t"
        write_trace_store(root)  # trace records of each type, and a body of another shape
        argv = [str(root)]
    else:
        root = ROOT / ("sample_store_dledger" if kind == "dledger" else "sample_store")
        which = {"plain": lambda m: not m.compression, "compressed": lambda m: m.compression is not None,
                 "dledger": lambda m: m.raft_index is not None}[kind]
        argv = [str(root), "--from", str(_first(root, which)), "--limit", "1"]
    objects = _json_objects(argv, capsys)
    rows = _spark_rows(spark, root)
    for obj in objects:
        assert rows[(obj["physical_offset"], obj["queue_offset"])] == _trace_fields_set(obj)
    marks = {"plain": lambda o: o["compression"] is None and "dledger" not in o,
             "compressed": lambda o: o["compression"] is not None, "dledger": lambda o: "dledger" in o,
             "batch": lambda o: "inner_batch" in o, "trace": lambda o: "trace" in o}
    assert objects and any(marks[kind](o) for o in objects)
