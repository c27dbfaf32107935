"""Functional tests: the app driven with Textual's pilot on ``sample_store/``, checked against the engine."""

from __future__ import annotations

import shutil

from textual.widgets import DataTable, OptionList, Tree
from tui_helpers import SAMPLE, drive, screen_text, settle, static_text

from inspector.engine import Store
from inspector.engine.model.records import Message
from inspector.engine.present.layout import message_fields
from inspector.engine.read.commitlog.body import decompress_body
from inspector.engine.read.index.slots import busiest_slots, walk_slot
from inspector.tui.app import create_app
from inspector.tui.fmt import num, when
from inspector.tui.screens.dialogs import HelpScreen, MessageScreen, PromptScreen
from inspector.tui.widgets.hexview import HexView
from inspector.tui.widgets.messagedetail import MessageDetail
from inspector.tui.widgets.messagelist import MessageList, QueueRows
from parsers.java import index_key, java_string_hash


def messages_of(store) -> list[Message]:
    return [e for e in store.entries() if isinstance(e, Message)]


def record_notifications(app) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    original = app.notify

    def notify(message, *args, **kwargs):
        seen.append((str(message), kwargs.get("severity", "information")))
        return original(message, *args, **kwargs)

    app.notify = notify
    return seen


async def jump(pilot, text: str) -> None:
    """The hex view's jump prompt, typed as a user would."""
    await pilot.press("g")
    await pilot.pause()
    assert isinstance(pilot.app.screen, PromptScreen)
    await pilot.press(*text)
    await pilot.press("enter")
    await settle(pilot)


# -- overview ------------------------------------------------------------------------------------------------


def test_overview_tree_shows_the_store_and_its_nodes_open_their_views(app, store):
    seg = store.segments[1]
    topic, qid = "OrderEvents", 3
    info = store.queue(topic, qid).info()

    async def script(pilot):
        assert app.current_mode == "overview"
        assert app.scan_complete
        tree = app.screen.query_one(Tree)
        labels = [str(n.label) for n in _all_nodes(tree.root)]
        text = screen_text(app)
        # enter on a segment opens the hex view at its first byte
        node = next(n for n in _all_nodes(tree.root) if str(n.label).startswith(seg.name))
        tree.move_cursor(node)
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_mode == "hex"
        hex_cursor = app.screen.query_one(HexView).cursor
        # enter on a queue opens the message browser on that queue
        await pilot.press("1")
        await pilot.pause()
        assert app.current_mode == "overview"
        topic_node = next(n for n in _all_nodes(tree.root) if str(n.label).startswith(topic + " "))
        topic_node.expand()
        await pilot.pause()
        qnode = next(n for n in topic_node.children if str(n.label).startswith(f"queue {qid} "))
        tree.move_cursor(qnode)
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_mode == "messages"
        lst = app.screen.query_one(MessageList)
        return labels, text, hex_cursor, lst.source, [lst.message(i) for i in range(len(lst.source))]

    labels, text, hex_cursor, source, rows = drive(app, script)
    joined = "\n".join(labels)
    assert "last shutdown: clean" in labels[0] and "no abort file" in labels[0]
    for i, s in enumerate(store.segments):
        scan = store.scan_segment(i)
        line = next(label for label in labels if label.startswith(s.name))
        assert f"valid end {num(scan.valid_end_offset)}" in line
        assert f"{num(scan.messages)} msgs" in line
        if scan.blank_position is not None:
            assert f"BLANK {num(scan.blank_size)} B @ {num(scan.blank_position)}" in line
    for q in store.queue_infos():
        assert q.topic in joined
    for row in store.consumer_lag():
        assert f"{row['group']} lag {num(row['lag'])}" in joined
    for reader in store.index_files():
        h = reader.header
        assert f"{reader.name}  {when(h.begin_timestamp)}" in joined
        assert f"used slots {num(h.hash_slot_count)}" in joined
    cp = store.checkpoint()
    assert f"physicMsgTimestamp   {when(cp.physic_msg_timestamp)}" in joined
    assert "Problems  0 found" in joined
    assert "CommitLog" in text and "Index files" in text
    assert hex_cursor == seg.start_offset
    assert isinstance(source, QueueRows) and len(source) == info.message_count
    assert [m.physical_offset for m in rows] == [m.physical_offset for _, m in store.queue_messages(topic, qid)]


