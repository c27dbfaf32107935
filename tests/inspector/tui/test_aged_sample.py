"""The terminal UI's overview of the committed aged sample ``sample_store_aged/`` under a pilot: the log starts at
the first offset retention left, the deleted segments and index files are not there, the stopped group's offsets
are shown against its queues, and the root line says the crash and the next (abnormal) start."""

from __future__ import annotations

from textual.widgets import Tree
from tui_helpers import REPO, drive, settle

from inspector.engine import Store, preflight
from inspector.tui.app import create_app

AGED = REPO / "sample_store_aged"


def _all_nodes(node):
    yield node
    for child in node.children:
        yield from _all_nodes(child)


def test_the_overview_of_the_aged_sample():
    with Store(AGED) as store:
        banner = preflight(store).banner
        first, last = store.min_offset, store.max_offset()
        segments = [s.name for s in store.segments]
        index = [r.name for r in store.index_files()]
        audit = [r for r in store.consumer_lag() if r["group"] == "audit-consumer"]
        app = create_app(store)

        async def script(pilot):
            await settle(pilot)
            return [str(n.label) for n in _all_nodes(app.screen.query_one(Tree).root)]

        labels = drive(app, script)
    root, joined = labels[0], "\n".join(labels)
    # the shutdown state in two words, then a start that loses data (issue 33: 80 columns cut the line's end)
    assert "broker running or crashed (abort file present)" in root
    assert root.startswith(f"sample_store_aged  last shutdown: not clean  {banner}  ")
    assert banner.startswith("next start: abnormal") and "1 index file(s) (128 key(s) become unfindable)" in banner
    assert f"CommitLog  {len(segments)} segment(s)" in joined and f"offsets {first:,}…{last:,}" in joined
    assert first == 65_536 and segments[0] == f"{first:020d}"
    assert not any(label.startswith(("00000000000000000000", "00000000000000032768")) for label in labels)
    assert f"Index files  {len(index)}" in joined
    assert not any(label.startswith(("20250919090000196", "20250919101545903")) for label in labels)  # cleaned up
    assert len(audit) == 4
    for row in audit:
        assert f"audit-consumer  committed {row['consumer_offset']}  max {row['max_offset']}  lag {row['lag']}" in joined
    assert "Problems  0 found" in joined
