"""What the CLI's tests share: ``cli``, rmq-inspect run in-process as a user would type it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from inspector.cli.main import main


@pytest.fixture
def cli(capsys) -> Callable[..., tuple[int, str, str]]:
    """``cli("trace", STORE, REF)``: ``main``'s exit code and what it wrote to stdout and stderr (each call's
    own: the capture is read, and so emptied, after each)."""

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run
