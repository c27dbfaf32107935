"""The names of the UI's screens, without loading Textual: ``rmq-inspect tui --screen NAME`` is checked against
them before the app (and Textual) starts."""

from __future__ import annotations

SCREEN_NAMES = ("overview", "hex", "messages", "chain", "ids", "problems", "tour", "exercises", "timer", "story",
                "groups", "search", "stats", "diff", "salvage")