def _all_nodes(node):
    yield node
    for child in node.children:
        yield from _all_nodes(child)


# -- hex view ----------------------------------------------------------------------------------------------------


def test_hex_jump_names_the_field_and_the_side_panel_follows(store):
    app = create_app(store, screen="hex")
    msgs = messages_of(store)
    target = msgs[37]
    fields = message_fields(target)
    ts_index = next(i for i, f in enumerate(fields) if f.name == "STORETIMESTAMP")
    ts = fields[ts_index]

    async def script(pilot):
        await jump(pilot, str(ts.start + 3))
        hv = app.screen.query_one(HexView)
        info = hv.cursor_info()
        status = static_text(app.screen.query_one("#hex-status"))
        panel = app.screen.query_one("#hex-fields", OptionList)
        title = static_text(app.screen.query_one("#hex-side-title"))
        return info, status, panel.highlighted, panel.option_count, title, screen_text(app)

    info, status, highlighted, count, title, text = drive(app, script)
    assert info.offset == ts.start + 3
    assert info.region.start == target.physical_offset and info.region.kind == "message"
    assert info.field.name == "STORETIMESTAMP"
    assert f"field {ts.number} STORETIMESTAMP" in status
    assert str(target.store_timestamp) in status and when(target.store_timestamp)[:19].replace(" ", "T") in status
    assert count == len(fields) and highlighted == ts_index
    assert f"message record @ {num(target.physical_offset)}" in title
    assert f"{target.topic} q{target.queue_id} #{target.queue_offset}" in title
    assert f"{target.physical_offset:>10}" in text or str(target.physical_offset - target.physical_offset % 16) in text


def test_hex_next_and_previous_message_and_panel_selection(store):
    app = create_app(store, screen="hex")
    msgs = messages_of(store)
    first_seg = [m for m in msgs if m.file == store.segments[0].file]
    last_of_seg0, first_of_seg1 = first_seg[-1], msgs[len(first_seg)]

    async def script(pilot):
        hv = app.screen.query_one(HexView)
        seen = [hv.cursor]
        for _ in range(3):
            await pilot.press("n")
            await settle(pilot)
            seen.append(hv.cursor)
        await pilot.press("p")
        await settle(pilot)
        seen.append(hv.cursor)
        # across the BLANK into the next segment, and back
        await jump(pilot, str(last_of_seg0.physical_offset + 5))
        await pilot.press("n")
        await settle(pilot)
        seen.append(hv.cursor)
        await pilot.press("p")
        await settle(pilot)
        seen.append(hv.cursor)
        # a field chosen in the side panel moves the cursor onto its bytes
        panel = app.screen.query_one("#hex-fields", OptionList)
        panel.focus()
        panel.highlighted = 15
        await pilot.press("enter")
        await settle(pilot)
        seen.append(hv.cursor)
        # the mouse: a click on a byte puts the cursor there, a click on a tab switches screens
        await jump(pilot, "0")
        top = hv.scroll_offset.y
        await pilot.click(HexView, offset=(hv.offset_width + 3 + 3 * 5, 2))
        await settle(pilot)
        seen.append((hv.cursor, top))
        await pilot.click("#nav-messages")
        await settle(pilot)
        seen.append(app.current_mode)
        return seen

    seen = drive(app, script)
    offsets = [m.physical_offset for m in msgs]
    assert seen[:5] == [offsets[0], offsets[1], offsets[2], offsets[3], offsets[2]]
    assert seen[5:7] == [first_of_seg1.physical_offset, last_of_seg0.physical_offset]
    assert seen[7] == message_fields(last_of_seg0)[15].start
    cursor, top = seen[8]
    assert cursor == (top + 2) * 16 + 5
    assert seen[9] == "messages"


