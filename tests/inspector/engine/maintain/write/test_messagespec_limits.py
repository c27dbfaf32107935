"""The writer's JSON Lines within bounds (issue 35): nesting and number length as the config files have them
(parsers/fastjson.py), every integer field in the range of the broker's Java type, refusals naming the field."""

from __future__ import annotations

import pytest

from inspector.engine import BadInput
from inspector.engine.maintain.write.messagespec import (
    FIELD_RANGES,
    HugeNumber,
    MessageSpec,
    parse_message_line,
)


def test_an_ordinary_line_parses_as_json_does():
    assert parse_message_line('{"topic": "T", "queue_id": 3, "keys": ["a"], "x": 1.5}') == \
        {"topic": "T", "queue_id": 3, "keys": ["a"], "x": 1.5}


def test_nesting_past_the_limit_is_refused_without_recursion():
    with pytest.raises(BadInput, match="nesting deeper than 200 levels"):
        parse_message_line("[" * 100_000 + "]" * 100_000)
    # brackets inside strings are text, not nesting
    assert parse_message_line('{"body": "' + "[" * 1000 + '"}') == {"body": "[" * 1000}
    assert parse_message_line("[" * 200 + "]" * 200) is not None


def test_a_number_too_long_stands_out_of_every_range_and_names_itself():
    value = parse_message_line('{"queue_id": ' + "9" * 50_000 + "}")["queue_id"]
    assert isinstance(value, HugeNumber) and value.length == 50_000 and value > (1 << 63)
    with pytest.raises(BadInput, match=r"^field queue_id must be an integer in \[0, 2147483647\], not a number of "
                                       r"50,000 characters \(at most 64\)$"):
        MessageSpec.from_json({"topic": "T", "queue_id": value})
    assert parse_message_line("-" + "1" * 70) < -(1 << 63)


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity"])
def test_json_constants_that_are_no_numbers_are_refused(text):
    with pytest.raises(BadInput, match=f"not JSON: {text} is no JSON number"):
        parse_message_line('{"flag": ' + text + "}")


@pytest.mark.parametrize(("field", "low", "high"), [(f, lo, hi) for f, (lo, hi) in sorted(FIELD_RANGES.items())])
def test_every_integer_field_is_held_to_its_java_range(field, low, high):
    extra = {"transaction": "raw_prepared"} if field == "prepared_transaction_offset" else {}
    for bad in (low - 1, high + 1):
        with pytest.raises(BadInput, match=f"field {field} must be an integer in \\[{low}, {high}\\], not {bad}"):
            MessageSpec.from_json({"topic": "T", field: bad, **extra})
    assert getattr(MessageSpec.from_json({"topic": "T", field: high, **extra}), field) == high


def test_half_ref_is_an_index_or_a_key():
    with pytest.raises(BadInput, match="half_ref must be an integer in"):
        MessageSpec.from_json({"transaction": "commit", "half_ref": -1})
    assert MessageSpec.from_json({"transaction": "commit", "half_ref": "KEY"}).half_ref == "KEY"
