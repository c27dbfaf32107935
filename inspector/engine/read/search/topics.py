"""A topic a search names that the store does not know: "did you mean OrderEvents?" (grep, the TUI's search).

The known topics are what ``Store.topics`` lists (the consume queues and topics.json). A topic missing there may
still have records in the log (never dispatched, its queues deleted), so callers still search; the note only
helps a mistyped name.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

MAX_SUGGESTIONS = 3


def topic_suggestions(topic: str, known: Iterable[str]) -> list[str]:
    """The known topics closest to ``topic`` (a case-only difference first), at most MAX_SUGGESTIONS; [] when
    ``topic`` is known or nothing is close."""
    names = sorted(set(known))
    if topic in names:
        return []
    same_case = [n for n in names if n.lower() == topic.lower()]
    lowered = {n.lower(): n for n in names}
    close = [lowered[n] for n in difflib.get_close_matches(topic.lower(), list(lowered), MAX_SUGGESTIONS, 0.6)]
    return list(dict.fromkeys(same_case + close))[:MAX_SUGGESTIONS]


def unknown_topic_note(topic: str, known: Iterable[str]) -> str | None:
    """None when ``known`` holds ``topic``; else the one line saying so, with the closest names ("did you mean
    OrderEvents?"). Raw store text: a front end escapes it."""
    names = set(known)
    if topic in names:
        return None
    near = topic_suggestions(topic, names)
    note = f"no topic {topic!r} in this store's consume queues or topics.json"
    if near:
        note += "; did you mean " + " or ".join(near) + "?"
    return note
