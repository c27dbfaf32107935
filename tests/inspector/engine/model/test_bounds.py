"""Integers from store files and typed offsets: ASCII digits only, a signed 64-bit range, one-line errors."""

from __future__ import annotations

import pytest

from inspector.engine.model.bounds import INT64_MAX, decimal_name, int64_problem, offset_text


def test_decimal_names_are_ascii_digits_of_the_given_width() -> None:
    assert decimal_name("00000000000000065536", 20) == 65536
    assert decimal_name("abc") is None and decimal_name("") is None
    assert decimal_name("\u0663") is None and decimal_name("\u00b2") is None  # "٣", "²": str.isdigit() takes them
    assert decimal_name("0" * 24 + "1", 20) is None
    assert decimal_name("9" * 20, 20) == int("9" * 20)  # the caller bounds it (strays.offset_name)
    assert decimal_name("1" * 5000) is None  # no int() of 4,300+ digits


def test_int64_problem_names_the_range() -> None:
    assert int64_problem(INT64_MAX, "x") is None
    assert "signed 64-bit range" in int64_problem(INT64_MAX + 1, "offset")


@pytest.mark.parametrize("text", ["9" * 20, "1" * 5000, "0" * 30 + "9223372036854775808"])
def test_offsets_past_int64_are_refused_in_one_short_line(text: str) -> None:
    with pytest.raises(ValueError, match="outside the signed 64-bit range") as err:
        offset_text(text)
    assert "\n" not in str(err.value) and len(str(err.value)) < 160


def test_offsets_within_int64() -> None:
    assert offset_text(str(INT64_MAX)) == INT64_MAX and offset_text("0" * 30 + "5") == 5
    assert offset_text("-1") is None and offset_text("0x10") is None and offset_text("\u0663") is None


# -- the guard for arithmetic on store values (issue 35) ---------------------------------------------------------


def test_a_size_of_zero_is_never_a_divisor() -> None:
    from inspector.engine.model.bounds import misalignment, usable_size, whole_units

    assert usable_size(None, 0, -5, default=7) == 7 and usable_size(0, 52, default=7) == 52
    assert whole_units(1040, 52) == 20 and whole_units(1040, 0) == 0 and whole_units(-1, 52) == 0
    assert misalignment(131072, 65536) == 0 and misalignment(131000, 65536) == 131000 - 65536
    assert misalignment(0, 0) == 0 and misalignment(5, 0) == 5 and misalignment(5, -3) == 5


def test_a_sum_past_a_java_long_is_none() -> None:
    from inspector.engine.model.bounds import INT64_MIN, int64_sum

    assert int64_sum(INT64_MAX - 3, 3) == INT64_MAX
    assert int64_sum(INT64_MAX, 1) is None and int64_sum(INT64_MIN, -1) is None
    assert int64_sum() == 0
