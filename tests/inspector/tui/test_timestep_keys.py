"""The ±minute/hour/day keys of the hex and message screens (m/M, o/O, d/D) on a writer-made store with known
store times (tests/timestep_store.py): each key lands on the exact physical offset a plain filter of the
records names, stays past either end and says where the log ends, crosses the three-hour gap and says how far
it went; in a queue-filtered list it steps within the queue."""

from __future__ import annotations

import pytest
from tui_helpers import drive, settle

from inspector.engine import Store
from inspector.tui.app import create_app
from tests.timestep_store import DAY, HOUR, MINUTE, T0, TOPIC, write_timestep_store

KEYS = {"m": MINUTE, "M": -MINUTE, "o": HOUR, "O": -HOUR, "d": DAY, "D": -DAY}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = tmp_path_factory.mktemp("timestep") / "store"
    return root, write_timestep_store(root)


def _expected(records, origin: int, step: int):
    """The physical offset a step lands on, by a plain filter (None: it stays)."""
    if step > 0:
        hits = [r for r in records if r.store_timestamp >= origin + step]
        return hits[0].physical_offset if hits else None
    hits = [r for r in records if r.store_timestamp <= origin + step]
    return hits[-1].physical_offset if hits else None


def _notes(app) -> list[str]:
    return [n.message for n in app._notifications]


def test_hex_keys_land_on_the_exact_record(written):
    root, records = written
    by_offset = {r.physical_offset: r for r in records}
    start = next(r for r in records if r.store_timestamp == T0 + HOUR)  # 01:00:00, segment 0
    with Store(root) as store:
        app = create_app(store, background_scan=False, screen="hex")

        async def script(pilot):
            await settle(pilot)
            hexes = app.views["hex"]
            seen = []
            for key in ["m", "m", "M", "o", "O", "O", "m", "M"]:
                before = hexes.hex_view.cursor
                await pilot.press(key)
                await settle(pilot)
                seen.append((key, before, hexes.hex_view.cursor))
            return seen

        app.call_later(lambda: app.show_hex(start.physical_offset))
        seen = drive(app, script)
    assert seen[0][1] == start.physical_offset
    for key, before, after in seen:
        want = _expected(records, by_offset[before].store_timestamp, KEYS[key])
        assert after == (before if want is None else want), key
    # the walk above: 01:00 +1 min, +1 min, -1 min, +1 h (past 01:59:40: over the gap to 05:00), -1 h, -1 h, ...
    assert by_offset[seen[3][2]].store_timestamp == T0 + 5 * HOUR


def test_hex_keys_stay_past_the_ends_and_cross_the_gap(written):
    root, records = written
    last, first = records[-1], records[0]
    before_gap = records[360]  # 01:59:40, the last record before nothing for three hours
    with Store(root) as store:
        app = create_app(store, background_scan=False, screen="hex")

        async def script(pilot):
            await settle(pilot)
            hexes = app.views["hex"]
            got = []
            for offset, key in [(last.physical_offset, "m"), (last.physical_offset, "d"), (first.physical_offset, "D"),
                                (before_gap.physical_offset, "m")]:
                hexes.goto(offset)
                await settle(pilot)
                app.clear_notifications()
                await pilot.press(key)
                await settle(pilot)
                got.append((hexes.hex_view.cursor, _notes(app)))
            return got

        got = drive(app, script)
    assert got[0] == (last.physical_offset,
                      ["no record 1 minute later: the log ends at 2025-09-19 05:59:40.000 +00:00"])
    assert got[1] == (last.physical_offset, ["no record 1 day later: the log ends at 2025-09-19 05:59:40.000 +00:00"])
    assert got[2] == (first.physical_offset,
                      ["no record 1 day earlier: the log begins at 2025-09-19 00:00:00.000 +00:00"])
    after_gap = records[361]
    assert got[3] == (after_gap.physical_offset, [
        "nothing stored for 2 h 59 min past the 1 minute step: went +3 hours, to 2025-09-19 05:00:00.000 +00:00"])


def test_the_message_list_steps_in_the_log_and_in_a_queue(written):
    root, records = written
    start = records[0]
    with Store(root) as store:
        app = create_app(store, background_scan=False, screen="messages")

        async def script(pilot):
            await settle(pilot)
            screen = app.views["messages"]
            lst = screen.message_list
            out = []
            for key in ["m", "o", "o", "O", "M", "D"]:
                app.clear_notifications()
                await pilot.press(key)
                await settle(pilot)
                out.append((key, lst.source.offset(lst.cursor), _notes(app)))
            screen.apply(topic=TOPIC, queue=1)
            await settle(pilot)
            queued = []
            for key in ["m", "m", "o", "O"]:
                app.clear_notifications()
                await pilot.press(key)
                await settle(pilot)
                queued.append((key, lst.source.offset(lst.cursor), _notes(app)))
            return out, queued

        out, queued = drive(app, script)
    by_offset = {r.physical_offset: r for r in records}
    origin = start
    for key, offset, notes in out:
        want = _expected(records, origin.store_timestamp, KEYS[key])
        assert offset == (origin.physical_offset if want is None else want), (key, notes)
        origin = by_offset[offset]
    assert out[0][2] == ["+1 minute: at 2025-09-19 00:01:00.000 +00:00 (moved +1 minute)"]
    assert out[-1][2] == ["no record 1 day earlier: the log begins at 2025-09-19 00:00:00.000 +00:00"]
    mine = [r for r in records if r.queue_id == 1]
    origin = mine[0]
    for key, offset, notes in queued:
        want = _expected(mine, origin.store_timestamp, KEYS[key])
        assert offset == want, (key, notes)
        origin = by_offset[offset]
    # from queue 1's first record (00:00:20), one minute on in queue 1 is 00:01:20 (00:01:00's are queue 1's and 0's)
    assert queued[0][1] == records[5].physical_offset and records[5].store_timestamp == T0 + 80_000


