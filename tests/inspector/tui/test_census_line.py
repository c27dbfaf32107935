"""The overview's Files line (the census in one line), and a folder that is no store.

`rmq-inspect PATH` and `rmq-inspect tui PATH` refuse a folder that is no store before the terminal UI starts
(exit 2, the one-line answer on stderr): the decision is no screen at all rather than an empty "clean" one. An
app a caller builds on such a folder anyway says so on its Files line."""

from __future__ import annotations

from textual.widgets import Tree
from tui_helpers import SAMPLE, drive

from inspector.cli.main import main
from inspector.engine import Store, census, census_summary
from inspector.tui.app import create_app


def _files_label(app) -> str:
    tree = app.screen.query_one(Tree)
    return next(str(n.label) for n in tree.root.children if n.data is not None and n.data.kind == "files")


def test_the_files_line_is_the_census_summary(app):
    async def script(pilot):
        return _files_label(app)

    assert drive(app, script) == "Files  " + census_summary(census(SAMPLE))


def test_an_app_on_an_empty_folder_says_it_is_no_store(tmp_path):
    with Store(tmp_path) as store:
        app = create_app(store)

        async def script(pilot):
            return _files_label(app)

        label = drive(app, script)
    assert label.startswith("Files  not a store: no RocketMQ store here (no commitlog/")


def test_the_command_refuses_before_the_ui_starts(tmp_path, capsys):
    for argv in (["tui", str(tmp_path)], [str(tmp_path)], ["tui", str(SAMPLE / "commitlog")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.strip() == (f"rmq-inspect: {SAMPLE / 'commitlog'}: this is the commitlog folder of a store: "
                           f"open its parent ({SAMPLE})")


def test_the_files_line_counts_the_commitlog_where_broker_config_puts_it(tmp_path):
    from split_commitlog import split_commitlog

    from inspector.engine import load_broker_config

    root, conf, dirs = split_commitlog(SAMPLE, tmp_path)
    config = load_broker_config(conf)
    with Store(root, broker_config=config) as store:
        app = create_app(store)

        async def script(pilot):
            return _files_label(app)

        label = drive(app, script)
    assert label == "Files  " + census_summary(census(root, config))
    assert f"(commitlog in {dirs[0]}, {dirs[1]} (storePathCommitLog" in label
