"""Long topics (issue 33): RocketMQ 5 allows 200 characters. In the overview and the message list a long topic is
cut in the middle, so its counts stay on screen and two topics that differ only at the end stay told apart."""

from __future__ import annotations

from textual.widgets import Tree
from tui_helpers import drive, settle

from inspector.engine import Store
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.tui.app import create_app
from inspector.tui.fmt import middle_clip
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