def test_hex_jump_into_a_directory_where_a_segment_should_be_says_so(tmp_path):
    """Not "in no commitlog segment": the entry at that name is named, and what it is."""
    root = tmp_path / "sample_store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    with Store(root) as probe:
        seg = probe.segments[1]
    (root / seg.file).unlink()
    (root / seg.file).mkdir()
    with Store(root) as store:
        app = create_app(store, screen="hex")

        async def script(pilot):
            seen = record_notifications(app)
            await jump(pilot, str(seg.start_offset + 100))
            return seen

        seen = drive(app, script)
    assert (f"{seg.file} @ 100: a directory where a segment file should be", "error") in seen


def test_hex_marks_blank_folds_the_zero_tail_and_reports_errors(store):
    app = create_app(store, screen="hex")
    scan0 = store.scan_segment(0)
    last = store.segments[-1]
    scan_last = store.scan_segment(len(store.segments) - 1)

    async def script(pilot):
        seen = record_notifications(app)
        await jump(pilot, str(scan0.valid_end_offset))
        hv = app.screen.query_one(HexView)
        blank_info = hv.cursor_info()
        status = static_text(app.screen.query_one("#hex-status"))
        await jump(pilot, str(scan_last.valid_end_offset - 1))
        await pilot.press("end")
        await settle(pilot)
        end = (hv.cursor, hv.lines.folds, hv.lines.line_count, screen_text(app))
        await pilot.press("e")  # the sample store has no problem
        await settle(pilot)
        await jump(pilot, "99999999999")  # past the log
        return blank_info, status, end, seen, app.current_mode

    blank_info, status, (end_cursor, folds, line_count, text), seen, mode = drive(app, script)
    assert blank_info.region.kind == "blank" and blank_info.field.name == "TOTALSIZE"
    assert "BLANK record" in status and f"{scan0.blank_size} (bytes left in the segment)" in status
    assert end_cursor == last.end_offset - 1
    tail = scan_last.valid_end_offset
    assert any(a <= tail + 32 and b >= last.end_offset - 16 for a, b in folds)
    assert line_count < last.file_size // 16
    assert "zero bytes folded" in text
    assert any("no problem after this offset" in m for m, _ in seen)
    assert any("in no commitlog segment" in m and sev == "error" for m, sev in seen)
    assert mode == "hex"


# -- message browser ---------------------------------------------------------------------------------------------


def test_message_list_pages_to_the_end_and_shows_bodies(store):
    app = create_app(store, screen="messages")
    msgs = messages_of(store)
    zipped = next(m for m in msgs if m.compression == "ZLIB")
    plain = decompress_body(zipped)

    async def script(pilot):
        lst = app.screen.query_one(MessageList)
        assert len(lst.source) == len(msgs) and lst.source.complete
        previous = -1
        pages = 0
        while lst.cursor != previous:
            previous = lst.cursor
            await pilot.press("pagedown")
            pages += 1
        await pilot.pause()
        detail = app.screen.query_one(MessageDetail)
        last_row = lst.row_text(lst.cursor, 118)
        paged = (lst.cursor, detail.message)
        await pilot.press("home")
        await pilot.press("end")
        await pilot.pause()
        end = (lst.cursor, last_row, screen_text(app))
        # the detail pane of a zlib body, in its three views
        lst.cursor = next(i for i in range(len(lst.source)) if lst.source.offset(i) == zipped.physical_offset)
        await pilot.pause()
        views = {}
        for mode in ("text", "json", "hex"):
            assert detail.body_mode == mode
            views[mode] = _detail_text(detail)
            await pilot.press("b")
            await pilot.pause()
        return paged, end, pages, views

    (paged_cursor, paged_message), (end_cursor, last_row, text), pages, views = drive(app, script)
    last = msgs[-1]
    assert pages > 10
    assert paged_cursor == end_cursor == len(msgs) - 1
    assert paged_message.physical_offset == last.physical_offset
    assert last_row.split()[0] == str(last.physical_offset)
    assert last.topic in last_row
    assert str(last.physical_offset) in text
    note = f"ZLIB: {len(zipped.body):,} bytes stored, {len(plain):,} decompressed"
    for mode, shown in views.items():
        assert f"Body ({mode}, {note})" in shown
    assert len(plain) > 8192 and f"showing 8,192 of {len(plain):,} bytes" in views["text"]
    assert "truncated" in views["hex"] and f"of {len(plain):,} bytes" in views["hex"]
    assert '\n  "' in views["json"]  # pretty printed
    assert zipped.msg_id in views["text"] and zipped.unique_key in views["text"]


