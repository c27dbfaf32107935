"""Issue 33's 80-column leftovers, each checked in words on the screen a user reads (the pilot's screen text)."""

from __future__ import annotations

import pytest
from tui_helpers import SAMPLE, drive, screen_text, settle

from inspector.engine import Store
from inspector.tui.app import create_app
from inspector.tui.widgets.navbar import labels_for

FULL = ["1 Overview", "2 Hex", "3 Messages", "4 Index chain", "5 msgId", "6 Problems", "7 Tour", "8 Exercises"]
SHORT = ["1 Overview", "2 Hex", "3 Msgs", "4 Chain", "5 msgId", "6 Problems", "7 Tour", "8 Exercises"]


@pytest.mark.parametrize(("width", "expected"), [(120, FULL), (90, FULL), (80, SHORT),
                                                 (60, ["1", "2", "3 Msgs", "4", "5", "6", "7", "8"])])
def test_every_tab_is_on_screen_at_every_width(width, expected):
    async def script(pilot):
        await settle(pilot)
        first = screen_text(pilot.app).splitlines()[1]
        pilot.app.switch_mode("messages")
        await settle(pilot)
        return first, screen_text(pilot.app).splitlines()[1]

    with Store(SAMPLE) as store:
        overview, messages = drive(create_app(store), script, size=(width, 24))
    assert messages.split() == " ".join(expected).split()
    if width >= 80:
        assert overview.split() == " ".join(expected).split()
    else:  # the active tab keeps its name
        assert overview.split()[:2] == ["1", "Overview"]


def test_the_labels_are_the_longest_that_fit():
    assert labels_for(200, "hex") == FULL
    assert sum(len(label) + 2 for label in labels_for(80, "hex")) <= 80


def test_the_hex_rows_ascii_column_is_whole_at_80_columns():
    async def script(pilot):
        await settle(pilot)
        pilot.app.show_hex(0)
        await settle(pilot)
        return screen_text(pilot.app)

    with Store(SAMPLE) as store:
        text = drive(create_app(store), script, size=(80, 24))
    rows = {line.split()[0]: line for line in text.splitlines() if "│" in line and line.split()[0].isdigit()}
    assert rows["48"].rstrip().endswith("│ .......W....a3.D")  # 16 characters: the last one was cut
    assert rows["96"].rstrip().endswith('│ d":"order-1108",')
