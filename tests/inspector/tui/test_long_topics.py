"""Long topics (issue 33): RocketMQ 5 allows 200 characters. In the overview and the message list a long topic is
cut in the middle, so its counts stay on screen and two topics that differ only at the end stay told apart."""

from __future__ import annotations

from textual.widgets import Tree
from tui_helpers import drive, screen_text, settle, static_text

from inspector.engine import Store
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.tui.app import create_app
from inspector.tui.fmt import middle_clip
from inspector.tui.widgets.messagedetail import MessageDetail
from inspector.tui.widgets.messagelist import _cells

PREFIX = "Orders-" + "x" * 180


def test_middle_clip_keeps_both_ends():
    a, b = middle_clip(PREFIX + "-eu", 24), middle_clip(PREFIX + "-us", 24)
    assert len(a) == 24 and a != b and a.endswith("-eu") and a.startswith("Orders-") and "…" in a
    assert middle_clip("short", 24) == "short"


def test_the_overview_and_the_list_tell_two_long_topics_apart(tmp_path):
    root = tmp_path / "s"
    with StoreWriter(root) as w:
        for i, region in enumerate(("eu", "us", "eu")):
            w.append(MessageSpec(topic=f"{PREFIX}-{region}", queue_id=0, body=b"m", keys=[f"k{i}"],
                                 store_timestamp=1_758_272_400_000 + i))

    async def script(pilot):
        await settle(pilot, rounds=4)
        tree = pilot.app.screen.query_one(Tree)
        topics = next(n for n in tree.root.children if n.data is not None and n.data.kind == "topics")
        return [str(n.label) for n in topics.children]

    with Store(root) as store:
        labels = drive(create_app(store), script, (100, 30))
    assert len(labels) == 2 and labels[0] != labels[1]
    assert all(len(label) < 100 and "messages" in label for label in labels)  # the counts on screen
    row = _cells(["0", "2025-09-19 09:00:00.000", PREFIX + "-us", "0", "0", "", "k1"], 100)
    assert "-us" in row


def _long_store(root):
    with StoreWriter(root) as w:
        for i, region in enumerate(("eu", "us", "eu")):
            w.append(MessageSpec(topic=f"{PREFIX}-{region}", queue_id=0, body=b"m", keys=[f"k{i}"],
                                 store_timestamp=1_758_272_400_000 + i))
    return root


def test_at_80x24_the_counts_and_the_msgid_stay_on_screen_the_topic_whole_in_the_detail(tmp_path):
    """Issue 33: at 80x24 a 200-character topic cut the overview's counts and pushed the Messages detail's msgId
    out of view (the topic folded over seven lines). Cut in the middle, its whole name is the tree's tooltip and a
    line after the detail's fields."""
    async def script(pilot):
        await settle(pilot, rounds=4)
        overview = screen_text(pilot.app)
        tree = pilot.app.screen.query_one(Tree)
        topics = next(n for n in tree.root.children if n.data is not None and n.data.kind == "topics")
        tree.move_cursor(topics.children[0])
        await settle(pilot)
        tooltip = tree.tooltip
        pilot.app.switch_mode("messages")
        await settle(pilot)
        detail = static_text(pilot.app.screen.query_one(MessageDetail).query_one(".detail-content"), 78)
        return overview, tooltip, screen_text(pilot.app), detail

    with Store(_long_store(tmp_path / "s")) as store:
        first = store.message_at(0)
        overview, tooltip, messages, detail = drive(create_app(store), script, (80, 24))
    rows = [line for line in overview.splitlines() if "Orders-" in line]
    assert len(rows) == 2 and rows[0] != rows[1]
    assert rows[0].rstrip().endswith("-eu  1 queue(s), 2 messages") and rows[1].rstrip().endswith("1 messages")
    assert str(tooltip) == PREFIX + "-eu"
    assert first.msg_id in messages and first.unique_key in messages  # whole, in view
    assert "topic (whole)" in detail and "".join(detail.split()).count(PREFIX + "-eu") == 1  # and cut above
