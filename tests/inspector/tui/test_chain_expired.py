"""The TUI's index chain screen gives the CLI key's answer for a key whose record retention removed ("expired:
below the log's first offset ...") and for an absent key; a key a message has gets none (under pilot)."""

from __future__ import annotations

import contextlib
import io

from tui_helpers import drive, settle, static_text

from inspector.cli.main import main as cli_main
from inspector.engine import Store
from tests.aged_store import age_store, write_store


def _cli_key(root, topic: str, key: str) -> str:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert cli_main(["key", str(root), topic, key]) == 1
    return " ".join(err.getvalue().split())


def test_the_chain_screen_says_expired_as_the_cli_key(tmp_path):
    from inspector.tui.app import create_app

    root = tmp_path / "s"
    written = write_store(root)
    age_store(root, 2, cleanup=False)
    kept = len(written) - 1  # write_store keys record i "k{i}"
    asked = [("T1", "k100"), ("T1", "no-such-key"), (written[kept].topic, f"k{kept}")]
    with Store(root) as store:
        app = create_app(store, background_scan=False, screen="chain")

        async def script(pilot):
            said = []
            for topic, key in asked:
                app.screen.walk(topic, key)
                await settle(pilot)
                said.append(" ".join(static_text(app.screen.query_one("#chain-summary")).split()))
            return said

        expired, absent, present = drive(app, script)
    cli = _cli_key(root, "T1", "k100")
    answer = cli.split("not found: ", 1)[-1]  # the CLI line: "rmq-inspect: not found: <answer>"
    assert answer.startswith("expired: ") and answer in expired
    assert "no message indexed under T1#no-such-key" in absent and "expired" not in absent
    assert "expired" not in present and "no message indexed" not in present
