"""The terminal UI takes --broker-config: a sample store whose commitlog is split over two folders outside it
(storePathCommitLog=dirA,dirB) opens with every segment, in offset order, and its messages browse."""

from __future__ import annotations

from split_commitlog import split_commitlog
from textual.widgets import Tree
from tui_helpers import SAMPLE, drive, settle

import inspector.tui.app as tui_app
from inspector.cli.main import main
from inspector.engine import Message, Store


def test_the_tui_opens_a_split_commitlog_given_by_broker_config(tmp_path, monkeypatch) -> None:
    root, conf, _ = split_commitlog(SAMPLE, tmp_path, messageDelayLevel="1s 5s 10s")
    names = sorted(p.name for p in (SAMPLE / "commitlog").iterdir())
    with Store(SAMPLE) as original:
        first = next(e for e in original.entries() if isinstance(e, Message))
    seen = {}

    def run(store) -> int:  # what `rmq-inspect tui STORE --broker-config F` runs, driven by the pilot
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
