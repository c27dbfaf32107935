"""The terminal UI takes --broker-config: a sample store whose commitlog is split over two folders outside it
(storePathCommitLog=dirA,dirB) opens with every segment, in offset order, and its messages browse."""

from __future__ import annotations

from split_commitlog import split_commitlog
from textual.widgets import Tree
from tui_helpers import SAMPLE, drive, screen_text, settle

import inspector.tui.app as tui_app
from inspector.cli.main import main
from inspector.engine import Message, Store


def test_the_tui_opens_a_split_commitlog_given_by_broker_config(tmp_path, monkeypatch) -> None:
    root, conf, _ = split_commitlog(SAMPLE, tmp_path, messageDelayLevel="1s 5s 10s")
    names = sorted(p.name for p in (SAMPLE / "commitlog").iterdir())
    with Store(SAMPLE) as original:
        first = next(e for e in original.entries() if isinstance(e, Message))
    seen = {}

    def run(store, *args, **kwargs) -> int:  # what `rmq-inspect tui STORE --broker-config F` runs, driven by the pilot
        app = tui_app.create_app(store)

        async def script(pilot):
            await settle(pilot)
            tree = app.screen.query_one(Tree)
            commitlog = next(n for n in tree.root.children if n.data is not None and n.data.kind == "commitlog")
            seen["segments"] = [str(n.label).split()[0] for n in commitlog.children]
            seen["delay"] = store.delay_table().text
            seen["first"] = store.message_at(first.physical_offset).msg_id

        drive(app, script)
        return 0

    monkeypatch.setattr(tui_app, "run", run)
    assert main(["tui", str(root), "--broker-config", str(conf)]) == 0
    assert seen == {"segments": names, "delay": "1s 5s 10s", "first": first.msg_id}


def _settings_node(app):
    tree = app.screen.query_one(Tree)
    return next(n for n in tree.root.children if n.data is not None and n.data.kind == "settings")


def test_the_overview_shows_each_setting_and_where_it_came_from(tmp_path, monkeypatch) -> None:
    """A broker.conf's sizes with their line, the delay table inferred level by level from SCHEDULE_TOPIC_XXXX
    (levels without units: default), and the node's help line."""
    from inspector.engine import Geometry
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter
    from inspector.tui.screens.dialogs import HELP

    root, t0 = tmp_path / "store", 1_760_000_000_000
    with StoreWriter(root, Geometry(delay_levels="1s 7s 30s"), clock=lambda: t0 + 100_000) as w:
        for i in range(4):
            w.append(MessageSpec("Orders", b"x", delay_level=2, store_timestamp=t0 + i, born_timestamp=t0))
    conf = tmp_path / "broker.conf"
    conf.write_text("# sizes\nmaxIndexNum=20000\n")
    seen = {}

    def run(store, *args, **kwargs) -> int:
        app = tui_app.create_app(store)

        async def script(pilot):
            await settle(pilot)
            node = _settings_node(app)
            seen["label"] = str(node.label)
            rows = {c.data.value: str(c.label) for c in node.children}
            seen["index"] = rows["maxIndexNum"]
            delay = next(c for c in node.children if c.data.value == "messageDelayLevel")
            seen["levels"] = [" ".join(str(c.label).split()) for c in delay.children]
            node.expand()
            await pilot.pause()
            seen["screen"] = screen_text(app)

        drive(app, script)
        return 0

    monkeypatch.setattr(tui_app, "run", run)
    assert main(["tui", str(root), "--broker-config", str(conf)]) == 0
    # the root is the STORE argument (flag); the index size from the file; segment and queue file sizes, index
    # slots and the delay table inferred from the store's files
    assert seen["label"] == "Broker settings  1 broker.conf, 1 flag, 4 inferred, 1 default"
    assert "20000  broker.conf" in seen["index"] and f"{conf} line 2" in seen["index"]
    assert seen["levels"][:2] == ["level 1 1s default", "level 2 7s inferred"]
    assert "maxIndexNum" in seen["screen"]
    assert any(key == "Broker settings" for _, keys in HELP for key, _ in keys)