def test_no_key_is_bound_twice_on_the_two_screens_and_the_help_lists_them():
    from inspector.tui.app import RmqInspectApp
    from inspector.tui.screens.browser import BrowserScreen
    from inspector.tui.screens.dialogs import help_text
    from inspector.tui.screens.hexscreen import HexScreen
    from inspector.tui.widgets.hexview import HexView
    from inspector.tui.widgets.messagelist import MessageList

    def keys(*holders) -> list[str]:
        return [k.strip() for h in holders for b in h.BINDINGS for k in b.key.split(",")
                if not b.action.startswith("app.")]  # the app's own action shown in a screen's footer: one key

    # the Messages screen's f is follow mode (issue 33, like `messages --follow`); search stays on ctrl+p there
    overridden = {BrowserScreen: {"f"}, HexScreen: set()}
    # the hex screen's n and p step messages, queue units or index items: three bindings each, one offered at a
    # time (check_action picks by what the screen shows), so each key counts once
    alternatives = {HexScreen: {"n", "p"}, BrowserScreen: set()}
    for screen, widget in ((HexScreen, HexView), (BrowserScreen, MessageList)):
        own = keys(screen)
        own = [k for i, k in enumerate(own) if k not in alternatives[screen] or k not in own[:i]]
        bound = own + keys(widget) + [k for k in keys(RmqInspectApp)
                                      if k != "question_mark" and k not in overridden[screen]]  # ? : app.help
        assert len(bound) == len(set(bound)), sorted(k for k in bound if bound.count(k) > 1)
        assert set(KEYS) <= set(bound)
    text = help_text().plain
    assert "m  M" in text and "o  O" in text and "d  D" in text and "m M  o O  d D" in text


def test_the_readme_examples_on_sample_store(store):
    """The README's table: m, o and d from sample_store's first record (offset 0), in UTC; M back from the last."""
    app = create_app(store, background_scan=False, screen="hex")

    async def script(pilot):
        await settle(pilot)
        hexes = app.views["hex"]
        got = []
        for offset, key in [(0, "m"), (0, "o"), (0, "d"), (164_440, "M")]:
            hexes.goto(offset)
            await settle(pilot)
            app.clear_notifications()
            await pilot.press(key)
            await settle(pilot)
            got.append((hexes.hex_view.cursor, _notes(app)))
        return got

    got = drive(app, script)
    assert got == [
        (1_645, ["nothing stored for 5 min 23 s past the 1 minute step: went +6 min 23 s, to 2025-09-19 "
                 "09:06:23.877 +00:00"]),
        (19_859, ["+1 hour: at 2025-09-19 10:06:07.529 +00:00 (moved +1 h 6 min)"]),
        (0, ["no record 1 day later: the log ends at 2025-09-19 17:00:27.001 +00:00"]),
        (161_530, ["nothing stored for 5 min 18 s past the 1 minute step: went -6 min 18 s, to 2025-09-19 "
                   "16:54:08.422 +00:00"]),
    ]


def test_a_filtered_list_steps_to_its_matching_rows_and_stays_inside_its_window(written):
    """A tag filter (log order: the rows a scan found): the next matching row; a queue list cut by a from time:
    a step back past its first row stays and names the list's first row."""
    root, records = written
    tagged = [r for r in records if r.tag == "third"]
    mine = [r for r in records if r.queue_id == 1 and r.store_timestamp >= T0 + HOUR]
    with Store(root) as store:
        app = create_app(store, background_scan=False, screen="messages")

        async def script(pilot):
            await settle(pilot)
            screen = app.views["messages"]
            lst = screen.message_list
            screen.apply(tag="third")
            await settle(pilot)
            out = []
            for key in ["m", "m", "o", "M"]:
                await pilot.press(key)
                await settle(pilot)
                out.append((key, lst.source.offset(lst.cursor)))
            screen.apply(topic=TOPIC, queue=1, begin=T0 + HOUR)
            await settle(pilot)
            app.clear_notifications()
            await pilot.press("M")  # queue 1 has records before 00:59:00, the list none before 01:00:00
            await settle(pilot)
            return out, (lst.source.offset(lst.cursor), _notes(app))

        out, back = drive(app, script)
    by_offset = {r.physical_offset: r for r in records}
    origin = tagged[0]
    for key, offset in out:
        want = _expected(tagged, origin.store_timestamp, KEYS[key])
        assert offset == want, key
        origin = by_offset[offset]
    assert back == (mine[0].physical_offset,
                    ["no record 1 minute earlier: the list begins at 2025-09-19 01:00:00.000 +00:00"])


def test_a_dledger_store_steps_by_its_records_not_its_entries():
    """In a DLedger store each record follows an entry header: the step starts from the record under the cursor and
    lands on a record's physical offset (as `n` does)."""
    from tui_helpers import REPO

    with Store(REPO / "sample_store_dledger") as store:
        app = create_app(store, background_scan=False, screen="hex")

        async def script(pilot):
            await settle(pilot)
            hexes = app.views["hex"]
            app.clear_notifications()
            await pilot.press("m")
            await settle(pilot)
            first = hexes.hex_view.cursor
            await pilot.press("o")
            await settle(pilot)
            return first, hexes.hex_view.cursor, _notes(app)

        first, second, notes = drive(app, script)
        assert store.message_at(first).store_timestamp == 1_758_272_783_877  # 09:06:23.877
        assert (first, second) == (1_645, 20_613)
    assert notes[-1] == "+1 hour: at 2025-09-19 10:08:12.371 +00:00 (moved +1 h 1 min)"
