"""``rmq-inspect serve-tui STORE``: the terminal UI in a browser through textual-serve (issue 33, "consider")."""

from __future__ import annotations

import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.cli.servetui import tui_command

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "sample_store"


def test_each_session_runs_the_tui_with_the_options_quoted():
    command = tui_command("my store $(rm -rf x)", [("--broker-config", "b c.conf")], True)
    argv = shlex.split(command)
    assert argv[0] == sys.executable
    assert argv[3:] == ["--utc", "tui", "my store $(rm -rf x)", "--broker-config", "b c.conf"]


def test_a_path_that_is_no_store_is_one_line_before_serving(tmp_path, capsys):
    assert main(["serve-tui", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rmq-inspect:"), err


def test_the_page_is_served_with_its_session_socket():
    pytest.importorskip("textual_serve")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-c", "import sys; from inspector.cli.main import main; "
                               "sys.exit(main())", "serve-tui", str(SAMPLE), "--port", str(port)],
                              cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        page = None
        for _ in range(100):  # up to 20 s on a loaded machine
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as answer:
                    page = answer.read().decode()
                break
            except OSError:
                time.sleep(0.2)
        assert page is not None, "the server did not answer"
        assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in page
    finally:
        server.terminate()
        server.wait(timeout=10)
