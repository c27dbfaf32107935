"""--since / --until's one reader (STORE_TIME): ISO 8601 with or without a zone, a date, epoch ms, a time before
now; exact to the millisecond; anything else (a time without a date) is the one refusal; since after until."""

from __future__ import annotations

import time

import pytest

from inspector.engine import STORE_TIME, BadInput, check_window

MS = 1_758_289_689_632  # 2025-09-19T13:48:09.632Z, a record's store time in sample_store


@pytest.fixture(autouse=True)
def shanghai(monkeypatch):
    """A naive time is local: +08:00 here, whatever the machine's zone."""
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize(("text", "value"), [
    ("2025-09-19T13:48:09.632Z", MS), ("2025-09-19 13:48:09.632+00:00", MS), ("2025-09-19T21:48:09.632+08:00", MS),
    ("2025-09-19T21:48:09.632", MS),  # local (Asia/Shanghai)
    ("2025-09-19T21:48:09.632999", MS),  # below a millisecond: cut, not rounded
    ("2025-09-19", MS - (21 * 3600 + 48 * 60 + 9) * 1000 - 632),  # the date's local midnight
    ("1758289689632", MS), (" 1758289689632 ", MS), ("0", 0),
])
def test_times_read_exactly(text, value):
    assert STORE_TIME.read(text) == value


def test_relative_times_count_back_from_now():
    now = 10_000_000_000
    for text, back in (("-15m", 15 * 60_000), ("-2h", 7_200_000), ("-7d", 7 * 86_400_000), ("-500ms", 500),
                       ("-30s", 30_000), ("-1w", 604_800_000)):
        assert STORE_TIME.read(text, now_ms=now) == now - back
    assert STORE_TIME.read("-2h", now_ms=1000) is None  # before 1970: out of range
    assert abs(STORE_TIME.read("-1s") - (time.time() * 1000 - 1000)) < 60_000  # the machine's clock by default


@pytest.mark.parametrize("text", ["10:00", "13:48:09.632", "T10:00", "2025-13-01", "2025-09-19T25:00", "yesterday",
                                  "-15", "-15x", "15m", "１７５８２８９６８９６３２", "2025-09-19T10:00 UTC", "",
                                  "9" * 30, "-0x10", "2025-9-19"])
def test_anything_else_is_refused_in_one_line(text):
    assert STORE_TIME.read(text) is None
    with pytest.raises(BadInput) as e:
        STORE_TIME.parse(text, "--since")
    assert str(e.value).startswith("--since must be a store time, an ISO 8601 date and time")


def test_since_after_until_is_bad_input():
    check_window(MS, MS + 1)
    check_window(MS, MS)  # an empty window: said by its empty answer
    check_window(None, MS)
    with pytest.raises(BadInput, match="--since .* is after --until"):
        check_window(MS + 1, MS)
