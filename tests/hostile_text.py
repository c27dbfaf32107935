"""Store text chosen by a hostile producer, for the terminal-safety tests of the command line and the web viewer.

A store is written the way an operator would: JSON Lines through ``rmq-inspect write`` (``write_store_text``), so
every text field a producer controls (topic, tags, keys, body, property names and values, unique key, producer
group, cluster; a consumer group through ``--consumer-offsets``) can hold terminal escapes, C1 and bidi controls,
Rich and Textual markup and any other text. ``store_messages`` is the hypothesis strategy of such messages;
``UNSAFE`` finds what must never reach a terminal.
"""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from hypothesis import strategies as st

from inspector.cli.main import main

# what no terminal output may hold: C0 controls but the line feed, DEL, C1, the bidi controls and marks, the line
# and paragraph separators, lone surrogates (the set the engine's terminal_text escapes)
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                    "\ud800-\udfff]")

# pieces that have taken terminals over or that a Rich/Textual view would read as markup
DANGEROUS = ("\x1b[2J", "\x1b]0;PWNED\x07", "\x1b[31m", "\x07", "\x00", "\x08", "\x0b", "\x0c", "\r", "\n", "\t",
             "\x7f", "\x85", "\x9b", "\u202e", "\u2066", "\u200f", "\u2028", "[bold]", "[/]", "[/bold]",
             "[link=file:///etc/passwd]x[/link]", "[@click=app.quit]q[/]", ":skull:", "\\", "<script>", "%s", "{}")
# any text JSON can carry: lone surrogates cannot go through `write`'s UTF-8 JSON input
_ANY = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
# the writer refuses these in properties (tags, keys, unique key and producer group are properties too)
SEPARATORS = "\x01\x02"

GEOMETRY = ("--segment-size", "4096", "--cq-file-size", "200", "--index-slots", "16", "--index-items", "64")


def hostile(*, forbid: str = SEPARATORS, max_parts: int = 4) -> st.SearchStrategy[str]:
    """A string of dangerous pieces and arbitrary text; the characters in ``forbid`` removed."""
    drop = str.maketrans("", "", forbid)
    return st.lists(st.one_of(st.sampled_from(DANGEROUS), _ANY), max_size=max_parts).map(
        lambda parts: "".join(parts).translate(drop))


# a topic is a folder name (no slash, backslash or NUL) and a one-byte length; the "T" keeps it clear of the broker's own
# topics (SCHEDULE_TOPIC_XXXX, %LMQ%..., rmq_sys_...), which the writer and the views treat apart
topics = hostile(forbid="/\\\x00").map(lambda t: "T" + t[:40])


T0 = 1_700_000_000_000  # a timer message's store time: its delivery time must lie within timerMaxDelaySec of it


@st.composite
def store_messages(draw, *, timers: bool = False) -> list[dict]:
    """One to three messages for ``rmq-inspect write``, every text field hostile; with ``timers`` the first may
    be a 5.x timer message (its record goes to rmq_sys_wheel_timer, a copy to its topic once delivered)."""
    topic = draw(topics)
    messages = []
    for n in range(draw(st.integers(1, 3))):
        m = {"topic": draw(st.one_of(st.just(topic), topics)), "body": draw(hostile(forbid="")),
             "queue_id": draw(st.integers(0, 1)),
             "tags": draw(st.one_of(st.none(), hostile())),
             "keys": draw(st.lists(hostile(), max_size=3)),
             # "p": a user property, never one the writer sets itself (TAGS, KEYS, UNIQ_KEY ...)
             "properties": draw(st.dictionaries(hostile().map(lambda k: "p" + k), hostile(), max_size=3))}
        for name in ("unique_key", "producer_group", "cluster"):
            if draw(st.booleans()):
                m[name] = "u" + draw(hostile()) if name == "unique_key" else draw(hostile())
        # a timer message keeps its topic in the REAL_TOPIC property: no separators there
        if timers and n == 0 and not set(SEPARATORS) & set(m["topic"]) and draw(st.booleans()):
            m.update(store_timestamp=T0, deliver_ms=T0 + draw(st.sampled_from((1_000, 60_000))))
        messages.append(m)
    return messages


group_names = hostile(forbid="")


def run(*argv: str) -> tuple[int, str, str]:
    """``rmq-inspect ARGV`` in this process: exit code, stdout, stderr (as a pipe would get them)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def write_store_text(folder: Path, messages: list[dict], group: str | None = None) -> tuple[int, str, str]:
    """``rmq-inspect write FOLDER/store`` of ``messages`` (small files), with a consumer offset of ``group`` on
    the first topic; the store is ``folder / "store"``."""
    lines = folder / "messages.jsonl"
    lines.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    extra: list[str] = []
    topic = messages[0]["topic"]
    if group is not None and "@" not in topic:  # the offsets file names "topic@group"
        offsets = folder / "offsets.json"
        offsets.write_text(json.dumps({f"{topic}@{group}": {"0": 1}}), encoding="utf-8")
        extra = ["--consumer-offsets", str(offsets)]
    return run("write", str(folder / "store"), str(lines), *GEOMETRY, *extra)


def unsafe_in(text: str) -> list[str]:
    """Each unsafe character of ``text`` with a little context (for an assertion message)."""
    return [repr(text[max(0, m.start() - 20): m.end() + 20]) for m in UNSAFE.finditer(text)]