def test_message_filters_by_topic_tag_queue_key_and_time(store):
    app = create_app(store, screen="messages")
    msgs = messages_of(store)
    paid = [m.physical_offset for m in msgs if m.topic == "OrderEvents" and m.tags == "paid"]
    keyed = sorted({h.message.physical_offset for h in store.lookup_key("OrderEvents", "order-1108")})
    begin, end = msgs[100].store_timestamp, msgs[150].store_timestamp
    in_window = [m.physical_offset for m in msgs if begin <= m.store_timestamp <= end]
    q_begin = store.queue_offset_by_time("OrderEvents", 1, begin)

    async def script(pilot):
        browser = app.view("messages")
        await settle(pilot)
        results = {}
        for name, kwargs in (("paid", dict(topic="OrderEvents", tag="paid")),
                             ("key", dict(topic="OrderEvents", key="order-1108")),
                             ("time", dict(begin=begin, end=end)),
                             ("queue-time", dict(topic="OrderEvents", queue=1, begin=begin))):
            browser.apply(**kwargs)
            await settle(pilot)
            lst = browser.query_one(MessageList)
            results[name] = [lst.source.offset(i) for i in range(len(lst.source))]
        # typed into the filter bar
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("slash")
        await pilot.press(*"PaymentEvents")
        await pilot.press("enter")
        await settle(pilot)
        lst = browser.query_one(MessageList)
        results["typed"] = [lst.source.offset(i) for i in range(len(lst.source))]
        results["status"] = static_text(browser.query_one("#browser-status"))
        return results

    r = drive(app, script)
    assert r["paid"] == paid and paid
    assert r["key"] == keyed and len(keyed) > 1
    assert r["time"] == in_window
    expected_q = [m.physical_offset for u, m in store.queue_messages("OrderEvents", 1, q_begin)]
    assert r["queue-time"] == expected_q
    assert r["typed"] == [m.physical_offset for m in msgs if m.topic == "PaymentEvents"]
    assert f"{num(len(r['typed']))} messages" in r["status"] and "topic=PaymentEvents" in r["status"]


def _detail_text(detail) -> str:
    return static_text(detail.query_one(".detail-content"))


# -- index chain ------------------------------------------------------------------------------------------------


