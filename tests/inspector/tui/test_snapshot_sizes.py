"""Issue 33's three terminal sizes (80x24, 120x40, 200x60) on the sample store and on a damaged one (a page of
its first segment zeroed): the sample's first record in the hex screen, the damaged store's overview and its hex
screen at the damage, fixed by snapshots, and what each size must show checked in words: the help key, the hex field panel with a field or the
damage named, the damage on the overview's first screen."""

from __future__ import annotations

import pytest
from tui_helpers import SAMPLE, drive, screen_text, settle
from zeroed_page_store import ZEROED, zeroed_page_store

from inspector.engine import Store
from inspector.tui.app import create_app

SIZES = [(80, 24), (120, 40), (200, 60)]
DAMAGE_AT = 4096  # the zeroed page's first byte: inside the record the walk reports from 4,000


@pytest.fixture(scope="module")
def damaged(tmp_path_factory):
    root, _ = zeroed_page_store(tmp_path_factory.mktemp("sizes") / "damaged")
    assert ZEROED[0] == DAMAGE_AT
    return root


async def _quiet(pilot) -> None:
    await settle(pilot, rounds=5)
    pilot.app.clear_notifications()
    await pilot.pause()


def _at_the_damage(offset: int):
    async def run_before(pilot) -> None:
        await settle(pilot, rounds=5)
        pilot.app.show_hex(offset)
        await _quiet(pilot)

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_hex_of_the_sample(snap_compare, size):
    """The first record with its fields named in the panel (beside the hex from 110 columns, under it below)."""
    with Store(SAMPLE) as store:
        assert snap_compare(create_app(store), terminal_size=size, run_before=_at_the_damage(0))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_overview_of_a_damaged_store(snap_compare, damaged, size):
    with Store(damaged) as store:
        assert snap_compare(create_app(store), terminal_size=size, run_before=_quiet)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_hex_at_the_damage(snap_compare, damaged, size):
    with Store(damaged) as store:
        assert snap_compare(create_app(store), terminal_size=size, run_before=_at_the_damage(DAMAGE_AT))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_each_size_shows_help_the_fields_and_the_damage(damaged, size):
    async def script(pilot):
        await settle(pilot, rounds=5)
        overview = screen_text(pilot.app)
        pilot.app.show_hex(DAMAGE_AT)
        await settle(pilot, rounds=5)
        damage = screen_text(pilot.app)
        pilot.app.show_hex(0)
        await settle(pilot, rounds=5)
        record = screen_text(pilot.app)
        return overview, damage, record

    with Store(damaged) as store:
        overview, damage, record = drive(create_app(store), script, size=size)
    first = overview.splitlines()[3]  # the root line under the title, tabs and rule
    assert "next start: normal, loses" in first  # the damage on the first screen, whatever the width
    assert "1 problem(s)" in overview
    for text in (overview, damage, record):
        assert "? Help" in text  # the help key in every footer
    assert "unreadable bytes @ 4,000" in damage and "zeros at 4096..8192" in damage
    assert "TOTALSIZE" in record  # the field panel names the record's first field


SCREENS = ("overview", "hex", "messages", "chain", "ids", "problems", "tour", "exercises", "timer", "story",
           "groups", "search", "stats")


def test_every_footer_keeps_help_at_80_columns_and_gives_back_its_keys_when_wider():
    async def script(pilot):
        footers = {}
        for name in SCREENS:
            pilot.app.switch_mode(name)
            await settle(pilot)
            footers[name] = screen_text(pilot.app).splitlines()[-1]
        pilot.app.switch_mode("hex")
        await pilot.resize_terminal(120, 30)
        await settle(pilot)
        return footers, screen_text(pilot.app).splitlines()[-1]

    with Store(SAMPLE) as store:
        footers, wide = drive(create_app(store), script, size=(80, 24))
    lost = {name: f for name, f in footers.items() if "? Help" not in f and "f1 Help" not in f}
    assert lost == {}
    assert "p Prev msg" not in footers["hex"] and "p Prev msg" in wide and "? Help" in wide
