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


def _walked(size):
    async def script(pilot):
        await settle(pilot)
        pilot.app.show_chain("OrderEvents", "order-1108")
        await settle(pilot)
        screen = pilot.app.screen
        first = screen_text(pilot.app)
        match = next(i for i, r in enumerate(screen._rows) if r.verdict.plain.startswith("✔"))
        screen.query_one("#chain-steps").move_cursor(row=match)
        await settle(pilot)
        return first, screen_text(pilot.app), screen._rows[match]

    with Store(SAMPLE) as store:
        return drive(create_app(store), script, size=size)


def test_the_chain_walk_fits_80_columns():
    """Issue 33: at 80 columns the fields showed `OrderE`, the verdict column needed scrolling sideways."""
    first, matched, row = _walked((80, 24))
    lines = first.splitlines()
    form = next(line for line in lines if line.startswith(" topic "))
    assert "OrderEvents " in form and "order-1108 " in form
    assert "✔ match: the message has this key" in first  # the legend of the narrow table's symbols
    header = next(line for line in lines if line.lstrip().startswith("file "))
    assert "indexed key" in header
    # the detail line under the table: the highlighted hop whole (verdict, key, where it links)
    assert "· other hash  InventoryEvents#SKU-11517  · item 251 → prev 226" in first
    shown = next(line for line in matched.splitlines() if f" {row.item} " in line and row.offset in line)
    assert "✔" in shown and row.indexed[:12] in shown
    assert f"✔ match  {row.indexed}" in matched


def test_the_chain_walk_at_120_columns_keeps_every_column():
    first, matched, row = _walked((120, 36))
    header = next(line for line in first.splitlines() if line.lstrip().startswith("file "))
    assert header.split() == ["file", "item", "stored", "hash", "phy", "offset", "stored", "at", "prev", "verdict",
                              "indexed", "key", "│", "busiest", "slots", "of"]
    assert f"✔ match  {row.indexed}" in matched


def test_the_messages_list_shows_the_keys_at_80_columns():
    """Issue 33: at 80 columns the list's columns ended at `tags`; the keys were off screen."""
    async def script(pilot):
        await settle(pilot)
        return screen_text(pilot.app)

    with Store(SAMPLE) as store:
        text = drive(create_app(store, screen="messages"), script, size=(80, 24))
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if "phy offset" in line)
    assert lines[header].split()[-2:] == ["tags", "keys"]
    assert lines[header + 1].split()[:4] == ["0", "09-19", "09:00:00", "OrderEvents"]
    assert "created    order-1108" in lines[header + 1]


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
def test_the_message_window_keeps_every_id_whole(size):
    """Issue 33: at 80 columns the message window cut the msgId and UNIQ_KEY (and folded the born host) mid-value:
    one field a line there, two where every value fits."""
    async def script(pilot):
        await settle(pilot)
        return screen_text(pilot.app)

    with Store(SAMPLE) as store:
        text = drive(create_app(store, goto=0), script, size=size)
    lines = text.splitlines()
    for label, value in (("msgId", "0A14000500002A9F0000000000000000"), ("UNIQ_KEY", "0A14010B47372A139A555EA0DB42002D"),
                         ("born host", "10.20.1.11:52311"), ("stored", "2025-09-19 09:00:00.196 +00:00")):
        assert any(f"{label} " in line and value in line for line in lines), (label, text)
    two_a_line = any("msgId" in line and "UNIQ_KEY" in line for line in lines)
    assert two_a_line == (size[0] >= 120)