def test_chain_walk_marks_the_collision_and_each_hop_opens_its_message(store):
    app = create_app(store, screen="chain")
    topic, key = "OrderEvents", "coupon-Aa7K"  # sample_store/README.md, case 4
    walks = store.chain(topic, key)
    steps = [(w.file, s) for w in walks for s in w.steps]
    collision = next(s for _, s in steps if s.hash_matches and s.key_matches is False)
    match = next(s for _, s in steps if s.hash_matches and s.key_matches)

    async def script(pilot):
        await pilot.press("slash")
        await pilot.press(*topic)
        await pilot.press("tab")
        await pilot.press(*key)
        await pilot.press("enter")
        await settle(pilot)
        table = app.screen.query_one("#chain-steps", DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        summary = static_text(app.screen.query_one("#chain-summary"))
        # open the collision's hop
        index = next(i for i, r in enumerate(rows) if "collision" in r[6])
        table.move_cursor(row=index)
        await pilot.press("enter")
        await settle(pilot)
        opened = app.screen
        detail = _detail_text(opened.query_one(MessageDetail)) if isinstance(opened, MessageScreen) else ""
        return rows, summary, opened, detail

    rows, summary, opened, detail = drive(app, script)
    assert len(rows) == len(steps)
    crow = next(r for r in rows if "collision" in r[6])
    assert crow[3] == num(collision.item.phy_offset) and crow[2] == str(collision.item.key_hash)
    assert crow[7] == "OrderEvents#coupon-BB7K"
    mrow = next(r for r in rows if "match" in r[6] and "collision" not in r[6])
    assert mrow[3] == num(match.item.phy_offset) and mrow[7] == f"{topic}#{key}"
    assert any("other hash" in r[6] for r in rows)
    assert f"key string  {topic}#{key}" in summary
    assert f"String.hashCode() = {java_string_hash(index_key(topic, key))}" in summary
    assert f"slot {walks[0].slot}" in summary and f"at byte {walks[0].slot_position}" in summary
    assert "1 collision(s)" in summary
    assert isinstance(opened, MessageScreen) and opened.phy_offset == collision.item.phy_offset
    assert "coupon-BB7K" in detail


def test_busiest_slots_and_browsing_a_slot(store):
    app = create_app(store, screen="chain")
    reader = store.index_files()[0]
    expected = busiest_slots(reader, 20)

    async def script(pilot):
        app.show_busiest(reader.rel)
        await settle(pilot)
        busiest = app.screen.query_one("#chain-busiest", DataTable)
        rows = [[str(c) for c in busiest.get_row_at(i)] for i in range(busiest.row_count)]
        busiest.focus()
        busiest.move_cursor(row=0)
        await pilot.press("enter")
        await settle(pilot)
        steps = app.screen.query_one("#chain-steps", DataTable)
        items = [[str(c) for c in steps.get_row_at(i)] for i in range(steps.row_count)]
        return rows, items, static_text(app.screen.query_one("#chain-summary"))

    rows, items, summary = drive(app, script)
    assert [(int(a), int(b)) for a, b in rows] == expected
    chain = walk_slot(reader, expected[0][0])
    assert [r[1] for r in items] == [str(i.number) for i in chain.items]
    assert f"slot {expected[0][0]} at byte {chain.slot_position}" in summary


# -- msgId resolver ------------------------------------------------------------------------------------------------


def test_resolver_reads_both_kinds_of_id_and_opens_the_message(store):
    app = create_app(store, screen="ids")
    msg = messages_of(store)[5]

    async def resolve(pilot, text):
        await pilot.press("slash")
        app.screen.query_one("#r-id").value = ""
        await pilot.press(*text)
        await pilot.press("enter")
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        rows = {str(k.value): [str(c) for c in table.get_row(k)] for k in table.rows}
        summary = static_text(app.screen.query_one("#resolver-summary"))
        detail = static_text(app.screen.query_one("#resolver-detail"))
        await pilot.press("enter")
        await settle(pilot)
        opened = app.screen
        await pilot.press("escape")
        await pilot.pause()
        return rows, summary, detail, opened

    async def script(pilot):
        seen = record_notifications(app)
        by_msg_id = await resolve(pilot, msg.msg_id)
        by_unique_key = await resolve(pilot, msg.unique_key)
        app.resolve("not-an-id")
        await settle(pilot)
        return by_msg_id, by_unique_key, seen, app.current_mode

    by_msg_id, by_unique_key, seen, mode = drive(app, script)
    broker = str(msg.store_host)
    for kind, (rows, summary, detail, opened) in (("offset_msg_id", by_msg_id), ("unique_key", by_unique_key)):
        assert f"this store's broker: {broker}" in summary
        found = rows[kind]  # reading, in this store, host, our broker?, decoded
        assert found[1] == f"yes, at {num(msg.physical_offset)}"
        other = rows["unique_key" if kind == "offset_msg_id" else "offset_msg_id"]
        assert other[1] == "no"
        if kind == "offset_msg_id":
            assert found[2] == broker and found[3] == "yes"
            assert found[4] == f"physical offset {num(msg.physical_offset)}"
        else:
            assert found[2] == msg.born_host.ip and "producer" in found[3]
            assert f"≈ {when(msg.born_timestamp)[:16]}" in detail  # the month comes from the message, not today
        assert isinstance(opened, MessageScreen) and opened.phy_offset == msg.physical_offset
    assert mode == "ids" and any(sev == "error" for _, sev in seen)


# -- problems --------------------------------------------------------------------------------------------------


def test_problems_of_a_damaged_store_jump_to_the_hex_view(damaged_store):
    store, damage = damaged_store
    app = create_app(store)

    async def script(pilot):
        assert app.scan_complete
        await pilot.press("6")
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        before = len(rows)
        await pilot.press("v")
        await settle(pilot)
        after = table.row_count
        index = next(i for i, r in enumerate(rows) if r[4] == f"{damage['file']} @ {num(damage['position'])}")
        assert rows[index][2] == num(damage["offset"])
        table.move_cursor(row=index)
        await pilot.press("enter")
        await settle(pilot)
        hv = app.screen.query_one(HexView)
        info = hv.cursor_info()
        # e in the hex view: from before the damage, the next problem is the damage
        await jump(pilot, "0")
        await pilot.press("e")
        await settle(pilot)
        return rows, before, after, app.current_mode, info, hv.cursor

    rows, before, after, mode, info, next_problem = drive(app, script)
    assert before >= 1 and after > before  # verify adds what the walk cannot see (queues, index items)
    assert mode == "hex"
    assert info.offset == damage["offset"] and info.region.kind == "damaged"
    assert next_problem == damage["offset"]


def test_verify_runs_in_a_worker_and_can_be_cancelled(store, monkeypatch):
    app = create_app(store, screen="problems")
    from inspector.tui.screens import problems as problems_module

    calls = []

    def slow_verify(store, progress=None):
        for i in range(10_000):
            calls.append(i)
            progress("commitlog", i, 10_000)
            import time

            time.sleep(0.005)
        raise AssertionError("verify was not cancelled")

    monkeypatch.setattr(problems_module, "verify", slow_verify)

    async def script(pilot):
        seen = record_notifications(app)
        await pilot.press("v")
        await pilot.pause(0.2)
        status = static_text(app.screen.query_one("#problems-status"))
        await pilot.press("escape")
        await settle(pilot)
        return seen, status, app.screen.verifying

    seen, status, verifying = drive(app, script)
    assert "verifying commitlog" in status
    assert 0 < len(calls) < 10_000
    assert not verifying and any("verify cancelled" in m for m, _ in seen)


# -- keyboard, help, palette --------------------------------------------------------------------------------------


def test_help_and_command_palette(app):
    async def script(pilot):
        await pilot.press("question_mark")
        await pilot.pause()
        help_open = isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"jump to offset")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        prompt = app.screen
        await pilot.press(*"462", "enter")
        await settle(pilot)
        return help_open, titles, prompt, app.current_mode, app.screen.query_one(HexView).cursor

    help_open, titles, prompt, mode, cursor = drive(app, script)
    assert help_open
    for wanted in ("Go to Overview", "Go to CommitLog hex view", "Go to Message browser", "Go to Index-chain walker",
                   "Go to msgId resolver", "Go to Problems", "Hex: jump to offset / msgId / unique key",
                   "Hex: next message", "Hex: next problem", "Chain: walk topic + key", "Chain: busiest slots",
                   "Resolve message id", "Problems: run verify", "Messages: cycle body view"):
        assert wanted in titles
    assert isinstance(prompt, PromptScreen)
    assert mode == "hex" and cursor == 462


