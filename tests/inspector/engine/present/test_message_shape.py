"""One outward shape of a message (present/message_shape.MESSAGE_FIELDS): message_view is made from it, and the
bulk JSON Lines fast path writes the same fields, in the same order, with the same values, on the sample stores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.engine import MESSAGE_FIELDS, Message, Store, json_lines, message_view
from inspector.engine.present.message_shape import message_fields

ROOT = Path(__file__).resolve().parents[4]
NAMES = [f.name for f in MESSAGE_FIELDS]


def test_the_declaration_names_each_field_once_with_a_known_kind() -> None:
    assert len(set(NAMES)) == len(NAMES) == 28
    assert {f.kind for f in MESSAGE_FIELDS} <= {"string", "int32", "int64", "bool", "string_map", "string_list",
                                                 "sys_flag_parts"}


@pytest.mark.parametrize("store", ["sample_store", "sample_store_dledger"])
def test_message_view_and_the_bulk_lines_are_the_declared_fields(store: str) -> None:
    with Store(ROOT / store) as st:
        msgs = [e for e in st.commitlog.entries() if isinstance(e, Message)]
        lines = [json.loads(line) for chunk in json_lines(st.commitlog.batches()) for line in
                 bytes(chunk).decode().splitlines()]
    assert len(msgs) == len(lines) > 10
    for msg, line in zip(msgs, lines, strict=True):
        declared = json.loads(json.dumps(message_fields(msg)))
        view = message_view(msg)
        assert list(view)[: len(NAMES)] == NAMES == list(line)[: len(NAMES)]
        assert {k: line[k] for k in NAMES} == declared == {k: view[k] for k in NAMES}
        assert list(view)[len(NAMES) : len(NAMES) + 2] == ["body_base64", "body_truncated"]
