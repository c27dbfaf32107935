"""The one argument vocabulary: strict syntax (ASCII digits or 0x hex), one range per kind, one wording."""

from __future__ import annotations

import pytest

from inspector.engine import (
    CQ_FILE_SIZE,
    INDEX_SLOTS,
    LIMIT,
    OFFSET,
    SEGMENT_SIZE,
    BadInput,
    parse_integer,
)


@pytest.mark.parametrize(("text", "value"), [
    ("0", 0), ("42", 42), (" 42 ", 42), ("+7", 7), ("-1", -1), ("0x10", 16), ("0X1f", 31), ("-0x10", -16),
    ("007", 7), (str((1 << 63) - 1), (1 << 63) - 1), ("0" * 5000 + "5", 5),
])
def test_integers_in_ascii_decimal_or_hex(text, value):
    assert parse_integer(text) == value


@pytest.mark.parametrize("text", ["", "x", "1.5", "1e3", "0o17", "0b101", "٣", "１２", "0x", "--1", "1 2", "²",
                                  "1,2", "1,0000", ",100", "100,", "1__0", "_10", "10_", "0x_10", "1,000_000",
                                  "0x1,000", "٣,٠٠٠"])
def test_anything_else_is_no_integer(text):
    assert parse_integer(text) is None


@pytest.mark.parametrize(("text", "value"), [
    ("14,924", 14924), ("65,170", 65170), ("1,000,000", 1_000_000), ("-1,000", -1000), ("14_924", 14924),
    ("1_0_0", 100), ("0x3a_4c", 0x3A4C), ("+9,223,372,036,854,775,807", (1 << 63) - 1),
])
def test_digits_grouped_as_the_screens_show_them(text, value):
    """The TUI and the tables show offsets as 14,924: copied back into a command, a prompt or a URL they read."""
    assert parse_integer(text) == value
    if value >= 0:  # the same through a kind, in decimal as the web reads it too
        assert OFFSET.parse(text, "offset", decimal_only="x" not in text) == value


def test_the_broker_config_reads_numbers_as_java_does():
    """Long.parseLong takes no separator: broker.conf's numbers stay plain."""
    assert parse_integer("1,000", decimal_only=True, grouped=False) is None
    assert parse_integer("1_000", grouped=False) is None
    assert parse_integer("1000", decimal_only=True, grouped=False) == 1000


def test_decimal_only_refuses_hex():
    assert parse_integer("0x10", decimal_only=True) is None and parse_integer("10", decimal_only=True) == 10


def test_numbers_too_long_for_64_bits_are_out_of_range_without_conversion():
    huge = "1" * 5000  # int() would raise "Exceeds the limit (4300 digits)"
    assert abs(parse_integer(huge)) > 1 << 63 and parse_integer("-" + huge) < -(1 << 63)
    assert abs(parse_integer("0x" + "f" * 5000)) > 1 << 63
    with pytest.raises(BadInput) as e:
        OFFSET.parse(huge, "offset")
    assert "[0, 9223372036854775807]" in str(e.value) and "(5000 characters)" in str(e.value)


@pytest.mark.parametrize(("text", "kind"), [
    (str(1 << 63), OFFSET), ("99999999999999999999999", OFFSET), ("-1", OFFSET), ("0", LIMIT), ("-5", LIMIT),
    ("3", SEGMENT_SIZE), ("0", SEGMENT_SIZE), ("7", CQ_FILE_SIZE), ("0", CQ_FILE_SIZE), ("-20", CQ_FILE_SIZE),
    (str(1 << 63), INDEX_SLOTS), ("abc", OFFSET), ("٣", OFFSET),
])
def test_one_wording_names_the_argument_and_the_range(text, kind):
    with pytest.raises(BadInput) as e:
        kind.parse(text, "--x")
    message = str(e.value)
    assert message.startswith(f"--x must be {kind.noun}, an integer in [{kind.low}, {kind.high}]"), message
    assert "\n" not in message


def test_the_consume_queue_file_size_is_whole_units():
    assert CQ_FILE_SIZE.parse("6000000", "s") == 6_000_000 and "multiple of 20" in CQ_FILE_SIZE.allowed()


def test_a_cap_narrows_the_range_and_says_so():
    with pytest.raises(BadInput, match=r"\[1, 1000\]"):
        LIMIT.at_most(1000).parse("1001", "limit")


def test_python_callers_are_held_to_the_same_ranges():
    assert SEGMENT_SIZE.check(None, "segment_size") is None and SEGMENT_SIZE.check(4096, "segment_size") == 4096
    for bad in (3, -1, 0, True, 1 << 40, "4096"):
        with pytest.raises(BadInput, match="segment_size must be a commitlog segment size"):
            SEGMENT_SIZE.check(bad, "segment_size")


# --- a duration in seconds (issue 35: --idle-timeout was float(): nan, inf and 1e308 never stopped) -------------

@pytest.mark.parametrize(("text", "value"), [("0.05", 0.05), ("2", 2.0), (" 1.5 ", 1.5), (".5", 0.5), ("1e3", 1000.0),
                                             ("86400", 86400.0), ("+3", 3.0)])
def test_seconds_in_range(text, value):
    from inspector.engine import IDLE_TIMEOUT

    assert IDLE_TIMEOUT.read(text) == value
    assert IDLE_TIMEOUT.parse(text, "--idle-timeout") == value


@pytest.mark.parametrize("text", ["nan", "NaN", "inf", "-inf", "Infinity", "1e308", "1e999", "-1", "0", "0.0", "-0.0",
                                  "86400.001", "", "abc", "1_0", "٣", "0x10", "1" * 41])
def test_seconds_outside_the_range_or_no_number(text):
    from inspector.engine import IDLE_TIMEOUT

    assert IDLE_TIMEOUT.read(text) is None
    with pytest.raises(BadInput, match=r"^--idle-timeout must be an idle time, a decimal number of seconds in "
                                       r"\(0, 86400\], not "):
        IDLE_TIMEOUT.parse(text, "--idle-timeout")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0, 0, 1e308, True, "1"])
def test_a_python_callers_seconds_are_held_to_the_same_range(value):
    from inspector.engine import IDLE_TIMEOUT

    with pytest.raises(BadInput, match="idle_timeout must be an idle time"):
        IDLE_TIMEOUT.check(value, "idle_timeout")
    assert IDLE_TIMEOUT.check(None, "idle_timeout") is None and IDLE_TIMEOUT.check(2, "idle_timeout") == 2


def test_the_smallest_segment_holds_the_smallest_record():
    """SEGMENT_SIZE's bound is written as a number (the command line need not import the schemas): the
    schemas' own smallest record."""
    from parsers.commitlog import record_length

    assert SEGMENT_SIZE.low == record_length(0, 0, 0)
