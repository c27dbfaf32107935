"""The engine's own exceptions: every failure names the file and, where it has one, the offset."""

from __future__ import annotations


class StoreError(Exception):
    """A store file could not be read as expected.

    ``file`` is the path relative to the store root when known; ``offset`` the byte
    position inside that file (or a physical offset, as the message says).
    """

    def __init__(self, reason: str, file: str | None = None, offset: int | None = None):
        self.reason = reason
        self.file = file
        self.offset = offset
        where = ""
        if file is not None:
            where = f"{file}" + (f" @ {offset}" if offset is not None else "") + ": "
        super().__init__(where + reason)


class NotFound(StoreError):
    """The thing asked for does not exist in this store (CLI exit code 1)."""


class BadInput(StoreError):
    """The caller's input is malformed (CLI exit code 2)."""


EXIT_NOT_FOUND, EXIT_BAD_INPUT, EXIT_STORE_ERROR = 1, 2, 3  # the documented exit codes of an engine error


def exit_code(error: StoreError) -> int:
    """The documented exit code of an engine error, for every front end: 1 not found, 2 bad input, 3 a store
    file unreadable."""
    if isinstance(error, NotFound):
        return EXIT_NOT_FOUND
    if isinstance(error, BadInput):
        return EXIT_BAD_INPUT
    return EXIT_STORE_ERROR


class BudgetExceeded(Exception):
    """A caller's time budget (``inspector.engine.model.budget.Budget``) ran out. Not a ``StoreError``: nothing is wrong
    with the store, so a step that reports unreadable files must not swallow it."""