@pytest.mark.parametrize("goto", [None, 0], ids=["messages screen", "message window"])
def test_b_shows_the_body_view_it_switched_to(goto):
    """Issue 33: at 30 rows the body is under the fields and the properties, below the pane's fold: `b` changed
    nothing one could see. Now the pane scrolls to the body's title."""
    async def script(pilot):
        await settle(pilot)
        seen = [screen_text(pilot.app)]
        for _ in range(2):
            await pilot.press("b")
            await settle(pilot)
            seen.append(screen_text(pilot.app))
        return seen

    with Store(SAMPLE) as store:
        before, json, hexed = drive(create_app(store, screen="messages", goto=goto), script, size=(100, 30))
    assert "Body (" not in before
    assert "Body (json, 243 bytes)" in json and '"orderId": "order-1108",' in json
    assert "Body (hex, 243 bytes)" in hexed and "00000000  7b 22 6f 72 64 65 72 49" in hexed


def _far_store(tmp_path, segment_size: int | None = None):
    """sample_store with one more commitlog segment past 10 GB (the last one's bytes; sparse when
    ``segment_size`` makes it a 1 GiB file): its offsets have 11 digits."""
    import shutil

    store = tmp_path / "far"
    shutil.copytree(SAMPLE, store)
    data = (SAMPLE / "commitlog" / "00000000000000131072").read_bytes()
    far = store / "commitlog" / "00000000010737418240"
    with far.open("wb") as f:
        f.write(data)
        if segment_size:
            f.truncate(segment_size)
    return store


def _far_hex(store, size, offset):
    async def script(pilot):
        await settle(pilot)
        pilot.app.show_hex(offset)
        await settle(pilot)
        return screen_text(pilot.app)

    with Store(store) as s:
        return drive(create_app(s), script, size=size)


def _hex_rows(text):
    return [line for line in text.splitlines() if "│ " in line and line.split()[0].lstrip("+").isdigit()]


@pytest.mark.parametrize("segment_size", [None, 1 << 30], ids=["64 KiB segment", "1 GiB sparse segment"])
def test_the_hex_rows_fit_80_columns_past_10_gb(tmp_path, segment_size):
    """Issue 33: a store past 10 GB has 11-digit offsets; at 80 columns the row was 80 wide and the ASCII column
    lost its last character. Below the width they need, the rows count from their segment's start ('+48'),
    the status line naming the segment."""
    base = 10737418240
    text = _far_hex(_far_store(tmp_path, segment_size), (80, 24), base + 48)
    rows = {line.split()[0]: line for line in _hex_rows(text)}
    first = (SAMPLE / "commitlog" / "00000000000000131072").read_bytes()[48:64]
    ascii_ = "".join(chr(b) if 32 <= b < 127 else "." for b in first)
    assert rows["+48"].rstrip().endswith("│ " + ascii_)
    assert all(len(line.rstrip()) <= 79 for line in _hex_rows(text))
    assert "(commitlog/00000000010737418240 + 48)" in text


def test_the_hex_rows_keep_physical_offsets_where_they_fit(tmp_path):
    text = _far_hex(_far_store(tmp_path), (120, 36), 10737418240 + 48)
    assert any(line.split()[0] == "10737418288" for line in _hex_rows(text))
    text = _far_hex(SAMPLE, (80, 24), 48)  # 10 digits fit at 80 columns
    assert any(line.split()[0] == "48" for line in _hex_rows(text))


@pytest.mark.parametrize(("size", "expected"), [
    ((80, 24), "topic any queue any tag any tag key key/UNIQ from stored ≥ to stored ≤"),
    ((120, 36), "topic any topic queue any tag any tag key key or UNIQ_KEY from store time ≥ to store time ≤")])
def test_the_messages_filters_placeholders_are_whole(size, expected):
    """Issue 33: at 80 columns the filter fields cut their placeholders ('any topi', 'key or', 'store')."""
    async def script(pilot):
        await settle(pilot)
        text = screen_text(pilot.app)
        fields = [(f.placeholder, f.content_size.width) for f in pilot.app.screen.query("#browser-filters Input")]
        return text, fields

    with Store(SAMPLE) as store:
        text, fields = drive(create_app(store, screen="messages"), script, size=size)
    line = next(line for line in text.splitlines() if line.startswith(" topic "))
    assert line.split() == expected.split()
    assert all(len(placeholder) <= width for placeholder, width in fields)


