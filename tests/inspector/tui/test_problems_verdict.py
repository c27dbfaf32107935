"""The problems screen gives an empty stray segment (apache/rocketmq#3257) the verdict census, verify and preflight
give it: an error (issue 29 item 3; the store layout said a warning)."""

from __future__ import annotations

import shutil

from tui_helpers import SAMPLE, drive, screen_text, settle

from inspector.engine import Store

STRAY = f"{3 * 65536:020d}"


def test_the_problems_screen_calls_an_empty_stray_segment_an_error(tmp_path):
    from inspector.tui.app import create_app

    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    (root / "commitlog" / STRAY).write_bytes(b"")
    with Store(root) as store:
        app = create_app(store, background_scan=False, screen="problems")

        async def script(pilot):
            await settle(pilot)
            return [(p.file, p.code, p.severity) for p in app.all_problems()], screen_text(app)

        problems, text = drive(app, script)
    assert (f"commitlog/{STRAY}", "empty-segment", "error") in problems
    assert [s for _, code, s in problems if code == "empty-segment"] == ["error"]
    row = next(line for line in text.splitlines() if "empty-segment" in line)
    assert "error" in row.split("empty-segment")[0] and "warning" not in row
    assert "1 error(s)" in text
