"""What the CLI's tests share: ``cli``, rmq-inspect run in-process as a user would type it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from inspector.cli.main import main


@pytest.fixture
def cli(capsys) -> Callable[..., tuple[int, str, str]]:
    """``cli("trace", STORE, REF)``: ``main``'s exit code and what it wrote to stdout and stderr (each call's
    own: the capture is read, and so emptied, after each). An argparse exit (``--help``, a usage error) gives
    its code; a traceback in either stream fails the test."""

    def run(*argv: str) -> tuple[int, str, str]:
        try:
            code = main(list(argv))
        except SystemExit as e:
            code = e.code
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        return code, out, err

    return run
