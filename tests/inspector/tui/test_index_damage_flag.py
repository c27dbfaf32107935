"""A damaged index file is flagged where it appears (issue 33): its overview node in the error colour with the
reason, the Index files node counting the damaged ones, and Enter on it explaining the damage (it opened the
busiest-slots list its damage leaves empty)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from textual.widgets import Tree
from tui_helpers import drive, settle

from inspector.engine import Store
from inspector.tui.app import create_app

SAMPLE = Path(__file__).resolve().parents[3] / "sample_store"


def _nodes(node):
    yield node
    for child in node.children:
        yield from _nodes(child)


def test_a_truncated_index_file_is_red_with_its_reason_and_enter_explains(tmp_path):
    root = Path(shutil.copytree(SAMPLE, tmp_path / "s"))
    first = sorted((root / "index").iterdir())[0]
    os.truncate(first, 1000)
    notes: list[str] = []

    async def script(pilot):
        await settle(pilot, rounds=5)
        app = pilot.app
        app.notify = lambda message, **kw: notes.append(message)  # what the user is told
        tree = app.screen.query_one(Tree)
        node = next(n for n in _nodes(tree.root) if str(n.label).startswith(first.name))
        index_label = next(str(n.label) for n in _nodes(tree.root) if str(n.label).startswith("Index files"))
        styles = {str(span.style) for span in node.label.spans}
        tree.move_cursor(node)
        await pilot.press("enter")
        await settle(pilot)
        return str(node.label), styles, index_label, app.current_mode

    with Store(root) as store:
        label, styles, index_label, mode = drive(create_app(store), script)
    assert "✗ file is 1000 bytes" in label and "bold red" in styles
    assert "1 damaged" in index_label
    assert mode == "overview" and any("is damaged: file is 1000 bytes" in n for n in notes)
