"""``rmq-inspect serve-tui STORE``: the terminal UI in a browser (textual-serve), for a workshop room without
terminals. Each browser tab runs its own ``rmq-inspect tui STORE …`` process; nothing here reads the store."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence

from inspector.engine import BadInput

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def tui_command(store: str, options: Sequence[tuple[str, str]], utc: bool) -> str:
    """The shell command each browser session runs: this Python, this rmq-inspect, the store and the options the
    server was started with (quoted: a path with spaces or ``$(…)`` stays one inert argument)."""
    argv = [sys.executable, "-c", "import sys; from inspector.cli.main import main; sys.exit(main())",
            *(["--utc"] if utc else []), "tui", store, *[x for pair in options for x in pair]]
    return shlex.join(argv)


def run(store: str, options: Sequence[tuple[str, str]], utc: bool, host: str, port: int) -> int:
    try:
        from textual_serve.server import Server
    except ImportError:
        raise BadInput("serve-tui needs textual-serve: pip install 'rmq-inspect[serve]' (or pip install "
                       "textual-serve)") from None
    if host not in LOOPBACK:  # textual-serve asks no token: whoever reaches the port reads every body
        print(f"rmq-inspect: warning: serve-tui on {host} asks no token: anyone who reaches port {port} reads every "
              "message body of the store", file=sys.stderr)
    Server(tui_command(store, options, utc), host=host, port=port, title=f"rmq-inspect {store}").serve()
    return 0