def test_the_messages_filters_placeholders_follow_a_resize():
    async def script(pilot):
        await settle(pilot)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        return screen_text(pilot.app)

    with Store(SAMPLE) as store:
        text = drive(create_app(store, screen="messages"), script, size=(120, 36))
    assert " key key/UNIQ from stored ≥ to stored ≤" in text


@pytest.mark.parametrize(("size", "form", "window"), [
    ((80, 24), "pattern text or regex topic any tag any tag in all limit 1000",
     "since e.g. -2h until stored before ▐X▌ regex ▐X▌ ignore case"),
    ((120, 36), "pattern text or regex: order-\\d+ topic any topic tag any tag in all limit 1000",
     "since at or after: 2025-09-19 13:48, -2h until stored before ▐X▌ regex ▐X▌ ignore case")])
def test_the_search_form_is_whole(size, form, window):
    """Issue 33: at 80 columns the search fields were cut to 'text o', 'an' (topic and tag: the checkboxes took
    their room); the checkboxes are on the time window's line, each field's placeholder the longest it shows."""
    async def script(pilot):
        await settle(pilot)
        text = screen_text(pilot.app)
        fields = [(f.placeholder, f.content_size.width) for f in pilot.app.screen.query(".search-field")]
        return text, fields

    with Store(SAMPLE) as store:
        text, fields = drive(create_app(store, screen="search"), script, size=size)
    lines = text.splitlines()
    assert next(line for line in lines if line.startswith(" pattern ")).split() == form.split()
    assert next(line for line in lines if line.startswith(" since ")).split() == window.split()
    assert all(len(placeholder) <= width for placeholder, width in fields)


@pytest.mark.parametrize(("width", "expected"), [
    (80, "paste an offset msgId or a unique key (32 or 56 hex digits), enter"),
    (120, "paste an offset msgId or a unique key (32 or 56 hex digits) and press enter")])
def test_the_msgid_field_says_what_to_paste_whole(width, expected):
    """Issue 33: at 80 columns the msgId field's placeholder ended '... and pres'."""
    async def script(pilot):
        await settle(pilot)
        return screen_text(pilot.app)

    with Store(SAMPLE) as store:
        text = drive(create_app(store, screen="ids"), script, size=(width, 24))
    assert f" message id {expected}" in [line.rstrip() for line in text.splitlines()]


def test_the_groups_counts_and_a_queues_sides_are_on_screen_at_80_columns():
    """Issue 33: at 80 columns the groups' topics pushed queues, lag, retry and DLQ off screen ('qu'), and a
    group's queues ended at 'last consumed' (first unconsumed and the note off screen). The topics are last; the
    highlighted queue's sides and note are whole on a detail line under its table."""
    async def script(pilot):
        await settle(pilot)
        screen = pilot.app.screen
        screen.show_group("fulfillment-consumer")
        await settle(pilot)
        screen.query_one("#group-queues").move_cursor(row=1)
        await settle(pilot)
        return screen_text(pilot.app)

    with Store(SAMPLE) as store:
        text = drive(create_app(store, screen="groups"), script, size=(80, 24))
    lines = [line.rstrip() for line in text.splitlines()]
    assert next(line for line in lines if line.startswith(" group ")).split() == [
        "group", "queues", "lag", "retry", "DLQ", "config", "topics"]
    assert next(line for line in lines if line.startswith(" fulfillment-consumer")).split()[:7] == [
        "fulfillment-consumer", "4", "9", "-", "-", "yes", "OrderEvents"]
    detail = next(i for i, line in enumerate(lines) if line.startswith(" OrderEvents queue 1 "))
    both = lines[detail] + lines[detail + 1]
    assert "last consumed 34 @ 151688, 2025-09-19 15:02:57 +00:00" in both
    assert "first unconsumed 35 @ 156026, 2025-09-19 15:41:37 +00:00" in both


