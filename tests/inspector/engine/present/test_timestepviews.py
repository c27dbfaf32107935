"""What a step by store time says: a time with its zone (an offset, never a name), a duration in its two largest
units."""

from __future__ import annotations

import os
import time

import pytest

from inspector.engine import stamp
from inspector.engine.present.timestepviews import span

T0 = 1_758_240_000_000  # 2025-09-19 00:00:00.000 UTC


@pytest.fixture
def zone():
    before = os.environ.get("TZ")

    def use(name: str) -> None:
        os.environ["TZ"] = name
        time.tzset()

    yield use
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


def test_a_stamp_names_its_zone(zone):
    zone("UTC")
    assert stamp(T0 + 123) == "2025-09-19 00:00:00.123 +00:00"
    zone("Asia/Shanghai")
    assert stamp(T0) == "2025-09-19 08:00:00.000 +08:00"
    zone("America/St_Johns")  # a half-hour zone west of UTC (daylight time in September)
    assert stamp(T0) == "2025-09-18 21:30:00.000 -02:30"


@pytest.mark.parametrize(("ms", "text"), [
    (0, "0 ms"), (850, "850 ms"), (-1_000, "1 second"), (2_000, "2 seconds"), (60_000, "1 minute"),
    (61_000, "1 min 1 s"), (3_600_000, "1 hour"), (3 * 3_600_000 + 12 * 60_000, "3 h 12 min"),
    (86_400_000, "1 day"), (2 * 86_400_000 + 4 * 3_600_000 + 5, "2 d 4 h"),
])
def test_a_span_is_its_two_largest_units(ms, text):
    assert span(ms) == text