def test_run_returns_the_exit_code(monkeypatch, store):
    from inspector.tui import app as app_module

    ran = []
    monkeypatch.setattr(app_module.RmqInspectApp, "run", lambda self: ran.append(self))
    assert app_module.run(store) == 0
    assert ran and ran[0].store is store


def test_the_tui_never_parses_bytes():
    """Front-end rule: the UI imports the engine (and pure helpers), never construct or struct."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "inspector" / "tui"
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert not {"struct", "construct"} & {n.split(".")[0] for n in names}, path
        assert not any(n.startswith("parsers.") and n not in ("parsers.java", "parsers.msgid") for n in names), path



def test_failures_in_workers_are_notifications(app, store, monkeypatch):
    def broken(text):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store, "resolve_id", broken)

    async def script(pilot):
        seen = record_notifications(app)
        app.resolve("0A14000500002A9F0000000000000000")
        await settle(pilot)
        app.run_worker(lambda: 1 / 0, thread=True, exit_on_error=False, name="probe")  # no handler of its own
        await settle(pilot)
        return seen, app.is_running

    seen, running = drive(app, script)
    assert running
    assert ("disk on fire", "error") in seen
    assert any("ZeroDivisionError" in m and sev == "error" for m, sev in seen)


def test_jump_and_slot_prompts_refuse_impossible_numbers_with_the_cli_s_range(store):
    """The same value gets the same answer as `rmq-inspect hex` (issue 22): the range message, the cursor stays."""
    app = create_app(store, screen="hex")

    async def script(pilot):
        seen = record_notifications(app)
        hv = app.screen.query_one(HexView)
        before = hv.cursor
        for text in ("-1", "1" * 25, "-0x10"):  # 25 digits: past 2^63 (4,400 digits: tests of the argument kinds)
            await jump(pilot, text)
        after_bad = hv.cursor
        await jump(pilot, "0x10")
        return seen, before, after_bad, hv.cursor

    seen, before, after_bad, cursor = drive(app, script)
    errors = [m for m, severity in seen if severity == "error"]
    assert len(errors) == 3 and all("offset must be a physical offset, an integer in [0, 9223372036854775807]" in m
                                    for m in errors), errors
    assert after_bad == before and cursor == 16


def test_a_non_ascii_digit_is_no_offset_in_the_jump_prompt(store):
    app = create_app(store, screen="hex")

    async def script(pilot):
        seen = record_notifications(app)
        hv = app.screen.query_one(HexView)
        await jump(pilot, "0")
        await jump(pilot, "٣")  # an Arabic-Indic 3: looked up as an id, never read as offset 3
        return seen, hv.cursor

    seen, cursor = drive(app, script)
    assert cursor == 0 and any("neither a physical offset" in m for m, s in seen if s == "error"), seen


def test_a_key_lookup_past_an_untrusted_index_file_says_so(tmp_path):
    """The browser's key mode finds what the commitlog holds and says, like the CLI, that it scanned the log."""
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root)
    for f in (root / "index").iterdir():  # indexCount (header bytes 36..40) of -1: the items cannot be followed
        with open(f, "r+b") as fh:
            fh.seek(36)
            fh.write(b"\xff\xff\xff\xff")
    with Store(SAMPLE) as good:
        keyed = sorted({h.message.physical_offset for h in good.lookup_key("OrderEvents", "order-1108")})
    with Store(root) as damaged:
        app = create_app(damaged, screen="messages")

        async def script(pilot):
            browser = app.view("messages")
            await settle(pilot)
            browser.apply(topic="OrderEvents", key="order-1108")
            await settle(pilot)
            lst = browser.query_one(MessageList)
            notes = [n.message for n in app._notifications]
            return [lst.source.offset(i) for i in range(len(lst.source))], \
                static_text(browser.query_one("#browser-status")), notes

        rows, status, notes = drive(app, script)
    assert rows == keyed and len(keyed) == 3
    assert "index not trusted, searched past it" in status and "indexCount -1" in status
    assert any("indexCount -1" in n for n in notes)