@pytest.mark.parametrize(("screen", "keys"), [("tour", "n next · p previous · j jump · v next view · o open"),
                                              ("exercises", "enter: answer · h: hint · s: another seed")])
def test_the_workshop_heads_keep_their_keys_at_80_columns(screen, keys):
    """Issue 33: at 80 columns the tour's head lost `o open` and the exercises' ended at 'h:' (keys the footer
    does not list there); they go on a line of their own where they would be cut, and follow a resize."""
    async def script(pilot):
        await settle(pilot)
        narrow = screen_text(pilot.app)
        await pilot.resize_terminal(130, 30)
        await settle(pilot)
        return narrow, screen_text(pilot.app)

    with Store(SAMPLE) as store:
        narrow, wide = drive(create_app(store, screen=screen), script, size=(80, 24))
    assert f" {keys}" in [line.rstrip() for line in narrow.splitlines()]
    assert any(line.rstrip().endswith(f"   {keys}") and len(line.split("   ")) > 2 for line in wide.splitlines())


def test_the_overview_keeps_the_segment_counts_and_the_shutdown_at_80_columns():
    async def script(pilot):
        await settle(pilot, rounds=5)
        return screen_text(pilot.app)

    with Store(SAMPLE) as store:
        counts = [store.scan_segment(i).messages for i in range(len(store.segments))]
        text = drive(create_app(store), script, size=(80, 24))
    lines = text.splitlines()
    assert "last shutdown: clean" in lines[3]  # the root line: it ended at the next start's verdict
    for segment, count in zip(store.segments, counts, strict=True):
        line = next(line for line in lines if segment.name in line)
        assert f"{count:,} msgs" in line  # the BLANK's detail took the line's end


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_story_gives_the_highlighted_record_and_group_whole(size):
    async def script(pilot):
        await settle(pilot)
        pilot.app.show_story("90151")
        await settle(pilot)
        screen = pilot.app.screen
        first = screen_text(pilot.app)
        records = screen.query_one("#story-records")
        records.move_cursor(row=records.row_count - 1)  # the dead letter, its facts the longest
        await settle(pilot)
        return first, screen_text(pilot.app), [str(c.label) for c in records.columns.values()], screen.story

    with Store(SAMPLE) as store:
        first, last, columns, story = drive(create_app(store), script, size=size)
    width = size[0]
    assert all(line.rstrip() == line.rstrip()[:width] for line in first.splitlines())
    for header in columns:  # every column's header whole on screen (80 columns cut `facts` to `f`)
        assert header in next(line for line in first.splitlines() if "role" in line and "@ offset" in line)
    # the group's line under its table: every cell of the highlighted row, whatever the width
    words = " ".join(first.split())  # the line may wrap
    assert "billing-consumer PaymentEvents queue 2 message at 15 committed 27 consumed yes" in words
    # the record's line under its table: its date, offset and place whole, then its facts one a line
    dead = story.records[-1]
    words = " ".join(last.split())
    if width < 110:  # wider, the table has the date, place and facts in its cells
        assert f"@ {dead.physical_offset:,} {dead.topic} queue {dead.queue_id} offset {dead.queue_offset}" in words
    name, value = dead.facts[0]
    assert f"{name} {value}" in words


def test_the_idle_search_hint_is_whole_at_80_columns():
    async def script(pilot):
        await settle(pilot)
        pilot.app.switch_mode("search")
        await settle(pilot)
        return screen_text(pilot.app), pilot.app.screen.query_one("#search-progress").display

    with Store(SAMPLE) as store:
        text, bar = drive(create_app(store), script, size=(80, 24))
    assert not bar  # no search runs: its 20 columns cut the hint
    words = " ".join(text.split())
    assert "type a pattern and enter: bodies (decompressed), keys, tags and properties searched as `rmq-inspect " \
           "grep` does; escape cancels a search" in words
